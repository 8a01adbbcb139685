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
}
