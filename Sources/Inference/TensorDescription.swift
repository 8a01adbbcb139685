/// A graph input or output: its name, static shape (C order) and element type.
public struct TensorDescription: Sendable, Equatable, CustomStringConvertible {
    public var name: String
    public var shape: [Int]
    public var type: ElementType

    public init(name: String, shape: [Int], type: ElementType = .float32) {
        self.name = name
        self.shape = shape
        self.type = type
    }

    /// The number of elements.
    public var elementCount: Int { shape.reduce(1, *) }

    public var description: String {
        "\(name) \(type == .float32 ? "" : "\(type) ")[\(shape.map(String.init).joined(separator: ", "))]"
    }
}
