import Testing
@testable import SRTC

@Suite("The debug-build notice")
struct DebugBuildNoticeTests {
    @Test("is one line naming the cause (no optimisation) and the fix (a release build, Xcode's Release)")
    func namesCauseAndFix() {
        let text = DebugBuildNotice.text
        #expect(text.hasPrefix("SRTC: "))
        #expect(text.filter { $0 == "\n" }.count == 1 && text.hasSuffix("\n"))
        #expect(text.contains("compiled without optimisation"))
        #expect(text.contains("swift build -c release"))
        #expect(text.contains("Release configuration"))
    }
}
