import Foundation
import Testing

/// `vbg video` writes its output file unnamed (`O_TMPFILE`) and links it only when the stream is
/// complete, so a process killed with SIGKILL, which runs no clean-up, leaves nothing behind.
@Suite("vbg video killed mid-stream")
struct KilledVideoTests {
    /// A YUV4MPEG2 stream of `frames` grey 64x48 4:2:0 frames.
    static func stream(frames: Int) -> [UInt8] {
        var bytes = Array("YUV4MPEG2 W64 H48 F30:1 Ip A1:1 C420jpeg\n".utf8)
        for _ in 0..<frames {
            bytes += Array("FRAME\n".utf8)
            bytes += [UInt8](repeating: 128, count: 64 * 48 * 3 / 2)
        }
        return bytes
    }

    #if os(Linux)
    @Test("SIGKILL while frames are being written leaves no file in the output directory")
    func sigkillLeavesNothing() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let input = try scratch.input("in.y4m", Self.stream(frames: 400))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: VBG.binary)
        process.arguments = ["video", "--input", input, "--output", scratch.output("out.y4m"), "--blur", "5"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Wait until the output is open and being written: an fd of the process on a deleted
        // (unnamed) file in outputs/.
        let descriptors = "/proc/\(process.processIdentifier)/fd"
        var writing = false
        let deadline = Date().addingTimeInterval(120)
        while !writing && process.isRunning && Date() < deadline {
            for entry in (try? FileManager.default.contentsOfDirectory(atPath: descriptors)) ?? [] {
                let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(descriptors)/\(entry)")) ?? ""
                if target.hasPrefix(scratch.outputs.path), target.hasSuffix("(deleted)") { writing = true }
            }
            usleep(20_000)
        }
        #expect(writing, "vbg never opened an unnamed output file")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(try scratch.leftovers() == [])
    }
    #endif
}
