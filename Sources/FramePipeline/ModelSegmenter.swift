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

/// The shipped segmenter: MediaPipe selfie segmentation run by our ONNX engine.
///
/// Per frame: the frame is stretched to the model's input size (bilinear, half-pixel centres, RGB
/// in [0, 1], NHWC: MediaPipe's `keep_aspect_ratio: false`), the session runs, and the
/// model-resolution probability mask is upsampled bilinearly to the frame size. All buffers
/// (input tensor, output mask, resampling tables) are allocated at creation or when the frame size
/// changes, so steady-state frames allocate nothing.
public final class ModelSegmenter: Segmenter {
    public let inputWidth: Int
    public let inputHeight: Int
    private let session: InferenceSession
    private let input: UnsafeMutableBufferPointer<Float>
    private let output: UnsafeMutableBufferPointer<Float>
    private var downsample = ResampleTables()
    private var upsample = ResampleTables()

    /// Loads the model and creates its session.
    ///
    /// - Throws: ``SegmenterLoadError``: `modelNotFound` when there is no file, `sessionFailed`
    ///   when it is not a model this engine runs, or its input is not `[1, H, W, 3]` / output `[1, H, W, 1]`.
    public init(modelPath: String, threads: Int = 1) throws(SegmenterLoadError) {
        let model: InferenceModel
        do {
            model = try InferenceModel(contentsOfFile: modelPath)
            session = try InferenceSession(model: model, path: .fast, threads: threads)
        } catch {
            if case .fileNotFound(let path) = error.kind { throw .modelNotFound(path: path) }
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
        downsample.deallocate()
        upsample.deallocate()
    }

    public var byteCount: Int {
        session.arenaBytes + 4 * (input.count + output.count) + downsample.byteCount + upsample.byteCount
    }

    public func segment(_ frame: Image, into mask: UnsafeMutableBufferPointer<Float>) throws {
        precondition(mask.count == frame.width * frame.height, "mask size does not match the frame")
        downsample.prepare(source: (frame.width, frame.height), destination: (inputWidth, inputHeight))
        upsample.prepare(source: (inputWidth, inputHeight), destination: (frame.width, frame.height))
        preprocess(frame)
        try session.run(input: UnsafeBufferPointer(input), output: output)
        upsampleMask(into: mask, width: frame.width, height: frame.height)
    }

    /// Frame → NHWC RGB floats in [0, 1] at the model size.
    private func preprocess(_ frame: Image) {
        let (r, g, b) = frame.format.channelOffsets
        let stride = frame.bytesPerRow, width = inputWidth, tables = downsample
        let scale: Float = 1 / 255
        frame.bytes.withUnsafeBufferPointer { bytes in
            for y in 0..<inputHeight {
                let y0 = tables.y0[y] * stride, y1 = tables.y1[y] * stride, wy = tables.wy[y]
                for x in 0..<width {
                    let x0 = 4 * tables.x0[x], x1 = 4 * tables.x1[x], wx = tables.wx[x]
                    let o = 3 * (y * width + x)
                    func sample(_ offset: Int) -> Float {
                        let a = Float(bytes[y0 + x0 + offset]), b = Float(bytes[y0 + x1 + offset])
                        let c = Float(bytes[y1 + x0 + offset]), d = Float(bytes[y1 + x1 + offset])
                        let top = a + wx * (b - a), bottom = c + wx * (d - c)
                        return (top + wy * (bottom - top)) * scale
                    }
                    input[o] = sample(r)
                    input[o + 1] = sample(g)
                    input[o + 2] = sample(b)
                }
            }
        }
    }

    /// Model-size mask → frame-size mask.
    private func upsampleMask(into mask: UnsafeMutableBufferPointer<Float>, width: Int, height: Int) {
        let tables = upsample, sourceWidth = inputWidth
        for y in 0..<height {
            let y0 = tables.y0[y] * sourceWidth, y1 = tables.y1[y] * sourceWidth, wy = tables.wy[y]
            for x in 0..<width {
                let x0 = tables.x0[x], x1 = tables.x1[x], wx = tables.wx[x]
                let top = output[y0 + x0] + wx * (output[y0 + x1] - output[y0 + x0])
                let bottom = output[y1 + x0] + wx * (output[y1 + x1] - output[y1 + x0])
                mask[y * width + x] = top + wy * (bottom - top)
            }
        }
    }
}

/// Bilinear sampling positions (half-pixel centres, clamped at the borders) for one resize,
/// rebuilt only when the sizes change.
struct ResampleTables {
    private(set) var source = (0, 0), destination = (0, 0)
    private(set) var x0 = UnsafeMutableBufferPointer<Int>(start: nil, count: 0)
    private(set) var x1 = UnsafeMutableBufferPointer<Int>(start: nil, count: 0)
    private(set) var wx = UnsafeMutableBufferPointer<Float>(start: nil, count: 0)
    private(set) var y0 = UnsafeMutableBufferPointer<Int>(start: nil, count: 0)
    private(set) var y1 = UnsafeMutableBufferPointer<Int>(start: nil, count: 0)
    private(set) var wy = UnsafeMutableBufferPointer<Float>(start: nil, count: 0)

    var byteCount: Int { 20 * (x0.count + y0.count) }

    mutating func prepare(source: (Int, Int), destination: (Int, Int)) {
        guard source != self.source || destination != self.destination else { return }
        deallocate()
        self.source = source
        self.destination = destination
        (x0, x1, wx) = Self.axis(source: source.0, destination: destination.0)
        (y0, y1, wy) = Self.axis(source: source.1, destination: destination.1)
    }

    mutating func deallocate() {
        for buffer in [x0, x1, y0, y1] { buffer.deallocate() }
        wx.deallocate()
        wy.deallocate()
        x0 = .init(start: nil, count: 0); x1 = x0; y0 = x0; y1 = x0
        wx = .init(start: nil, count: 0); wy = wx
    }

    private static func axis(source: Int, destination: Int)
        -> (UnsafeMutableBufferPointer<Int>, UnsafeMutableBufferPointer<Int>, UnsafeMutableBufferPointer<Float>) {
        let first = UnsafeMutableBufferPointer<Int>.allocate(capacity: destination)
        let second = UnsafeMutableBufferPointer<Int>.allocate(capacity: destination)
        let weight = UnsafeMutableBufferPointer<Float>.allocate(capacity: destination)
        let scale = Float(source) / Float(destination)
        for i in 0..<destination {
            let position = max(0, (Float(i) + 0.5) * scale - 0.5)
            let lower = min(Int(position), source - 1)
            first[i] = lower
            second[i] = min(lower + 1, source - 1)
            weight[i] = position - Float(lower)
        }
        return (first, second, weight)
    }
}
