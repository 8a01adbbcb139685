import Foundation

/// One model of `Fixtures/converted/manifest.json` (`Tools/make_converter_models.py`): a small
/// model with random weights written the way an exporter writes it, an input per graph input and
/// onnxruntime's outputs.
package struct ConvertedModel: Decodable, Sendable {
    package struct Tensor: Decodable, Sendable {
        package var name: String
        /// The shape of the `.npy` file (a dynamic dim as it was fed).
        package var shape: [Int]
        package var file: String
    }

    package var name: String
    package var producer: String
    package var opset: Int
    package var what: String
    package var inputs: [Tensor]
    package var outputs: [Tensor]
    /// The graph output holding the mask.
    package var mask: String
    /// `model.onnx.json` when the model has a description beside it.
    package var description: String?

    /// `converted/NAME/FILE`, relative to `Fixtures/`.
    package func path(_ file: String) -> String { "converted/\(name)/\(file)" }

    /// Every model of the manifest, in its order; empty when the manifest is missing or unreadable
    /// (the suites check that it is not).
    package static let all: [ConvertedModel] = {
        struct Manifest: Decodable { var models: [ConvertedModel] }
        guard let data = try? Data(contentsOf: Fixtures.url("converted/manifest.json")),
              let manifest = try? JSONDecoder().decode(Manifest.self, from: data)
        else { return [] }
        return manifest.models
    }()

    /// The model named `name` in the manifest.
    package static func named(_ name: String) -> ConvertedModel? { all.first { $0.name == name } }
}
