import Foundation
import ONNXInference
import Testing
import TestSupport

/// Robust Video Matting's network as its repository exports it (`Tools/make_rvm_fixture.py`,
/// `Fixtures/rvm/`): recurrent inputs named with the frame's dim names, a Resize whose scales are
/// computed from the `downsample_ratio` input, against onnxruntime on two frames.
@Suite("Robust Video Matting's own export runs frame after frame, as in onnxruntime")
struct RecurrentMattingTests {
    static let outputs = ["fgr", "pha", "r1o", "r2o", "r3o", "r4o"]

    static func tensor(_ file: String) throws -> Tensor {
        let (values, shape) = try Fixtures.floats("rvm/\(file).npy")
        return Tensor(shape: shape, scalars: values)
    }

    static func session(_ path: InferenceSession.ExecutionPath) throws -> InferenceSession {
        try InferenceSession(modelPath: Fixtures.url("rvm/model.onnx").path, options: .init(path: path))
    }

    static let ratio = Tensor(shape: [1], scalars: [Float(0.25)])

    /// Every output within 1e-4 of onnxruntime's, relative to its largest magnitude (the library's bar).
    static func expectMatches(_ results: [String: Tensor], frame: String, path: InferenceSession.ExecutionPath) throws {
        for name in outputs {
            let expected = try tensor("\(frame)_\(name)")
            let actual = try #require(results[name], "no output \(name)")
            let scale = Double(try expected.scalars(as: Float.self).map(abs).max() ?? 0)
            let report = TensorComparison(actual: actual, expected: expected, rtol: 0, atol: 1e-4 * max(scale, 1e-30))
            #expect(report.isClose, "\(frame) \(name) on the \(path) path: \(report)")
        }
    }

    @Test("the first frame from [1, 1, 1, 1] zero states, the second fed the first's r*o", arguments: InferenceSession.ExecutionPath.allCases)
    func twoFrames(path: InferenceSession.ExecutionPath) throws {
        let session = try Self.session(path)
        let zero = Tensor(shape: [1, 1, 1, 1], scalars: [Float(0)])
        var feeds = ["src": try Self.tensor("src"), "downsample_ratio": Self.ratio]
        for k in 1...4 { feeds["r\(k)i"] = zero }
        try Self.expectMatches(try session.run(inputs: feeds), frame: "frame1", path: path)
        feeds["src"] = try Self.tensor("src2")
        for k in 1...4 { feeds["r\(k)i"] = try Self.tensor("frame1_r\(k)o") }
        try Self.expectMatches(try session.run(inputs: feeds), frame: "frame2", path: path)
    }

    @Test("another downsample_ratio is planned when it arrives: the states follow the smaller frame's size")
    func anyRatio() throws {
        let session = try Self.session(.fast)
        let zero = Tensor(shape: [1, 1, 1, 1], scalars: [Float(0)])
        var feeds = ["src": try Self.tensor("src")]
        for k in 1...4 { feeds["r\(k)i"] = zero }
        feeds["downsample_ratio"] = Tensor(shape: [1], scalars: [Float(0.5)])
        let half = try session.run(inputs: feeds)
        // The frame (96x128) at 0.5 is 48x64; r1o is at half that.
        #expect(half["r1o"]?.shape == [1, 8, 24, 32])
        #expect(half["pha"]?.shape == [1, 1, 96, 128])
        feeds["downsample_ratio"] = Self.ratio
        let quarter = try session.run(inputs: feeds)
        #expect(quarter["r1o"]?.shape == [1, 8, 12, 16])
        try Self.expectMatches(quarter, frame: "frame1", path: .fast)
    }
}
