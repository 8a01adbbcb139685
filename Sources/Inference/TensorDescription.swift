/// A graph input or output: its name and static shape (float32 elements, C order).
public struct TensorDescription: Sendable, Equatable, CustomStringConvertible {
    public var name: String
    public var shape: [Int]

    public init(name: String, shape: [Int]) {
        self.name = name
        self.shape = shape
    }

    /// The number of elements.
    public var elementCount: Int { shape.reduce(1, *) }

    public var description: String { "\(name) [\(shape.map(String.init).joined(separator: ", "))]" }
}
