import FramePipeline
import Imaging
import PNGCodec
import SRTC

/// The single-picture commands (`blur`, `replace`, `segment`) on the SDK's own components: the
/// segmenter `installVirtualBackground(modelPath:)` loads and the compositor every SDK frame goes
/// through (`DefaultComponents`). A picture is what the SDK's first frame after switching the
/// virtual background on is (its raw mask, nothing to smooth against), so `vbg blur` writes the very
/// pixels the SDK publishes for that frame with the same level and model (`SDKParityTests`).
enum Picture {
    /// The person mask (1 = person) at the frame's size, from `--model general|landscape|PATH`.
    static func mask(of frame: Image, model: String) throws -> Mask {
        try segmented(frame, model: model).mask
    }

    /// The mask, and whether it is a matte's alpha (composited without the edge ramp). A recurrent
    /// model runs from its zero state, as on the SDK's first frame.
    static func segmented(_ frame: Image, model: String) throws -> (mask: Mask, isAlpha: Bool) {
        var mask = Mask(width: frame.width, height: frame.height)
        do {
            let segmenter = try DefaultComponents.makeSegmenter(modelPath: ModelArgument.modelPath(for: model))
            try mask.values.withUnsafeMutableBufferPointer { try segmenter.segment(frame, into: $0) }
            return (mask, segmenter.maskIsAlpha)
        } catch {
            throw CLIError.input(String(describing: error))
        }
    }

    /// The frame with its background replaced by `effect` (opaque, the frame's format).
    static func applying(_ effect: BackgroundEffect, to frame: Image, model: String) throws -> Image {
        let (mask, isAlpha) = try segmented(frame, model: model)
        var output = Image(width: frame.width, height: frame.height, format: frame.format)
        // A new compositor has derived nothing from any mask yet, so any generation number is new.
        DefaultComponents.makeCompositor().composite(frame, mask: mask, maskGeneration: 0, effect: effect, maskIsAlpha: isAlpha,
                                                     into: &output)
        return output
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
