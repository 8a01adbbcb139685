#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Imaging

#if canImport(Glibc)
private let posixRead = Glibc.read
private let posixWrite = Glibc.write
#elseif canImport(Darwin)
private let posixRead = Darwin.read
private let posixWrite = Darwin.write
#endif

/// Reads a YUV4MPEG2 stream frame by frame from a file descriptor (a file, or a pipe such as
/// standard input: reads never seek).
///
/// ```swift
/// let reader = try Y4MReader(fileDescriptor: 0)
/// var frame = Image(width: reader.header.width, height: reader.header.height)
/// while try reader.readFrame(into: &frame) { … }
/// ```
/// A stream that ends exactly after a frame ends cleanly (`readFrame` returns false); one that
/// ends inside a frame throws ``Y4MError/truncatedFrame(index:expected:received:)`` after every
/// complete frame has been returned. Buffers are allocated once. Not `Sendable`.
package final class Y4MReader {
    package let header: Y4MHeader
    /// Frames returned so far.
    package private(set) var framesRead = 0

    private let fd: Int32
    private var buffer: [UInt8]
    private var start = 0, end = 0
    private var atEnd = false
    private var planes: [UInt8]

    /// Reads the stream header.
    ///
    /// - Throws: ``Y4MError`` for a malformed or unsupported header, or an I/O failure.
    package init(fileDescriptor: Int32) throws(Y4MError) {
        fd = fileDescriptor
        buffer = [UInt8](repeating: 0, count: 1 << 16)
        planes = []
        var line: [UInt8] = []
        var reader = LineSource(fd: fd)
        header = try Y4MHeader(parsing: reader.line(limit: 4096, what: "stream header", into: &line))
        (buffer, start, end, atEnd) = (reader.buffer, reader.start, reader.end, reader.atEnd)
        planes = [UInt8](repeating: 0, count: header.frameByteCount)
    }

    /// Reads the next frame into `image` (converted from YUV, alpha 255).
    ///
    /// - Returns: false at the end of the stream.
    /// - Precondition: `image` has the header's size.
    package func readFrame(into image: inout Image) throws(Y4MError) -> Bool {
        guard try readPlanes() else { return false }
        planes.withUnsafeBufferPointer { YUVConversion.toImage(planes: $0.baseAddress!, header: header, into: &image) }
        framesRead += 1
        return true
    }

    /// Reads the next frame's raw Y, U, V planes (``Y4MHeader/frameByteCount`` bytes).
    package func readFrame(planes out: inout [UInt8]) throws(Y4MError) -> Bool {
        guard try readPlanes() else { return false }
        if out.count != planes.count { out = [UInt8](repeating: 0, count: planes.count) }
        out.withUnsafeMutableBufferPointer { o in planes.withUnsafeBufferPointer { o.baseAddress!.update(from: $0.baseAddress!, count: $0.count) } }
        framesRead += 1
        return true
    }

    private func readPlanes() throws(Y4MError) -> Bool {
        var source = LineSource(fd: fd, buffer: buffer, start: start, end: end, atEnd: atEnd)
        defer { (buffer, start, end, atEnd) = (source.buffer, source.start, source.end, source.atEnd) }
        if try source.isAtEnd() { return false }
        var line: [UInt8] = []
        let frameLine = try source.line(limit: 1024, what: "FRAME header", into: &line, frameIndex: framesRead)
        guard frameLine == "FRAME" || frameLine.hasPrefix("FRAME ") else {
            throw .malformedFrame(index: framesRead, reason: "expected FRAME, got '\(frameLine.prefix(40))'")
        }
        let expected = planes.count
        let received = try planes.withUnsafeMutableBufferPointer { p throws(Y4MError) in
            try source.read(into: p.baseAddress!, count: expected)
        }
        guard received == expected else {
            throw .truncatedFrame(index: framesRead, expected: expected, received: received)
        }
        return true
    }
}

/// Buffered reads from a descriptor.
struct LineSource {
    let fd: Int32
    var buffer: [UInt8]
    var start = 0, end = 0
    var atEnd = false

    init(fd: Int32, buffer: [UInt8] = [UInt8](repeating: 0, count: 1 << 16), start: Int = 0, end: Int = 0, atEnd: Bool = false) {
        self.fd = fd; self.buffer = buffer; self.start = start; self.end = end; self.atEnd = atEnd
    }

    /// Refills the buffer; false when the stream has ended.
    mutating func fill() throws(Y4MError) -> Bool {
        if atEnd { return false }
        start = 0; end = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { posixRead(fd, $0.baseAddress!, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .io(String(cString: strerror(errno)))
            }
            if n == 0 { atEnd = true; return false }
            end = n
            return true
        }
    }

    mutating func isAtEnd() throws(Y4MError) -> Bool {
        if start < end { return false }
        return try !fill()
    }

    /// A line without its newline; errors if the stream ends first or it exceeds `limit` bytes.
    mutating func line(limit: Int, what: String, into line: inout [UInt8], frameIndex: Int? = nil) throws(Y4MError) -> String {
        line.removeAll(keepingCapacity: true)
        while true {
            if start == end, try !fill() {
                if let frameIndex { throw .malformedFrame(index: frameIndex, reason: "stream ends inside the \(what)") }
                throw .malformedHeader(line.isEmpty ? "empty stream" : "stream ends inside the \(what)")
            }
            let byte = buffer[start]
            start += 1
            if byte == 0x0A { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
            if line.count > limit {
                if let frameIndex { throw .malformedFrame(index: frameIndex, reason: "\(what) longer than \(limit) bytes") }
                throw .malformedHeader("\(what) longer than \(limit) bytes (not a YUV4MPEG2 stream?)")
            }
        }
    }

    /// Reads up to `count` bytes; returns how many arrived before the end of the stream.
    mutating func read(into out: UnsafeMutablePointer<UInt8>, count: Int) throws(Y4MError) -> Int {
        var done = 0
        while done < count {
            if start == end, try !fill() { return done }
            let n = min(end - start, count - done)
            buffer.withUnsafeBufferPointer { (out + done).update(from: $0.baseAddress! + start, count: n) }
            start += n
            done += n
        }
        return done
    }
}

/// Writes a YUV4MPEG2 stream to a file descriptor: the header at creation, then `FRAME` + planes
/// per frame. Works on pipes (standard output). Buffers are allocated once. Not `Sendable`.
package final class Y4MWriter {
    package let header: Y4MHeader
    package private(set) var framesWritten = 0
    private let fd: Int32
    private var planes: [UInt8]

    /// Writes the stream header.
    package init(fileDescriptor: Int32, header: Y4MHeader) throws(Y4MError) {
        fd = fileDescriptor
        self.header = header
        planes = [UInt8](repeating: 0, count: header.frameByteCount)
        try write(Array(header.line.utf8))
    }

    /// Converts `image` to YUV and writes it as the next frame.
    ///
    /// - Precondition: `image` has the header's size.
    package func write(_ image: Image) throws(Y4MError) {
        planes.withUnsafeMutableBufferPointer { YUVConversion.toPlanes(image, header: header, into: $0.baseAddress!) }
        try write(Array("FRAME\n".utf8))
        try write(planes)
        framesWritten += 1
    }

    private func write(_ bytes: [UInt8]) throws(Y4MError) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { posixWrite(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .io(String(cString: strerror(errno)))
            }
            offset += n
        }
    }
}
