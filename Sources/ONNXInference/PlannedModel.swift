import Inference
import ONNXFormat

// The package-only face of the engine for the SDK's segmenter and `vbg`: a model's declarations
// read before planning, a model planned for chosen shapes and plan-time values, and (in
// InferenceSession+Package.swift) sessions of it that run on the caller's buffers. None of this
// is public: an app sees only the documented API (Docs/API.md).

/// A graph input or output as the model declares it, before any dim is bound.
package struct DeclaredTensor: Sendable, Equatable, CustomStringConvertible {
    package var name: String
    /// nil when the element type is not one the engine stores.
    package var elementType: ElementType?
    /// Each dim's declared size, nil where it is symbolic or unknown; nil when no shape is declared.
    package var dims: [Int?]?
    /// Each dim's `dim_param`, nil where there is none (same count as `dims`).
    package var dimNames: [String?]

    /// `name [1, 3, height, width]`: each dim's size, its name, or `?` (the type when not float32).
    package var description: String {
        guard let dims else { return "\(name) (no shape)" }
        let text = dims.indices.map { axis in dims[axis].map(String.init) ?? dimNames[axis] ?? "?" }
        return "\(name) \(elementType.map { $0 == .float32 ? "" : "\($0) " } ?? "")[\(text.joined(separator: ", "))]"
    }

    init(_ tensor: Inference.DeclaredTensor) {
        name = tensor.name
        elementType = tensor.type.map(ElementType.init)
        dims = tensor.dims
        dimNames = tensor.dimNames
    }
}

/// A graph input or output of a planned model: every dim bound, C order.
package struct PlannedTensor: Sendable, Equatable, CustomStringConvertible {
    package let name: String
    package let shape: [Int]
    package let elementType: ElementType

    package init(name: String, shape: [Int], elementType: ElementType = .float32) {
        self.name = name
        self.shape = shape
        self.elementType = elementType
    }

    init(_ description: TensorDescription) {
        self.init(name: description.name, shape: description.shape, elementType: ElementType(description.type))
    }

    package var elementCount: Int { shape.reduce(1, *) }
    package var byteCount: Int { elementCount * elementType.byteCount }

    /// `name [1, 3, 256, 256]` (the type first when it is not float32).
    package var description: String {
        "\(name) \(elementType == .float32 ? "" : "\(elementType) ")[\(shape.map(String.init).joined(separator: ", "))]"
    }
}

/// A decoded ONNX model before validation: what it declares, from which ``PlannedModel``s are
/// made for chosen input shapes and plan-time values without decoding the bytes again.
package struct ModelDeclarations: Sendable {
    private let parsed: ParsedModel
    /// The graph inputs the caller feeds (initializers excluded), in graph order.
    package let inputs: [DeclaredTensor]
    /// The graph outputs, in graph order.
    package let outputs: [DeclaredTensor]
    /// The names of every graph input, initializers included (one with an initializer may be fed
    /// by giving its shape), in graph order.
    package var inputNamesIncludingInitializers: [String] { (parsed.proto.graph?.inputs ?? []).map(\.name) }
    /// The model's `metadata_props` (a later entry with the same key wins).
    package var metadata: [String: String] { parsed.metadata }

    /// - Throws: `InferenceError(.malformed)` when the bytes are not a decodable ONNX model.
    package init(modelData bytes: [UInt8]) throws(InferenceError) {
        do { parsed = try ParsedModel(bytes: bytes) } catch { throw InferenceError(error) }
        inputs = parsed.inputs.map(DeclaredTensor.init)
        outputs = parsed.outputs.map(DeclaredTensor.init)
    }

    /// The model validated and planned for `inputShapes` (symbolic dims; a leading one nobody
    /// binds is 1), with the inputs in `planTimeInputs` that a node needs as constants fixed
    /// (every string input is, and needs its value here).
    ///
    /// - Throws: every `InferenceError` of loading a model (`.unsupported` listing each node).
    package func planned(inputShapes: [String: [Int]] = [:], planTimeInputs: [String: Tensor] = [:]) throws(InferenceError) -> PlannedModel {
        do {
            let (values, strings) = Tensor.engineValues(planTimeInputs)
            let model = try parsed.planned(inputShapes: inputShapes, planTimeInputs: values, planTimeStrings: strings)
            return PlannedModel(model: model, proto: parsed.proto, planTimeInputs: planTimeInputs.filter { model.fixedInputs.contains($0.key) })
        } catch {
            throw InferenceError(error)
        }
    }
}

/// A validated ONNX model with every shape inferred, for one set of input shapes: what a
/// package session (``InferenceSession/init(planned:options:)``) runs. Immutable and `Sendable`.
package final class PlannedModel: Sendable {
    let model: InferenceModel
    let proto: ModelProto
    /// The values fixed at plan time, by input name.
    let planTimeInputs: [String: Tensor]
    /// The inputs a run is fed (initializers and fixed inputs excluded), in the engine's order.
    package let inputs: [PlannedTensor]
    /// The graph outputs that do not hold strings, in graph order: what a run computes.
    package let outputs: [PlannedTensor]
    /// The graph outputs that hold strings, by name, computed when the model was planned.
    package let stringOutputs: [String: Tensor]

    init(model: InferenceModel, proto: ModelProto, planTimeInputs: [String: Tensor]) {
        self.model = model
        self.proto = proto
        self.planTimeInputs = planTimeInputs
        inputs = model.inputs.map(PlannedTensor.init)
        outputs = model.outputs.map(PlannedTensor.init)
        stringOutputs = model.stringOutputs.mapValues(Tensor.init)
    }

    /// Reads, decodes and plans an ONNX model as ``ModelDeclarations/planned(inputShapes:planTimeInputs:)``.
    package convenience init(modelData bytes: [UInt8], inputShapes: [String: [Int]] = [:]) throws(InferenceError) {
        let declarations = try ModelDeclarations(modelData: bytes)
        let planned = try declarations.planned(inputShapes: inputShapes)
        self.init(model: planned.model, proto: planned.proto, planTimeInputs: planned.planTimeInputs)
    }

    /// The graph inputs whose values were fixed at plan time.
    package var fixedInputs: Set<String> { model.fixedInputs }
    /// The model's `metadata_props`.
    package var metadata: [String: String] { model.metadata }
    /// The default-domain opset the model was written against.
    package var opsetVersion: Int { model.opsetVersion }
    /// Nodes per op type as written in the model.
    package var opCounts: [String: Int] { model.opCounts }
    /// Elements of the float initializers (weights and biases).
    package var parameterCount: Int { model.parameterCount }
    /// Multiply-accumulates per run, by op type (convolutions, Gemm, MatMul; other ops count 0).
    package var macsByOp: [String: Int] { model.macsByOp }
    /// Total multiply-accumulates per run.
    package var multiplyAccumulates: Int { model.multiplyAccumulates }
    /// Bytes of the activation arena with buffer reuse (inputs and outputs included, weights excluded).
    package var peakActivationBytes: Int { model.peakActivationBytes }
    /// The nodes that run (folded ones excluded), in execution order, with their output names:
    /// what the node indices of ``InferenceSession/replay(nodeAt:readingInputsFrom:)`` and
    /// ``InferenceSession/fusionSpans`` count.
    package var runningNodes: [(name: String, op: String, outputs: [String])] { model.runningNodes }
    /// What planning accepted but a user may want to know (graph inputs given different sizes
    /// for one `dim_param`).
    package var warnings: [String] { model.warnings }

    /// The op type of the node that computes `value`'s elements, looking back through the ops
    /// that only move elements; nil for graph inputs and initializers.
    package func computingOp(of value: String) -> String? { model.computingOp(of: value) }

    /// The file's bytes, or an `InferenceError` of kind `.fileNotFound` / `.unreadable` naming the path.
    package static func readFile(_ path: String) throws(InferenceError) -> [UInt8] {
        do { return try InferenceModel.readFile(path) } catch { throw InferenceError(error) }
    }
}
