import Foundation
import Testing

/// A model that cannot run gets the same list of every node that cannot run from each command
/// that loads it: `vbg inspect` on standard output, `vbg infer` and `vbg segment` in their error.
/// The model is tf2onnx's export of MediaPipe's landscape model at opset 13
/// (`Tools/make_tf2onnx_landscape.py`): 11 HardSwish nodes (an op of opset 14) and the TFLite op
/// TFL_Convolution2DTransposeBias, left unconverted in the default domain.
@Suite("vbg: a model that cannot run names every node that cannot run")
struct ModelProblemsCLITests {
    static let model = RepositoryPaths.root.appendingPathComponent("Fixtures/model/landscape_tf2onnx/model.onnx").path

    /// Whether `text` names the TFLite op and each of the 11 HardSwish nodes with its op and opset.
    static func namesEveryNode(_ text: String) -> Bool {
        let hardSwish = (["h_swish"] + (1...10).map { "h_swish_\($0)" }).allSatisfy {
            text.contains("node '\($0)' (HardSwish, ai.onnx opset 13): operator 'HardSwish' does not exist at opset 13")
        }
        return hardSwish && text.contains("node 'conv2d_transpose' (TFL_Convolution2DTransposeBias, ai.onnx opset 13): "
                                          + "operator 'TFL_Convolution2DTransposeBias' is not an ONNX operator")
    }

    @Test("inspect lists the 12 nodes on standard output and exits 1")
    func inspect() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let result = try VBG.run(["inspect", Self.model], in: scratch.root)
        #expect(result.status == 1)
        #expect(result.standardOutput.contains("cannot run (12 problems):"), "\(result.standardOutput)")
        #expect(Self.namesEveryNode(result.standardOutput), "\(result.standardOutput)")
        #expect(result.standardError.hasPrefix("vbg inspect: the model cannot run (12 problems, listed above)"), "\(result.standardError)")
    }

    @Test("infer and segment exit 1 with the same 12 nodes in their error", arguments: ["infer", "segment"])
    func loadingCommands(_ command: String) throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let arguments = command == "infer"
            ? ["infer", "--model", Self.model, "--input", RepositoryPaths.root.appendingPathComponent("Fixtures/model/landscape/input.npy").path,
               "--output", scratch.output("y.npy")]
            : ["segment", RepositoryPaths.root.appendingPathComponent("Fixtures/images/astronaut_on_coffee_320x240.png").path,
               "--model", Self.model, "--mask", scratch.output("mask.png")]
        let result = try VBG.run(arguments, in: scratch.root)
        #expect(result.status == 1)
        #expect(result.standardError.hasPrefix("vbg \(command): 12 nodes cannot run:\n"), "\(result.standardError)")
        #expect(Self.namesEveryNode(result.standardError), "\(result.standardError)")
        #expect(try scratch.leftovers().isEmpty)
    }
}
