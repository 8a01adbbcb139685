import Testing
import TestSupport
@testable import Inference

/// Graphs the fuzzer found wrong on the fast path, rebuilt by hand (each named by what the rule
/// missed), with the same graph minus the near miss as the control that still fuses.
@Suite("Fusion fuzz findings: near misses the rules once took")
struct FusionFuzzFindingTests {
    /// The decoder's attention gate `s · gate(mean(s + u)) + u` of two convolutions of `x`, read
    /// by a 1x1 + depthwise pair (the banded step may apply the gate band by band, so the gated
    /// map is never written); `exposed` makes the gate's output a graph output too.
    static func gatedPair(exposed: Bool) -> FuzzCase {
        var g = FuzzGraph(seed: 7)
        // 25 columns: depthwise output rows of 24 or fewer (8 without AVX-512) run on their own,
        // vectorised over channels.
        let x = g.input([1, 12, 7, 25])
        let s = g.conv(x, ConvSpec(outputChannels: 12, kernel: (3, 3), pads: [1, 1, 1, 1], group: 12))
        let u = g.conv(x, ConvSpec(outputChannels: 12, kernel: (3, 3), pads: [1, 1, 1, 1], group: 12, bias: false))
        let sum = g.binary("Add", s, u)
        let hidden = g.activation(g.conv(g.globalAveragePool(sum), ConvSpec(outputChannels: 2)), .relu)
        let gate = g.activation(g.conv(hidden, ConvSpec(outputChannels: 12)), .sigmoid)
        let gated = g.binary("Add", g.binary("Mul", gate, s), u)
        if exposed { g.output(gated) }
        let expanded = g.conv(gated, ConvSpec(outputChannels: 24))
        let depthwise = g.conv(expanded, ConvSpec(outputChannels: 24, kernel: (3, 3), pads: [1, 1, 1, 1], group: 24))
        g.output(g.conv(depthwise, ConvSpec(outputChannels: 12, bias: false)))
        return FuzzCase(family: .attentionGate, seed: 7, graph: g)
    }

    /// Whether the fast session of `fuzzCase` hands an attention gate's application to a banded step.
    static func gateTakenOver(_ fuzzCase: FuzzCase) throws -> Bool {
        let session = try InferenceSession(model: try InferenceModel(bytes: fuzzCase.graph.bytes), path: .fast)
        return session.steps.contains { $0 is AttentionGateValuesStep }
    }

    @Test("a 1x1 + depthwise pair applies the attention gate before it band by band only when the gated map is no graph output",
          arguments: [false, true])
    func attentionGateTakenOverByBandedPair(exposed: Bool) throws {
        let fuzzCase = Self.gatedPair(exposed: exposed)
        let outcome = FusionFuzzRunner.check(fuzzCase, tolerance: FusionFuzzTests.tolerance)
        #expect(outcome.failure == nil, "\(outcome.failure ?? "")\n\(fuzzCase.graph.description)")
        #expect(try Self.gateTakenOver(fuzzCase) == !exposed)
    }

    @Test("a dilated 3x3 whose only tap inside a 2x2 map is the first (pads [0, 0, 3, 3]) crops the map to 1x1: it is no pointwise convolution")
    func trimmedWindowThatCrops() throws {
        for dilation in [2, 1] {
            var g = FuzzGraph(seed: 11)
            let x = g.input([1, 8, 2, 2])
            // Dilation 1 keeps taps inside (the control): a 3x3 over the map, output 1x1 too.
            g.output(g.conv(x, ConvSpec(outputChannels: 3, kernel: (3, 3), dilation: (dilation, dilation),
                                        pads: dilation == 2 ? [0, 0, 3, 3] : [0, 0, 1, 1])))
            let fuzzCase = FuzzCase(family: .convolution, seed: 11, graph: g)
            let outcome = FusionFuzzRunner.check(fuzzCase, tolerance: FusionFuzzTests.tolerance)
            #expect(outcome.failure == nil, "\(outcome.failure ?? "")\n\(fuzzCase.graph.description)")
        }
    }
}

