import ONNXFormat

/// Binds the dims of graph inputs to sizes: declared sizes as they are, a `dim_param` or unknown
/// dim from the shape the caller gives, the same `dim_param` to the same size in every input, and
/// an unbound leading (batch) dim to 1.
struct DimensionBindings {
    private var sizes: [String: Int] = [:]

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
                if let bound = sizes[name] {
                    if let given, given[axis] != bound {
                        throw ModelError(.invalidInput, "\(label) axis \(axis) ('\(name)') is given \(given[axis]) but '\(name)' is already \(bound)")
                    }
                    size = bound
                } else {
                    guard let chosen = given?[axis] ?? (axis == 0 ? 1 : nil) else {
                        throw ModelError(.unsupported, "\(label) axis \(axis) is the symbolic dimension '\(name)'; give the input's shape when loading the model")
                    }
                    size = chosen
                    sizes[name] = size
                }
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
