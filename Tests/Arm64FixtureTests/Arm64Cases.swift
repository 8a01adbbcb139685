// The model and whole-frame cases the arm64 runner (Tests/Arm64Runner, Embedded Swift under qemu)
// checks against results computed on x86-64 (Fixtures/arm64/). This one file is compiled into the
// runner and into Arm64FixtureTests, which writes the fixtures on x86-64 and checks that x86-64
// still computes them, so both sides run the same code. Foundation-free, no file I/O: each side
// reads and writes files its own way.
import Imaging
import Inference
#if canImport(FramePipeline)
import FramePipeline  // the runner compiles MaskSmoother.swift into itself instead
#endif

enum Arm64Cases {
    /// The built-in models: name, file under `Weights/`, input tensor width and height.
    static let models: [(name: String, file: String, width: Int, height: Int)] = [
        ("general", "selfie_segmentation.onnx", 256, 256),
        ("landscape", "selfie_segmentation_landscape.onnx", 256, 144),
    ]
    /// The frame fixture's size (`Fixtures/arm64/frame_320x240.rgba`, RGBA, rows packed).
    static let frameWidth = 320, frameHeight = 240
    /// The model the whole frame is segmented with (an index into `models`) and the blur level.
    static let frameModel = 0, blurLevel = 7
    /// The float tolerance (absolute) of every mask comparison; byte results compare exactly.
    static let tolerance: Float = 1e-5

    /// The frame as RGBA bytes, rows packed.
    static func frame(_ bytes: [UInt8]) -> Image {
        Image(width: frameWidth, height: frameHeight, format: .rgba8, bytes: bytes)
    }

    /// The second frame of the whole-frame case: the first mirrored left to right.
    static func mirrored(_ frame: Image) -> Image {
        var bytes = frame.bytes
        for y in 0..<frame.height {
            for x in 0..<frame.width {
                for c in 0..<4 {
                    bytes[y * frame.bytesPerRow + 4 * x + c] = frame.bytes[y * frame.bytesPerRow + 4 * (frame.width - 1 - x) + c]
                }
            }
        }
        return Image(width: frame.width, height: frame.height, format: frame.format, bytesPerRow: frame.bytesPerRow, bytes: bytes)
    }

    /// A built-in model's input for `frame`: MediaPipe's sampler (`InputSampling.asymmetric`),
    /// RGB in [0, 1], NHWC, as `ModelSegmenter` feeds the built-in models.
    static func tensor(_ frame: Image, width: Int, height: Int) -> [Float] {
        let sampler = InputSampling.asymmetric.sampler(sourceWidth: frame.width, sourceHeight: frame.height,
                                                       tensorWidth: width, tensorHeight: height)
        var tensor = [Float](repeating: 0, count: 3 * width * height)
        tensor.withUnsafeMutableBufferPointer { sampler.sample(frame, into: $0) }
        return tensor
    }

    /// The model's mask output (one probability per tensor pixel) for `input`.
    static func forward(_ session: InferenceSession, _ input: [Float], outputCount: Int) throws(ModelError) -> [Float] {
        var output = [Float](repeating: .nan, count: outputCount)
        try input.withUnsafeBufferPointer { (input) throws(ModelError) in
            try output.withUnsafeMutableBufferPointer { (output) throws(ModelError) in try session.run(input: input, output: output) }
        }
        return output
    }

    /// One frame segmented as `ModelSegmenter` does it: sampled, run, the mask upsampled to the
    /// frame as `cv::resize(INTER_LINEAR)` (`MaskUpsampler`).
    static func segment(_ frame: Image, _ session: InferenceSession, width: Int, height: Int) throws(ModelError) -> [Float] {
        let probability = try forward(session, tensor(frame, width: width, height: height), outputCount: width * height)
        let upsampler = MaskUpsampler(sourceWidth: width, sourceHeight: height, targetWidth: frame.width, targetHeight: frame.height)
        var mask = [Float](repeating: .nan, count: frame.width * frame.height)
        probability.withUnsafeBufferPointer { p in mask.withUnsafeMutableBufferPointer { upsampler.upsample(p, into: $0) } }
        return mask
    }

    /// The whole-frame case's mask: `frame` and then its mirror image segmented by the fast
    /// session, the second mask smoothed against the first (`MaskSmoother`, MediaPipe's ratio 0.7).
    static func smoothedMask(_ frame: Image, _ session: InferenceSession) throws(ModelError) -> [Float] {
        let model = models[frameModel]
        var smoother = MaskSmoother()
        var smoothed = [Float](repeating: 0, count: frame.width * frame.height)
        for image in [frame, mirrored(frame)] {
            let fresh = try segment(image, session, width: model.width, height: model.height)
            fresh.withUnsafeBufferPointer { f in smoothed.withUnsafeMutableBufferPointer { smoother.smooth(f, into: $0) } }
        }
        return smoothed
    }

    /// The whole-frame case's output for `mask`: the mirrored frame's background blurred and the
    /// person composited over it through the standard edge ramp's byte coverage
    /// (`CoverageMask`, `BackgroundBlur.blurBackground`), as `ImagingCompositor` does for a blur.
    static func composite(_ frame: Image, mask values: [Float]) -> [UInt8] {
        let person = mirrored(frame)
        let mask = Mask(width: person.width, height: person.height, values: values)
        var coverage = CoverageMask(width: mask.width, height: mask.height)
        coverage.update(from: mask, edge: .standard)
        var output = Image(width: person.width, height: person.height, format: person.format,
                           bytes: [UInt8](repeating: 0, count: 4 * person.width * person.height))
        BackgroundBlur().blurBackground(of: person, mask: mask, coverage: coverage, strength: BlurStrength(level: blurLevel),
                                        into: &output)
        return output.bytes
    }

    /// The largest absolute difference between two equally long float arrays (infinity when
    /// their lengths differ or either holds a NaN where the other does not).
    static func largestDifference(_ a: [Float], _ b: [Float]) -> Float {
        guard a.count == b.count else { return .infinity }
        var largest: Float = 0
        for i in a.indices {
            if a[i].isNaN || b[i].isNaN { return .infinity }
            largest = max(largest, abs(a[i] - b[i]))
        }
        return largest
    }
}
