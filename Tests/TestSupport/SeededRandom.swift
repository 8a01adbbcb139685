import Foundation

/// The seed and the size of a seeded test run, from the environment.
///
/// - `VBG_TEST_SEED` (decimal): the seed; unset, the suite's fixed default. Every suite prints the
///   seed it uses and how to replay it.
/// - `VBG_LONG_TESTS=1`: the long variant (more cases per run; CI runs it in a release build).
package enum TestRun {
    /// Whether the long variant runs.
    package static var isLong: Bool { ProcessInfo.processInfo.environment["VBG_LONG_TESTS"] == "1" }

    /// `VBG_TEST_SEED` when set (decimal), else `defaultSeed`; printed with the replay command.
    package static func seed(_ suite: String, default defaultSeed: UInt64) -> UInt64 {
        let text = ProcessInfo.processInfo.environment["VBG_TEST_SEED"]
        let seed = text.flatMap { UInt64($0) } ?? defaultSeed
        print("\(suite): seed \(seed)\(isLong ? " (long run)" : ""); replay with VBG_TEST_SEED=\(seed)"
              + (isLong ? " VBG_LONG_TESTS=1" : ""))
        return seed
    }
}

/// SplitMix64: a small, fast generator whose sequence depends only on its seed (the standard
/// library's generator is not seedable).
package struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    package init(seed: UInt64) { state = seed }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `count` floats uniform in [-scale, scale).
    package mutating func floats(_ count: Int, scale: Float = 1) -> [Float] {
        (0..<count).map { _ in Float.random(in: -scale..<scale, using: &self) }
    }

    /// One element of `values`.
    package mutating func pick<T>(_ values: [T]) -> T { values[Int.random(in: 0..<values.count, using: &self)] }
}
