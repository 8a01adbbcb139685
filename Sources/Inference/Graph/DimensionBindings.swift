import ONNXFormat

/// Binds the dims of graph inputs to sizes, as onnxruntime does: a `dim_param` is a label, each
/// input's dims bound on their own.
///
/// - A declared size is the size (a given shape must agree with it).
/// - A `dim_param` or unknown dim takes the caller's size for that input.
/// - Without a shape for the input, a `dim_param` takes the size the caller gave the same name
///   in another input (the first such input in graph order), else the size it took in an earlier
///   input given no shape, else a leading (batch) dim is 1.
/// - Two inputs given different sizes for the same `dim_param` are both taken as given; the
///   disagreement is recorded in `warnings` (onnxruntime does not check it either).
struct DimensionBindings {
    /// The size each `dim_param` has in the first input given a shape for it, in graph order.
    private var givenSizes: [String: (size: Int, input: String)] = [:]
    /// Sizes taken by a `dim_param` of an input given no shape (a leading dim defaulted to 1).
    private var defaultedSizes: [String: Int] = [:]
    /// One line per `dim_param` that two given shapes size differently.
    private(set) var warnings: [String] = []

    /// Records the sizes the given shapes put on each `dim_param`, before any input is bound.
    init(inputs: [ValueInfoProto], given: [String: [Int]]) {
        for input in inputs {
            guard let shape = given[input.name], let dims = input.type?.tensorType?.shape?.dims, dims.count == shape.count else { continue }
            for (axis, dimension) in dims.enumerated() {
                guard case let .parameter(name) = dimension else { continue }
                if let first = givenSizes[name] {
                    if first.size != shape[axis] {
                        warnings.append("graph inputs '\(first.input)' and '\(input.name)' give the dimension '\(name)' different sizes (\(first.size) and \(shape[axis])); each input keeps its own")
                    }
                } else {
                    givenSizes[name] = (shape[axis], input.name)
                }
            }
        }
    }

    /// The static shape and element type of `input`.
    ///
    /// - Parameter given: the caller's shape for this input, if any; it must agree with every
    ///   declared size.
    /// - Throws: `ModelError` naming the input (and the axis) for an unstored type, a dim that
    ///   cannot be bound, or a given shape that disagrees with the declaration.
    mutating func bind(_ input: ValueInfoProto, given: [Int]?) throws(ModelError) -> (shape: [Int], type: ElementType) {
        let label = "graph input '\(input.name)'"
        guard let tensor = input.type?.tensorType else { throw ModelError(.unsupported, "\(label) is not a tensor") }
        guard let type = ElementType(tensor.elementType) else {
            throw ModelError(.unsupported, "\(label) has element type \(tensor.elementType), which is not supported")
        }
        if let given {
            guard given.allSatisfy({ $0 >= 0 }), Shapes.elementCount(given) != nil else {
                throw ModelError(.invalidInput, "\(label) is given shape \(given): negative, or more than 2^31 elements")
            }
        }
        guard let dims = tensor.shape?.dims else {
            guard let given else {
                throw ModelError(.unsupported, "\(label) declares no shape; give its shape when loading the model")
            }
            return (given, type)
        }
        if let given, given.count != dims.count {
            throw ModelError(.invalidInput, "\(label) is declared with rank \(dims.count) \(LoadedGraph.describe(dims)) but given shape \(given)")
        }
        var shape: [Int] = []
        for (axis, dimension) in dims.enumerated() {
            let size: Int
            switch dimension {
            case let .value(value):
                guard value >= 0, value <= Int64(Shapes.maximumElementCount) else {
                    throw ModelError(.invalidShape, "\(label) has dimension \(axis) = \(value)")
                }
                size = Int(value)
                if let given, given[axis] != size {
                    throw ModelError(.invalidInput, "\(label) has shape \(LoadedGraph.describe(dims)), not the \(given) given (axis \(axis))")
                }
            case let .parameter(name):
                guard let chosen = given?[axis] ?? givenSizes[name]?.size ?? defaultedSizes[name] ?? (axis == 0 ? 1 : nil) else {
                    throw ModelError(.unsupported, "\(label) axis \(axis) is the symbolic dimension '\(name)'; give the input's shape when loading the model")
                }
                size = chosen
                if given == nil, givenSizes[name] == nil { defaultedSizes[name] = size }
            case .unknown:
                guard let chosen = given?[axis] ?? (axis == 0 ? 1 : nil) else {
                    throw ModelError(.unsupported, "\(label) axis \(axis) has an unknown size; give the input's shape when loading the model")
                }
                size = chosen
            }
            shape.append(size)
        }
        guard Shapes.elementCount(shape) != nil else {
            throw ModelError(.invalidShape, "\(label) has shape \(shape): more than 2^31 elements")
        }
        return (shape, type)
    }
}
