import Testing
import TestSupport
@testable import Inference

/// Kernels whose scratch memory depends on the problem, at sizes past the pool's default
/// scratch (65,536 floats per thread and shared): the fast path sizes the scratch from what each
/// step's kernels state they need, so these run on the fast kernels and match the reference path.
///
/// The 1x1 convolution packs k input channels × 48 pixels (× 16 for the last pixels) into thread
/// scratch before a spilled register tile; it used to put the tile at a fixed offset of 8,192
/// floats in a fixed 65,536-float scratch, so above 512 input channels (170 when its output is
/// written into a zero-bordered map, as before a depthwise convolution) the panel ran into the
/// tile, and above 1,365 past the scratch.
@Suite("Kernel scratch sized from the problem")
struct KernelScratchTests {
    typealias B = ONNXBuilder
    typealias P = PathComparison

    /// One 1x1 convolution `inputChannels` → `outputChannels` with bias on an H×W map.
    static func pointwise(inputChannels k: Int, outputChannels m: Int, height: Int, width: Int, seed: UInt64) -> (bytes: [UInt8], feeds: [String: [Float]]) {
        var random = SeededGenerator(seed: seed)
        let bytes = B.model(
            nodes: [B.node("Conv", inputs: ["x", "w", "b"], outputs: ["y"], attributes: [.ints("kernel_shape", [1, 1])])],
            initializers: [P.tensor("w", [m, k, 1, 1], &random, scale: 2 / Float(k).squareRoot()), P.tensor("b", [m], &random)],
            inputs: [P.value("x", [1, k, height, width])], outputs: [P.value("y", [1, m, height, width])])
        return (bytes, ["x": random.floats(k * height * width)])
    }

    /// The regression cases: 513, 1365, 2048 and 4096 input channels on 1×1 and 16×16 maps. The
    /// quick run takes the 1×1 maps (the 16-pixel panel: past the old tile offset from 513, past
    /// the whole default scratch at 4096), 513 on 16×16 (the 48-pixel panel past the old tile)
    /// and 2048 on 7×7 (one 48-pixel panel, past the whole default scratch); the long run adds
    /// 1365, 2048 and 4096 on 16×16.
    static var manyInputCases: [(inputChannels: Int, size: Int)] {
        [(513, 1), (1365, 1), (2048, 1), (4096, 1), (513, 16), (2048, 7)]
            + (TestRun.isLong ? [(1365, 16), (2048, 16), (4096, 16)] : [])
    }

    @Test("1x1 convolution of 513 to 4096 input channels to 64 on 1×1 and 16×16 maps")
    func pointwiseManyInputs() throws {
        for (k, size) in Self.manyInputCases {
            let (bytes, feeds) = Self.pointwise(inputChannels: k, outputChannels: 64, height: size, width: size, seed: UInt64(k))
            try P.check(bytes, feeds: feeds, "1x1 \(k)→64 on \(size)×\(size)")
        }
    }

    /// A 1x1 convolution `k` → `c` with ReLU, then a 3x3 depthwise convolution (pad 1) with ReLU;
    /// with `residual`, a 1x1 convolution back to `k` channels and the Add of the block's input
    /// (MobileNetV2's inverted residual block: the input stays read after the depthwise
    /// convolution, so the depthwise output never takes its buffer and the pair may run in bands).
    static func pointwiseDepthwise(inputChannels k: Int, channels c: Int, height: Int, width: Int, residual: Bool,
                                   seed: UInt64) -> (bytes: [UInt8], feeds: [String: [Float]]) {
        var random = SeededGenerator(seed: seed)
        var nodes = [B.node("Conv", inputs: ["x", "w1", "b1"], outputs: ["e"], attributes: [.ints("kernel_shape", [1, 1])]),
                     B.node("Relu", inputs: ["e"], outputs: ["r"]),
                     B.node("Conv", inputs: ["r", "w2", "b2"], outputs: ["d"],
                            attributes: [.ints("kernel_shape", [3, 3]), .ints("pads", [1, 1, 1, 1]), .int("group", Int64(c))]),
                     B.node("Relu", inputs: ["d"], outputs: [residual ? "dr" : "y"])]
        var initializers = [P.tensor("w1", [c, k, 1, 1], &random, scale: 2 / Float(k).squareRoot()), P.tensor("b1", [c], &random),
                            P.tensor("w2", [c, 1, 3, 3], &random), P.tensor("b2", [c], &random)]
        if residual {
            nodes += [B.node("Conv", inputs: ["dr", "w3", "b3"], outputs: ["p"], attributes: [.ints("kernel_shape", [1, 1])]),
                      B.node("Add", inputs: ["p", "x"], outputs: ["y"])]
            initializers += [P.tensor("w3", [k, c, 1, 1], &random, scale: 0.5), P.tensor("b3", [k], &random)]
        }
        let outputs = residual ? k : c
        let bytes = B.model(nodes: nodes, initializers: initializers, inputs: [P.value("x", [1, k, height, width])],
                            outputs: [P.value("y", [1, outputs, height, width])])
        return (bytes, ["x": random.floats(k * height * width)])
    }

    @Test("1x1 then depthwise 3x3 in row bands (an inverted residual block) at 171 to 2048 input channels")
    func bandedPointwiseDepthwise() throws {
        // The 1x1 writes a zero-bordered band, through its spilled tile: past the old tile offset
        // from 171 input channels, past the default scratch at 1365 (the long run adds 172, 512, 1365).
        for k in [171, 2048] + (TestRun.isLong ? [172, 512, 1365] : []) {
            // Rows of 25: up to 24 the depthwise runs on its own, vectorised over channels.
            let (bytes, feeds) = Self.pointwiseDepthwise(inputChannels: k, channels: 16, height: 9, width: 25,
                                                         residual: true, seed: UInt64(k))
            try P.check(bytes, feeds: feeds, "1x1 \(k)→16 → depthwise on 9×25")
            let session = try InferenceSession(model: try InferenceModel(bytes: bytes), path: .fast)
            #expect(try Self.layers(session, input: feeds["x"]!) == [["Conv", "Relu", "Conv", "Relu"], ["Conv", "Add"]],
                    "the banded step runs both convolutions")
        }
    }

    @Test("1x1, depthwise 3x3 and 1x1 back on a small map as one step (the expanded and depthwise values pixel-major in shared scratch) past the default scratch: 3840 channels on 6×6, 2048 on 3×3")
    func smallMapInvertedResidual() throws {
        for (k, c, side) in [(320, 3840, 6), (96, 2048, 3)] {
            let (bytes, feeds) = Self.pointwiseDepthwise(inputChannels: k, channels: c, height: side, width: side,
                                                         residual: true, seed: UInt64(c))
            try P.check(bytes, feeds: feeds, "1x1 \(k)→\(c) → depthwise → 1x1 on \(side)×\(side)")
            let session = try InferenceSession(model: try InferenceModel(bytes: bytes), path: .fast)
            #expect(try Self.layers(session, input: feeds["x"]!) == [["Conv", "Relu", "Conv", "Relu", "Conv", "Add"]],
                    "one small-map step")
        }
    }

    @Test("bands of at least four depthwise output rows, the depthwise kernel's register tile, where the rows are wide (96 channels of 48 pixels: 24 KiB a row); a multiple of four where more fit")
    func bandsOfFourRows() throws {
        for (channels, size, atLeast) in [(96, 48, 4), (144, 48, 4), (16, 32, 8)] {
            let (bytes, feeds) = Self.pointwiseDepthwise(inputChannels: 16, channels: channels, height: size, width: size,
                                                         residual: true, seed: UInt64(channels))
            try P.check(bytes, feeds: feeds, "1x1 16→\(channels) → depthwise on \(size)×\(size)")
            let session = try InferenceSession(model: try InferenceModel(bytes: bytes), path: .fast)
            let bands = session.steps.compactMap { ($0 as? PointwiseDepthwiseStep)?.bandRows }
            #expect(bands.count == 1 && bands.allSatisfy { $0 >= atLeast && $0 % 4 == 0 }, "\(channels) channels of \(size): bands of \(bands)")
        }
    }

    @Test("1x1 writing the zero-bordered input of a depthwise convolution (too wide to band) at 171 input channels")
    func paddedPointwiseOutput() throws {
        let inputChannels = 171
        // 1024 channels of 4 columns: a band of rows would recompute more rows than it keeps.
        let (bytes, feeds) = Self.pointwiseDepthwise(inputChannels: inputChannels, channels: 1024, height: 4, width: 4,
                                                     residual: false, seed: 4)
        try P.check(bytes, feeds: feeds, "1x1 \(inputChannels)→1024 → depthwise on 4×4")
        let session = try InferenceSession(model: try InferenceModel(bytes: bytes), path: .fast)
        #expect(try Self.layers(session, input: feeds["x"]!) == [["Conv", "Relu"], ["Conv", "Relu"]], "two steps, not banded")
    }

    /// A squeeze-excite `x · gate(GAP(x))` of `c` channels through `hidden` units on an H×W map:
    /// hidden activation "Relu" or "SiLU" (Sigmoid then Mul, EfficientNet's), gate "HardSigmoid"
    /// (PyTorch's alpha 1/6) or "Sigmoid". With `exposed`, that node's output is also a graph output.
    static func squeezeExcite(channels c: Int, hidden: Int, height: Int, width: Int, hiddenActivation: String,
                              gate: String, exposed: String? = nil, seed: UInt64) -> (bytes: [UInt8], feeds: [String: [Float]]) {
        var random = SeededGenerator(seed: seed)
        var nodes = [B.node("GlobalAveragePool", inputs: ["x"], outputs: ["m"]),
                     B.node("Conv", inputs: ["m", "w1", "b1"], outputs: ["h"], attributes: [.ints("kernel_shape", [1, 1])])]
        if hiddenActivation == "SiLU" {
            nodes += [B.node("Sigmoid", inputs: ["h"], outputs: ["hs"]), B.node("Mul", inputs: ["h", "hs"], outputs: ["r"])]
        } else {
            nodes.append(B.node("Relu", inputs: ["h"], outputs: ["r"]))
        }
        nodes += [B.node("Conv", inputs: ["r", "w2", "b2"], outputs: ["g"], attributes: [.ints("kernel_shape", [1, 1])]),
                  B.node(gate, inputs: ["g"], outputs: ["s"], attributes: gate == "HardSigmoid" ? [.float("alpha", 1.0 / 6)] : []),
                  B.node("Mul", inputs: ["x", "s"], outputs: ["y"])]
        var outputs = [P.value("y", [1, c, height, width])]
        if let exposed { outputs.append(P.value(exposed, [1, ["h", "hs", "r"].contains(exposed) ? hidden : c, 1, 1])) }
        let bytes = B.model(
            nodes: nodes,
            initializers: [P.tensor("w1", [hidden, c, 1, 1], &random, scale: 2 / Float(c).squareRoot()), P.tensor("b1", [hidden], &random),
                           P.tensor("w2", [c, hidden, 1, 1], &random, scale: 4 / Float(hidden).squareRoot()), P.tensor("b2", [c], &random)],
            inputs: [P.value("x", [1, c, height, width])], outputs: outputs)
        return (bytes, ["x": random.floats(c * height * width)])
    }

    @Test("MobileNetV3's and EfficientNet's squeeze-excite: GAP → 1x1 → ReLU or SiLU → 1x1 → HardSigmoid or Sigmoid → Mul, one fused step",
          arguments: ["Relu", "SiLU"], ["HardSigmoid", "Sigmoid"])
    func squeezeExciteFused(hiddenActivation: String, gate: String) throws {
        // MobileNetV3-Large's widest (960 → 240 on 3×3), primes, and the 16 / 64-channel blocks ± 1.
        for (c, hidden, size) in [(960, 240, 3), (672, 168, 7), (17, 5, 1), (63, 1, 2), (65, 4, 5), (1031, 3, 1)] {
            let (bytes, feeds) = Self.squeezeExcite(channels: c, hidden: hidden, height: size, width: size,
                                                    hiddenActivation: hiddenActivation, gate: gate, seed: UInt64(c + hidden))
            let label = "squeeze-excite \(c)→\(hidden) \(hiddenActivation) \(gate) on \(size)×\(size)"
            try P.check(bytes, feeds: feeds, label)
            let session = try InferenceSession(model: try InferenceModel(bytes: bytes), path: .fast)
            let layers = try Self.layers(session, input: feeds["x"]!)
            #expect(layers.count == 1 && layers[0].first == "GlobalAveragePool" && layers[0].last == "Mul", "\(label): \(layers)")
        }
    }

    @Test("near misses of the squeeze-excite: a value inside the chain read by the caller too stays unfused and correct",
          arguments: ["h", "hs", "r", "g", "s"])
    func squeezeExciteNearMiss(exposed: String) throws {
        for hiddenActivation in exposed == "hs" ? ["SiLU"] : ["Relu", "SiLU"] {
            let (bytes, feeds) = Self.squeezeExcite(channels: 40, hidden: 10, height: 3, width: 3, hiddenActivation: hiddenActivation,
                                                    gate: "HardSigmoid", exposed: exposed, seed: 9)
            let label = "squeeze-excite \(hiddenActivation) with '\(exposed)' a graph output"
            // Unfused: every node on its own fast step, and no layer from the pool to the Mul.
            try P.check(bytes, feeds: feeds, label)
            let session = try InferenceSession(model: try InferenceModel(bytes: bytes), path: .fast)
            let layers = FusionFuzzRunner.layers(of: session)
            #expect(!layers.contains { $0.first == "GlobalAveragePool" && $0.last == "Mul" }, "\(label): \(layers)")
        }
    }

    @Test("a squeeze-excite of 40,000 channels: its means, gate and hidden units exceed the default shared scratch")
    func wideSqueezeExcite() throws {
        var random = SeededGenerator(seed: 6)
        let (c, hidden) = (40_000, 2)
        let bytes = B.model(
            nodes: [B.node("GlobalAveragePool", inputs: ["x"], outputs: ["m"]),
                    B.node("Conv", inputs: ["m", "w1", "b1"], outputs: ["h"], attributes: [.ints("kernel_shape", [1, 1])]),
                    B.node("Relu", inputs: ["h"], outputs: ["r"]),
                    B.node("Conv", inputs: ["r", "w2", "b2"], outputs: ["g"], attributes: [.ints("kernel_shape", [1, 1])]),
                    B.node("Sigmoid", inputs: ["g"], outputs: ["s"]),
                    B.node("Mul", inputs: ["s", "x"], outputs: ["y"])],
            initializers: [P.tensor("w1", [hidden, c, 1, 1], &random, scale: 0.02), P.tensor("b1", [hidden], &random),
                           P.tensor("w2", [c, hidden, 1, 1], &random), P.tensor("b2", [c], &random)],
            inputs: [P.value("x", [1, c, 1, 2])], outputs: [P.value("y", [1, c, 1, 2])])
        try P.check(bytes, feeds: ["x": random.floats(c * 2)], "squeeze-excite of \(c) channels")
    }

    @Test("bilinear resizes and a max pool of rows wider than the default scratch")
    func wideRows() throws {
        var random = SeededGenerator(seed: 7)
        let linear: [B.Attribute] = [.string("mode", "linear"), .string("coordinate_transformation_mode", "half_pixel")]
        // By tables to 40,000 columns (two rows of the output width), and a 1x3 max pool over
        // 70,001 columns. (Resize ×2 has its own kernel, whose blended row of W + 34 floats fits
        // the default scratch for every width a model may ask for: 65,536 outputs at most.)
        let cases: [(String, [UInt8], Int)] = [
            ("resize 3 → 40,000 columns", B.model(
                nodes: [B.node("Resize", inputs: ["x", "", "", "sizes"], outputs: ["y"], attributes: linear)],
                initializers: [B.int64Tensor("sizes", [4], [1, 2, 3, 40_000])],
                inputs: [P.value("x", [1, 2, 2, 3])], outputs: [P.value("y", [1, 2, 3, 40_000])]), 12),
            ("max pool 1x3 over 70,001 columns", B.model(
                nodes: [B.node("MaxPool", inputs: ["x"], outputs: ["y"],
                               attributes: [.ints("kernel_shape", [1, 3]), .ints("pads", [0, 1, 0, 1])])],
                inputs: [P.value("x", [1, 1, 2, 70_001])], outputs: [P.value("y", [1, 1, 2, 70_001])]), 140_002),
        ]
        for (label, bytes, count) in cases {
            try P.check(bytes, feeds: ["x": random.floats(count)], label)
        }
    }

    /// The operators of each layer the fast session runs.
    static func layers(_ session: InferenceSession, input: [Float]) throws -> [[String]] {
        var output = [Float](repeating: 0, count: session.model.outputs[0].elementCount)
        return try input.withUnsafeBufferPointer { source in
            try output.withUnsafeMutableBufferPointer { destination in
                try session.profileLayers(input: source, output: destination, runs: 1).map(\.operators)
            }
        }
    }
}
