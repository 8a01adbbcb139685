import Foundation
import ONNXInference

/// A segmentation model's conventions with every field resolved, and where each came from.
///
/// Each field is taken from the first source that has it: the description passed in code, the
/// JSON file `MODEL.onnx.json` beside the model, the model's `vbg.segmentation` metadata entry
/// (the same JSON), detection from the graph where it is unambiguous, and otherwise the built-in
/// models' convention. Detection: the input is the one graph input (state and constant inputs
/// aside) whose shape has 4 dims with a 3-channel axis (second: NCHW, last: NHWC); the mask is the
/// one output (state outputs aside) of the input's spatial size with 1 or 2 channels; 2 channels
/// are a softmax over channels with the person in channel 1 (no activation when a Softmax computes
/// the output); 1 channel computed by a Sigmoid or a Clip (seen through Reshape, Transpose and the
/// like) needs no activation, any other a sigmoid; the colours are RGB in [0, 1], the sampling
/// MediaPipe's (`asymmetric`), the output a probability.
package struct ModelConvention: Sendable, Equatable {
    package typealias Description = SegmentationModelDescription
    package typealias Error = SegmentationModelDescription.DescriptionError

    /// Where a field's value came from.
    package enum Source: String, Sendable {
        case code, file = "JSON file", metadata = "model metadata", detected, `default`
    }

    package var inputName: String
    package var inputLayout: SegmentationModelDescription.Layout
    package var channels: SegmentationModelDescription.ChannelOrder
    package var range: ValueRange
    package var mean: [Float]
    package var std: [Float]
    package var sampling: SegmentationModelDescription.Sampling
    package var outputName: String
    package var outputLayout: SegmentationModelDescription.Layout
    package var activation: SegmentationModelDescription.Activation
    package var personChannel: Int
    package var outputKind: SegmentationModelDescription.OutputKind
    /// The recurrent state pairs (empty for a model without one).
    package var state: [SegmentationModelDescription.State]
    /// The values of the inputs the frame does not fill, by name.
    package var constants: [String: [Double]]
    /// Input tensor height and width; output height, width and channel count.
    package var inputHeight: Int, inputWidth: Int
    package var outputHeight: Int, outputWidth: Int, outputChannels: Int
    /// The source of each field, by its JSON path (`input.mean`, `output.activation`, ...).
    package var sources: [String: Source]

    /// The input's value range (`input.range`): what a pixel of 0 and of 255 become.
    package struct ValueRange: Sendable, Equatable {
        package var low: Float, high: Float
        package init(low: Float, high: Float) { (self.low, self.high) = (low, high) }
    }

    /// The JSON file a model's description is read from: the model's path with `.json` appended.
    package static func descriptionFile(forModelAt path: String) -> String { path + ".json" }

    /// The metadata key holding a description inside the model.
    package static let metadataKey = "vbg.segmentation"

    /// The descriptions to read fields from, first source first: code, the JSON file, the
    /// model's metadata entry.
    ///
    /// - Throws: a bad description, naming the field and where it is.
    static func layers(code: Description?, file: Data?, metadata: [String: String]) throws(Error) -> [(Description, Source)] {
        var layers: [(Description, Source)] = []
        if let code {
            try code.validate()
            layers.append((code, .code))
        }
        if let file { layers.append((try Self.parse(file, what: "the JSON file"), .file)) }
        if let text = metadata[Self.metadataKey] {
            layers.append((try Self.parse(Data(text.utf8), what: "the '\(Self.metadataKey)' metadata entry"), .metadata))
        }
        return layers
    }

    /// The description layers, first source first, and the source of each field taken so far.
    private struct Fields {
        let layers: [(Description, Source)]
        var sources: [String: Source] = [:]

        /// The field's value from the first layer that has it, or nil.
        mutating func pick<T>(_ field: String, _ value: (Description) -> T?) -> T? {
            for (description, source) in layers {
                if let found = value(description) {
                    sources[field] = source
                    return found
                }
            }
            return nil
        }

        /// The field's value from the first layer that has it, else `fallback` (its source `.default`).
        mutating func pick<T>(_ field: String, _ value: (Description) -> T?, or fallback: T) -> T {
            if let found = pick(field, value) { return found }
            sources[field] = .default
            return fallback
        }
    }

    /// Resolves the conventions of a planned `model` (every input dim bound).
    ///
    /// - Parameters:
    ///   - code: the description passed in code, if any.
    ///   - file: the contents of the JSON file beside the model, if there is one.
    /// - Throws: ``SegmentationModelDescription/DescriptionError`` naming the field: a bad JSON file
    ///   or metadata entry, a name that is not a graph input or output, a layout or channel that
    ///   does not fit the tensor's shape, a graph input nothing feeds, a state whose output's shape
    ///   is not its input's, or a field detection cannot decide.
    package init(model: PlannedModel, code: SegmentationModelDescription? = nil, file: Data? = nil) throws(Error) {
        var fields = Fields(layers: try Self.layers(code: code, file: file, metadata: model.metadata))
        state = fields.pick("state", \.state, or: [])
        constants = fields.pick("constants", \.constants, or: [:])
        try Self.checkStateAndConstants(state: state, constants: constants, model)

        let input = try Self.imageInput(model, fedOtherwise: Set(state.map(\.input)).union(constants.keys), &fields)
        (inputLayout, inputHeight, inputWidth) = try Self.imageGeometry(input, &fields)
        inputName = input.name
        channels = fields.pick("input.channels", \.input.channels, or: .rgb)
        let range = fields.pick("input.range", \.input.range, or: (0, 1))
        self.range = ValueRange(low: range.low, high: range.high)
        mean = fields.pick("input.mean", \.input.mean, or: [0, 0, 0])
        std = fields.pick("input.std", \.input.std, or: [1, 1, 1])
        sampling = fields.pick("input.sampling", \.input.sampling, or: .asymmetric)

        let maskSize = (height: inputHeight, width: inputWidth)
        let output = try Self.maskOutput(model, size: maskSize, stateOutputs: Set(state.map(\.output)), &fields)
        outputName = output.name
        (outputLayout, outputChannels, outputHeight, outputWidth) = try Self.maskGeometry(output, size: maskSize,
                                                                                          inputLayout: inputLayout, &fields)
        (activation, personChannel) = try Self.maskMeaning(output, channels: outputChannels,
                                                           producer: model.computingOp(of: output.name), &fields)
        outputKind = fields.pick("output.kind", \.output.kind, or: .probability)
        sources = fields.sources
    }

    /// Every state pair joins a graph input to a graph output of its type and shape, and every
    /// constant names a graph input.
    private static func checkStateAndConstants(state: [Description.State], constants: [String: [Double]],
                                               _ model: PlannedModel) throws(Error) {
        let inputNames = model.inputs.map(\.name) + model.fixedInputs.sorted()
        for (index, pair) in state.enumerated() {
            guard let input = model.inputs.first(where: { $0.name == pair.input }) else {
                throw Error(field: "state[\(index)].input", message: "'\(pair.input)' is not a graph input (inputs: \(inputNames.joined(separator: ", ")))")
            }
            guard let output = model.outputs.first(where: { $0.name == pair.output }) else {
                throw Error(field: "state[\(index)].output", message: "'\(pair.output)' is not a graph output (outputs: \(model.outputs.map(\.name).joined(separator: ", ")))")
            }
            guard input.elementType == output.elementType, input.shape == output.shape else {
                throw Error(field: "state[\(index)]", message: "output \(output) is fed back as input \(input): a state's output must have its input's type and shape")
            }
        }
        for name in constants.keys.sorted() where !inputNames.contains(name) {
            throw Error(field: "constants.\(name)", message: "'\(name)' is not a graph input (inputs: \(inputNames.joined(separator: ", ")))")
        }
    }

    /// The graph input that takes the image (`input.name`, or the one image-shaped input no state or
    /// constant feeds); every other input must be fed otherwise.
    private static func imageInput(_ model: PlannedModel, fedOtherwise: Set<String>, _ fields: inout Fields) throws(Error) -> PlannedTensor {
        let inputNames = model.inputs.map(\.name) + model.fixedInputs.sorted()
        let input: PlannedTensor
        if let name = fields.pick("input.name", \.input.name) {
            guard let found = model.inputs.first(where: { $0.name == name }) else {
                throw Error(field: "input.name", message: "'\(name)' is not a graph input (inputs: \(inputNames.joined(separator: ", ")))")
            }
            guard !fedOtherwise.contains(name) else {
                throw Error(field: "input.name", message: "'\(name)' is a state or constant input, not the image")
            }
            input = found
        } else {
            let candidates = model.inputs.filter { $0.elementType == .float32 && !fedOtherwise.contains($0.name) && Self.takesImage($0.shape.map { $0 }) }
            guard candidates.count == 1 else {
                throw Error(field: "input.name", message: "cannot tell which graph input takes the image (\(model.inputs.map(\.description).joined(separator: "; "))): give it")
            }
            input = candidates[0]
            fields.sources["input.name"] = .detected
        }
        if let unfed = model.inputs.first(where: { $0.name != input.name && !fedOtherwise.contains($0.name) }) {
            throw Error(field: "constants", message: "graph input \(unfed) is not the image, a state or a constant: give its value in constants (or its pair in state)")
        }
        guard input.elementType == .float32, input.shape.count == 4, input.shape[0] == 1 else {
            throw Error(field: "input.name", message: "'\(input.name)' is \(input.elementType) \(input.shape); an image input is float32 [1, 3, H, W] or [1, H, W, 3]")
        }
        return input
    }

    /// The image input's layout (`input.layout`, or the side its 3-channel axis is on) and size,
    /// which `input.size` must match when given.
    private static func imageGeometry(_ input: PlannedTensor, _ fields: inout Fields)
        throws(Error) -> (Description.Layout, height: Int, width: Int) {
        let shape = input.shape
        let layout: Description.Layout
        if let given = fields.pick("input.layout", \.input.layout) {
            layout = given
        } else {
            guard (shape[1] == 3) != (shape[3] == 3) else {
                throw Error(field: "input.layout", message: "input \(shape) could be NCHW or NHWC: give it")
            }
            layout = shape[1] == 3 ? .nchw : .nhwc
            fields.sources["input.layout"] = .detected
        }
        let (height, width) = layout == .nchw ? (shape[2], shape[3]) : (shape[1], shape[2])
        guard (layout == .nchw ? shape[1] : shape[3]) == 3, height > 0, width > 0 else {
            throw Error(field: "input.layout", message: "input \(shape) has no 3-channel axis where \(layout.rawValue) puts it")
        }
        if let size = fields.pick("input.size", \.input.size) {
            guard size.height == height, size.width == width else {
                throw Error(field: "input.size", message: "[\(size.height), \(size.width)] differs from input \(input), whose size is \(height)x\(width)")
            }
        } else {
            fields.sources["input.size"] = .detected
        }
        return (layout, height, width)
    }

    /// The layouts in which `dims` is a 1- or 2-channel mask of `size`.
    private static func maskLayouts(_ dims: [Int], size: (height: Int, width: Int)) -> [Description.Layout] {
        guard dims.count == 4, dims[0] == 1 else { return [] }
        var fits: [Description.Layout] = []
        if (1...2).contains(dims[1]), dims[2] == size.height, dims[3] == size.width { fits.append(.nchw) }
        if (1...2).contains(dims[3]), dims[1] == size.height, dims[2] == size.width { fits.append(.nhwc) }
        return fits
    }

    /// The graph output that holds the mask (`output.name`, or the one mask-shaped output that is
    /// not a state's).
    private static func maskOutput(_ model: PlannedModel, size: (height: Int, width: Int), stateOutputs: Set<String>,
                                   _ fields: inout Fields) throws(Error) -> PlannedTensor {
        let output: PlannedTensor
        if let name = fields.pick("output.name", \.output.name) {
            guard let found = model.outputs.first(where: { $0.name == name }) else {
                throw Error(field: "output.name", message: "'\(name)' is not a graph output (outputs: \(model.outputs.map(\.name).joined(separator: ", ")))")
            }
            guard !stateOutputs.contains(name) else { throw Error(field: "output.name", message: "'\(name)' is a state output, not the mask") }
            output = found
        } else {
            let candidates = model.outputs.filter {
                $0.elementType == .float32 && !stateOutputs.contains($0.name) && !maskLayouts($0.shape, size: size).isEmpty
            }
            guard candidates.count == 1 else {
                throw Error(field: "output.name", message: "cannot tell which graph output is the mask (\(model.outputs.map(\.description).joined(separator: "; "))): give it")
            }
            output = candidates[0]
            fields.sources["output.name"] = .detected
        }
        guard output.elementType == .float32, output.shape.count == 4, output.shape[0] == 1 else {
            throw Error(field: "output.name", message: "'\(output.name)' is \(output.elementType) \(output.shape); a mask is float32 [1, C, H, W] or [1, H, W, C]")
        }
        return output
    }

    /// The mask's layout (`output.layout`, or the one that fits the input's size, the input's own
    /// first), channel count and size.
    private static func maskGeometry(_ output: PlannedTensor, size: (height: Int, width: Int), inputLayout: Description.Layout,
                                     _ fields: inout Fields) throws(Error) -> (Description.Layout, channels: Int, height: Int, width: Int) {
        let dims = output.shape
        let layout: Description.Layout
        if let given = fields.pick("output.layout", \.output.layout) {
            layout = given
        } else {
            let fits = maskLayouts(dims, size: size)
            guard !fits.isEmpty else {
                throw Error(field: "output.layout", message: "output \(dims) is not a 1- or 2-channel mask of the input's size \(size.height)x\(size.width): give the layout")
            }
            layout = fits.contains(inputLayout) ? inputLayout : fits[0]
            fields.sources["output.layout"] = .detected
        }
        let channels = layout == .nchw ? dims[1] : dims[3]
        let (height, width) = layout == .nchw ? (dims[2], dims[3]) : (dims[1], dims[2])
        guard channels >= 1, height > 0, width > 0 else {
            throw Error(field: "output.layout", message: "output \(dims) has no spatial mask")
        }
        return (layout, channels, height, width)
    }

    /// What the mask's values mean: the activation still to apply (`output.activation`, or none
    /// after a Sigmoid, Clip or Softmax already computed them) and the person's channel.
    private static func maskMeaning(_ output: PlannedTensor, channels: Int, producer: String?, _ fields: inout Fields)
        throws(Error) -> (Description.Activation, personChannel: Int) {
        let activation: Description.Activation
        if let given = fields.pick("output.activation", \.output.activation) {
            activation = given
        } else {
            activation = channels == 1 ? (["Sigmoid", "Clip"].contains(producer) ? .none : .sigmoid)
                : (producer == "Softmax" ? .none : .softmax)
            fields.sources["output.activation"] = .detected
        }
        let personChannel: Int
        if let given = fields.pick("output.personChannel", \.output.personChannel) {
            guard given < channels else {
                throw Error(field: "output.personChannel", message: "\(given) is not a channel of output \(output.shape) (\(channels) channels)")
            }
            personChannel = given
        } else {
            personChannel = channels == 2 ? 1 : 0
            fields.sources["output.personChannel"] = .detected
        }
        guard activation != .softmax || channels >= 2 else {
            throw Error(field: "output.activation", message: "softmax needs 2 or more channels, output \(output.shape) has 1")
        }
        return (activation, personChannel)
    }

    /// Whether declared dims look like an image input: rank 4 with 3 channels second or last.
    static func takesImage(_ dims: [Int?]) -> Bool { dims.count == 4 && (dims[1] == 3 || dims[3] == 3) }

    private static func parse(_ data: Data, what: String) throws(Error) -> Description {
        do {
            return try SegmentationModelDescription(json: data)
        } catch {
            throw .init(field: error.field, message: "\(error.message) (in \(what))")
        }
    }

    /// The fields and their values and sources, one `field = value (source)` per line: what
    /// `vbg inspect` prints (state and constants only when the model has them).
    package var summary: [String] {
        var values: [(String, String)] = [
            ("input.name", inputName), ("input.layout", inputLayout.rawValue), ("input.size", "[\(inputHeight), \(inputWidth)]"),
            ("input.channels", channels.rawValue), ("input.range", "[\(range.low), \(range.high)]"), ("input.mean", "\(mean)"),
            ("input.std", "\(std)"), ("input.sampling", sampling.rawValue),
            ("output.name", outputName), ("output.layout", outputLayout.rawValue), ("output.activation", activation.rawValue),
            ("output.personChannel", "\(personChannel)"), ("output.kind", outputKind.rawValue),
        ]
        if !state.isEmpty { values.append(("state", state.map { "\($0.input) <- \($0.output)" }.joined(separator: ", "))) }
        if !constants.isEmpty {
            values.append(("constants", constants.sorted { $0.key < $1.key }.map { "\($0.key) = [\($0.value.map { String($0) }.joined(separator: ", "))]" }.joined(separator: ", ")))
        }
        return values.map { field, value in "\(field) = \(value) (\(sources[field]?.rawValue ?? "?"))" }
    }
}
