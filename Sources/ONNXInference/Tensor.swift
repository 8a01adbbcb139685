/// A dense tensor: a shape, an element type and the elements in C (row-major) order.
///
/// A value type with copy-on-write storage: copies share their bytes until one of them is
/// mutated. The bytes are 64-byte aligned and little-endian, as the engine holds them, so
/// ``withUnsafeBytes(_:)`` and ``withUnsafeBufferPointer(of:_:)`` read them without a copy.
///
/// A tensor of ``ElementType/string`` holds Swift strings (``init(shape:strings:)``,
/// ``strings()``) and has no bytes: zero-copy byte access does not apply to it.
///
/// ```swift
/// let x = Tensor(shape: [1, 3, 2, 2], scalars: [Float](repeating: 0.5, count: 12))
/// let y: [Float] = try x.scalars(as: Float.self)
/// let words = Tensor(shape: [2], strings: ["monday", "tuesday"])
/// ```
public struct Tensor: Sendable, Equatable, CustomStringConvertible {
    /// The dims, outermost first; `[]` for a scalar.
    public let shape: [Int]
    /// The type of every element.
    public let elementType: ElementType
    private var storage: TensorStorage
    /// The elements of a `string` tensor in C order; empty for every other type.
    private let stringElements: [String]

    /// A tensor of `scalars` in C order.
    ///
    /// - Precondition: every dim is ≥ 0 and `scalars.count` is the product of `shape`.
    public init<Scalar: TensorScalar>(shape: [Int], scalars: some Collection<Scalar>) {
        precondition(shape.allSatisfy { $0 >= 0 }, "a tensor's dims must be non-negative (got \(shape))")
        let count = shape.reduce(1, *)
        precondition(scalars.count == count, "\(scalars.count) values do not fill a tensor of shape \(shape) (\(count) elements)")
        self.shape = shape
        elementType = Scalar.elementType
        stringElements = []
        storage = TensorStorage(byteCount: count * MemoryLayout<Scalar>.stride)
        let destination = storage.bytes.bindMemory(to: Scalar.self, capacity: count)
        var index = 0
        for scalar in scalars {
            (destination + index).initialize(to: scalar)
            index += 1
        }
    }

    /// A tensor of `strings` in C order, of element type ``ElementType/string``.
    ///
    /// - Precondition: every dim is ≥ 0 and `strings.count` is the product of `shape`.
    public init(shape: [Int], strings: some Collection<String>) {
        precondition(shape.allSatisfy { $0 >= 0 }, "a tensor's dims must be non-negative (got \(shape))")
        let count = shape.reduce(1, *)
        precondition(strings.count == count, "\(strings.count) strings do not fill a tensor of shape \(shape) (\(count) elements)")
        self.shape = shape
        elementType = .string
        stringElements = Array(strings)
        storage = TensorStorage(byteCount: 0)
    }

    /// A tensor of `elementType` with every element zero: every byte 0 (0, `false`, +0.0), or
    /// every string empty.
    ///
    /// - Precondition: every dim is ≥ 0.
    public init(zeros elementType: ElementType, shape: [Int]) {
        precondition(shape.allSatisfy { $0 >= 0 }, "a tensor's dims must be non-negative (got \(shape))")
        self.shape = shape
        self.elementType = elementType
        stringElements = elementType == .string ? Array(repeating: "", count: shape.reduce(1, *)) : []
        storage = TensorStorage(byteCount: shape.reduce(1, *) * elementType.byteCount)
    }

    /// A tensor of `elementType` whose elements are `bytes`, little-endian, in C order.
    ///
    /// - Precondition: `elementType` is not `string` (see ``init(shape:strings:)``), and
    ///   `bytes.count` is the element count times `elementType.byteCount`.
    public init(shape: [Int], elementType: ElementType, bytes: some Collection<UInt8>) {
        precondition(elementType != .string, "a string tensor is made from strings (init(shape:strings:)), not bytes")
        self.init(zeros: elementType, shape: shape)
        precondition(bytes.count == storage.byteCount,
                     "\(bytes.count) bytes do not hold a \(elementType) tensor of shape \(shape) (\(storage.byteCount) bytes)")
        UnsafeMutableRawBufferPointer(start: storage.bytes, count: storage.byteCount).copyBytes(from: bytes)
    }

    /// The number of elements: the product of the dims.
    public var count: Int { shape.reduce(1, *) }

    /// The elements as `Scalar`s.
    ///
    /// - Throws: ``TensorError/elementTypeMismatch(expected:actual:)`` when `Scalar` is not the
    ///   tensor's element type.
    public func scalars<Scalar: TensorScalar>(as _: Scalar.Type) throws(TensorError) -> [Scalar] {
        try withUnsafeBufferPointer(of: Scalar.self) { Array($0) }
    }

    /// The elements of a ``ElementType/string`` tensor, in C order.
    ///
    /// - Throws: ``TensorError/elementTypeMismatch(expected:actual:)`` when the tensor does not
    ///   hold strings.
    public func strings() throws(TensorError) -> [String] {
        guard elementType == .string else { throw .elementTypeMismatch(expected: elementType, actual: .string) }
        return stringElements
    }

    /// Calls `body` with the elements as `Scalar`s, without copying them.
    ///
    /// - Throws: ``TensorError/elementTypeMismatch(expected:actual:)`` when `Scalar` is not the
    ///   tensor's element type.
    public func withUnsafeBufferPointer<Scalar: TensorScalar, Result>(
        of _: Scalar.Type, _ body: (UnsafeBufferPointer<Scalar>) -> Result
    ) throws(TensorError) -> Result {
        guard Scalar.elementType == elementType else {
            throw .elementTypeMismatch(expected: elementType, actual: Scalar.elementType)
        }
        return body(UnsafeBufferPointer(start: storage.bytes.assumingMemoryBound(to: Scalar.self), count: count))
    }

    /// Calls `body` with the elements' bytes, without copying them (none for a `string` tensor).
    public func withUnsafeBytes<Result, Failure>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(UnsafeRawBufferPointer(start: storage.bytes, count: storage.byteCount))
    }

    /// Calls `body` with the elements' bytes to change them in place (copying them first only
    /// when another tensor shares them); none for a `string` tensor.
    public mutating func withUnsafeMutableBytes<Result, Failure>(
        _ body: (UnsafeMutableRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        makeUnique()
        return try body(UnsafeMutableRawBufferPointer(start: storage.bytes, count: storage.byteCount))
    }

    /// Calls `body` with the elements as `Scalar`s to change them in place.
    ///
    /// - Throws: ``TensorError/elementTypeMismatch(expected:actual:)`` when `Scalar` is not the
    ///   tensor's element type.
    public mutating func withUnsafeMutableBufferPointer<Scalar: TensorScalar, Result>(
        of _: Scalar.Type, _ body: (UnsafeMutableBufferPointer<Scalar>) -> Result
    ) throws(TensorError) -> Result {
        guard Scalar.elementType == elementType else {
            throw .elementTypeMismatch(expected: elementType, actual: Scalar.elementType)
        }
        makeUnique()
        return body(UnsafeMutableBufferPointer(start: storage.bytes.assumingMemoryBound(to: Scalar.self), count: count))
    }

    /// Equal shapes, element types and bytes (so `+0.0 != -0.0` and a NaN equals the same NaN),
    /// or strings.
    public static func == (a: Tensor, b: Tensor) -> Bool {
        a.shape == b.shape && a.elementType == b.elementType && a.stringElements == b.stringElements
            && (a.storage === b.storage || a.withUnsafeBytes { x in b.withUnsafeBytes { y in x.elementsEqual(y) } })
    }

    /// `FLOAT [1, 3, 224, 224]`.
    public var description: String { "\(elementType) [\(shape.map(String.init).joined(separator: ", "))]" }

    /// The bytes, valid while this tensor (or a copy sharing them) lives.
    var storageBytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: storage.bytes, count: storage.byteCount) }

    /// Copies `bytes` over the elements in place when the tensor already has `type` and `shape`
    /// and shares its bytes with no other tensor; returns whether it did.
    mutating func overwrite(type: ElementType, shape: [Int], bytes: UnsafeRawBufferPointer) -> Bool {
        guard type == elementType, shape == self.shape, bytes.count == storage.byteCount,
              isKnownUniquelyReferenced(&storage) else { return false }
        if let source = bytes.baseAddress { storage.bytes.copyMemory(from: source, byteCount: bytes.count) }
        return true
    }

    private mutating func makeUnique() {
        guard !isKnownUniquelyReferenced(&storage) else { return }
        let copy = TensorStorage(byteCount: storage.byteCount)
        copy.bytes.copyMemory(from: storage.bytes, byteCount: storage.byteCount)
        storage = copy
    }
}

/// Why a tensor cannot be read as asked.
public enum TensorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The tensor holds `expected` elements; they were asked for as `actual`.
    case elementTypeMismatch(expected: ElementType, actual: ElementType)

    public var description: String {
        switch self {
        case let .elementTypeMismatch(expected, actual):
            "the tensor holds \(expected) elements; they cannot be read as \(actual)"
        }
    }
}

/// A tensor's bytes: 64-byte aligned, zero-filled at allocation.
// @unchecked Sendable: a `Tensor` writes its storage only after `isKnownUniquelyReferenced`
// (copy on write), so bytes shared between tensors, and so between threads, are never written.
final class TensorStorage: @unchecked Sendable {
    let bytes: UnsafeMutableRawPointer
    let byteCount: Int

    init(byteCount: Int) {
        self.byteCount = byteCount
        bytes = UnsafeMutableRawPointer.allocate(byteCount: max(byteCount, 1), alignment: 64)
        bytes.initializeMemory(as: UInt8.self, repeating: 0, count: max(byteCount, 1))
    }

    deinit { bytes.deallocate() }
}
