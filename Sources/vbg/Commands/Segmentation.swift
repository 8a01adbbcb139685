import Imaging
import Inference
import PNGCodec

/// Frame → full-resolution person mask, the way MediaPipe's SelfieSegmentation does it:
/// ``ModelInputSampler`` (ImageToTensor), the model, ``MaskUpsampler`` (cv::resize INTER_LINEAR).
/// Used by the single-image commands (`blur`, `replace`, `segment`).
struct ImageSegmenter {
    let session: InferenceSession
    let inputWidth: Int
    let inputHeight: Int

    /// Loads `--model general|landscape|PATH`; the model must take [1, H, W, 3] and give H·W values.
    init(modelArgument: String) throws {
        let model = try ModelArgument.load(modelArgument)
        guard model.inputs.count == 1, model.outputs.count == 1, model.inputs[0].shape.count == 4,
              model.inputs[0].shape[0] == 1, model.inputs[0].shape[3] == 3 else {
            throw CLIError.input("the model must take one [1, H, W, 3] input and give one output (got \(model.inputs) → \(model.outputs))")
        }
        inputHeight = model.inputs[0].shape[1]
        inputWidth = model.inputs[0].shape[2]
        guard model.outputs[0].elementCount == inputWidth * inputHeight else {
            throw CLIError.input("the model's output \(model.outputs[0].shape) is not one value per input pixel")
        }
        do { session = try InferenceSession(model: model) } catch { throw CLIError.input(String(describing: error)) }
    }

    /// The person mask (1 = person) at the frame's size.
    func mask(for frame: Image) throws -> Mask {
        let sampler = ModelInputSampler(sourceWidth: frame.width, sourceHeight: frame.height,
                                        tensorWidth: inputWidth, tensorHeight: inputHeight)
        var tensor = [Float](repeating: 0, count: sampler.tensorCount)
        tensor.withUnsafeMutableBufferPointer { sampler.sample(frame, into: $0) }
        var small = [Float](repeating: 0, count: inputWidth * inputHeight)
        do {
            try tensor.withUnsafeBufferPointer { input throws(ModelError) in
                try small.withUnsafeMutableBufferPointer { output throws(ModelError) in try session.run(input: input, output: output) }
            }
        } catch {
            throw CLIError.input(String(describing: error))
        }
        var mask = Mask(width: frame.width, height: frame.height)
        MaskUpsampler(sourceWidth: inputWidth, sourceHeight: inputHeight, targetWidth: frame.width, targetHeight: frame.height)
            .upsample(Mask(width: inputWidth, height: inputHeight, values: small), into: &mask)
        return mask
    }
}

/// Reading and writing images for the commands, with errors as `CLIError.input`.
enum ImageFiles {
    /// The message names `path` once: a file error already starts with it.
    static func read(_ path: String) throws -> Image {
        do { return try PNG.read(contentsOfFile: path) } catch {
            if case .file = error { throw CLIError.input(error.description) }
            throw CLIError.input("\(path): \(error)")
        }
    }

    static func write(_ image: Image, to path: String) throws {
        do { try PNG.write(image, toFile: path) } catch { throw CLIError.input(String(describing: error)) }
    }
}
