/// A graph input or output: its name, static shape (C order) and element type.
package struct TensorDescription: Sendable, Equatable, CustomStringConvertible {
    package var name: String
    package var shape: [Int]
    package var type: ElementType

    package init(name: String, shape: [Int], type: ElementType = .float32) {
        self.name = name
        self.shape = shape
        self.type = type
    }

    /// The number of elements.
    package var elementCount: Int { shape.reduce(1, *) }

    package var description: String {
        "\(name) \(type == .float32 ? "" : "\(type) ")[\(shape.map(String.init).joined(separator: ", "))]"
    }
}
