import Foundation
import Imaging
import ONNXInference

/// Why a ``ModelSegmenter`` could not be created: the model could not be turned into an inference
/// session (the message names node, op and attribute, the description's field, or the missing
/// file). Whether a model file exists is the caller's question, asked before loading (the SDK's
/// install answers it with its own error).
package struct SegmenterLoadError: Error, Sendable, CustomStringConvertible {
    package let message: String

    package init(message: String) { self.message = message }

    package var description: String { message }
}

/// The shipped segmenter: a person-segmentation ONNX model run by our engine, with the frame
/// resampled as the model wants and the mask upsampled as MediaPipe does.
///
/// Per frame: the model's sampler (``ModelConvention/sampling``: MediaPipe 0.10.21's
/// ``ModelInputSampler`` for the built-in models and by default, or OpenCV's / PyTorch's, see
/// ``InputSampling``) resamples the frame to the model's input size (RGB in [0, 1], NHWC); the
/// values are converted to the model's own convention (``ModelConvention``: layout, channel order,
/// range, mean and std); the session runs, fed its state and constant inputs too; the mask output
/// becomes a probability (its activation, its person channel); and ``MaskUpsampler`` resizes it to
/// the frame size as `cv::resize(INTER_LINEAR)` does. The built-in models take the sampler's tensor
/// and give a probability as they are, with no conversion pass.
///
/// A recurrent model (``ModelConvention/state``) reads its state from a
/// ``SegmenterStreamState`` (zeros after a reset) and writes the next one there. Buffers are
/// allocated at creation, the sampler and upsampler when the frame size changes, so steady-state
/// frames allocate nothing.
package final class ModelSegmenter: Segmenter {
    /// How the model's tensors are read (the input and output sizes among them), and where each
    /// field came from.
    package let convention: ModelConvention
    private let session: InferenceSession
    /// The sampler's NHWC RGB tensor in [0, 1].
    private let sampled: UnsafeMutableBufferPointer<Float>
    /// The model's input (the same buffer as `sampled` when no conversion is needed).
    private let input: UnsafeMutableBufferPointer<Float>
    /// The model's mask output, and its index among the graph outputs.
    private let output: UnsafeMutableBufferPointer<Float>
    private let outputIndex: Int
    /// The person probability at the output's resolution (the same buffer as `output` when the
    /// output is one already).
    private let probability: UnsafeMutableBufferPointer<Float>
    /// Per tensor channel, the input value of each pixel level 0…255 (samplers of levels).
    private let inputTable: [Float]
    /// Per tensor channel, `value = sample · inputScale[c] + inputOffset[c]` (samplers of floats).
    private let inputScale: [Float], inputOffset: [Float]
    private let sampling: InputSampling
    private var sampler: FrameSampler?
    private var upsampler: MaskUpsampler?

    /// What feeds each graph input, in the session's order.
    private enum Feed {
        case image
        case state(Int)
        case constant(UnsafeRawBufferPointer)
    }
    /// What each graph output is, in the session's order.
    private enum Role {
        case mask
        case state(Int)
        case unused
    }
    private let feeds: [Feed]
    private let roles: [Role]
    /// The constants fed at run time (those planning did not fix), owned here.
    private let constantStorage: [UnsafeMutableRawBufferPointer]
    /// The byte count of each state tensor, in ``ModelConvention/state`` order.
    private let stateByteCounts: [Int]
    /// The state ``segment(_:into:)`` runs from: zeros every call.
    private var scratchState: SegmenterStreamState?
    /// Whether the session has one input (the image) and no state: it runs through the
    /// single-input call, which reads the tensor in place.
    private let isSingleInput: Bool

    /// Loads the model, resolves its conventions and creates its session.
    ///
    /// - Parameters:
    ///   - description: the model's conventions given in code; fields it leaves out come from
    ///     `MODEL.onnx.json` beside the model, the model's metadata, or detection
    ///     (``ModelConvention``).
    /// - Throws: ``SegmenterLoadError`` when there is no readable file, when it is not a model this
    ///   engine runs, or when its description is bad.
    package convenience init(modelPath: String, description: SegmentationModelDescription? = nil,
                            threads: Int = 1) throws(SegmenterLoadError) {
        let bytes: [UInt8]
        do {
            bytes = try PlannedModel.readFile(modelPath)
        } catch {
            throw SegmenterLoadError(message: error.description)
        }
        let file = ModelConvention.descriptionFile(forModelAt: modelPath)
        let json = FileManager.default.contents(atPath: file)
        if json == nil, FileManager.default.fileExists(atPath: file) { throw SegmenterLoadError(message: "cannot read \(file)") }
        try self.init(bytes: bytes, description: description, file: json, threads: threads)
    }

    /// Loads the model from its ONNX bytes, resolves its conventions (with no JSON file) and
    /// creates its session.
    ///
    /// - Throws: ``SegmenterLoadError`` as ``init(modelPath:description:threads:)``.
    package convenience init(modelBytes: [UInt8], description: SegmentationModelDescription? = nil,
                            threads: Int = 1) throws(SegmenterLoadError) {
        try self.init(bytes: modelBytes, description: description, file: nil, threads: threads)
    }

    private convenience init(bytes: [UInt8], description: SegmentationModelDescription?, file: Data?,
                             threads: Int) throws(SegmenterLoadError) {
        let segmentation: SegmentationModel
        do {
            segmentation = try SegmentationModel(parsed: try ModelDeclarations(modelData: bytes), code: description, file: file)
        } catch let error as SegmentationModel.LoadError {
            throw SegmenterLoadError(message: error.description)
        } catch {
            throw SegmenterLoadError(message: String(describing: error))
        }
        try self.init(segmentation, threads: threads)
    }

    /// A segmenter for a planned segmentation model.
    ///
    /// - Throws: ``SegmenterLoadError`` when the session cannot be made.
    package init(_ segmentation: SegmentationModel, threads: Int = 1) throws(SegmenterLoadError) {
        let model = segmentation.model
        convention = segmentation.convention
        do {
            session = try InferenceSession(planned: model, options: .init(path: .fast, threads: threads), isOnlySession: true)
        } catch {
            throw SegmenterLoadError(message: error.description)
        }
        let outputName = convention.outputName
        outputIndex = model.outputs.firstIndex { $0.name == outputName }!
        let state = convention.state
        stateByteCounts = state.map { pair in model.inputs.first { $0.name == pair.input }!.byteCount }
        var constantStorage: [UnsafeMutableRawBufferPointer] = []
        var feeds: [Feed] = []
        for description in model.inputs {
            if description.name == convention.inputName {
                feeds.append(.image)
            } else if let index = state.firstIndex(where: { $0.input == description.name }) {
                feeds.append(.state(index))
            } else {
                // A constant planning left as an input: fed its value every run.
                let tensor = segmentation.constants[description.name]!
                let byteCount = tensor.count * tensor.elementType.byteCount
                let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(byteCount, 1), alignment: 64)
                tensor.withUnsafeBytes { storage.copyMemory(from: $0) }
                constantStorage.append(storage)
                feeds.append(.constant(UnsafeRawBufferPointer(rebasing: storage[0..<byteCount])))
            }
        }
        self.feeds = feeds
        self.constantStorage = constantStorage
        roles = model.outputs.enumerated().map { index, description in
            if index == model.outputs.firstIndex(where: { $0.name == outputName }) { return .mask }
            if let pair = state.firstIndex(where: { $0.output == description.name }) { return .state(pair) }
            return .unused
        }
        isSingleInput = feeds.count == 1
        sampling = InputSampling(rawValue: convention.sampling.rawValue)!
        let pixels = convention.inputWidth * convention.inputHeight
        sampled = .allocate(capacity: 3 * pixels)
        sampled.initialize(repeating: 0)
        let convertsInput = !(convention.inputLayout == .nhwc && convention.channels == .rgb && convention.range == .init(low: 0, high: 1)
            && convention.mean == [0, 0, 0] && convention.std == [1, 1, 1])
        input = convertsInput ? .allocate(capacity: 3 * pixels) : sampled
        if convertsInput { input.initialize(repeating: 0) }
        let outputCount = convention.outputWidth * convention.outputHeight * convention.outputChannels
        output = .allocate(capacity: outputCount)
        output.initialize(repeating: 0)
        let convertsOutput = convention.outputChannels != 1 || convention.activation != .none
        probability = convertsOutput ? .allocate(capacity: convention.outputWidth * convention.outputHeight) : output
        if convertsOutput { probability.initialize(repeating: 0) }
        let (low, high) = (convention.range.low, convention.range.high), mean = convention.mean, std = convention.std
        inputTable = (0..<3).flatMap { c in
            (0..<256).map { p in ((Float(p) / 255) * (high - low) + low - mean[c]) / std[c] }
        }
        inputScale = (0..<3).map { c in (high - low) / std[c] }
        inputOffset = (0..<3).map { c in (low - mean[c]) / std[c] }
        byteCount = session.heldBytes + session.modelHeldBytes + 4 * (sampled.count + output.count)
            + (convertsInput ? 4 * input.count : 0) + (convertsOutput ? 4 * probability.count : 0)
            + stateByteCounts.reduce(0, +)
    }

    deinit {
        if input.baseAddress != sampled.baseAddress { input.deallocate() }
        if probability.baseAddress != output.baseAddress { probability.deallocate() }
        sampled.deallocate()
        output.deallocate()
        for storage in constantStorage { storage.deallocate() }
    }

    /// Counted once when the segmenter is made (nothing it holds grows after): walking the model
    /// and the session's steps allocates, and a caller reads it under the frame path's lock.
    package let byteCount: Int

    package var maskIsAlpha: Bool { convention.outputKind == .alpha }

    package func makeStreamState() -> SegmenterStreamState? {
        stateByteCounts.isEmpty ? nil : SegmenterStreamState(owner: self, byteCounts: stateByteCounts)
    }

    package func segment(_ frame: Image, into mask: UnsafeMutableBufferPointer<Float>) throws {
        try segment(frame, into: mask, state: nil)
    }

    package func segment(_ frame: Image, into mask: UnsafeMutableBufferPointer<Float>, state: SegmenterStreamState?) throws {
        precondition(mask.count == frame.width * frame.height, "mask size does not match the frame")
        if sampler?.sourceWidth != frame.width || sampler?.sourceHeight != frame.height {
            sampler = sampling.sampler(sourceWidth: frame.width, sourceHeight: frame.height,
                                       tensorWidth: convention.inputWidth, tensorHeight: convention.inputHeight)
            upsampler = MaskUpsampler(sourceWidth: convention.outputWidth, sourceHeight: convention.outputHeight,
                                      targetWidth: frame.width, targetHeight: frame.height)
        }
        sampler!.sample(frame, into: sampled)
        if input.baseAddress != sampled.baseAddress { convertInput() }
        if isSingleInput {
            try session.run(input: UnsafeBufferPointer(input), output: output, outputAt: outputIndex)
        } else {
            run(state: streamState(state))
        }
        if probability.baseAddress != output.baseAddress { convertOutput() }
        Self.flushNegligible(probability)
        upsampler!.upsample(UnsafeBufferPointer(probability), into: mask)
    }

    /// The state to run from: the stream's, or (none given) the scratch one at zero.
    private func streamState(_ given: SegmenterStreamState?) -> SegmenterStreamState? {
        if stateByteCounts.isEmpty { return nil }
        if let given {
            precondition(given.owner == ObjectIdentifier(self), "a stream state is read only by the segmenter that made it")
            return given
        }
        if scratchState == nil { scratchState = makeStreamState() }
        scratchState!.reset()
        return scratchState
    }

    /// One run fed the image, the state (zeroed first after a reset) and the constants; the mask
    /// output into `output`, each state output into the state for the next run.
    private func run(state: SegmenterStreamState?) {
        if let state, state.isReset {
            for buffer in state.buffers { buffer.initializeMemory(as: UInt8.self, repeating: 0) }
            state.isReset = false
        }
        let image = UnsafeRawBufferPointer(input)
        session.run(
            copyingInputs: { index in
                switch feeds[index] {
                case .image: return image
                case let .state(k): return UnsafeRawBufferPointer(rebasing: state!.buffers[k][0..<stateByteCounts[k]])
                case let .constant(bytes): return bytes
                }
            },
            readingOutputs: { index, bytes in
                switch roles[index] {
                case .mask: UnsafeMutableRawBufferPointer(output).copyMemory(from: bytes)
                case let .state(k): state!.buffers[k].copyMemory(from: bytes)
                case .unused: break
                }
            })
    }

    /// The sampler's NHWC RGB values (each k/255, or any value in [0, 1] for a sampler of
    /// floats) to the model's layout, order and scale.
    private func convertInput() {
        let pixels = convention.inputWidth * convention.inputHeight
        let planar = convention.inputLayout == .nchw, swapsRedBlue = convention.channels == .bgr
        guard sampling.samplesLevels else {
            for c in 0..<3 {
                let source = swapsRedBlue ? 2 - c : c
                let scale = inputScale[c], offset = inputOffset[c]
                for i in 0..<pixels { input[planar ? c * pixels + i : 3 * i + c] = sampled[3 * i + source] * scale + offset }
            }
            return
        }
        inputTable.withUnsafeBufferPointer { table in
            for c in 0..<3 {
                let source = swapsRedBlue ? 2 - c : c
                let row = table.baseAddress! + 256 * c
                for i in 0..<pixels {
                    let byte = Int((sampled[3 * i + source] * 255).rounded())
                    input[planar ? c * pixels + i : 3 * i + c] = row[byte]
                }
            }
        }
    }

    /// The mask output to one probability per pixel: the person channel after the activation
    /// (values outside [0, 1] of an output read as is are clamped).
    private func convertOutput() {
        let pixels = convention.outputWidth * convention.outputHeight, channels = convention.outputChannels
        let planar = convention.outputLayout == .nchw, person = convention.personChannel
        func value(_ i: Int, _ k: Int) -> Float { output[planar ? k * pixels + i : i * channels + k] }
        for i in 0..<pixels {
            let x = value(i, person)
            switch convention.activation {
            case .none:
                probability[i] = min(max(x, 0), 1)
            case .sigmoid:
                probability[i] = 1 / (1 + expf(-x))
            case .softmax:
                var largest = x
                for k in 0..<channels { largest = max(largest, value(i, k)) }
                var sum: Float = 0
                for k in 0..<channels { sum += expf(value(i, k) - largest) }
                probability[i] = expf(x - largest) / sum
            }
        }
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
