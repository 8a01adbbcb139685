import Testing
import TestSupport
@testable import Inference

/// Runs a small ONNX graph on the reference path and on the fast path (1 and 2 threads) and
/// checks every output of the fast path against the reference's.
///
/// The tolerance is relative to the largest |reference| output, 1e-5 by default. The reference
/// kernels sum in Double; the fast kernels sum in float, one rounding per fused multiply-add, in
/// a fixed order, so a sum of n terms is off by about √n·2⁻²⁴ of its partial sums' scale. With
/// values in [-1, 1] and weights scaled by 2/√n, the worst output of a case is then off by a few
/// 1e-7 of the largest at a few hundred terms and by up to about 3.6e-6 at ``maximumTerms``
/// (2¹³; measured on the long sweeps at seeds 23 and 7: 3.6e-6, a 5x11 patch convolution of 127
/// channels), and by 5.3e-6 at 2¹⁴–2¹⁵ (dense convolutions of 2048 channels), which is why the
/// sweeps stop at 2¹³. Means of 6,100 positive values (a whole-map pool) reach 3.2e-6; exponentials
/// (sigmoid, softmax, within 3 ulp) and single roundings (resize, affine) stay below 1e-6. An
/// indexing error (a term missed, a wrong tile, a scratch overrun) shows as 1e-3 to 1. So 1e-5
/// is about three times the rounding at every size the tests make and far below any fault; a
/// longer sum needs a tolerance derived for it, not this one widened.
enum PathComparison {
    static let tolerance: Float = 1e-5
    /// The longest sum per output (input channels × window taps) the default tolerance covers.
    static let maximumTerms = 1 << 13

    /// The worst relative error of the fast path over its outputs and thread counts.
    ///
    /// - Parameters:
    ///   - fast: when true, also checks that no node runs on its reference kernel on the fast
    ///     path (so the case really tests a fast kernel); when false, that some node does (a
    ///     shape the fast path must leave to the reference kernel).
    @discardableResult
    static func check(_ bytes: [UInt8], feeds: [String: [Float]], fast: Bool = true, tolerance: Float = tolerance,
                      threads: [Int] = [1, 2], _ label: @autoclosure () -> String,
                      sourceLocation: SourceLocation = #_sourceLocation) throws -> Float {
        let model = try InferenceModel(bytes: bytes)
        let reference = try InferenceSession(model: model, path: .reference)
        let expected = try reference.run(inputs: feeds)
        var worst: Float = 0
        for count in threads {
            let session = try InferenceSession(model: model, path: .fast, threads: count)
            let onReference = session.nodeKernels.filter(\.runsOnReference).map(\.op)
            if fast {
                #expect(onReference.isEmpty, "\(label()): on the reference kernel: \(onReference)", sourceLocation: sourceLocation)
            } else {
                #expect(!onReference.isEmpty, "\(label()): expected a reference step", sourceLocation: sourceLocation)
            }
            let actual = try session.run(inputs: feeds)
            for output in model.outputs {
                let want = try #require(expected[output.name]), got = try #require(actual[output.name])
                let difference = Difference(got, want)
                #expect(want.contains { $0 != 0 }, "\(label()): reference output '\(output.name)' is all zeros",
                        sourceLocation: sourceLocation)
                #expect(difference.relative <= tolerance, "\(label()), \(count) thread(s), '\(output.name)': \(difference)",
                        sourceLocation: sourceLocation)
                worst = max(worst, difference.relative.isNaN ? .infinity : difference.relative)
            }
        }
        return worst
    }

    /// A float initializer of `dims` with values uniform in [-scale, scale).
    static func tensor(_ name: String, _ dims: [Int], _ random: inout SeededGenerator, scale: Float = 1) -> [UInt8] {
        ONNXBuilder.floatTensor(name, dims.map(Int64.init), random.floats(dims.reduce(1, *), scale: scale))
    }

    /// A float value_info.
    static func value(_ name: String, _ dims: [Int]) -> [UInt8] { ONNXBuilder.valueInfo(name, dims.map(Int64.init)) }
}
