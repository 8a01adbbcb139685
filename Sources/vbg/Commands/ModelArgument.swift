import BuiltinModels
import Inference

/// Resolves `--model general|landscape|PATH` and loads it, turning model errors into input errors.
enum ModelArgument {
    /// The file a model argument names: a built-in model's bundled file, or the path itself.
    static func path(for argument: String) -> String {
        if let builtin = BuiltinModel(rawValue: argument) { return builtin.url.path }
        return argument
    }

    static func load(_ argument: String) throws -> InferenceModel {
        do {
            return try InferenceModel(contentsOfFile: path(for: argument))
        } catch {
            throw CLIError.input(String(describing: error))
        }
    }
}
