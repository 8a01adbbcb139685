import Foundation
import Testing
import TestSupport
@testable import vbg

@Suite("Outputs that are not regular files")
struct SpecialOutputTests {
    @Test("an output that is a FIFO (like /dev/null or a pipe) is written in place, never replaced by a file")
    func fifoStaysAFIFO() throws {
        let path = NSTemporaryDirectory() + "vbg-fifo-\(getpid())-\(UUID().uuidString)"
        #expect(mkfifo(path, 0o600) == 0)
        defer { unlink(path) }
        // A reader drains the FIFO so the writer never blocks; it counts what arrives.
        let received = ByteCounter()
        let reader = Thread {
            let fd = open(path, O_RDONLY)
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = read(fd, &buffer, buffer.count)
                if count <= 0 { break }
                received.add(count)
            }
            close(fd)
            received.finish()
        }
        reader.start()
        let status = runMain(["infer", "--model", "landscape", "--input", Fixtures.url("model/landscape/input.npy").path,
                              "--output", path])
        received.waitUntilFinished()
        #expect(status == 0)
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect((info.st_mode & S_IFMT) == S_IFIFO, "the FIFO was replaced by another kind of file")
        #expect(received.total > 144 * 256 * 4, "the mask did not reach the FIFO")
    }
}

/// Bytes counted by the reader thread, handed to the test thread under a lock.
private final class ByteCounter: @unchecked Sendable {
    // @unchecked: every field is read and written only while holding `condition`.
    private let condition = NSCondition()
    private var count = 0
    private var done = false

    func add(_ n: Int) { condition.lock(); count += n; condition.unlock() }
    func finish() { condition.lock(); done = true; condition.broadcast(); condition.unlock() }
    func waitUntilFinished() { condition.lock(); while !done { condition.wait() }; condition.unlock() }
    var total: Int { condition.lock(); defer { condition.unlock() }; return count }
}
