import Foundation
import NumpyFormat
import ONNXInference

/// `vbg infer`: runs a model on `.npy` (or TensorProto `.pb`) tensors and writes its outputs (and,
/// on request, every intermediate value) as `.npy` or `.pb`.
let inferCommand = Command(
    name: "infer",
    summary: "run a model on .npy or .pb tensors, write its outputs as .npy or .pb",
    usage: """
        usage: vbg infer --model general|landscape|PATH --input [NAME=]X.npy|X.pb ... --output [NAME=]Y.npy|Y.pb ...
                         [--path reference|fast] [--dump DIR]

        Runs the graph on .npy tensors of any element type (float32, float16, float64, the
        integer types, bool, and strings as numpy's <U dtype) and writes the graph outputs named
        by --output. A file named *.pb is a serialized ONNX TensorProto instead (as onnx's
        test_data_set_N/input_K.pb), which also carries the types .npy cannot: bfloat16, the
        float8 types, float4e2m1, and the 4- and 2-bit integers (an output of those types must be
        written as .pb). Give one --input per graph input (none for a model without inputs) and
        --output for any graph outputs as NAME=FILE (NAME is the graph value's name, up to the
        first '='); a model with one input and one output also takes the short form
        --input X.npy --output Y.npy.

        Symbolic and unknown dims of the inputs are bound from the .npy shapes. An input whose
        value a node needs at plan time (a Reshape's shape, a Resize's scales, Clip's bounds fed
        as graph inputs) is fixed into the plan from its .npy file.

        --path picks the kernels (default fast). --dump DIR writes every value the graph
        computes, one file per value, as DIR/<node index>_<name>.npy (.pb for the types .npy
        cannot hold), and DIR/index.json mapping
        each file to its node, op, value name, shape and dtype. A name that is not all ASCII
        letters, digits, '.', '-' and '_', or is longer than 100 bytes, is written with '_' for
        the other characters, cut to 80 and followed by '-' and 8 hex digits of its hash, so
        every file name is short and distinct. The run then keeps every intermediate (no buffer
        reuse, no fusion).
        """,
    run: { arguments in
        guard let modelArgument = try arguments.value("model") else { throw CLIError.usage("--model is required") }
        let inputSpecs = try arguments.values("input").map(TensorFile.init)
        let outputSpecs = try arguments.values("output").map(TensorFile.init)
        let path = InferenceSession.ExecutionPath(rawValue: try arguments.choice("path", InferenceSession.ExecutionPath.allCases.map(\.rawValue), default: "fast"))!
        let dump = try arguments.value("dump")
        _ = try arguments.positionals()
        try arguments.finish()
        guard !outputSpecs.isEmpty || dump != nil else { throw CLIError.usage("--output or --dump is required") }
        for spec in outputSpecs { try OutputFile.checkFormat(spec.file, of: "--output", format: ".npy or .pb", extensions: ["npy", "pb"]) }

        let bytes: [UInt8]
        do { bytes = try PlannedModel.readFile(ModelArgument.path(for: modelArgument)) } catch { throw CLIError.input(String(describing: error)) }
        let declarations: ModelDeclarations
        do { declarations = try ModelDeclarations(modelData: bytes) } catch { throw CLIError.input(String(describing: error)) }
        let declared = declarations.inputs.map(\.name)
        let feedable = declarations.inputNamesIncludingInitializers
        // A model without graph inputs (its outputs computed from constants alone) takes none.
        guard !inputSpecs.isEmpty || declared.isEmpty else { throw CLIError.usage("--input is required") }
        var feeds: [String: Tensor] = [:]
        if declared.isEmpty {
            // Not a model with inputs: planning it says why.
            do { _ = try declarations.planned() } catch { throw CLIError.input(String(describing: error)) }
        }
        for spec in inputSpecs {
            let name = try spec.name ?? {
                guard inputSpecs.count == 1, declared.count == 1 else {
                    throw CLIError.usage("the model has \(declared.count) inputs (\(declared.joined(separator: ", "))); name each as --input NAME=FILE")
                }
                return declared[0]
            }()
            guard feeds[name] == nil else { throw CLIError.usage("input '\(name)' is given twice") }
            // A name the model lacks is bad usage, as for --output (exit 2, with the names).
            guard feedable.contains(name) else {
                throw CLIError.usage("the model has no input '\(name)' (inputs: \(declared.joined(separator: ", ")))")
            }
            feeds[name] = try TensorFile.readValue(spec.file)
        }
        let model: PlannedModel
        do {
            // String inputs are fixed into the plan by value; the others bind the dims.
            model = try declarations.planned(inputShapes: feeds.filter { $0.value.elementType != .string }.mapValues(\.shape),
                                             planTimeInputs: feeds)
        } catch {
            throw CLIError.input(String(describing: error))
        }
        for warning in model.warnings { printError("vbg infer: warning: \(warning)") }
        let outputNames = model.outputs.map(\.name) + model.stringOutputs.keys.sorted()
        var outputs: [(name: String, file: String)] = []
        for spec in outputSpecs {
            let name = try spec.name ?? {
                guard outputSpecs.count == 1, outputNames.count == 1 else {
                    throw CLIError.usage("the model has \(outputNames.count) outputs; name each as --output NAME=FILE")
                }
                return outputNames[0]
            }()
            guard outputNames.contains(name) else {
                throw CLIError.usage("the model has no output '\(name)' (outputs: \(outputNames.joined(separator: ", ")))")
            }
            outputs.append((name, spec.file))
        }
        // String outputs were computed when the model was planned; a run computes the tensors.
        var results = model.stringOutputs
        if dump != nil || outputs.contains(where: { model.stringOutputs[$0.name] == nil }) {
            let session: InferenceSession
            do { session = try InferenceSession(planned: model, options: .init(path: path)) } catch { throw CLIError.input(String(describing: error)) }
            let runFeeds = feeds.filter { !model.fixedInputs.contains($0.key) }
            if let dump {
                results.merge(try ValueDump.write(running: session, on: runFeeds, to: dump, modelName: modelArgument)) { $1 }
            } else {
                do { results.merge(try session.run(inputs: runFeeds)) { $1 } } catch { throw CLIError.input(String(describing: error)) }
            }
        }
        for (name, file) in outputs { try TensorFile.write(results[name]!, to: file, name: name) }
    })

/// A `--input` / `--output` argument, `NAME=FILE` or `FILE`, and the `.npy` and `.pb` conversions.
struct TensorFile {
    var name: String?
    var file: String

    init(_ argument: String) {
        if let equals = argument.firstIndex(of: "=") {
            name = String(argument[..<equals])
            file = String(argument[argument.index(after: equals)...])
        } else {
            file = argument
        }
    }

    private static let types: [(NumpyDataType, ElementType)] = [
        (.float32, .float32), (.float16, .float16), (.float64, .float64), (.int8, .int8), (.int16, .int16),
        (.int32, .int32), (.int64, .int64), (.uint8, .uint8), (.uint16, .uint16), (.uint32, .uint32),
        (.uint64, .uint64), (.bool, .bool),
    ]

    /// The numbers of a `.npy` file.
    static func read(_ path: String) throws -> Tensor {
        let array: NumpyArray
        do { array = try NumpyArray(contentsOfFile: path) } catch { throw CLIError.input(error.message) }
        let type = types.first { $0.0 == array.dataType }!.1
        return Tensor(shape: array.shape, elementType: type, bytes: array.data)
    }

    /// What a `.npy` file holds: numbers, or strings (numpy's `<U` dtype); or a `.pb` file's
    /// serialized TensorProto.
    static func readValue(_ path: String) throws -> Tensor {
        if isTensorProto(path) {
            guard let bytes = FileManager.default.contents(atPath: path) else { throw CLIError.input("\(path): cannot be read") }
            do { return try Tensor(serializedTensorProto: bytes) } catch { throw CLIError.input("\(path): \(error)") }
        }
        guard let bytes = FileManager.default.contents(atPath: path).map([UInt8].init),
              NumpyStringArray.holdsStrings(bytes) else { return try read(path) }
        do {
            let array = try NumpyStringArray(bytes: bytes)
            return Tensor(shape: array.shape, strings: array.values)
        } catch {
            throw CLIError.input("\(path): \(error.message)")
        }
    }

    /// Whether `path` names a TensorProto file (`.pb`) rather than `.npy`.
    static func isTensorProto(_ path: String) -> Bool {
        (path as NSString).pathExtension.lowercased() == "pb"
    }

    /// Whether a `.npy` file can hold elements of `type` (the narrow types have no numpy dtype).
    static func isNumpyType(_ type: ElementType) -> Bool {
        type == .string || types.contains { $0.1 == type }
    }

    /// Writes `tensor` as `.npy` (numpy's `<U` dtype for strings), or as a TensorProto named
    /// `name` when `path` ends in `.pb`.
    static func write(_ tensor: Tensor, to path: String, name: String = "") throws {
        if !isTensorProto(path) && !isNumpyType(tensor.elementType) {
            throw CLIError.input("\(name.isEmpty ? path : "output '\(name)'") is \(tensor.elementType), which .npy cannot hold: write it as .pb (a TensorProto)")
        }
        try OutputFile.write(path) { temporary in
            do {
                if isTensorProto(path) {
                    try Data(tensor.serializedTensorProto(name: name)).write(to: URL(fileURLWithPath: temporary))
                } else if tensor.elementType == .string {
                    try NumpyStringArray(shape: tensor.shape, values: tensor.strings()).write(toFile: temporary)
                } else {
                    let dataType = types.first { $0.1 == tensor.elementType }!.0
                    try NumpyArray(shape: tensor.shape, dataType: dataType, data: tensor.withUnsafeBytes { Array($0) })
                        .write(toFile: temporary)
                }
            } catch {
                throw CLIError.input(String(describing: error))
            }
        }
    }

    /// numpy's name for the dtype of a tensor of `type` (`float32`, `float64`, `int64`, `bool`, ...);
    /// for the types numpy lacks, ml_dtypes' spelling of the ONNX name (`bfloat16`, `float8e4m3fn`, `int4`).
    static func numpyName(of type: ElementType) -> String {
        types.first { $0.1 == type }.map { String(describing: $0.0) } ?? type.rawValue
    }

    /// `name` with every character but ASCII letters, digits, '.', '-' and '_' replaced by '_'.
    static func sanitised(_ name: String) -> String {
        String(name.map { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) ? $0 : "_" })
    }
}
