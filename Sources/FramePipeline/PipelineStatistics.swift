/// Counters and per-stage timings of a ``FrameProcessor``, for diagnostics panels and `perf` work.
package struct PipelineStatistics: Sendable, Equatable {
    /// Timing of one stage: the last frame's and the running total, in nanoseconds.
    package struct StageTiming: Sendable, Equatable {
        package private(set) var count = 0
        package private(set) var lastNanoseconds: Int64 = 0
        package private(set) var totalNanoseconds: Int64 = 0
        /// Mean duration in nanoseconds (0 before the first sample).
        package var meanNanoseconds: Int64 { count == 0 ? 0 : totalNanoseconds / Int64(count) }

        package init() {}

        mutating func record(_ duration: Duration) {
            let (seconds, attoseconds) = duration.components
            let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
            count += 1
            lastNanoseconds = nanoseconds
            totalNanoseconds += nanoseconds
        }
    }

    /// Frames handed to the pipeline.
    package internal(set) var framesReceived = 0
    /// Frames published unchanged because the virtual background was off.
    package internal(set) var framesPassedThrough = 0
    /// Frames composited and published.
    package internal(set) var framesComposited = 0
    /// Frames where the previous processed frame was published again (mask sync).
    package internal(set) var framesRepeated = 0
    /// Segmentation runs (successful or not).
    package internal(set) var inferenceCount = 0
    /// Frames dropped instead of being published (fail closed), all causes.
    package internal(set) var droppedFrameCount = 0
    /// Frames dropped because segmentation failed.
    package internal(set) var droppedForSegmentationFailure = 0
    /// Frames dropped because every output buffer was still in use.
    package internal(set) var droppedForPoolExhaustion = 0
    /// Times the inter-frame state was cleared (off, camera switch, resolution change, explicit reset).
    package internal(set) var resetCount = 0

    /// Segmentation (preprocessing, inference, upsampling).
    package internal(set) var segmentation = StageTiming()
    /// Temporal smoothing of the mask.
    package internal(set) var smoothing = StageTiming()
    /// Blur or replacement and blending.
    package internal(set) var compositing = StageTiming()
    /// The whole frame, for frames that were processed (not passed through).
    package internal(set) var total = StageTiming()

    package init() {}
}
