import Testing
import TestSupport
@testable import Inference

private typealias B = ONNXBuilder

/// The fast path's float16 ↔ float32 Casts (`FastPath/HalfCastSteps.swift`, vector conversions in
/// `Kernels/HalfConversion.swift`) against the reference Cast, bit for bit: every float16 bit
/// pattern widened; and narrowed, every float16 value, each midpoint between neighbours (the ties,
/// which round to the even one), the values around the overflow to infinity and the subnormal
/// range, and pseudo-random float32 bit patterns.
@Suite("float16 Casts on the fast path")
struct HalfCastStepTests {
    private func cast(from: Int64, to: Int64, count: Int) -> [UInt8] {
        B.model(nodes: [B.node("Cast", inputs: ["x"], outputs: ["y"], name: "cast", attributes: [.int("to", to)])],
                inputs: [B.valueInfo("x", dims: [.value(Int64(count))], elementType: from)],
                outputs: [B.valueInfo("y", dims: [.value(Int64(count))], elementType: to)], opset: 13)
    }

    private func runBothPaths(_ bytes: [UInt8], _ x: Inference.Tensor) throws -> (reference: [UInt8], fast: [UInt8]) {
        let model = try InferenceModel(bytes: bytes)
        let reference = try #require(try InferenceSession(model: model, path: .reference).run(["x": x])["y"])
        let fast = try #require(try InferenceSession(model: model, path: .fast).run(["x": x])["y"])
        return (reference.bytes, fast.bytes)
    }

    @Test("float16 → float32: all 65,536 bit patterns (NaN payloads included) equal the reference's")
    func widening() throws {
        let halves = (0...0xFFFF).map { UInt16($0) }
        let bytes = halves.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let (reference, fast) = try runBothPaths(cast(from: 10, to: 1, count: halves.count),
                                                 Inference.Tensor(type: .float16, shape: [halves.count], bytes: bytes))
        #expect(reference.count == 4 * halves.count)
        var differing: [String] = []
        for h in 0..<halves.count where fast[(4 * h)..<(4 * h + 4)] != reference[(4 * h)..<(4 * h + 4)] {
            differing.append("\(String(h, radix: 16)): \(Array(fast[(4 * h)..<(4 * h + 4)])) vs \(Array(reference[(4 * h)..<(4 * h + 4)]))")
        }
        #expect(differing.isEmpty, "\(differing.count) differ: \(differing.prefix(4))")
    }

    @Test("float32 → float16: every half, every midpoint, the overflow and subnormal edges, random bits, equal the reference's")
    func narrowing() throws {
        var values: [UInt32] = []
        for h in 0..<0x7C00 {  // positive finite halves, as float32 bits via the exact widening
            let bits = Inference.Tensor(type: .float16, shape: [1], bytes: [UInt8(h & 0xFF), UInt8(h >> 8)]).doubles[0]
            let f = Float(bits)
            values.append(f.bitPattern)
            values.append(f.nextUp.bitPattern)
            values.append(f.nextDown.bitPattern)
            if h < 0x7BFF {  // the midpoint to the next half (a tie), exact in float32
                let next = Float(Inference.Tensor(type: .float16, shape: [1], bytes: [UInt8((h + 1) & 0xFF), UInt8((h + 1) >> 8)]).doubles[0])
                values.append(((f + next) / 2).bitPattern)
            }
        }
        for f: Float in [65504, 65519.996, 65520, 65536, 1e6, .infinity, .nan, 0x1p-24, 0x1p-25, 0x1.8p-25, 0x1p-26, 0x1p-14, 0x1.ffcp-15,
                         .leastNonzeroMagnitude, .greatestFiniteMagnitude, 0] {
            values.append(f.bitPattern)
        }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<100_000 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            values.append(UInt32(truncatingIfNeeded: state >> 32))
        }
        values += values.map { $0 ^ 0x8000_0000 }  // both signs
        let bytes = values.flatMap { v in (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        let (reference, fast) = try runBothPaths(cast(from: 1, to: 10, count: values.count),
                                                 Inference.Tensor(type: .float32, shape: [values.count], bytes: bytes))
        #expect(reference.count == 2 * values.count)
        var differing: [Int] = []
        for i in 0..<values.count where reference[2 * i] != fast[2 * i] || reference[2 * i + 1] != fast[2 * i + 1] { differing.append(i) }
        let first: [String] = differing.prefix(5).map { (i: Int) -> String in String(values[i], radix: 16) }
        #expect(differing.isEmpty, "\(differing.count) of \(values.count) differ, first float32 bits \(first)")
    }

    @Test("both Casts run on their fast steps, not the reference kernel")
    func runsFast() throws {
        for (from, to) in [(Int64(10), Int64(1)), (1, 10)] {
            let session = try InferenceSession(model: InferenceModel(bytes: cast(from: from, to: to, count: 40)), path: .fast)
            #expect(session.nodeKernels.map(\.op) == ["Cast"])
            #expect(session.nodeKernels.allSatisfy { !$0.runsOnReference }, "Cast \(from) → \(to)")
        }
    }
}
