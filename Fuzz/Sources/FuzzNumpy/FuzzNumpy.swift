import NumpyFormat

/// libFuzzer entry point: the bytes as a `.npy` file (`NumpyArray(bytes:)`), and, when they
/// parse, the conversions `vbg infer` and the tests use.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNumpy(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    if let array = try? NumpyArray(bytes: bytes) {
        _ = try? array.floats()
        _ = try? array.integers()
        _ = try? array.booleans()
        _ = array.serialized()
    }
    return 0
}
