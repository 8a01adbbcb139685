import Foundation

/// One model of `Fixtures/converted/manifest.json` (`Tools/make_converter_models.py`): a small
/// model with random weights written the way an exporter writes it, an input per graph input and
/// onnxruntime's outputs.
public struct ConvertedModel: Decodable, Sendable {
    public struct Tensor: Decodable, Sendable {
        public var name: String
        /// The shape of the `.npy` file (a dynamic dim as it was fed).
        public var shape: [Int]
        public var file: String
    }

    public var name: String
    public var producer: String
    public var opset: Int
    public var what: String
    public var inputs: [Tensor]
    public var outputs: [Tensor]
    /// The graph output holding the mask.
    public var mask: String
    /// `model.onnx.json` when the model has a description beside it.
    public var description: String?

    /// `converted/NAME/FILE`, relative to `Fixtures/`.
    public func path(_ file: String) -> String { "converted/\(name)/\(file)" }

    /// Every model of the manifest, in its order; empty when the manifest is missing or unreadable
    /// (the suites check that it is not).
    public static let all: [ConvertedModel] = {
        struct Manifest: Decodable { var models: [ConvertedModel] }
        guard let data = try? Data(contentsOf: Fixtures.url("converted/manifest.json")),
              let manifest = try? JSONDecoder().decode(Manifest.self, from: data)
        else { return [] }
        return manifest.models
    }()

    /// The model named `name` in the manifest.
    public static func named(_ name: String) -> ConvertedModel? { all.first { $0.name == name } }
}
