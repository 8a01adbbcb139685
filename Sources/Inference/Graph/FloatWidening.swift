import ONNXFormat

/// How a node whose float kernels compute float32 runs on float16 (or bfloat16) inputs: each such
/// run-time input is widened to float32 by a `Cast` planned before the node, and each float result
/// is narrowed back to its type by a `Cast` after it (rounded to nearest even), so the kernels of
/// both paths only ever see float32 and the conversions are ordinary planned nodes.
///
/// The loader takes this route only for a node that fails to build as written (operators that
/// handle a type themselves, such as `Cast` or the data-movement ones, keep their own rules), and
/// only for the types the op's ONNX definition allows for those inputs (`OperatorFloatTypes`).
/// All the run-time inputs of one type parameter must then have one type. Widening float16 and
/// bfloat16 is exact, so comparisons and index results (`Equal`, `ArgMax`, `TopK`'s indices) are
/// those of the narrow values.
///
/// Double is not widened: computing it in float32 would silently lose its precision (about 1e-7
/// relative instead of 1e-16), so an operator without a double kernel refuses a double input,
/// naming it.
struct FloatWidening {
    /// Node input index → its type, for the run-time inputs widened to float32.
    let widened: [Int: ElementType]
    /// Node input index → the float32 copy of a float16 constant input (a folded `Cast` or
    /// `CastLike` of a constant to float16), converted exactly at plan time.
    let widenedConstants: [Int: ConstantTensor]
    /// Type parameter → the type of its widened inputs.
    let parameterTypes: [String: ElementType]
    let types: FloatTypes
    let context: NodeContext

    /// The widening of `context`'s node, or nil when none of its inputs is float16.
    ///
    /// The type constraints are those of the definition the model's `opset` selects: newer than
    /// `context.opVersion` when the definitions in between only added element types (Celu-28
    /// allows float16 where Celu-12, the one the builder implements, does not).
    ///
    /// - Throws: `ModelError` naming the input when the op's definition does not allow its type,
    ///   or when the inputs of one type parameter have different types.
    init?(_ context: NodeContext, opset: Int?) throws(ModelError) {
        let node = context.node
        var runtime: [(index: Int, type: ElementType)] = [], halfConstants: [(index: Int, value: ConstantTensor)] = []
        for (index, input) in context.inputs.enumerated() {
            if case let .runtime(_, type) = input { runtime.append((index, type)) }
            if case let .constant(value) = input, Self.widenedTypes.contains(value.type) { halfConstants.append((index, value)) }
        }
        guard runtime.contains(where: { Self.widenedTypes.contains($0.type) }) || !halfConstants.isEmpty else { return nil }
        let definition = "\(node.opType)-\(Self.typeDefinition(of: node.opType, opVersion: context.opVersion, opset: opset))"
        let types = OperatorFloatTypes.definitions[definition]
        var widened: [Int: ElementType] = [:], parameterTypes: [String: ElementType] = [:]
        let halves = runtime.filter { Self.widenedTypes.contains($0.type) } + halfConstants.map { ($0.index, $0.value.type) }
        for (index, type) in halves.sorted(by: { $0.index < $1.index }) {
            guard let types, let parameter = types.parameter(ofInput: index), types.widenable[parameter]?.contains(type) == true else {
                throw context.error(.unsupported, "input '\(node.inputs[index])' has element type \(type), which \(definition) does not allow there")
            }
            if let other = parameterTypes[parameter], other != type {
                throw context.error(.invalidGraph, "inputs of type parameter \(parameter) have element types \(other) and \(type); they must have one")
            }
            parameterTypes[parameter] = type
        }
        for (index, type) in runtime where Self.widenedTypes.contains(type) { widened[index] = type }
        // A float32 run-time input of a parameter whose other inputs are float16 breaks the definition too.
        for (index, type) in runtime where type == .float32 {
            if let parameter = types?.parameter(ofInput: index), let other = parameterTypes[parameter] {
                throw context.error(.invalidGraph, "input '\(node.inputs[index])' has element type FLOAT, other inputs of type parameter \(parameter) \(other); they must have one")
            }
        }
        var widenedConstants: [Int: ConstantTensor] = [:]
        for (index, value) in halfConstants { widenedConstants[index] = Self.widen(value) }
        self.widened = widened
        self.widenedConstants = widenedConstants
        self.parameterTypes = parameterTypes
        self.types = types!
        self.context = NodeContext(node: node, opVersion: context.opVersion, inputs: context.inputs.enumerated().map { index, input in
            if widened[index] != nil, case let .runtime(shape, _) = input { return .runtime(shape: shape, type: .float32) }
            if let copy = widenedConstants[index] { return .constant(copy) }
            return input
        })
    }

    /// The definition whose type constraints apply to a node built as `op`-`opVersion` in a model
    /// of default-domain `opset`: the newer definitions up to the opset's that only added element
    /// types (or changed nothing for the stored ones) keep the node's semantics and widen its types.
    static func typeDefinition(of op: String, opVersion: Int, opset: Int?) -> Int {
        guard let opset, let history = OperatorVersions.sinceVersions[op] else { return opVersion }
        var version = opVersion
        for next in history where next > version && next <= opset {
            let key = "\(op)-\(next)"
            guard OperatorVersions.typeOnlyChanges.contains(key) || OperatorRegistry.unchangedForStoredTypes.contains(key) else { break }
            version = next
        }
        return version
    }

    /// The data-movement operators that, reading only float16 values rounded from float32 ones
    /// in a widened region, move the float32 values instead and round their result
    /// (`LoadedGraph.twinInputs`): their result is the same, and the widened nodes after them read
    /// float32, as in onnxruntime, whose inserted casts surround the whole region.
    static let keepsFloat32: Set<String> = [
        "Reshape", "Transpose", "Slice", "Concat", "Gather", "GatherElements", "GatherND", "Where", "Expand",
        "Squeeze", "Unsqueeze", "Flatten", "Identity", "Split", "Tile", "Trilu", "DepthToSpace", "SpaceToDepth", "Pad",
    ]

    /// The operators onnxruntime's CPU provider computes on float16 itself (a float16 kernel that
    /// widens inside and rounds its result), so it inserts no casts around them: such a node reads
    /// its float16 inputs as rounded, and the nodes after it read its rounded result. A widened
    /// node of these types does the same (`LoadedGraph.planWidened`): it widens the float16
    /// values, never the float32 twins they were rounded from, and the twin of its result is the
    /// rounded result widened.
    static let roundedLikeOnnxruntime: Set<String> = ["LayerNormalization"]

    /// The float32 copy of a float16 or bfloat16 constant (exact).
    static func widen(_ value: ConstantTensor) -> ConstantTensor {
        let floats = value.bytes.withUnsafeBytes { raw in
            raw.baseAddress.map { base in (0..<value.elementCount).map { Float(TensorElements.double(base, at: $0, value.type)) } } ?? []
        }
        return ConstantTensor(shape: value.shape, floats: floats)
    }

    /// The types widened to float32: float16 and bfloat16, whose widening is exact.
    static let widenedTypes: Set<ElementType> = [.float16, .bfloat16]

    /// Node output index → the type it is narrowed to, given the output types of the operator
    /// built on the widened inputs: the float32 outputs whose type parameter is a widened input's.
    func narrowing(outputTypes: [ElementType]) -> [Int: ElementType] {
        let node = context.node
        var narrowed: [Int: ElementType] = [:]
        for (index, type) in outputTypes.enumerated() where index < node.outputs.count && !node.outputs[index].isEmpty {
            if type == .float32, let parameter = types.parameter(ofOutput: index), let original = parameterTypes[parameter] {
                narrowed[index] = original
            }
        }
        return narrowed
    }

    /// A `Cast` of `input` to `type` named `output`, as a node of the rewrite of `node`.
    static func cast(_ input: String, to output: String, _ type: ElementType, for node: NodeProto) -> NodeProto {
        var cast = NodeProto()
        cast.name = node.name
        cast.opType = "Cast"
        cast.inputs = [input]
        cast.outputs = [output]
        var to = AttributeProto()
        to.name = "to"
        to.type = .int
        to.i = Int64(type.onnxType.rawValue)
        cast.attributes = [to]
        return cast
    }

    /// The `Cast` definition the conversions are planned with.
    static let castVersion = 13

    /// The name of the float32 copy of value `name` (a widened input).
    static func widenedName(_ name: String) -> String { "\(name)::float32" }
    /// The name of the float32 copy of value `name` as rounded, where it has a float32 twin
    /// (`roundedLikeOnnxruntime`).
    static func roundedName(_ name: String) -> String { "\(name)::float32-rounded" }
    /// The name of a node's float32 result `name` before it is narrowed.
    static func unroundedName(_ name: String) -> String { "\(name)::float32-unrounded" }
}
