import FramePipeline
import Imaging
import PNGCodec
import SRTC

/// Frame → full-resolution person mask for the single-image commands (`blur`, `replace`,
/// `segment`), through the SDK's own segmenter: the model's conventions (built-in, or from
/// `MODEL.onnx.json`, its metadata or detection), MediaPipe's preprocessing, the model, the mask
/// upsampling.
struct ImageSegmenter {
    let segmenter: any Segmenter

    /// Loads `--model general|landscape|PATH`.
    init(modelArgument: String) throws {
        do {
            segmenter = try DefaultComponents.makeSegmenter(modelPath: ModelArgument.modelPath(for: modelArgument))
        } catch {
            throw CLIError.input(String(describing: error))
        }
    }

    /// The person mask (1 = person) at the frame's size.
    func mask(for frame: Image) throws -> Mask {
        var values = [Float](repeating: 0, count: frame.width * frame.height)
        do {
            try values.withUnsafeMutableBufferPointer { try segmenter.segment(frame, into: $0) }
        } catch {
            throw CLIError.input(String(describing: error))
        }
        return Mask(width: frame.width, height: frame.height, values: values)
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
