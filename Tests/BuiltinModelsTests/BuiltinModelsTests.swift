import Foundation
import Testing
import BuiltinModels

@Suite("Built-in models")
struct BuiltinModelsTests {
    @Test("each built-in model's ONNX file is in the bundle", arguments: BuiltinModel.allCases)
    func fileIsBundled(model: BuiltinModel) throws {
        #expect(model.url.lastPathComponent == model.fileName)
        let attributes = try FileManager.default.attributesOfItem(atPath: model.url.path)
        let size = try #require(attributes[.size] as? Int)
        #expect(size > 400_000)
    }

    @Test("each file starts like an ONNX ModelProto", arguments: BuiltinModel.allCases)
    func startsWithModelProto(model: BuiltinModel) throws {
        let data = try Data(contentsOf: model.url)
        // ModelProto field 1 (ir_version), wire type 0 (varint): tag byte 0x08, then the IR version 8.
        #expect(Array(data.prefix(2)) == [0x08, 0x08])
        // Field 2 (producer_name), wire type 2 (length-delimited) comes next.
        #expect(data.count > 2 && data[data.startIndex + 2] == 0x12)
    }

    @Test("the input sizes are MediaPipe's")
    func inputSizes() {
        #expect(BuiltinModel.general.inputWidth == 256 && BuiltinModel.general.inputHeight == 256)
        #expect(BuiltinModel.landscape.inputWidth == 256 && BuiltinModel.landscape.inputHeight == 144)
    }
}
