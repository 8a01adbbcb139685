import Foundation
import Testing

/// One row of a bad-input table: a name for the test report, and the malformed bytes, made from a
/// good fixture at test time (nothing malformed is committed).
struct BadInput: CustomTestStringConvertible, Sendable {
    var name: String
    var bytes: @Sendable () -> [UInt8]
    /// A phrase the error's message must contain (case-insensitive), so the test pins down not
    /// only that the reader throws but that it says what is wrong.
    var says: String

    var testDescription: String { name }
}

/// What every error message shown to a user must be: one short line that says something; or, for
/// a model with several problems (`ModelError.problems`), a header line that says how many and
/// then one short line for each.
func isClearMessage(_ text: String) -> Bool {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    return !text.isEmpty && lines.allSatisfy { !$0.isEmpty && $0.count <= 400 }
        && (lines.count == 1 || lines[0].hasSuffix(":"))
}

/// Deterministic pseudo-random bytes (SplitMix64), so a failing row reproduces exactly.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

func randomBytes(count: Int, seed: UInt64) -> [UInt8] {
    var generator = SplitMix64(seed: seed)
    return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
}

/// The bytes of a committed file (repository-relative path); a missing fixture fails loudly.
func fixtureBytes(_ relativePath: String) -> [UInt8] {
    let url = RepositoryPaths.root.appendingPathComponent(relativePath)
    guard let data = FileManager.default.contents(atPath: url.path) else {
        fatalError("fixture missing: \(url.path)")
    }
    return [UInt8](data)
}

enum RepositoryPaths {
    /// The repository root: three levels above this file (Tests/RobustnessTests/BadInput.swift).
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}
