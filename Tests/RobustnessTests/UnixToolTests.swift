import Foundation
import Testing

/// `vbg` behaves as a Unix tool: help on request, a version, messages that name a path once, and
/// an unwritable output refused before any work.
@Suite("vbg as a Unix tool")
struct UnixToolTests {
    static let commands = ["infer", "inspect", "blur", "replace", "segment", "video", "bench", "soak"]

    @Test("--help and -h on every command print its usage on standard output and exit 0", arguments: commands)
    func help(command: String) throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        for flag in ["--help", "-h"] {
            let result = try VBG.run([command, flag], in: scratch.root)
            #expect(result.status == 0)
            #expect(result.standardOutput.hasPrefix("usage: vbg \(command)"))
            #expect(result.standardError.isEmpty)
        }
    }

    @Test("--version prints the version and the build's instruction set")
    func version() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let result = try VBG.run(["--version"], in: scratch.root)
        #expect(result.status == 0)
        #expect(result.standardOutput.hasPrefix("vbg 1.0.0 ("))
        #expect(result.standardOutput.hasSuffix(" build)\n"))
    }

    @Test("a missing input's message names its path once")
    func missingInputNamedOnce() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let result = try VBG.run(["blur", "nosuch.png", scratch.output("out.png")], in: scratch.root)
        #expect(result.status == 1)
        #expect(result.standardError == "vbg blur: nosuch.png: No such file or directory\n")
    }

    @Test("an output in a missing directory or that is a directory fails before the input is read")
    func outputCheckedFirst() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        // The input does not exist either: the output is what the message is about, so it was checked first.
        let missing = try VBG.run(["blur", "nosuch.png", scratch.root.path + "/absent/out.png"], in: scratch.root)
        #expect(missing.status == 1)
        #expect(missing.standardError.contains("cannot write \(scratch.root.path)/absent/out.png: no directory"))
        let directory = try VBG.run(["segment", "nosuch.png", "--mask", scratch.outputs.path], in: scratch.root)
        #expect(directory.status == 1)
        #expect(directory.standardError.contains("it is a directory"))
    }
}
