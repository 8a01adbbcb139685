import Foundation

/// The line an unoptimised build of the SDK writes to standard error, once per process, at its
/// first `installVirtualBackground`: the kernels are plain Swift SIMD code, which without the
/// optimiser runs a frame hundreds of times slower, and a debug build of an app compiles its
/// package dependencies unoptimised too.
enum DebugBuildNotice {
    static let text = "SRTC: the virtual background was compiled without optimisation (a debug build), which makes "
        + "every frame hundreds of times slower; build it optimised (swift build -c release; in Xcode the Release "
        + "configuration): swift-virtual-background's Docs/SDK.md, \"Building it fast\"\n"

    /// Whether this module was compiled without optimisation.
    static var isUnoptimised: Bool { _isDebugAssertConfiguration() }

    private static let written: Bool = {
        guard isUnoptimised else { return false }
        FileHandle.standardError.write(Data(text.utf8))
        return true
    }()

    /// Writes ``text`` the first time it is called in an unoptimised build; nothing otherwise.
    static func announce() { _ = written }
}
