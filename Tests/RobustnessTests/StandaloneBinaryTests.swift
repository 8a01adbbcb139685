import Foundation
import Testing

/// `vbg` is one file: the built-in models are linked into it, so a copy of the binary alone in an
/// empty directory (no resource bundle, no `Weights/`) segments, and nothing next to it can make
/// it crash.
@Suite("vbg as a single file")
struct StandaloneBinaryTests {
    @Test("a copy of vbg alone in a directory blurs a picture with the built-in model")
    func copiedBinaryBlurs() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let copy = scratch.inputs.appendingPathComponent("vbg")
        try FileManager.default.copyItem(atPath: VBG.binary, toPath: copy.path)
        let picture = try scratch.input("in.png", fixtureBytes("Fixtures/images/astronaut_on_coffee_320x240.png"))
        let output = scratch.output("out.png")
        for model in ["general", "landscape"] {
            let result = try VBG.run(path: copy.path, ["blur", picture, output, "--model", model], in: scratch.inputs)
            #expect(result.status == 0, "\(model): \(result.standardError)")
            #expect(FileManager.default.fileExists(atPath: output))
            try? FileManager.default.removeItem(atPath: output)
        }
        // Everything in the directory is the binary and the input picture: nothing was unpacked.
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.inputs.path).sorted() == ["in.png", "vbg"])
    }

    /// `--model` is the small landscape model (48x80) so each run takes a few seconds in debug.
    static func pipelineBench(in directory: URL, model: String, effects: String) throws -> [[String: Any]] {
        let result = try VBG.run(["bench", "--pipeline", "--json", "--sizes", "32x32", "--frames", "3", "--warmup", "0",
                                  "--intervals", "1", "--threads", "1", "--effects", effects, "--model", model], in: directory)
        #expect(result.status == 0, "stderr: \(result.standardError)")
        return result.standardOutput.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    @Test("outside the repository, bench --pipeline runs on pictures it draws and says so")
    func pipelineBenchAnywhere() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let model = try scratch.input("small.onnx", fixtureBytes("Fixtures/model/landscape_small/model.onnx"))
        let rows = try Self.pipelineBench(in: scratch.inputs, model: model, effects: "blur,replace")
        #expect(rows.map { $0["effect"] as? String } == ["blur", "replace"])
        #expect(rows.allSatisfy { $0["image"] as? String == "synthetic" && ($0["median_ms"] as? Double ?? 0) > 0 })
    }

    @Test("from the repository's root, bench --pipeline uses its picture (the one of Docs/Performance.md)")
    func pipelineBenchInRepository() throws {
        let rows = try Self.pipelineBench(in: RepositoryPaths.root, model: "Fixtures/model/landscape_small/model.onnx", effects: "blur")
        #expect(rows.map { $0["image"] as? String } == ["Fixtures/images/astronaut_on_coffee_1280x720.png"])
    }
}
