/// The element types this reader and writer understand, named by their little-endian numpy
/// `descr` strings.
///
/// Only little-endian (or byte-sized) layouts are accepted; big-endian files are rejected with
/// an error rather than silently byte-swapped.
public enum NumpyDataType: String, Sendable, CaseIterable {
    case float16 = "<f2"
    case float32 = "<f4"
    case float64 = "<f8"
    case uint8 = "|u1"
    case int32 = "<i4"
    case int64 = "<i8"

    /// Bytes per element.
    public var itemSize: Int {
        switch self {
        case .uint8: 1
        case .float16: 2
        case .float32, .int32: 4
        case .float64, .int64: 8
        }
    }

    /// Reads a `descr` string; `<u1` and `u1` are accepted as synonyms of `|u1` (a byte has no order).
    init?(descr: String) {
        switch descr {
        case "<u1", "u1", "|u1": self = .uint8
        case "|i1", "<i1": return nil
        default: self.init(rawValue: descr)
        }
    }
}
