import HalfPrecision

/// How far one tensor is from another, element by element, under numpy's `allclose` rule:
/// an element matches when `|actual − expected| ≤ atol + rtol · |expected|`.
///
/// ```swift
/// let report = TensorComparison(actual: ours, expected: theirs, rtol: 1e-4, atol: 1e-6)
/// #expect(report.isClose, "\(report)")
/// // 3 of 4096 elements differ; largest |Δ| 2.1e-3 at [0, 5, 7, 1] (actual 0.5021, expected 0.5000) ...
/// ```
///
/// Elements are compared as `Double`s (exact for every float and for integers up to 2^53);
/// `rtol` and `atol` apply to integers and bools too, as in numpy (pass 0 to compare them
/// exactly). NaN matches NaN (`equal_nan`), and an infinity matches only the same infinity.
/// Strings match only when equal: a differing one counts as an infinite error, with no ``worst``.
public struct TensorComparison: Sendable, CustomStringConvertible {
    public let rtol: Double
    public let atol: Double
    /// Elements compared (0 when the shapes or element types differ).
    public let count: Int
    /// Elements outside the tolerance.
    public let mismatchCount: Int
    /// The largest `|actual − expected|` (infinity where one side is NaN or infinite and the other is not).
    public let maximumAbsoluteError: Double
    /// The largest `|actual − expected| / |expected|` over elements whose expected value is not 0.
    public let maximumRelativeError: Double
    /// Where the largest absolute error is, as indices per dim, with both values there; nil
    /// when every element is equal or nothing was compared.
    public let worst: (index: [Int], actual: Double, expected: Double)?
    /// Why nothing was compared: the shapes or element types differ.
    public let incompatibility: String?

    /// Compares `actual` with `expected`.
    ///
    /// - Parameters:
    ///   - rtol: relative tolerance (numpy's default 1e-5; onnx's backend tests use 1e-3).
    ///   - atol: absolute tolerance (numpy's default 1e-8; onnx's backend tests use 1e-7).
    public init(actual: Tensor, expected: Tensor, rtol: Double = 1e-5, atol: Double = 1e-8) {
        self.rtol = rtol
        self.atol = atol
        guard actual.shape == expected.shape, actual.elementType == expected.elementType else {
            count = 0
            mismatchCount = 0
            maximumAbsoluteError = .infinity
            maximumRelativeError = .infinity
            worst = nil
            incompatibility = actual.shape != expected.shape
                ? "shapes differ: actual \(actual.shape), expected \(expected.shape)"
                : "element types differ: actual \(actual.elementType), expected \(expected.elementType)"
            return
        }
        incompatibility = nil
        count = actual.count
        if actual.elementType == .string {
            // Strings match only when equal; there is no distance between them.
            let differing = zip((try? actual.strings()) ?? [], (try? expected.strings()) ?? []).count { $0 != $1 }
            mismatchCount = differing
            maximumAbsoluteError = differing == 0 ? 0 : .infinity
            maximumRelativeError = maximumAbsoluteError
            worst = nil
            return
        }
        var mismatches = 0, largestAbsolute = 0.0, largestRelative = 0.0, worstAt = -1
        var worstValues = (0.0, 0.0)
        actual.withUnsafeBytes { a in
            expected.withUnsafeBytes { e in
                for i in 0..<actual.count {
                    let x = TensorComparison.element(a, i, actual.elementType)
                    let y = TensorComparison.element(e, i, actual.elementType)
                    let difference: Double
                    let matches: Bool
                    if x.isNaN || y.isNaN {
                        matches = x.isNaN && y.isNaN
                        difference = matches ? 0 : .infinity
                    } else if x.isInfinite || y.isInfinite {
                        matches = x == y
                        difference = matches ? 0 : .infinity
                    } else {
                        difference = abs(x - y)
                        matches = difference <= atol + rtol * abs(y)
                        if y != 0 { largestRelative = max(largestRelative, difference / abs(y)) }
                    }
                    if !matches { mismatches += 1 }
                    if difference > largestAbsolute || (worstAt < 0 && difference > 0) {
                        largestAbsolute = difference
                        worstAt = i
                        worstValues = (x, y)
                    }
                }
            }
        }
        mismatchCount = mismatches
        maximumAbsoluteError = largestAbsolute
        maximumRelativeError = largestAbsolute.isInfinite ? .infinity : largestRelative
        worst = worstAt < 0 ? nil : (TensorComparison.indices(of: worstAt, in: actual.shape), worstValues.0, worstValues.1)
    }

    /// Whether the shapes and element types agree and every element is within the tolerance.
    public var isClose: Bool { incompatibility == nil && mismatchCount == 0 }

    /// `all 4096 elements within rtol 1e-05, atol 1e-08 (largest |Δ| 3.0e-07 …)`, or what differs.
    public var description: String {
        if let incompatibility { return incompatibility }
        let tolerance = "rtol \(rtol), atol \(atol)"
        var text = mismatchCount == 0
            ? "all \(count) elements within \(tolerance)"
            : "\(mismatchCount) of \(count) elements differ beyond \(tolerance)"
        if let worst {
            text += "; largest |Δ| \(maximumAbsoluteError) at \(worst.index) (actual \(worst.actual), expected \(worst.expected))"
            text += "; largest relative error \(maximumRelativeError)"
        }
        return text
    }

    private static func element(_ bytes: UnsafeRawBufferPointer, _ i: Int, _ type: ElementType) -> Double {
        switch type {
        case .float32: Double(bytes.load(fromByteOffset: 4 * i, as: Float.self))
        case .float64: bytes.load(fromByteOffset: 8 * i, as: Double.self)
        case .float16: Double(Half.float(bytes.load(fromByteOffset: 2 * i, as: UInt16.self)))
        case .int8: Double(bytes.load(fromByteOffset: i, as: Int8.self))
        case .int16: Double(bytes.load(fromByteOffset: 2 * i, as: Int16.self))
        case .int32: Double(bytes.load(fromByteOffset: 4 * i, as: Int32.self))
        case .int64: Double(bytes.load(fromByteOffset: 8 * i, as: Int64.self))
        case .uint8, .bool: Double(bytes.load(fromByteOffset: i, as: UInt8.self))
        case .uint16: Double(bytes.load(fromByteOffset: 2 * i, as: UInt16.self))
        case .uint32: Double(bytes.load(fromByteOffset: 4 * i, as: UInt32.self))
        case .uint64: Double(bytes.load(fromByteOffset: 8 * i, as: UInt64.self))
        case .bfloat16, .float8e4m3fn, .float8e4m3fnuz, .float8e5m2, .float8e5m2fnuz, .float8e8m0, .float4e2m1,
             .int4, .uint4, .int2, .uint2:
            type.engineType.double(bytes.baseAddress!, at: i)
        case .string: preconditionFailure("strings are compared as strings")
        }
    }

    private static func indices(of flat: Int, in shape: [Int]) -> [Int] {
        var rest = flat
        var indices = Array(repeating: 0, count: shape.count)
        for axis in shape.indices.reversed() where shape[axis] > 0 {
            indices[axis] = rest % shape[axis]
            rest /= shape[axis]
        }
        return indices
    }
}

extension Tensor {
    /// Whether every element is within `atol + rtol · |expected|` of `expected`'s (numpy's
    /// `allclose`, NaN equal to NaN); false when the shapes or element types differ.
    public func isClose(to expected: Tensor, rtol: Double = 1e-5, atol: Double = 1e-8) -> Bool {
        TensorComparison(actual: self, expected: expected, rtol: rtol, atol: atol).isClose
    }
}
