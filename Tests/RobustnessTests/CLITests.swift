import Foundation
import Testing
import TestSupport

/// One row of the CLI table: what to run, the exit status and a phrase of the first stderr line.
///
/// `arguments` gets a fresh scratch directory and returns vbg's arguments, writing any input it
/// needs into `scratch.inputs`; outputs must be asked for under `scratch.outputs`.
struct CLIRow: CustomTestStringConvertible, Sendable {
    var name: String
    var status: Int32
    var says: String
    /// Entries of outputs/ that the row itself created (e.g. a directory given as the output).
    var preexisting: [String] = []
    var arguments: @Sendable (Scratch) throws -> [String]

    var testDescription: String { "\(name) → exit \(status)" }
}

/// At the command line, each bad invocation prints a short message on stderr and exits 1
/// (bad input) or 2 (bad usage), and leaves no output file (nor a temporary one) behind.
/// Add rows here as commands land (video: a Y4M cut in frame k must leave frames 0..k-1 in the output).
@Suite("vbg: bad input exits 1, bad usage exits 2, nothing left behind")
struct CLITests {
    // A tiny model and its input keep each row fast in debug: Relu on float32 [1, 5, 7, 9].
    static let model = fixtureBytes("Fixtures/ops/relu/model.onnx")
    static let input = fixtureBytes("Fixtures/ops/relu/input_0.npy")
    static let png = fixtureBytes("Fixtures/images/astronaut_on_coffee_320x240.png")

    /// `vbg infer` on the tiny model with one thing changed.
    static func infer(model: String? = nil, input: String? = nil, output: String? = nil, _ extra: [String] = [],
                      in scratch: Scratch) throws -> [String] {
        ["infer",
         "--model", try model ?? scratch.input("relu.onnx", Self.model),
         "--input", try input ?? scratch.input("x.npy", Self.input),
         "--output", output ?? scratch.output("y.npy")] + extra
    }

    static let usageRows: [CLIRow] = [
        CLIRow(name: "no command", status: 2, says: "usage: vbg") { _ in [] },
        CLIRow(name: "unknown command", status: 2, says: "unknown command 'frobnicate'") { _ in ["frobnicate"] },
        CLIRow(name: "help for an unknown command", status: 2, says: "unknown command 'frobnicate'") { _ in ["help", "frobnicate"] },
        CLIRow(name: "infer: unknown option", status: 2, says: "unknown option --bogus") { try infer(["--bogus", "1"], in: $0) },
        CLIRow(name: "infer: unknown option as the last word", status: 2, says: "unknown option --bogus") { try infer(["--bogus"], in: $0) },
        CLIRow(name: "infer: unknown option before a required one", status: 2, says: "unknown option --bogus") { _ in ["infer", "--bogus"] },
        CLIRow(name: "blur: unknown option before the paths", status: 2, says: "unknown option --bogus") { _ in ["blur", "--bogus"] },
        CLIRow(name: "segment: an option one letter off", status: 2, says: "unknown option --mask-npyy") {
            ["segment", try $0.input("in.png", png), "--mask-npyy", $0.output("m.npy")]
        },
        CLIRow(name: "infer: an option followed by another is without its value", status: 2, says: "--output needs a value") {
            ["infer", "--model", try $0.input("relu.onnx", model), "--input", try $0.input("x.npy", input), "--output", "--path", "fast"]
        },
        CLIRow(name: "infer: unknown --input name (as an unknown --output name)", status: 2, says: "the model has no input 'nope' (inputs: X)") {
            ["infer", "--model", try $0.input("relu.onnx", model), "--input", "nope=" + (try $0.input("x.npy", input)), "--output", $0.output("y.npy")]
        },
        CLIRow(name: "infer: unknown --output name", status: 2, says: "the model has no output 'nope' (outputs: Y)") {
            try infer(output: "nope=" + $0.output("y.npy"), in: $0)
        },
        CLIRow(name: "infer: --input missing", status: 2, says: "--input is required") {
            ["infer", "--model", try $0.input("relu.onnx", model), "--output", $0.output("y.npy")]
        },
        CLIRow(name: "infer: option without its value", status: 2, says: "--output needs a value") {
            ["infer", "--model", try $0.input("relu.onnx", model), "--input", try $0.input("x.npy", input), "--output"]
        },
        CLIRow(name: "infer: option given twice", status: 2, says: "more than once") { try infer(["--model", "general"], in: $0) },
        CLIRow(name: "infer: --path out of its choices", status: 2, says: "--path must be one of") { try infer(["--path", "turbo"], in: $0) },
        CLIRow(name: "infer: stray positional argument", status: 2, says: "expected") { try infer(["extra"], in: $0) },
        CLIRow(name: "inspect: no model", status: 2, says: "expected MODEL") { _ in ["inspect"] },
        CLIRow(name: "blur: --level not a number", status: 2, says: "--level must be a whole number") {
            ["blur", try $0.input("in.png", png), $0.output("out.png"), "--level", "strong"]
        },
        CLIRow(name: "blur: --level out of range", status: 2, says: "--level must be between") {
            ["blur", try $0.input("in.png", png), $0.output("out.png"), "--level", "99999999"]
        },
        // The SDK clamps a level (the product page); the command line refuses every one outside 1…10.
        CLIRow(name: "blur: --level 0", status: 2, says: "--level must be between 1 and 10 (got 0)") {
            ["blur", try $0.input("in.png", png), $0.output("out.png"), "--level", "0"]
        },
        CLIRow(name: "blur: --level 11", status: 2, says: "--level must be between 1 and 10 (got 11)") {
            ["blur", try $0.input("in.png", png), $0.output("out.png"), "--level", "11"]
        },
        CLIRow(name: "blur: --level -3", status: 2, says: "--level must be between 1 and 10 (got -3)") {
            ["blur", try $0.input("in.png", png), $0.output("out.png"), "--level", "-3"]
        },
        CLIRow(name: "video: --blur 99", status: 2, says: "--blur must be between 1 and 10 (got 99)") {
            ["video", "--input", $0.inputs.path + "/absent.y4m", "--output", $0.output("out.y4m"), "--blur", "99"]
        },
        CLIRow(name: "blur: output path missing", status: 2, says: "expected IN.png OUT.png") { ["blur", try $0.input("in.png", png)] },
        CLIRow(name: "replace: --background missing", status: 2, says: "--background is required") {
            ["replace", try $0.input("in.png", png), $0.output("out.png")]
        },
        CLIRow(name: "inspect: a flag given a value", status: 2, says: "takes no value") { _ in ["inspect", "general", "--time-load=yes"] },
        CLIRow(name: "check: no model", status: 2, says: "expected MODEL") { _ in ["check"] },
        CLIRow(name: "check: a negative tolerance", status: 2, says: "--rtol must be a non-negative number") {
            ["check", try $0.input("relu.onnx", model), "--rtol", "-1e-4"]
        },
        CLIRow(name: "check: an empty --range", status: 2, says: "--range takes LO,HI with LO < HI") {
            ["check", try $0.input("relu.onnx", model), "--range", "1,1"]
        },
        CLIRow(name: "check: an integer input it cannot make up", status: 2, says: "give them with --input indices=FILE.npy") {
            ["check", try $0.input("gather.onnx", ONNXBuilder.model(
                nodes: [ONNXBuilder.node("Gather", inputs: ["data", "indices"], outputs: ["y"])],
                initializers: [ONNXBuilder.floatTensor("data", [4, 3], (0..<12).map(Float.init))],
                inputs: [ONNXBuilder.valueInfo("indices", dims: [.value(2)], elementType: 7)],
                outputs: [ONNXBuilder.valueInfo("y", [2, 3])]))]
        },
        // Each command writes one format: a name promising another is refused before any work.
        CLIRow(name: "blur: OUT named .jpg", status: 2, says: "OUT.png is written as PNG: its name must end in .png (got") {
            ["blur", try $0.input("in.png", png), $0.output("out.jpg")]
        },
        CLIRow(name: "blur: OUT named .txt", status: 2, says: "must end in .png") { ["blur", try $0.input("in.png", png), $0.output("out.txt")] },
        CLIRow(name: "replace: OUT named .jpg", status: 2, says: "must end in .png") {
            ["replace", try $0.input("in.png", png), $0.output("out.jpg"), "--background", try $0.input("bg.png", png)]
        },
        CLIRow(name: "segment: --mask named .jpg", status: 2, says: "--mask is written as PNG") {
            ["segment", try $0.input("in.png", png), "--mask", $0.output("mask.jpg")]
        },
        CLIRow(name: "segment: --mask-npy named .txt", status: 2, says: "must end in .npy") {
            ["segment", try $0.input("in.png", png), "--mask-npy", $0.output("mask.txt")]
        },
        CLIRow(name: "video: --output named .mp4", status: 2,
               says: "--output is written as YUV4MPEG2: its name must end in .y4m, or - for standard output (got") {
            ["video", "--input", try $0.input("in.y4m", []), "--output", $0.output("o.mp4"), "--blur", "5"]
        },
        CLIRow(name: "infer: --output named .txt", status: 2, says: "--output is written as .npy or .pb: its name must end in .npy or .pb") {
            try infer(output: $0.output("y.txt"), in: $0)
        },
    ]

    static let inputRows: [CLIRow] = [
        CLIRow(name: "infer: model file missing", status: 1, says: "model not found") { try infer(model: $0.inputs.path + "/absent.onnx", in: $0) },
        CLIRow(name: "infer: model is a directory", status: 1, says: "cannot be read") { try infer(model: $0.inputs.path, in: $0) },
        CLIRow(name: "infer: model is empty", status: 1, says: "the model is empty (0 bytes): not an ONNX model") { try infer(model: $0.input("empty.onnx", []), in: $0) },
        CLIRow(name: "infer: model is random bytes", status: 1, says: "vbg infer:") {
            try infer(model: $0.input("random.onnx", randomBytes(count: 4096, seed: 5)), in: $0)
        },
        CLIRow(name: "infer: model cut in half", status: 1, says: "not a valid ONNX model") {
            try infer(model: $0.input("cut.onnx", Array(model.prefix(model.count / 2))), in: $0)
        },
        CLIRow(name: "infer: model is a PNG", status: 1, says: "not a valid ONNX model") {
            try infer(model: $0.input("photo.onnx", fixtureBytes("Fixtures/images/astronaut.png")), in: $0)
        },
        CLIRow(name: "infer: input file missing", status: 1, says: "no such file") { try infer(input: $0.inputs.path + "/absent.npy", in: $0) },
        CLIRow(name: "infer: input is not a .npy", status: 1, says: "not a .npy file") {
            try infer(input: $0.input("x.npy", Array("hello\n".utf8)), in: $0)
        },
        CLIRow(name: "infer: input cut inside its data", status: 1, says: "bytes of data") {
            try infer(input: $0.input("x.npy", Array(input.dropLast(7))), in: $0)
        },
        CLIRow(name: "infer: input of the wrong shape", status: 1, says: "has shape") {
            try infer(input: $0.input("x.npy", fixtureBytes("Fixtures/model/general/random_0_input.npy")), in: $0)
        },
        CLIRow(name: "infer: input of an unsupported dtype", status: 1, says: "unsupported dtype") {
            var bytes = input
            let header = String(decoding: bytes[10..<128], as: UTF8.self).replacingOccurrences(of: "<f4", with: "<c8")
            bytes.replaceSubrange(10..<128, with: Array(header.utf8))
            return try infer(input: $0.input("x.npy", bytes), in: $0)
        },
        CLIRow(name: "infer: output directory missing", status: 1, says: "absent/y.npy") {
            try infer(output: $0.outputs.path + "/absent/y.npy", in: $0)
        },
        CLIRow(name: "infer: output under a regular file", status: 1, says: "y.npy") {
            try infer(output: $0.input("plain-file", [1]) + "/y.npy", in: $0)
        },
        CLIRow(name: "infer: output is an existing directory", status: 1, says: "cannot write", preexisting: ["y.npy"]) {
            try FileManager.default.createDirectory(atPath: $0.output("y.npy"), withIntermediateDirectories: false)
            return try infer(in: $0)
        },
        CLIRow(name: "infer: output in /proc (unwritable even for root)", status: 1, says: "/proc/self/y.npy") {
            try infer(output: "/proc/self/y.npy", in: $0)
        },
        CLIRow(name: "blur: input is a directory", status: 1, says: "inputs: it is a directory") { ["blur", $0.inputs.path, $0.output("out.png")] },
        CLIRow(name: "replace: --background is a directory", status: 1, says: "inputs: it is a directory") {
            ["replace", try $0.input("in.png", png), $0.output("out.png"), "--background", $0.inputs.path]
        },
        CLIRow(name: "infer: input is a directory", status: 1, says: "inputs: it is a directory") { try infer(input: $0.inputs.path, in: $0) },
        CLIRow(name: "video: input is a directory", status: 1, says: "inputs: it is a directory") {
            ["video", "--input", $0.inputs.path, "--output", $0.output("out.y4m"), "--blur", "5"]
        },
        CLIRow(name: "blur: input missing", status: 1, says: "absent.png") {
            ["blur", $0.inputs.path + "/absent.png", $0.output("out.png")]
        },
        CLIRow(name: "blur: input is not a PNG", status: 1, says: "PNG error") {
            ["blur", try $0.input("in.png", Self.input), $0.output("out.png")]
        },
        CLIRow(name: "blur: input PNG cut in its data", status: 1, says: "PNG error") {
            ["blur", try $0.input("in.png", Array(png.prefix(png.count / 2))), $0.output("out.png")]
        },
        CLIRow(name: "blur: input PNG with a bad CRC", status: 1, says: "CRC") {
            var bytes = png
            bytes[29] ^= 0x55
            return ["blur", try $0.input("in.png", bytes), $0.output("out.png")]
        },
        CLIRow(name: "blur: input PNG of 1,000,000 x 1,000,000", status: 1, says: "in.png") {
            ["blur", try $0.input("in.png", PNGInputTests.withHeader(width: 1_000_000, height: 1_000_000)), $0.output("out.png")]
        },
        CLIRow(name: "segment: input is empty", status: 1, says: "in.png") {
            ["segment", try $0.input("in.png", []), "--mask", $0.output("mask.png")]
        },
        CLIRow(name: "inspect: model file missing", status: 1, says: "model not found") { ["inspect", $0.inputs.path + "/absent.onnx"] },
        CLIRow(name: "check: model file missing", status: 1, says: "model not found") { ["check", $0.inputs.path + "/absent.onnx"] },
        CLIRow(name: "check: input of the wrong shape", status: 1, says: "has shape") {
            ["check", try $0.input("relu.onnx", model), "--input", try $0.input("x.npy", fixtureBytes("Fixtures/model/general/random_0_input.npy"))]
        },
        CLIRow(name: "inspect: model is random bytes", status: 1, says: "vbg inspect:") {
            ["inspect", try $0.input("random.onnx", randomBytes(count: 300, seed: 9))]
        },
    ]

    @Test("a bad invocation prints one short line on stderr, exits with its status, writes nothing",
          arguments: usageRows + inputRows)
    func badInvocation(_ row: CLIRow) throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let arguments = try row.arguments(scratch)
        let result = try VBG.run(arguments, in: scratch.root)

        #expect(result.status == row.status, "stderr: \(result.standardError)")
        let firstLine = result.standardError.split(separator: "\n").first.map(String.init) ?? ""
        #expect(!firstLine.isEmpty && firstLine.count <= 300, "stderr: \(result.standardError)")
        #expect(firstLine.lowercased().contains(row.says.lowercased()), "stderr: \(result.standardError)")
        #expect(!result.standardError.contains("Fatal error") && !result.standardError.contains("Stack dump"))
        #expect(try scratch.leftovers() == row.preexisting.sorted())
    }

    @Test("the good invocation the rows are made from succeeds and writes its output (control)")
    func goodInvocation() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let result = try VBG.run(try Self.infer(in: scratch), in: scratch.root)
        #expect(result.status == 0, "stderr: \(result.standardError)")
        #expect(result.standardError.isEmpty)
        #expect(try scratch.leftovers() == ["y.npy"])
    }

    @Test("a failing run never replaces an existing output file")
    func existingOutputKept() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let previous: [UInt8] = Array("previous contents".utf8)
        try Data(previous).write(to: URL(fileURLWithPath: scratch.output("y.npy")))
        let result = try VBG.run(try Self.infer(input: scratch.input("x.npy", Array(Self.input.dropLast(3))), in: scratch), in: scratch.root)
        #expect(result.status == 1)
        #expect(try scratch.leftovers() == ["y.npy"])
        #expect(FileManager.default.contents(atPath: scratch.output("y.npy")).map { [UInt8]($0) } == previous)
    }
}
