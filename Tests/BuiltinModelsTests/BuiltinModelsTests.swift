import Foundation
import Testing
import BuiltinModels

@Suite("Built-in models")
struct BuiltinModelsTests {
    /// The package's `Weights/` directory, the source the bytes are linked from.
    static let weights = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Weights")

    @Test("each built-in model's bytes are its ONNX file in Weights/, byte for byte", arguments: BuiltinModel.allCases)
    func bytesAreTheFile(model: BuiltinModel) throws {
        let file = try Data(contentsOf: Self.weights.appendingPathComponent(model.fileName))
        #expect(model.storage.count == file.count)
        #expect(model.bytes == Array(file))
    }

    @Test("the bytes start like an ONNX ModelProto", arguments: BuiltinModel.allCases)
    func startsWithModelProto(model: BuiltinModel) {
        let bytes = model.storage
        #expect(bytes.count > 400_000)
        // ModelProto field 1 (ir_version), wire type 0 (varint): tag byte 0x08, then the IR version 8.
        #expect(Array(bytes.prefix(2)) == [0x08, 0x08])
        // Field 2 (producer_name), wire type 2 (length-delimited) comes next.
        #expect(bytes[2] == 0x12)
    }

    @Test("a built-in model's path name round-trips; other strings are not built-in")
    func pathNames() {
        #expect(BuiltinModel.general.pathName == "builtin:general")
        #expect(BuiltinModel.landscape.pathName == "builtin:landscape")
        for model in BuiltinModel.allCases { #expect(BuiltinModel(pathName: model.pathName) == model) }
        for other in ["general", "builtin:", "builtin:portrait", "/tmp/builtin:general", "selfie_segmentation.onnx"] {
            #expect(BuiltinModel(pathName: other) == nil)
        }
    }

    @Test("the input sizes are MediaPipe's")
    func inputSizes() {
        #expect(BuiltinModel.general.inputWidth == 256 && BuiltinModel.general.inputHeight == 256)
        #expect(BuiltinModel.landscape.inputWidth == 256 && BuiltinModel.landscape.inputHeight == 144)
    }
}
