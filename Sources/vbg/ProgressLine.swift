import Foundation

/// The progress of a streaming command on standard error: frames, frames per second, dropped
/// frames. In a terminal (`isatty(2)`) one line is redrawn in place with `\r`; otherwise (a log,
/// a pipe) a plain line is printed about once a second, so logs stay readable.
struct ProgressLine {
    let label: String
    let isTerminal: Bool
    private let start = DispatchTime.now().uptimeNanoseconds
    private var lastDraw: UInt64 = 0
    private var drewInPlace = false

    init(label: String, isTerminal: Bool = isatty(2) == 1) {
        self.label = label
        self.isTerminal = isTerminal
    }

    /// Seconds since creation.
    var elapsed: Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }

    /// Reports the counts, drawing at most 10 times a second in a terminal, once a second otherwise.
    mutating func update(frames: Int, dropped: Int) {
        let now = DispatchTime.now().uptimeNanoseconds
        let period: UInt64 = isTerminal ? 100_000_000 : 1_000_000_000
        guard now - lastDraw >= period, now - start >= period else { return }
        lastDraw = now
        let text = "\(label): \(frames) frames, \(String(format: "%.1f", Double(frames) / elapsed)) fps, \(dropped) dropped"
        if isTerminal {
            FileHandle.standardError.write(Data(("\r" + text + "\u{1B}[K").utf8))
            drewInPlace = true
        } else {
            printError(text)
        }
    }

    /// Ends the in-place line (if one was drawn) so the summary starts on a line of its own.
    mutating func finish() {
        if drewInPlace { FileHandle.standardError.write(Data("\n".utf8)) }
        drewInPlace = false
    }
}
