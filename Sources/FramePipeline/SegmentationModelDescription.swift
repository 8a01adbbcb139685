import Foundation

/// How a segmentation model wants its frames and what its output means: what turns a frame into
/// the model's input tensor and an output into a person probability.
///
/// Every field is optional; what is not given is taken from the next source (see
/// ``ModelConvention``): a description passed in code, a `MODEL.onnx.json` file beside the model,
/// the model's `vbg.segmentation` metadata entry, detection from the graph, and the built-in
/// models' convention (RGB in [0, 1]).
///
/// Each input value is `((p / 255) · (hi − lo) + lo − mean[c]) / std[c]` for a pixel value `p` of
/// tensor channel `c`, after the frame is resampled to the input size (`input.sampling`; by default
/// MediaPipe's sampler, as for the built-in models).
///
/// A recurrent model (Robust Video Matting) names its state, each output fed back as an input at
/// the next inference (`state`), and the values of inputs the frame does not fill (`constants`).
public struct SegmentationModelDescription: Sendable, Equatable {
    public enum Layout: String, Sendable, CaseIterable { case nchw = "NCHW", nhwc = "NHWC" }
    public enum ChannelOrder: String, Sendable, CaseIterable { case rgb = "RGB", bgr = "BGR" }
    public enum Activation: String, Sendable, CaseIterable { case none, sigmoid, softmax }
    /// How the frame is resampled to the input size (formulas in Docs/Models.md).
    public enum Sampling: String, Sendable, CaseIterable {
        /// MediaPipe's sampler: tensor pixel `u` reads frame position `u·W/w` (the built-in models').
        case asymmetric
        /// `cv2.resize(INTER_LINEAR)`; PyTorch's `align_corners=False`: position `(u + 0.5)·W/w − 0.5`.
        case halfPixel = "half_pixel"
        /// PyTorch's `align_corners=True`: position `u·(W − 1)/(w − 1)`.
        case alignCorners = "align_corners"
        /// `cv2.resize(INTER_AREA)`: the mean of the frame box each tensor pixel covers.
        case area
    }
    /// What the mask output's values are.
    public enum OutputKind: String, Sendable, CaseIterable {
        /// A person probability: composited through the edge ramp (the built-in models').
        case probability
        /// A matte's alpha: composited with the value itself as the blend weight.
        case alpha
    }

    /// A recurrent state: `output`'s value at one inference is `input`'s at the next.
    public struct State: Sendable, Equatable {
        public var input: String
        public var output: String

        public init(input: String, output: String) {
            self.input = input
            self.output = output
        }
    }

    public struct Input: Sendable, Equatable {
        /// The graph input to feed.
        public var name: String?
        public var layout: Layout?
        /// The order of the colour channels in the tensor.
        public var channels: ChannelOrder?
        /// What pixel values 0 and 255 map to, before `mean` and `std`.
        public var range: (low: Float, high: Float)?
        /// Per tensor channel (3 values), in the units of `range`.
        public var mean: [Float]?
        /// Per tensor channel (3 values, none 0), in the units of `range`.
        public var std: [Float]?
        /// How the frame is resampled to the input size.
        public var sampling: Sampling?
        /// The input's height and width, for a model whose input size is symbolic (any size).
        public var size: (height: Int, width: Int)?

        public init(name: String? = nil, layout: Layout? = nil, channels: ChannelOrder? = nil,
                    range: (low: Float, high: Float)? = nil, mean: [Float]? = nil, std: [Float]? = nil,
                    sampling: Sampling? = nil, size: (height: Int, width: Int)? = nil) {
            self.name = name
            self.layout = layout
            self.channels = channels
            self.range = range
            self.mean = mean
            self.std = std
            self.sampling = sampling
            self.size = size
        }

        public static func == (a: Input, b: Input) -> Bool {
            a.name == b.name && a.layout == b.layout && a.channels == b.channels && a.range?.low == b.range?.low
                && a.range?.high == b.range?.high && a.mean == b.mean && a.std == b.std && a.sampling == b.sampling
                && a.size?.height == b.size?.height && a.size?.width == b.size?.width
        }
    }

    public struct Output: Sendable, Equatable {
        /// The graph output holding the mask.
        public var name: String?
        public var layout: Layout?
        /// What turns the output's values into probabilities (`softmax` is over the channel axis).
        public var activation: Activation?
        /// The channel holding the person.
        public var personChannel: Int?
        /// A probability or a matte's alpha.
        public var kind: OutputKind?

        public init(name: String? = nil, layout: Layout? = nil, activation: Activation? = nil, personChannel: Int? = nil,
                    kind: OutputKind? = nil) {
            self.name = name
            self.layout = layout
            self.activation = activation
            self.personChannel = personChannel
            self.kind = kind
        }
    }

    public var input: Input
    public var output: Output
    /// The recurrent state, each pair an input fed at one inference with the output of the one
    /// before (zeros at the first); nil leaves it to the next source.
    public var state: [State]?
    /// Values for the graph inputs the frame does not fill, by input name, in C order; nil leaves
    /// them to the next source.
    public var constants: [String: [Double]]?

    public init(input: Input = Input(), output: Output = Output(), state: [State]? = nil, constants: [String: [Double]]? = nil) {
        self.input = input
        self.output = output
        self.state = state
        self.constants = constants
    }

    /// A description in its JSON form: `{"input": {"name", "layout", "channels", "range", "mean",
    /// "std", "sampling", "size"}, "output": {"name", "layout", "activation", "personChannel",
    /// "kind"}, "state": [{"input", "output"}, …], "constants": {NAME: [numbers]}}`, every key
    /// optional.
    ///
    /// - Throws: ``DescriptionError`` naming the field: an unknown key, a value of the wrong type
    ///   or out of its set, `range`, `mean`, `std` or `size` of the wrong length, a `std` of 0, a
    ///   size that is not positive, a state input or output named twice.
    public init(json: Data) throws(DescriptionError) {
        let document: JSONValue
        do { document = try JSONDecoder().decode(JSONValue.self, from: json) } catch {
            throw DescriptionError(field: nil, message: "not valid JSON")
        }
        let top = try document.object("")
        try Self.known(top, ["input", "output", "state", "constants"], "")
        self.init()
        if let value = top["input"] {
            let fields = try value.object("input")
            try Self.known(fields, ["name", "layout", "channels", "range", "mean", "std", "sampling", "size"], "input")
            input.name = try fields["name"]?.string("input.name")
            input.layout = try fields["layout"]?.choice("input.layout")
            input.channels = try fields["channels"]?.choice("input.channels")
            if let range = try fields["range"]?.numbers(count: 2, "input.range") { input.range = (range[0], range[1]) }
            input.mean = try fields["mean"]?.numbers(count: 3, "input.mean")
            input.std = try fields["std"]?.numbers(count: 3, "input.std")
            input.sampling = try fields["sampling"]?.choice("input.sampling")
            if let size = try fields["size"]?.numbers(count: 2, "input.size") {
                guard size.allSatisfy({ $0 >= 1 && $0 <= 65536 && $0 == $0.rounded() }) else {
                    throw DescriptionError(field: "input.size", message: "expected [height, width], two whole numbers from 1 to 65536")
                }
                input.size = (Int(size[0]), Int(size[1]))
            }
        }
        if let value = top["output"] {
            let fields = try value.object("output")
            try Self.known(fields, ["name", "layout", "activation", "personChannel", "kind"], "output")
            output.name = try fields["name"]?.string("output.name")
            output.layout = try fields["layout"]?.choice("output.layout")
            output.activation = try fields["activation"]?.choice("output.activation")
            if let channel = fields["personChannel"] {
                guard case let .number(number) = channel, let index = Int(exactly: number), index >= 0 else {
                    throw DescriptionError(field: "output.personChannel", message: "expected a channel index (0, 1, ...)")
                }
                output.personChannel = index
            }
            output.kind = try fields["kind"]?.choice("output.kind")
        }
        if let value = top["state"] {
            guard case let .array(items) = value else {
                throw DescriptionError(field: "state", message: "expected an array of {\"input\": NAME, \"output\": NAME}")
            }
            var pairs: [State] = []
            for (index, item) in items.enumerated() {
                let field = "state[\(index)]"
                let pair = try item.object(field)
                try Self.known(pair, ["input", "output"], field)
                guard let input = pair["input"], let output = pair["output"] else {
                    throw DescriptionError(field: field, message: "expected both \"input\" and \"output\"")
                }
                pairs.append(State(input: try input.string(field + ".input"), output: try output.string(field + ".output")))
            }
            state = pairs
        }
        if let value = top["constants"] {
            let fields = try value.object("constants")
            var values: [String: [Double]] = [:]
            for (name, item) in fields {
                values[name] = try item.doubles("constants.\(name)")
            }
            constants = values
        }
        try validate()
    }

    /// Checks the values that do not depend on the model: lengths of `mean` and `std`, `std` ≠ 0.
    public func validate() throws(DescriptionError) {
        if let mean = input.mean, mean.count != 3 {
            throw DescriptionError(field: "input.mean", message: "expected 3 values (one per channel), got \(mean.count)")
        }
        if let std = input.std {
            guard std.count == 3 else { throw DescriptionError(field: "input.std", message: "expected 3 values (one per channel), got \(std.count)") }
            guard !std.contains(0) else { throw DescriptionError(field: "input.std", message: "a value is 0") }
        }
        if let range = input.range, range.low == range.high || !range.low.isFinite || !range.high.isFinite {
            throw DescriptionError(field: "input.range", message: "expected two different finite numbers")
        }
        if let size = input.size, size.height < 1 || size.width < 1 || size.height > 65536 || size.width > 65536 {
            throw DescriptionError(field: "input.size", message: "expected [height, width], two whole numbers from 1 to 65536")
        }
        if let state {
            var inputs: Set<String> = [], outputs: Set<String> = []
            for (index, pair) in state.enumerated() {
                guard inputs.insert(pair.input).inserted else {
                    throw DescriptionError(field: "state[\(index)].input", message: "'\(pair.input)' is already a state input")
                }
                guard outputs.insert(pair.output).inserted else {
                    throw DescriptionError(field: "state[\(index)].output", message: "'\(pair.output)' is already a state output")
                }
            }
        }
        for (name, values) in constants ?? [:] {
            guard !values.isEmpty, values.allSatisfy(\.isFinite) else {
                throw DescriptionError(field: "constants.\(name)", message: "expected one or more finite numbers")
            }
            if let state, state.contains(where: { $0.input == name }) {
                throw DescriptionError(field: "constants.\(name)", message: "'\(name)' is also a state input")
            }
        }
    }

    /// Why a description cannot be used: the field (`input.mean`, ...) and what is wrong.
    public struct DescriptionError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The field concerned, as a JSON path (`output.name`); nil for the document as a whole.
        public var field: String?
        public var message: String

        public init(field: String?, message: String) {
            self.field = field
            self.message = message
        }

        public var description: String { "model description: " + (field.map { "\($0): " } ?? "") + message }
    }

    private static func known(_ object: [String: JSONValue], _ keys: Set<String>, _ field: String) throws(DescriptionError) {
        if let unknown = object.keys.sorted().first(where: { !keys.contains($0) }) {
            throw DescriptionError(field: field.isEmpty ? unknown : "\(field).\(unknown)",
                                   message: "unknown key (known: \(keys.sorted().joined(separator: ", ")))")
        }
    }
}

/// A JSON document's value, decoded without losing the difference between numbers and booleans.
private enum JSONValue: Decodable {
    case bool(Bool), number(Double), string(String), array([JSONValue]), object([String: JSONValue]), null

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSONValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    typealias DescriptionError = SegmentationModelDescription.DescriptionError

    func object(_ field: String) throws(DescriptionError) -> [String: JSONValue] {
        guard case let .object(object) = self else { throw DescriptionError(field: field.isEmpty ? nil : field, message: "expected an object") }
        return object
    }

    func string(_ field: String) throws(DescriptionError) -> String {
        guard case let .string(string) = self else { throw DescriptionError(field: field, message: "expected a string") }
        return string
    }

    func choice<T: RawRepresentable & CaseIterable>(_ field: String) throws(DescriptionError) -> T where T.RawValue == String {
        let text = try string(field)
        guard let choice = T(rawValue: text) else {
            throw DescriptionError(field: field, message: "'\(text)' is not one of \(T.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return choice
    }

    /// A number or an array of numbers (C order), as `Double`s.
    func doubles(_ field: String) throws(DescriptionError) -> [Double] {
        if case let .number(number) = self { return [number] }
        guard case let .array(items) = self else { throw DescriptionError(field: field, message: "expected an array of numbers") }
        var numbers: [Double] = []
        for item in items {
            guard case let .number(number) = item else { throw DescriptionError(field: field, message: "expected an array of numbers") }
            numbers.append(number)
        }
        return numbers
    }

    func numbers(count: Int, _ field: String) throws(DescriptionError) -> [Float] {
        guard case let .array(items) = self else { throw DescriptionError(field: field, message: "expected an array of \(count) numbers") }
        var numbers: [Float] = []
        for item in items {
            guard case let .number(number) = item else { throw DescriptionError(field: field, message: "expected an array of \(count) numbers") }
            numbers.append(Float(number))
        }
        guard numbers.count == count else {
            throw DescriptionError(field: field, message: "expected \(count) values\(count == 3 ? " (one per channel)" : ""), got \(numbers.count)")
        }
        return numbers
    }
}
