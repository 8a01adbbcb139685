import FramePipeline
import Testing

/// Runs `count` frames through a policy, completing each, and returns the actions.
private func actions(_ policy: inout FramePolicy, _ count: Int) -> [FrameAction] {
    (0..<count).map { _ in
        let action = policy.frameArrived()
        policy.frameCompleted()
        return action
    }
}

private let S = FrameAction.segmentAndComposite
private let C = FrameAction.compositeWithLatestMask
private let R = FrameAction.repeatPreviousOutput

@Suite("Frame policy")
struct FramePolicyTests {
    @Test("inference interval values below 1 are treated as 1", arguments: [0, -5, Int.min])
    func intervalBelowOne(value: Int) {
        var policy = FramePolicy(inferenceInterval: value)
        #expect(policy.inferenceInterval == 1)
        policy.inferenceInterval = value
        #expect(policy.inferenceInterval == 1)
        #expect(actions(&policy, 4) == [S, S, S, S])
    }

    @Test("the default segments every frame")
    func defaultEveryFrame() {
        var policy = FramePolicy()
        #expect(actions(&policy, 5) == [S, S, S, S, S])
    }

    @Test("interval N segments every N frames and composites the others with the latest mask")
    func intervalComposites() {
        var policy = FramePolicy(inferenceInterval: 3)
        #expect(actions(&policy, 7) == [S, C, C, S, C, C, S])
    }

    @Test("mask sync repeats the previous processed frame on frames without inference")
    func maskSyncRepeats() {
        var policy = FramePolicy(inferenceInterval: 3, maskSync: true)
        #expect(actions(&policy, 7) == [S, R, R, S, R, R, S])
    }

    @Test("with interval 1, mask sync changes nothing")
    func maskSyncIntervalOne() {
        var on = FramePolicy(inferenceInterval: 1, maskSync: true)
        var off = FramePolicy(inferenceInterval: 1, maskSync: false)
        #expect(actions(&on, 10) == actions(&off, 10))
    }

    @Test("the first frame after a reset segments, whatever the interval")
    func resetSegmentsFirst() {
        var policy = FramePolicy(inferenceInterval: 4, maskSync: true)
        #expect(actions(&policy, 2) == [S, R])
        policy.reset()
        #expect(policy.state == .awaitingFirstMask)
        #expect(actions(&policy, 3) == [S, R, R])
    }

    @Test("a dropped segmentation frame leaves segmentation due on the next frame")
    func droppedSegmentationStaysDue() {
        var policy = FramePolicy(inferenceInterval: 3)
        #expect(policy.frameArrived() == S)
        policy.frameDropped()
        #expect(policy.frameArrived() == S)
        policy.frameCompleted()
        #expect(actions(&policy, 3) == [C, C, S])
        // Due again in the running state:
        _ = actions(&policy, 2)
        #expect(policy.frameArrived() == S)
        policy.frameDropped()
        #expect(policy.frameArrived() == S)
        policy.frameCompleted()
    }

    @Test("dropped frames without inference still count towards the interval")
    func droppedCompositeCounts() {
        var policy = FramePolicy(inferenceInterval: 2)
        _ = actions(&policy, 1)
        #expect(policy.frameArrived() == C)
        policy.frameDropped()
        #expect(policy.frameArrived() == S)
        policy.frameCompleted()
    }

    @Test("changing the interval takes effect on the next frame")
    func intervalChange() {
        var policy = FramePolicy(inferenceInterval: 5)
        #expect(actions(&policy, 2) == [S, C])
        policy.inferenceInterval = 2
        #expect(actions(&policy, 3) == [S, C, S])
    }
}
