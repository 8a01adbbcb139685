import AllocationCounter
import PipelineFakes
import SDKTestSupport
@testable import SRTC
import Testing

#if DEBUG
let isDebugBuild = true
#else
let isDebugBuild = false
#endif

@Suite("Allocation")
struct AllocationTests {
    @Test("steady-state capture allocates nothing, from the camera to the published streams and the preview",
          .disabled(if: vbg_built_with_sanitizer() != 0, "a sanitizer's allocator replaces the counted malloc"),
          .disabled(if: isDebugBuild, "unspecialised generics allocate in debug builds; run in release: swift test -c release -Xswiftc -enable-testing --filter Allocat"),
          arguments: [(1, false), (2, true)])
    func captureAllocatesNothing(interval: Int, maskSync: Bool) throws {
        let rig = TestRig(width: 32, height: 24)
        let engine = rig.engine()
        let channels = [engine.joinChannel("a"), engine.joinChannel("b")]
        try engine.installVirtualBackground()
        engine.setVirtualBackgroundInferenceInterval(interval)
        engine.setVirtualBackgroundMaskSync(maskSync)
        try engine.enableVirtualBackground(true)
        rig.pipeline.captureFrames(4)   // warm-up: buffers are allocated by the first frames
        let before = vbg_thread_allocation_count()
        let captured = rig.pipeline.captureFrames(100)
        let allocations = vbg_thread_allocation_count() - before
        #expect(captured == 100)
        #expect(channels.allSatisfy { $0.publishedVideo.frameCount == 104 })
        #expect(allocations == 0, "\(allocations) allocations in 100 frames")
    }
}
