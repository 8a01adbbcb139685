import Foundation
import Inference
import NumpyFormat

/// `vbg infer`: runs a model on `.npy` tensors and writes its outputs (and, on request, every
/// intermediate value) as `.npy`.
let inferCommand = Command(
    name: "infer",
    summary: "run a model on .npy tensors, write its outputs as .npy",
    usage: """
        usage: vbg infer --model general|landscape|PATH --input [NAME=]X.npy ... --output [NAME=]Y.npy ...
                         [--path reference|fast] [--dump DIR]

        Runs the graph on .npy tensors of any element type (float32, float16, float64, the
        integer types, bool, and strings as numpy's <U dtype) and writes the graph outputs named
        by --output. Give one --input per graph input (none for a model without inputs) and
        --output for any graph outputs as NAME=FILE (NAME is the graph value's name, up to the
        first '='); a model with one input and one output also takes the short form
        --input X.npy --output Y.npy.

        Symbolic and unknown dims of the inputs are bound from the .npy shapes. An input whose
        value a node needs at plan time (a Reshape's shape, a Resize's scales, Clip's bounds fed
        as graph inputs) is fixed into the plan from its .npy file.

        --path picks the kernels (default fast). --dump DIR writes every value the graph
        computes, one file per value, as DIR/<node index>_<name>.npy, and DIR/index.json mapping
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
        let path = ExecutionPath(rawValue: try arguments.choice("path", ExecutionPath.allCases.map(\.rawValue), default: "fast"))!
        let dump = try arguments.value("dump")
        _ = try arguments.positionals()
        try arguments.finish()
        guard !outputSpecs.isEmpty || dump != nil else { throw CLIError.usage("--output or --dump is required") }
        for spec in outputSpecs { try OutputFile.checkFormat(spec.file, of: "--output", format: ".npy", extensions: ["npy"]) }

        let bytes: [UInt8]
        do { bytes = try InferenceModel.readFile(ModelArgument.path(for: modelArgument)) } catch { throw CLIError.input(String(describing: error)) }
        let declared = try InferenceModel.inputNames(in: bytes)
        let feedable = try InferenceModel.inputNames(in: bytes, includingInitializers: true)
        // A model without graph inputs (its outputs computed from constants alone) takes none.
        guard !inputSpecs.isEmpty || declared.isEmpty else { throw CLIError.usage("--input is required") }
        var feeds: [String: Tensor] = [:], stringFeeds: [String: StringTensor] = [:]
        if declared.isEmpty {
            // Not a model with inputs: loading it says why.
            do { _ = try InferenceModel(bytes: bytes) } catch { throw CLIError.input(String(describing: error)) }
        }
        for spec in inputSpecs {
            let name = try spec.name ?? {
                guard inputSpecs.count == 1, declared.count == 1 else {
                    throw CLIError.usage("the model has \(declared.count) inputs (\(declared.joined(separator: ", "))); name each as --input NAME=FILE")
                }
                return declared[0]
            }()
            guard feeds[name] == nil, stringFeeds[name] == nil else { throw CLIError.usage("input '\(name)' is given twice") }
            // A name the model lacks is bad usage, as for --output (exit 2, with the names).
            guard feedable.contains(name) else {
                throw CLIError.usage("the model has no input '\(name)' (inputs: \(declared.joined(separator: ", ")))")
            }
            switch try TensorFile.readValue(spec.file) {
            case let .tensor(tensor): feeds[name] = tensor
            case let .strings(strings): stringFeeds[name] = strings
            }
        }
        let model: InferenceModel
        do {
            model = try InferenceModel(bytes: bytes, inputShapes: feeds.mapValues(\.shape), planTimeInputs: feeds,
                                       planTimeStrings: stringFeeds)
        } catch {
            throw CLIError.input(String(describing: error))
        }
        for warning in model.warnings { printError("vbg infer: warning: \(warning)") }
        var outputs: [(name: String, file: String)] = []
        for spec in outputSpecs {
            let name = try spec.name ?? {
                let names = model.outputs.map(\.name) + model.stringOutputs.keys.sorted()
                guard outputSpecs.count == 1, names.count == 1 else {
                    throw CLIError.usage("the model has \(names.count) outputs; name each as --output NAME=FILE")
                }
                return names[0]
            }()
            guard model.outputs.contains(where: { $0.name == name }) || model.stringOutputs[name] != nil else {
                let names = model.outputs.map(\.name) + model.stringOutputs.keys.sorted()
                throw CLIError.usage("the model has no output '\(name)' (outputs: \(names.joined(separator: ", ")))")
            }
            outputs.append((name, spec.file))
        }
        // String outputs were computed when the model was loaded; a run computes the tensors.
        var results: [String: Tensor] = [:]
        var session: InferenceSession?
        if dump != nil || outputs.contains(where: { model.stringOutputs[$0.name] == nil }) {
            do {
                let running = try InferenceSession(model: model, path: path, keepsIntermediates: dump != nil)
                results = try running.run(feeds.filter { name, _ in !model.fixedInputs.contains(name) })
                session = running
            } catch {
                throw CLIError.input(String(describing: error))
            }
        }
        for (name, file) in outputs {
            if let strings = model.stringOutputs[name] {
                try TensorFile.write(strings, to: file)
            } else {
                try TensorFile.write(results[name]!, to: file)
            }
        }
        if let dump, let session { try ValueDump.write(session, model: model, to: dump, modelName: modelArgument) }
    })

/// A `--input` / `--output` argument, `NAME=FILE` or `FILE`, and the `.npy` conversions.
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
        (.float32, .float32), (.float16, .float16), (.float64, .double), (.int8, .int8), (.int16, .int16),
        (.int32, .int32), (.int64, .int64), (.uint8, .uint8), (.uint16, .uint16), (.uint32, .uint32),
        (.uint64, .uint64), (.bool, .bool),
    ]

    static func read(_ path: String) throws -> Tensor {
        let array: NumpyArray
        do { array = try NumpyArray(contentsOfFile: path) } catch { throw CLIError.input(error.message) }
        let type = types.first { $0.0 == array.dataType }!.1
        return Tensor(type: type, shape: array.shape, bytes: array.data)
    }

    /// What a `.npy` file holds: numbers, or strings (numpy's `<U` dtype).
    enum Value {
        case tensor(Tensor)
        case strings(StringTensor)
    }

    static func readValue(_ path: String) throws -> Value {
        guard let bytes = FileManager.default.contents(atPath: path).map([UInt8].init),
              NumpyStringArray.holdsStrings(bytes) else { return .tensor(try read(path)) }
        do {
            let array = try NumpyStringArray(bytes: bytes)
            return .strings(StringTensor(shape: array.shape, values: array.values))
        } catch {
            throw CLIError.input("\(path): \(error.message)")
        }
    }

    static func write(_ strings: StringTensor, to path: String) throws {
        try OutputFile.write(path) { temporary in
            do {
                try NumpyStringArray(shape: strings.shape, values: strings.values).write(toFile: temporary)
            } catch {
                throw CLIError.input(String(describing: error))
            }
        }
    }

    static func write(_ tensor: Tensor, to path: String) throws {
        let dataType = types.first { $0.1 == tensor.type }!.0
        try OutputFile.write(path) { temporary in
            do {
                try NumpyArray(shape: tensor.shape, dataType: dataType, data: tensor.bytes).write(toFile: temporary)
            } catch {
                throw CLIError.input(String(describing: error))
            }
        }
    }

    /// numpy's name for the dtype of a tensor of `type` (`float32`, `float64`, `int64`, `bool`, ...).
    static func numpyName(of type: ElementType) -> String {
        String(describing: types.first { $0.1 == type }!.0)
    }

    /// `name` with every character but ASCII letters, digits, '.', '-' and '_' replaced by '_'.
    static func sanitised(_ name: String) -> String {
        String(name.map { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) ? $0 : "_" })
    }
}
