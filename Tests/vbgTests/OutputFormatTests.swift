import Testing
@testable import vbg

/// Each command writes one format; an output's name must say that format, or be a stream.
@Suite("vbg output names")
struct OutputFormatTests {
    @Test("a name ending in the format's extension, in any case, is accepted", arguments: ["out.png", "dir/out.PNG", "x.Png"])
    func extensionAccepted(_ path: String) throws {
        try OutputFile.checkFormat(path, of: "OUT.png", format: "PNG", extensions: ["png"])
    }

    @Test("another extension or none is a usage error naming the accepted one", arguments: ["out.jpg", "out.txt", "out", "out.png.tmp"])
    func extensionRefused(_ path: String) throws {
        let error = try #require(throws: CLIError.self) {
            try OutputFile.checkFormat(path, of: "OUT.png", format: "PNG", extensions: ["png"])
        }
        #expect(error.exitCode == 2)
        #expect(error.message == "OUT.png is written as PNG: its name must end in .png (got \(path))")
    }

    @Test("- is standard output only where the command streams; a special file takes any name")
    func streams() throws {
        try OutputFile.checkFormat("-", of: "--output", format: "YUV4MPEG2", extensions: ["y4m"], standardOutput: true)
        try OutputFile.checkFormat("/dev/null", of: "OUT.png", format: "PNG", extensions: ["png"])
        #expect(throws: CLIError.self) { try OutputFile.checkFormat("-", of: "OUT.png", format: "PNG", extensions: ["png"]) }
    }
}
