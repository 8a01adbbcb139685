import Imaging
import Inference

/// Why a ``ModelSegmenter`` could not be created.
public enum SegmenterLoadError: Error, Sendable, CustomStringConvertible {
    /// No model file at the path.
    case modelNotFound(path: String)
    /// The file could not be turned into an inference session (the message names node/op/attribute).
    case sessionFailed(message: String)

    public var description: String {
        switch self {
        case .modelNotFound(let path): "model not found: \(path)"
        case .sessionFailed(let message): message
        }
    }
}

/// The shipped segmenter: MediaPipe selfie segmentation run by our ONNX engine, with MediaPipe's
/// exact pre- and post-processing from the imaging module.
///
/// Per frame: ``ModelInputSampler`` stretches the frame to the model's input size as MediaPipe
/// 0.10.21 does (no letterbox, RGB in [0, 1], NHWC), the session runs, and ``MaskUpsampler``
/// resizes the probability mask to the frame size as `cv::resize(INTER_LINEAR)` does. The input
/// tensor and output mask are allocated at creation, the sampler and upsampler when the frame size
/// changes, so steady-state frames allocate nothing.
public final class ModelSegmenter: Segmenter {
    public let inputWidth: Int
    public let inputHeight: Int
    private let session: InferenceSession
    private let input: UnsafeMutableBufferPointer<Float>
    private let output: UnsafeMutableBufferPointer<Float>
    private var sampler: ModelInputSampler?
    private var upsampler: MaskUpsampler?

    /// Loads the model and creates its session.
    ///
    /// - Throws: ``SegmenterLoadError``: `modelNotFound` when there is no file, `sessionFailed`
    ///   when it is not a model this engine runs, or its input is not `[1, H, W, 3]` / output `[1, H, W, 1]`.
    public convenience init(modelPath: String, threads: Int = 1) throws(SegmenterLoadError) {
        let model: InferenceModel
        do {
            model = try InferenceModel(contentsOfFile: modelPath)
        } catch {
            if case .fileNotFound(let path) = error.kind { throw .modelNotFound(path: path) }
            throw .sessionFailed(message: error.description)
        }
        try self.init(model: model, threads: threads)
    }

    /// Loads the model from its ONNX bytes and creates its session.
    ///
    /// - Throws: ``SegmenterLoadError/sessionFailed(message:)`` as ``init(modelPath:threads:)``.
    public convenience init(modelBytes: [UInt8], threads: Int = 1) throws(SegmenterLoadError) {
        let model: InferenceModel
        do { model = try InferenceModel(bytes: modelBytes) } catch { throw .sessionFailed(message: error.description) }
        try self.init(model: model, threads: threads)
    }

    private init(model: InferenceModel, threads: Int) throws(SegmenterLoadError) {
        do {
            session = try InferenceSession(model: model, path: .fast, threads: threads)
        } catch {
            throw .sessionFailed(message: error.description)
        }
        guard model.inputs.count == 1, model.outputs.count == 1 else {
            throw .sessionFailed(message: "a segmentation model has one input and one output")
        }
        let inShape = model.inputs[0].shape, outShape = model.outputs[0].shape
        guard inShape.count == 4, inShape[0] == 1, inShape[3] == 3, inShape[1] > 0, inShape[2] > 0,
              outShape.count == 4, outShape[0] == 1, outShape[1] == inShape[1], outShape[2] == inShape[2], outShape[3] == 1
        else {
            throw .sessionFailed(message: "expected input [1, H, W, 3] and output [1, H, W, 1], got \(inShape) and \(outShape)")
        }
        inputHeight = inShape[1]
        inputWidth = inShape[2]
        input = .allocate(capacity: inputWidth * inputHeight * 3)
        input.initialize(repeating: 0)
        output = .allocate(capacity: inputWidth * inputHeight)
        output.initialize(repeating: 0)
    }

    deinit {
        input.deallocate()
        output.deallocate()
    }

    public var byteCount: Int { session.arenaBytes + 4 * (input.count + output.count) }

    public func segment(_ frame: Image, into mask: UnsafeMutableBufferPointer<Float>) throws {
        precondition(mask.count == frame.width * frame.height, "mask size does not match the frame")
        if sampler?.sourceWidth != frame.width || sampler?.sourceHeight != frame.height {
            sampler = ModelInputSampler(sourceWidth: frame.width, sourceHeight: frame.height,
                                        tensorWidth: inputWidth, tensorHeight: inputHeight)
            upsampler = MaskUpsampler(sourceWidth: inputWidth, sourceHeight: inputHeight,
                                      targetWidth: frame.width, targetHeight: frame.height)
        }
        sampler!.sample(frame, into: input)
        try session.run(input: UnsafeBufferPointer(input), output: output)
        Self.flushNegligible(output)
        upsampler!.upsample(UnsafeBufferPointer(output), into: mask)
    }

    /// Probabilities below this are set to 0 before upsampling.
    ///
    /// The model's sigmoid saturates to values down to about 1e-38 far from the person; the
    /// bilinear weights of the upsampling then make subnormal floats of them, and on x86 every
    /// vector instruction with a subnormal operand or result takes a microcode assist (on the order
    /// of a hundred cycles). On a 1080p frame that made the upsampling and the temporal smoothing
    /// 2–3x slower than on the same masks without such values. 2⁻⁶⁴ is far below anything the mask
    /// can show (a byte of coverage is 1/255) and far above where products of it with the
    /// upsampling's and smoothing's weights become subnormal. (onnxruntime's own sigmoid returns
    /// exactly 0 below about 3e-8.)
    static let negligibleProbability: Float = 0x1p-64

    /// Sets every value below ``negligibleProbability`` to 0.
    static func flushNegligible(_ values: UnsafeMutableBufferPointer<Float>) {
        for i in values.indices where values[i] < negligibleProbability { values[i] = 0 }
    }
}
