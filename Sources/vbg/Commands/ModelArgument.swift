import BuiltinModels
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ONNXInference

/// Resolves `--model general|landscape|PATH` and loads it, turning model errors into input errors.
/// The built-in models are bytes linked into `vbg`, never files next to it.
enum ModelArgument {
    /// What the SDK's `installVirtualBackground(modelPath:)` takes for an argument: a built-in
    /// model's name (`builtin:general`), both for `auto` (what a nil model path installs), or the
    /// path itself.
    static func modelPath(for argument: String) -> String {
        if argument == "auto" { return BuiltinModel.automaticPathName }
        if let builtin = BuiltinModel(rawValue: argument) { return builtin.pathName }
        return argument
    }

    /// A path that reads as the model's ONNX file: the path itself, or for a built-in model a
    /// private unlinked temporary file holding its bytes (`/proc/self/fd/N` on Linux), which lasts
    /// until the process exits. For code that can only read models from files.
    static func path(for argument: String) -> String {
        guard let builtin = BuiltinModel(rawValue: argument) else { return argument }
        return materialized(builtin) ?? builtin.pathName
    }

    /// - Parameters:
    ///   - inputShapes: shapes binding the symbolic or unknown dims of graph inputs.
    ///   - shapeHint: appended to the error when an input's shape must be given (how this
    ///     command takes one).
    static func load(_ argument: String, inputShapes: [String: [Int]] = [:], shapeHint: String? = nil) throws -> PlannedModel {
        do throws(InferenceError) {
            let bytes: [UInt8]
            if let builtin = BuiltinModel(rawValue: argument) { bytes = builtin.bytes } else { bytes = try PlannedModel.readFile(argument) }
            return try PlannedModel(modelData: bytes, inputShapes: inputShapes)
        } catch {
            let message = String(describing: error)
            let needsShape = message.contains("give the input's shape") || message.contains("give its shape")
            throw CLIError.input(message + (needsShape ? shapeHint.map { " (\($0))" } ?? "" : ""))
        }
    }

    /// Every `--shape NAME=DIMS` (DIMS as `1x3x64x64`, or with commas), by input name.
    static func shapes(_ arguments: inout Arguments) throws -> [String: [Int]] {
        var shapes: [String: [Int]] = [:]
        for argument in try arguments.values("shape") {
            guard let equals = argument.lastIndex(of: "="), equals != argument.startIndex else {
                throw CLIError.usage("--shape takes NAME=DIMS, e.g. input=1x3x64x64 (got '\(argument)')")
            }
            let dims = argument[argument.index(after: equals)...].split(whereSeparator: { $0 == "x" || $0 == "," }).map { Int($0) }
            guard !dims.isEmpty, dims.allSatisfy({ $0 != nil && $0! >= 0 }) else {
                throw CLIError.usage("--shape takes NAME=DIMS with DIMS non-negative integers such as 1x3x64x64 (got '\(argument)')")
            }
            let name = String(argument[..<equals])
            guard shapes.updateValue(dims.map { $0! }, forKey: name) == nil else { throw CLIError.usage("--shape for '\(name)' is given twice") }
        }
        return shapes
    }

    /// Fails (usage) when `--shape` names a value that is not one of the model's inputs.
    static func checkShapesNameInputs(_ shapes: [String: [Int]], inputNames: [String]) throws {
        for name in shapes.keys.sorted() where !inputNames.contains(name) {
            throw CLIError.usage("--shape: the model has no input '\(name)' (inputs: \(inputNames.joined(separator: ", ")))")
        }
    }

    private static func materialized(_ model: BuiltinModel) -> String? {
        #if os(Linux)
        let directory = TemporaryFiles.directory
        var template = Array("\(directory)/vbg-model-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { return nil }
        _ = template.withUnsafeBufferPointer { unlink($0.baseAddress!) }
        let storage = model.storage
        var written = 0
        while written < storage.count {
            let count = write(descriptor, storage.baseAddress! + written, storage.count - written)
            if count <= 0 { close(descriptor); return nil }
            written += count
        }
        return "/proc/self/fd/\(descriptor)"
        #else
        return nil
        #endif
    }
}

private enum TemporaryFiles {
    static var directory: String {
        if let value = getenv("TMPDIR"), value.pointee != 0 { return String(cString: value) }
        return "/tmp"
    }
}
