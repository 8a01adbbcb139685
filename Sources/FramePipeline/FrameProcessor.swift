import Imaging

/// The settings a frame is processed with, read once per frame.
package struct FrameSettings: Sendable, Equatable {
    /// Off: frames pass through untouched (no copy, no inference) and the inter-frame state is cleared.
    package var isEnabled: Bool
    package var effect: BackgroundEffect
    /// Segmentation every N frames (values below 1 are 1).
    package var inferenceInterval: Int
    /// Frames without inference repeat the previous processed frame.
    package var maskSync: Bool

    package init(isEnabled: Bool = false, effect: BackgroundEffect = .blur(level: 5), inferenceInterval: Int = 1,
                maskSync: Bool = false) {
        self.isEnabled = isEnabled
        self.effect = effect
        self.inferenceInterval = inferenceInterval
        self.maskSync = maskSync
    }
}

/// Why a frame was dropped instead of published.
package enum DropReason: Sendable, Equatable {
    /// Segmentation threw (or no segmenter was available while on).
    case segmentationFailed
    /// Every output buffer was still held by consumers.
    case outputPoolExhausted
}

/// What became of one frame.
package enum FrameOutcome: Sendable {
    /// Off: the camera frame itself (same storage, no copy).
    case passedThrough(VideoFrame)
    /// On: a composited frame, or the previous one repeated (mask sync).
    case processed(VideoFrame)
    /// On, but the frame could not be processed; nothing may be published for it.
    case dropped(DropReason)

    /// The frame to publish, if any.
    package var frame: VideoFrame? {
        switch self {
        case .passedThrough(let frame), .processed(let frame): frame
        case .dropped: nil
        }
    }
}

/// Executes the ``FramePolicy`` for one video stream: segmentation, temporal smoothing, compositing
/// into pooled output buffers, fail-closed dropping, statistics.
///
/// Not thread-safe: one caller at a time (the capture thread). Buffers (two masks, the output pool)
/// are allocated on the first processed frame and on a resolution change, then reused, so steady-state
/// processing allocates nothing. The inter-frame state (policy, smoothed mask, last output) is
/// cleared when the effect is switched off, on a resolution change, and by ``reset()`` (the owner
/// calls it on a camera switch or restart).
package final class FrameProcessor {
    package private(set) var statistics = PipelineStatistics()
    package private(set) var policy = FramePolicy()
    private var smoother: MaskSmoother
    private let poolCapacity: Int
    private var pool: FrameBufferPool?
    /// The segmenter's fresh mask (read by the smoother, never composited); `nil` until the first
    /// processed frame.
    private var freshMask: Mask?
    /// The smoothed mask: the smoother's memory, and what every frame composites with.
    private var smoothedMask: Mask?
    /// Changes whenever the smoothed mask does (each inference, each reset), for
    /// ``FrameCompositor/composite(_:mask:maskGeneration:effect:into:)``. Starts at a random
    /// multiple of 2³² so that a compositor handed from one processor to another does not mistake
    /// the new processor's masks for the old one's (a collision needs the same 31 random bits).
    private var maskGeneration = Int.random(in: 0..<(1 << 31)) << 32
    private var lastOutput: VideoFrame?
    /// The segmenter's recurrent state for this stream, and the segmenter that made it (a new
    /// segmenter, after a new install, starts a new state).
    private var streamState: SegmenterStreamState?
    private weak var streamStateOwner: (any Segmenter)?
    private var wasEnabled = false
    private let clock = ContinuousClock()
    /// Whether the segmenter that made the smoothed mask gives an alpha (``Segmenter/maskIsAlpha``).
    private var maskIsAlpha = false

    /// - Parameters:
    ///   - poolCapacity: output buffers (at least 2: one holds the previous output for mask sync).
    ///   - smoothingRatio: ``MaskSmoother/combineWithPreviousRatio``.
    package init(poolCapacity: Int = 4, smoothingRatio: Float = 0.7) {
        self.poolCapacity = max(2, poolCapacity)
        smoother = MaskSmoother(combineWithPreviousRatio: smoothingRatio)
    }

    /// Bytes held by masks and output buffers.
    package var byteCount: Int { (pool?.byteCount ?? 0) + 4 * ((freshMask?.values.count ?? 0) + (smoothedMask?.values.count ?? 0)) }

    /// Clears the inter-frame state: the next frame segments from scratch (a recurrent model from
    /// its zero state) and uses its raw mask.
    package func reset() {
        maskGeneration &+= 1
        policy.reset()
        smoother.reset()
        streamState?.reset()
        lastOutput = nil
        statistics.resetCount += 1
    }

    /// Clears the inter-frame state and frees the masks and output buffers (they are allocated
    /// again by the next processed frame). Buffers still held by consumers live until released.
    package func releaseBuffers() {
        if policy.state != .awaitingFirstMask || smoother.hasPrevious || lastOutput != nil { reset() }
        streamState = nil
        streamStateOwner = nil
        pool = nil
        freshMask = nil
        smoothedMask = nil
    }

    /// Processes one camera frame.
    ///
    /// - Parameters:
    ///   - segmenter: the installed model, or `nil` (then an enabled pipeline drops every frame).
    ///   - compositor: draws the output.
    /// - Returns: what to publish: the camera frame itself when off, a processed frame, or nothing.
    package func process(_ frame: VideoFrame, settings: FrameSettings, segmenter: (any Segmenter)?,
                        compositor: any FrameCompositor) -> FrameOutcome {
        statistics.framesReceived += 1
        guard settings.isEnabled else {
            if wasEnabled { releaseBuffers(); wasEnabled = false }
            statistics.framesPassedThrough += 1
            return .passedThrough(frame)
        }
        wasEnabled = true
        let start = clock.now
        prepareBuffers(for: frame.image)
        policy.inferenceInterval = settings.inferenceInterval
        policy.maskSync = settings.maskSync

        switch policy.frameArrived() {
        case .repeatPreviousOutput:
            guard var repeated = lastOutput else { return drop(.segmentationFailed) }
            repeated.timestamp = frame.timestamp
            repeated.sequenceNumber = frame.sequenceNumber
            policy.frameCompleted()
            statistics.framesRepeated += 1
            statistics.total.record(clock.now - start)
            return .processed(repeated)

        case .segmentAndComposite:
            guard let output = pool!.acquire() else { return drop(.outputPoolExhausted) }
            guard let segmenter else { return drop(.segmentationFailed) }
            statistics.inferenceCount += 1
            let segmentationStart = clock.now
            if streamStateOwner !== segmenter {
                streamState = segmenter.makeStreamState()
                streamStateOwner = segmenter
            }
            do {
                try freshMask!.values.withUnsafeMutableBufferPointer {
                    try segmenter.segment(frame.image, into: $0, state: streamState)
                }
            } catch {
                streamState?.reset()
                return drop(.segmentationFailed)
            }
            let smoothingStart = clock.now
            statistics.segmentation.record(smoothingStart - segmentationStart)
            freshMask!.values.withUnsafeBufferPointer { fresh in
                smoothedMask!.values.withUnsafeMutableBufferPointer { smoothed in
                    smoother.smooth(fresh, into: smoothed)
                }
            }
            maskGeneration &+= 1
            statistics.smoothing.record(clock.now - smoothingStart)
            maskIsAlpha = segmenter.maskIsAlpha
            return composite(frame, into: output, settings: settings, compositor: compositor, start: start)

        case .compositeWithLatestMask:
            guard let output = pool!.acquire() else { return drop(.outputPoolExhausted) }
            return composite(frame, into: output, settings: settings, compositor: compositor, start: start)
        }
    }

    private func composite(_ frame: VideoFrame, into output: FrameBuffer, settings: FrameSettings,
                           compositor: any FrameCompositor, start: ContinuousClock.Instant) -> FrameOutcome {
        let compositingStart = clock.now
        output.withMutableImage { image in
            compositor.composite(frame.image, mask: smoothedMask!, maskGeneration: maskGeneration,
                                 effect: settings.effect, maskIsAlpha: maskIsAlpha,
                                 into: &image)
        }
        let end = clock.now
        statistics.compositing.record(end - compositingStart)
        statistics.total.record(end - start)
        let result = VideoFrame(storage: output, timestamp: frame.timestamp, sequenceNumber: frame.sequenceNumber)
        lastOutput = result
        policy.frameCompleted()
        statistics.framesComposited += 1
        return .processed(result)
    }

    private func drop(_ reason: DropReason) -> FrameOutcome {
        policy.frameDropped()
        statistics.droppedFrameCount += 1
        switch reason {
        case .segmentationFailed: statistics.droppedForSegmentationFailure += 1
        case .outputPoolExhausted: statistics.droppedForPoolExhaustion += 1
        }
        return .dropped(reason)
    }

    /// Allocates masks and the pool for this frame size, clearing the state when the size changed.
    private func prepareBuffers(for image: Image) {
        let count = image.width * image.height
        if let pool, pool.width == image.width, pool.height == image.height, pool.format == image.format,
           freshMask?.values.count == count {
            return
        }
        releaseBuffers()   // a resolution change: this also clears the inter-frame state
        pool = FrameBufferPool(width: image.width, height: image.height, format: image.format, capacity: poolCapacity)
        freshMask = Mask(width: image.width, height: image.height)
        smoothedMask = Mask(width: image.width, height: image.height)
    }
}
