#if canImport(Glibc)
import Glibc
#endif
import Imaging
import Y4MFormat

/// libFuzzer entry point: the bytes as a YUV4MPEG2 stream on a pipe (the reader only takes a file
/// descriptor, and `vbg video` reads standard input), every frame read and converted to RGBA
/// until the end or the first error.
///
/// Frames over 64 MB are read as raw planes only (no RGBA image): the reader's own buffer for
/// them is bounded by `Y4MHeader.maximumDimension`, but a 16384 x 16384 picture beside it would
/// pass libFuzzer's 2 GB RSS limit and be reported as a finding that is not one.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzY4M(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else { fatalError("pipe: \(errno)") }
    // run.sh caps inputs at 16 KB, well inside a pipe's 64 KB buffer: the write never blocks.
    if let data, size > 0 {
        guard write(ends[1], data, size) == size else { fatalError("short write to the pipe") }
    }
    close(ends[1])
    defer { close(ends[0]) }
    guard let reader = try? Y4MReader(fileDescriptor: ends[0]) else { return 0 }
    if reader.header.frameByteCount <= 64 << 20 {
        var image = Image(width: reader.header.width, height: reader.header.height)
        while (try? reader.readFrame(into: &image)) == true {}
    } else {
        var planes: [UInt8] = []
        while (try? reader.readFrame(planes: &planes)) == true {}
    }
    return 0
}
