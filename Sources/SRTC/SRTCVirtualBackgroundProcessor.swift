import FramePipeline
import Imaging
import Kernels

/// Applies the device-level virtual background (the installed model and the effect settings) to a
/// stream of frames, with its own inter-frame state, output buffers and diagnostics.
///
/// The camera capture pipeline has one; apps that take over capture attach one to a custom video
/// track (``SRTCCustomVideoTrack/attachVirtualBackground(_:)``) and call ``reset()`` when their own
/// camera switches or restarts. Thread-safe: frames are processed one at a time.
public final class SRTCVirtualBackgroundProcessor: Sendable {
    private struct Core {
        let processor: FrameProcessor
        let compositor: any FrameCompositor
    }
    private let component: VirtualBackgroundComponent
    private let core: Locked<Core>

    init(component: VirtualBackgroundComponent) {
        self.component = component
        core = Locked(Core(processor: FrameProcessor(poolCapacity: component.poolCapacity),
                           compositor: component.makeCompositor()))
        component.register(self)
    }

    /// Processes one frame.
    ///
    /// - Returns: while off, `frame` itself (no copy, no inference); while on, the processed frame;
    ///   `nil` when the frame was dropped (segmentation failure, output buffers exhausted): then
    ///   nothing must be sent for it, never the raw frame.
    public func process(_ frame: SRTCVideoFrame) -> SRTCVideoFrame? {
        let (settings, segmenter) = component.frameSettings()
        let outcome = core.withLock { core in
            core.processor.process(frame, settings: settings, segmenter: segmenter, compositor: core.compositor)
        }
        switch outcome {
        case .passedThrough(let frame), .processed(let frame):
            return frame
        case .dropped:
            component.recordDrop()
            return nil
        }
    }

    /// Clears the inter-frame state (smoothed mask, inference schedule, last output): the next
    /// frame is segmented from scratch and its raw mask is used. For apps that take over capture:
    /// call it when the camera switches, restarts or changes resolution.
    public func reset() {
        core.withLock { $0.processor.reset() }
    }

    /// Counters and per-stage timings.
    public var diagnostics: SRTCVirtualBackgroundDiagnostics {
        core.withLock { core in
            let statistics = core.processor.statistics
            func timing(_ stage: PipelineStatistics.StageTiming) -> SRTCVirtualBackgroundDiagnostics.StageTiming {
                .init(samples: stage.count, lastNanoseconds: stage.lastNanoseconds, meanNanoseconds: stage.meanNanoseconds)
            }
            return SRTCVirtualBackgroundDiagnostics(
                framesReceived: statistics.framesReceived, framesPassedThrough: statistics.framesPassedThrough,
                framesComposited: statistics.framesComposited, framesRepeated: statistics.framesRepeated,
                inferenceCount: statistics.inferenceCount, droppedFrameCount: statistics.droppedFrameCount,
                droppedForSegmentationFailure: statistics.droppedForSegmentationFailure,
                droppedForPoolExhaustion: statistics.droppedForPoolExhaustion, resetCount: statistics.resetCount,
                segmentation: timing(statistics.segmentation), smoothing: timing(statistics.smoothing),
                compositing: timing(statistics.compositing), total: timing(statistics.total),
                bufferBytes: core.processor.byteCount, simdFeatures: CompiledFeatures.names)
        }
    }

    /// Frees masks and output buffers (uninstall).
    func releaseBuffers() {
        core.withLock { $0.processor.releaseBuffers() }
    }
}
