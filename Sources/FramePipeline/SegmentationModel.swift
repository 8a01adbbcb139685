import Foundation
import ONNXInference

/// A segmentation model planned the way its description says: the image input at its size (the
/// model's own, or `input.size` for a model whose input dims are symbolic), the constant inputs
/// fixed where a node needs their values to plan (`Resize` scales computed from a ratio input),
/// and each state input at its output's shape.
///
/// Planning, in order:
/// 1. the image input and its layout (given, or detected from the declared dims) and its size
///    (declared, or `input.size`; a model with symbolic spatial dims and no `input.size` is an
///    error naming `input.size`);
/// 2. each constant's tensor: the input's declared type and shape, a symbolic dim sized from the
///    number of values;
/// 3. each state input's shape: its declared dims with symbolic ones 1, planned once; then, when
///    its output's shape differs, planned again at the output's shape, so that the state fed back
///    is the shape the input is planned for (zeros of that shape start it);
/// 4. the conventions of the planned model (``ModelConvention``).
///
/// A graph error when planning at a chosen `input.size` is reported as a description error on
/// `input.size` (a size the strides of the graph do not divide, say).
package struct SegmentationModel: Sendable {
    package let model: PlannedModel
    package let convention: ModelConvention
    /// Each state input's shape (by input name), what its zeros are.
    package let stateShapes: [String: [Int]]
    /// Each constant's tensor, by input name (those planning did not fix are fed every run).
    package let constants: [String: Tensor]

    /// Why a segmentation model cannot be planned: the model (every problem listed) or its
    /// description (the field named).
    package enum LoadError: Error, Sendable, CustomStringConvertible {
        case model(InferenceError)
        case description(SegmentationModelDescription.DescriptionError)

        package var description: String {
            switch self {
            case let .model(error): error.description
            case let .description(error): error.description
            }
        }
    }

    /// - Parameters:
    ///   - code: the description passed in code, if any.
    ///   - file: the contents of the JSON file beside the model, if there is one.
    package init(parsed: ModelDeclarations, code: SegmentationModelDescription? = nil, file: Data? = nil) throws(LoadError) {
        typealias Error = SegmentationModelDescription.DescriptionError
        func described<T>(_ body: () throws(Error) -> T) throws(LoadError) -> T {
            do { return try body() } catch { throw .description(error) }
        }
        let layers = try described { () throws(Error) in try ModelConvention.layers(code: code, file: file, metadata: parsed.metadata) }
        func pick<T>(_ value: (SegmentationModelDescription) -> T?) -> T? {
            for (description, _) in layers { if let found = value(description) { return found } }
            return nil
        }
        let state = pick(\.state) ?? []
        let constantValues = pick(\.constants) ?? [:]
        let fedOtherwise = Set(state.map(\.input)).union(constantValues.keys)

        // 1. The image input and its shape.
        var inputShapes: [String: [Int]] = [:]
        let name = pick(\.input.name) ?? {
            let candidates = parsed.inputs.filter { $0.elementType == .float32 && !fedOtherwise.contains($0.name) && ModelConvention.takesImage($0.dims ?? []) }
            return candidates.count == 1 ? candidates[0].name : nil
        }()
        let size = pick(\.input.size)
        if let name, let image = parsed.inputs.first(where: { $0.name == name }), let dims = image.dims, dims.count == 4 {
            let layout = pick(\.input.layout) ?? (dims[1] == 3 ? .nchw : dims[3] == 3 ? .nhwc : nil)
            if let layout {
                let spatial = layout == .nchw ? (dims[2], dims[3]) : (dims[1], dims[2])
                if spatial.0 == nil || spatial.1 == nil {
                    guard let size else {
                        throw .description(Error(field: "input.size", message: "input \(image) takes any size: give input.size [height, width]"))
                    }
                    inputShapes[name] = layout == .nchw ? [1, 3, size.height, size.width] : [1, size.height, size.width, 3]
                }
            }
        }

        // Every other input is a state or a constant.
        if let name, let unfed = parsed.inputs.first(where: { $0.name != name && !fedOtherwise.contains($0.name) }) {
            throw .description(Error(field: "constants", message: "graph input \(unfed) is not the image, a state or a constant: give its value in constants (or its pair in state)"))
        }

        // 2. Constants, with the declared type and shape.
        var planTimeInputs: [String: Tensor] = [:]
        for (constant, values) in constantValues {
            guard let declared = parsed.inputs.first(where: { $0.name == constant }) else { continue }  // named by ModelConvention
            planTimeInputs[constant] = try described { () throws(Error) in try Self.tensor(values, for: declared) }
        }

        // 3. State inputs: symbolic dims 1 at first.
        for pair in state {
            guard let declared = parsed.inputs.first(where: { $0.name == pair.input }) else { continue }
            inputShapes[pair.input] = (declared.dims ?? []).map { $0 ?? 1 }
        }
        func plan() throws(LoadError) -> PlannedModel {
            do {
                return try parsed.planned(inputShapes: inputShapes, planTimeInputs: planTimeInputs)
            } catch {
                if let size, let name, inputShapes[name] != nil, [.invalidShape, .invalidInput].contains(error.kind) {
                    throw .description(Error(field: "input.size", message: "[\(size.height), \(size.width)] does not fit the graph: \(error)"))
                }
                throw .model(error)
            }
        }
        var model = try plan()
        var replans = false
        for pair in state {
            if let output = model.outputs.first(where: { $0.name == pair.output }), output.shape != inputShapes[pair.input],
               output.shape.count == inputShapes[pair.input]?.count {
                inputShapes[pair.input] = output.shape
                replans = true
            }
        }
        if replans { model = try plan() }
        self.model = model
        convention = try described { () throws(Error) in try ModelConvention(model: model, code: code, file: file) }
        self.constants = planTimeInputs
        stateShapes = inputShapes.filter { entry in state.contains { $0.input == entry.key } }
    }

    /// `values` as a tensor of the declared input's type and shape (a symbolic dim sized from
    /// the count; no declared shape is a vector).
    static func tensor(_ values: [Double], for input: DeclaredTensor) throws(SegmentationModelDescription.DescriptionError) -> Tensor {
        let field = "constants.\(input.name)"
        guard let type = input.elementType else {
            throw .init(field: field, message: "input \(input) has an element type the engine does not store")
        }
        var shape: [Int]
        if let dims = input.dims {
            let known = dims.compactMap { $0 }.reduce(1, *)
            let free = dims.indices.filter { dims[$0] == nil }
            if free.isEmpty {
                guard known == values.count else {
                    throw .init(field: field, message: "input \(input) holds \(known) values, \(values.count) given")
                }
                shape = dims.map { $0! }
            } else {
                guard known > 0, values.count % known == 0 else {
                    throw .init(field: field, message: "\(values.count) values do not fill input \(input)")
                }
                shape = dims.map { $0 ?? 1 }
                shape[free.last!] = values.count / known
            }
        } else {
            shape = [values.count]
        }
        var bytes: [UInt8] = []
        func append<T>(_ value: T) { withUnsafeBytes(of: value) { bytes.append(contentsOf: $0) } }
        for value in values {
            switch type {
            case .float32: append(Float(value).bitPattern.littleEndian)
            case .float64: append(value.bitPattern.littleEndian)
            case .bool: append(UInt8(value != 0 ? 1 : 0))
            case .int8, .int16, .int32, .int64, .uint8, .uint16, .uint32, .uint64:
                guard value == value.rounded(), let integer = Int64(exactly: value) else {
                    throw .init(field: field, message: "input \(input) takes whole numbers, \(value) given")
                }
                switch type {
                case .int8: append(Int8(truncatingIfNeeded: integer))
                case .int16: append(Int16(truncatingIfNeeded: integer).littleEndian)
                case .int32: append(Int32(truncatingIfNeeded: integer).littleEndian)
                case .uint8: append(UInt8(truncatingIfNeeded: integer))
                case .uint16: append(UInt16(truncatingIfNeeded: integer).littleEndian)
                case .uint32: append(UInt32(truncatingIfNeeded: integer).littleEndian)
                case .uint64: append(UInt64(truncatingIfNeeded: integer).littleEndian)
                default: append(integer.littleEndian)
                }
            case .float16, .bfloat16, .float8e4m3fn, .float8e4m3fnuz, .float8e5m2, .float8e5m2fnuz, .float8e8m0, .float4e2m1,
                 .int4, .uint4, .int2, .uint2:
                throw .init(field: field, message: "input \(input) is \(type.rawValue), which constants do not take")
            case .string:
                throw .init(field: field, message: "input \(input) holds strings, which constants do not take")
            }
        }
        return Tensor(shape: shape, elementType: type, bytes: bytes)
    }
}
