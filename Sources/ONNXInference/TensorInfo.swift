/// A model's input or output as the model declares it: what a caller must pass, or gets back.
public struct TensorInfo: Sendable, Hashable, CustomStringConvertible {
    /// The graph value's name, the key of the dictionaries `InferenceSession.run` takes and returns.
    public let name: String
    public let elementType: ElementType
    /// The dims, outermost first: a size, or nil for a symbolic or unknown dim that the shape of
    /// the tensor passed at run time binds.
    public let shape: [Int?]
    /// The name of each symbolic dim (`"batch"`, `"height"`), nil for sized or unnamed dims.
    public let dimensionNames: [String?]

    public init(name: String, elementType: ElementType, shape: [Int?], dimensionNames: [String?]? = nil) {
        self.name = name
        self.elementType = elementType
        self.shape = shape
        self.dimensionNames = dimensionNames ?? Array(repeating: nil, count: shape.count)
    }

    /// Whether every dim has a size.
    public var isStatic: Bool { shape.allSatisfy { $0 != nil } }

    /// `input FLOAT [1, 3, height, width]`.
    public var description: String {
        let dims = zip(shape, dimensionNames).map { size, name in size.map(String.init) ?? name ?? "?" }
        return "\(name) \(elementType) [\(dims.joined(separator: ", "))]"
    }
}
