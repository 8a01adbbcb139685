import PNGCodec

/// libFuzzer entry point: the bytes as a PNG file, decoded as RGBA (`PNG.decode`) and as grey
/// (`PNG.decodeGray`), the two ways the CLI and the SDK read pictures. libpng itself is not
/// instrumented (the system library), our wrapper around it is.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPNG(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    _ = try? PNG.decode(bytes)
    _ = try? PNG.decodeGray(bytes)
    return 0
}
