import Foundation
import Testing
import FramePipeline
import Imaging
import TestSupport

/// The converter-made models of `Fixtures/converted/` (`ConvertedModelTests` checks their
/// values against onnxruntime) as the SDK takes them: `ModelSegmenter(modelPath:)` resolves each
/// one's conventions from its `model.onnx.json` and from the graph, and turns a frame into a mask
/// of the frame's size.
@Suite("Converter-made models segment frames through ModelSegmenter")
struct ConvertedModelSegmenterTests {
    @Test("the convention is resolved and the mask has the frame's size", arguments: ConvertedModel.all.map(\.name))
    func segments(_ name: String) throws {
        let model = try #require(ConvertedModel.named(name))
        let path = Fixtures.url(model.path("model.onnx")).path
        let segmenter = try ModelSegmenter(modelPath: path)
        let convention = segmenter.convention
        #expect(convention.outputName == model.mask, "\(name): \(convention.summary)")
        #expect(convention.inputName == model.inputs[0].name)
        if model.description != nil {
            #expect(convention.sources.values.contains(.file), "\(name): nothing read from its JSON file: \(convention.summary)")
        }
        // A frame of another size and aspect than the model's input, with a gradient in it.
        let (width, height) = (40, 30)
        var bytes = [UInt8](repeating: 255, count: 4 * width * height)
        for y in 0..<height {
            for x in 0..<width {
                let i = 4 * (y * width + x)
                (bytes[i], bytes[i + 1], bytes[i + 2]) = (UInt8(x * 6), UInt8(y * 8), UInt8((x + y) * 3))
            }
        }
        let frame = Image(width: width, height: height, bytes: bytes)
        var mask = [Float](repeating: -1, count: width * height)
        try mask.withUnsafeMutableBufferPointer { try segmenter.segment(frame, into: $0) }
        #expect(mask.allSatisfy { $0 >= 0 && $0 <= 1 }, "\(name): mask values outside [0, 1]: \(mask.min()!) … \(mask.max()!)")
        print("converted \(name) through ModelSegmenter: input \(convention.inputLayout.rawValue) "
              + "\(convention.inputWidth)x\(convention.inputHeight), mask '\(convention.outputName)' "
              + "\(convention.outputLayout.rawValue) \(convention.activation.rawValue), mean \(mask.reduce(0, +) / Float(mask.count))")
    }
}
