/// What the pipeline does with one camera frame, as decided by ``FramePolicy``.
package enum FrameAction: Sendable, Equatable {
    /// Run segmentation on this frame, update the smoothed mask, then composite this frame with it.
    case segmentAndComposite
    /// Composite this frame with the latest smoothed mask (no inference): inference interval > 1, mask sync off.
    case compositeWithLatestMask
    /// Publish the previous processed frame again (no inference, no compositing): inference
    /// interval > 1 with mask sync on, so video and mask always come from the same moment.
    case repeatPreviousOutput
}

/// The per-frame decisions of the virtual background, as a pure state machine (the swift-nio idiom:
/// events in, actions out; no threads, clocks or buffers), so every rule is testable on its own.
///
/// Events: ``frameArrived()`` returns the ``FrameAction`` for a frame; the executor then reports
/// ``frameCompleted()`` or ``frameDropped()``; ``reset()`` clears the inter-frame state.
///
/// Rules:
/// - The first frame after a reset always runs segmentation (there is no mask yet).
/// - Segmentation runs when at least `inferenceInterval` frames have arrived since the last
///   successful segmentation (every frame counts, dropped ones included), so it runs every N frames.
/// - Between segmentations the frame is composited with the latest mask, or, with mask sync on, the
///   previous processed frame is published again.
/// - A dropped segmentation frame leaves segmentation due, so the next frame tries again; a frame is
///   never composited with a mask older than the last failure allows.
/// - With `inferenceInterval == 1` every frame segments, so `maskSync` changes nothing.
package struct FramePolicy: Sendable, Equatable {
    /// Where the machine is between frames.
    package enum State: Sendable, Equatable {
        /// No mask exists (after creation or a reset): the next frame must segment.
        case awaitingFirstMask
        /// A mask exists; `framesSinceInference` frames arrived since the last successful segmentation.
        case running(framesSinceInference: Int)
    }

    /// Segmentation runs every this many frames; values below 1 are stored as 1.
    package var inferenceInterval: Int {
        didSet { inferenceInterval = max(1, inferenceInterval) }
    }
    /// Whether frames without inference repeat the previous processed frame instead of being recomposited.
    package var maskSync: Bool
    package private(set) var state: State = .awaitingFirstMask
    /// The action handed out by the last ``frameArrived()``, until it is completed or dropped.
    package private(set) var pendingAction: FrameAction?

    package init(inferenceInterval: Int = 1, maskSync: Bool = false) {
        self.inferenceInterval = max(1, inferenceInterval)
        self.maskSync = maskSync
    }

    /// Decides what to do with the frame that just arrived.
    ///
    /// - Precondition: the previous action was completed or dropped.
    package mutating func frameArrived() -> FrameAction {
        precondition(pendingAction == nil, "frameArrived() before the previous frame was completed or dropped")
        let action: FrameAction
        switch state {
        case .awaitingFirstMask:
            action = .segmentAndComposite
        case .running(let since):
            let count = since + 1
            state = .running(framesSinceInference: count)
            if count >= inferenceInterval {
                action = .segmentAndComposite
            } else {
                action = maskSync ? .repeatPreviousOutput : .compositeWithLatestMask
            }
        }
        pendingAction = action
        return action
    }

    /// The pending action succeeded and its frame was published.
    package mutating func frameCompleted() {
        guard let action = pendingAction else { preconditionFailure("frameCompleted() without a pending frame") }
        pendingAction = nil
        if action == .segmentAndComposite { state = .running(framesSinceInference: 0) }
    }

    /// The pending action failed (segmentation error, no output buffer): the frame was dropped.
    /// A due segmentation stays due.
    package mutating func frameDropped() {
        guard pendingAction != nil else { preconditionFailure("frameDropped() without a pending frame") }
        pendingAction = nil
    }

    /// Clears the inter-frame state: the next frame segments from scratch. Settings are kept.
    package mutating func reset() {
        state = .awaitingFirstMask
        pendingAction = nil
    }
}
