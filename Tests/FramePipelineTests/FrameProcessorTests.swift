import AllocationCounter
import FramePipeline
import Imaging
import PipelineFakes
import Testing

private let on = FrameSettings(isEnabled: true)

@Suite("Frame processor")
struct FrameProcessorTests {
    @Test("off: the camera frame passes through untouched, same storage, no inference")
    func offPassesThrough() {
        let processor = FrameProcessor()
        let segmenter = FakeSegmenter()
        let frame = makePersonFrame(width: 8, height: 6)
        let outcome = processor.process(frame, settings: FrameSettings(isEnabled: false), segmenter: segmenter,
                                        compositor: FakeCompositor())
        guard case .passedThrough(let output) = outcome else { Issue.record("not passed through: \(outcome)"); return }
        #expect(output.storage === frame.storage)
        #expect(segmenter.calls == 0)
        #expect(processor.statistics.inferenceCount == 0)
        #expect(processor.byteCount == 0, "no buffers are allocated while off")
    }

    @Test("on: the background is replaced and the person kept")
    func onComposites() {
        let processor = FrameProcessor()
        let frame = makePersonFrame(width: 8, height: 8)
        let outcome = processor.process(frame, settings: on, segmenter: FakeSegmenter(), compositor: FakeCompositor())
        guard case .processed(let output) = outcome else { Issue.record("not processed"); return }
        #expect(output.storage !== frame.storage)
        #expect(Array(output.image.bytes[0..<3]) == [100, 100, 100], "background becomes the blur-5 grey")
        let centre = 4 * (4 * 8 + 4)
        #expect(Array(output.image.bytes[centre..<centre + 3]) == [230, 180, 150], "the person is kept")
        #expect(output.sequenceNumber == frame.sequenceNumber && output.timestamp == frame.timestamp)
    }

    @Test("fail closed: a segmentation failure drops the frame and counts it")
    func segmentationFailureDrops() {
        let processor = FrameProcessor()
        let segmenter = FakeSegmenter()
        segmenter.failing = true
        let outcome = processor.process(makePersonFrame(width: 8, height: 6), settings: on, segmenter: segmenter,
                                        compositor: FakeCompositor())
        #expect(outcome.frame == nil)
        #expect(processor.statistics.droppedFrameCount == 1)
        #expect(processor.statistics.droppedForSegmentationFailure == 1)
        segmenter.failing = false
        #expect(processor.process(makePersonFrame(width: 8, height: 6), settings: on, segmenter: segmenter,
                                  compositor: FakeCompositor()).frame != nil)
    }

    @Test("fail closed: an exhausted output pool drops the frame and counts it")
    func poolExhaustionDrops() {
        let processor = FrameProcessor(poolCapacity: 2)
        var held: [VideoFrame] = []
        var outcomes: [FrameOutcome] = []
        for index in 0..<4 {
            let outcome = processor.process(makePersonFrame(width: 8, height: 6, sequenceNumber: index), settings: on,
                                            segmenter: FakeSegmenter(), compositor: FakeCompositor())
            outcomes.append(outcome)
            if let frame = outcome.frame { held.append(frame) }   // a consumer that never lets go
        }
        #expect(held.count == 2)
        #expect(outcomes.suffix(2).allSatisfy { if case .dropped(.outputPoolExhausted) = $0 { true } else { false } })
        #expect(processor.statistics.droppedForPoolExhaustion == 2)
        held.removeAll()
        outcomes.removeAll()
        #expect(processor.process(makePersonFrame(width: 8, height: 6), settings: on, segmenter: FakeSegmenter(),
                                  compositor: FakeCompositor()).frame != nil, "buffers come back when released")
    }

    @Test("mask sync: frames without inference carry the previous processed frame again")
    func maskSyncRepeatsStorage() {
        let processor = FrameProcessor()
        let segmenter = FakeSegmenter()
        let settings = FrameSettings(isEnabled: true, inferenceInterval: 3, maskSync: true)
        let outputs = (0..<4).map {
            processor.process(makePersonFrame(width: 8, height: 6, sequenceNumber: $0), settings: settings,
                              segmenter: segmenter, compositor: FakeCompositor()).frame!
        }
        #expect(outputs[1].storage === outputs[0].storage && outputs[2].storage === outputs[0].storage)
        #expect(outputs[1].sequenceNumber == 1, "the repeat carries the new frame's time stamp")
        #expect(outputs[3].storage !== outputs[0].storage)
        #expect(segmenter.calls == 2)
        #expect(processor.statistics.framesRepeated == 2)
    }

    @Test("inference interval: composites every frame, segments every N")
    func intervalComposites() {
        let processor = FrameProcessor()
        let segmenter = FakeSegmenter()
        let settings = FrameSettings(isEnabled: true, inferenceInterval: 2)
        for index in 0..<6 {
            let output = processor.process(makePersonFrame(width: 8, height: 6, sequenceNumber: index), settings: settings,
                                           segmenter: segmenter, compositor: FakeCompositor()).frame
            #expect(output != nil)
        }
        #expect(segmenter.calls == 3)
        #expect(processor.statistics.framesComposited == 6)
    }

    @Test("the mask generation changes with each inference and reset, and stays on frames without inference")
    func maskGenerations() {
        final class Recorder: FrameCompositor {
            var generations: [Int] = []
            func composite(_ frame: Image, mask: Mask, maskGeneration: Int, effect: BackgroundEffect, into output: inout Image) {
                generations.append(maskGeneration)
            }
        }
        let processor = FrameProcessor()
        let segmenter = FakeSegmenter()
        let recorder = Recorder()
        let settings = FrameSettings(isEnabled: true, inferenceInterval: 3)
        for index in 0..<6 {
            _ = processor.process(makePersonFrame(width: 8, height: 6, sequenceNumber: index), settings: settings,
                                  segmenter: segmenter, compositor: recorder)
        }
        processor.reset()
        _ = processor.process(makePersonFrame(width: 8, height: 6, sequenceNumber: 6), settings: settings,
                              segmenter: segmenter, compositor: recorder)
        let g = recorder.generations
        #expect(segmenter.calls == 3)
        #expect(g.count == 7)
        #expect(g[0] == g[1] && g[1] == g[2] && g[3] == g[4] && g[4] == g[5])
        #expect(Set([g[0], g[3], g[6]]).count == 3)
    }

    @Test("switching off clears the inter-frame state and frees the buffers")
    func offClearsState() {
        let processor = FrameProcessor()
        let segmenter = FakeSegmenter()
        let settings = FrameSettings(isEnabled: true, inferenceInterval: 5)
        _ = processor.process(makePersonFrame(width: 8, height: 6), settings: settings, segmenter: segmenter, compositor: FakeCompositor())
        _ = processor.process(makePersonFrame(width: 8, height: 6), settings: FrameSettings(isEnabled: false), segmenter: segmenter, compositor: FakeCompositor())
        #expect(processor.policy.state == .awaitingFirstMask)
        #expect(processor.byteCount == 0)
        _ = processor.process(makePersonFrame(width: 8, height: 6), settings: settings, segmenter: segmenter, compositor: FakeCompositor())
        #expect(segmenter.calls == 2, "the first frame after switching on segments again")
    }

    @Test("a resolution change clears the inter-frame state")
    func resolutionChangeResets() {
        let processor = FrameProcessor()
        let segmenter = FakeSegmenter()
        let settings = FrameSettings(isEnabled: true, inferenceInterval: 10)
        _ = processor.process(makePersonFrame(width: 8, height: 6), settings: settings, segmenter: segmenter, compositor: FakeCompositor())
        _ = processor.process(makePersonFrame(width: 8, height: 6), settings: settings, segmenter: segmenter, compositor: FakeCompositor())
        let resized = processor.process(makePersonFrame(width: 12, height: 6), settings: settings, segmenter: segmenter,
                                        compositor: FakeCompositor()).frame
        #expect(segmenter.calls == 2)
        #expect(resized?.width == 12)
        #expect(processor.statistics.resetCount >= 1)
    }

    @Test("an explicit reset clears the inter-frame state: the next frame segments again")
    func resetClears() {
        let processor = FrameProcessor()
        let segmenter = FakeSegmenter()
        let settings = FrameSettings(isEnabled: true, inferenceInterval: 10)
        _ = processor.process(makePersonFrame(width: 8, height: 6), settings: settings, segmenter: segmenter, compositor: FakeCompositor())
        _ = processor.process(makePersonFrame(width: 8, height: 6), settings: settings, segmenter: segmenter, compositor: FakeCompositor())
        #expect(segmenter.calls == 1)
        processor.reset()
        _ = processor.process(makePersonFrame(width: 8, height: 6), settings: settings, segmenter: segmenter, compositor: FakeCompositor())
        #expect(segmenter.calls == 2)
    }

    @Test("per-stage timings and counters are recorded")
    func timingsRecorded() {
        let processor = FrameProcessor()
        for index in 0..<3 {
            _ = processor.process(makePersonFrame(width: 16, height: 12, sequenceNumber: index), settings: on,
                                  segmenter: FakeSegmenter(), compositor: FakeCompositor())
        }
        let statistics = processor.statistics
        #expect(statistics.segmentation.count == 3 && statistics.smoothing.count == 3)
        #expect(statistics.compositing.count == 3 && statistics.total.count == 3)
        #expect(statistics.total.totalNanoseconds >= statistics.compositing.totalNanoseconds)
        #expect(statistics.compositing.lastNanoseconds > 0)
        #expect(statistics.inferenceCount == 3 && statistics.framesReceived == 3)
    }

    @Test("steady-state frame processing allocates nothing",
          .disabled(if: vbg_built_with_sanitizer() != 0, "a sanitizer's allocator replaces the counted malloc"),
          arguments: [(1, false), (3, false), (3, true)])
    func steadyStateAllocatesNothing(interval: Int, maskSync: Bool) {
        #if os(Linux)
        #expect(vbg_allocation_counting_is_active() != 0, "the allocation counter must be interposed")
        let control = vbg_thread_allocation_count()
        let array = [Int](repeating: 1, count: 1000)
        #expect(vbg_thread_allocation_count() > control && array.count == 1000, "the counter sees an allocation")
        #endif
        let processor = FrameProcessor()
        let segmenter = FakeSegmenter()
        let compositor = FakeCompositor()
        let settings = FrameSettings(isEnabled: true, effect: .blur(level: 3), inferenceInterval: interval, maskSync: maskSync)
        let frames = (0..<4).map { makePersonFrame(width: 32, height: 24, sequenceNumber: $0) }
        let (allocations, published) = SteadyState.processingAllocations(processor, frames: frames, settings: settings,
                                                                         segmenter: segmenter, compositor: compositor, rounds: 100)
        #expect(published)
        #expect(allocations == 0, "\(allocations) allocations in 100 frames")
    }
}
