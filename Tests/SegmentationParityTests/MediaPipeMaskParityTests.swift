import BuiltinModels
import Foundation
import Imaging
import NumpyFormat
import ONNXInference
import PNGCodec
import TestSupport
import Testing

/// Frame → ModelInputSampler → model → MaskUpsampler must give MediaPipe 0.10.21's own
/// `SelfieSegmentation` mask (`Fixtures/mediapipe/`, made by `Tools/make_mediapipe_masks.py`).
@Suite("Full-resolution masks match MediaPipe's SelfieSegmentation")
struct MediaPipeMaskParityTests {
    static let frames = ["astronaut", "astronaut_on_coffee_1280x720", "astronaut_on_coffee_320x240",
                         "astronaut_on_coffee_portrait_270x480"]
    static let cases = BuiltinModel.allCases.flatMap { model in frames.map { (model, $0) } }

    @Test("IoU at 0.5 ≥ 0.999 and mean|Δ| ≤ 1e-4", arguments: cases)
    func parity(_ c: (BuiltinModel, String)) throws {
        let (model, frameName) = c
        let frame = try PNG.read(contentsOfFile: Fixtures.url("images/\(frameName).png").path)
        let expected = try NumpyArray(contentsOfFile: Fixtures.url("mediapipe/\(frameName)_\(model.rawValue).npy").path)
        #expect(expected.shape == [frame.height, frame.width])
        let reference = try expected.floats()

        let session = try InferenceSession(planned: PlannedModel(modelData: model.bytes))
        let sampler = ModelInputSampler(sourceWidth: frame.width, sourceHeight: frame.height,
                                        tensorWidth: model.inputWidth, tensorHeight: model.inputHeight)
        var tensor = [Float](repeating: 0, count: sampler.tensorCount)
        tensor.withUnsafeMutableBufferPointer { sampler.sample(frame, into: $0) }
        var small = [Float](repeating: 0, count: model.inputWidth * model.inputHeight)
        try tensor.withUnsafeBufferPointer { input in
            try small.withUnsafeMutableBufferPointer { try session.run(input: input, output: $0, outputAt: 0) }
        }
        let upsampler = MaskUpsampler(sourceWidth: model.inputWidth, sourceHeight: model.inputHeight,
                                      targetWidth: frame.width, targetHeight: frame.height)
        var mask = [Float](repeating: 0, count: frame.width * frame.height)
        small.withUnsafeBufferPointer { s in mask.withUnsafeMutableBufferPointer { upsampler.upsample(s, into: $0) } }

        var intersection = 0, union = 0
        for (a, b) in zip(mask, reference) {
            let p = a > 0.5, q = b > 0.5
            if p && q { intersection += 1 }
            if p || q { union += 1 }
        }
        let iou = union == 0 ? 1 : Double(intersection) / Double(union)
        let difference = Difference(mask, reference)
        #expect(iou >= 0.999, "IoU \(iou)")
        #expect(difference.meanAbsolute <= 1e-4, "\(difference)")
        print("parity \(model.rawValue) \(frameName) \(frame.width)x\(frame.height): IoU \(iou), \(difference)")
    }
}
