import AllocationCounter
import FramePipeline
import Imaging

/// The allocation checks of the pipeline tests: warm up (the first frame of a size allocates its
/// buffers), then count this thread's heap allocations over further work.
enum SteadyState {
    /// Allocations over `rounds` frames through `processor` after one pass over `frames`, and
    /// whether the last frame was published.
    static func processingAllocations(_ processor: FrameProcessor, frames: [VideoFrame], settings: FrameSettings,
                                      segmenter: any Segmenter, compositor: any FrameCompositor,
                                      rounds: Int) -> (allocations: Int, published: Bool) {
        var published: VideoFrame?
        for frame in frames { published = processor.process(frame, settings: settings, segmenter: segmenter, compositor: compositor).frame }
        let before = vbg_thread_allocation_count()
        for round in 0..<rounds {
            published = processor.process(frames[round % frames.count], settings: settings, segmenter: segmenter,
                                          compositor: compositor).frame
        }
        return (Int(vbg_thread_allocation_count() - before), published != nil)
    }

    /// Allocations over `runs` segmentations of `frame` after one, with the last mask.
    static func segmentationAllocations(_ segmenter: any Segmenter, frame: Image, runs: Int) throws -> (allocations: Int, mask: [Float]) {
        var mask = [Float](repeating: 0, count: frame.width * frame.height)
        try mask.withUnsafeMutableBufferPointer { try segmenter.segment(frame, into: $0) }
        let before = vbg_thread_allocation_count()
        try mask.withUnsafeMutableBufferPointer { buffer in
            for _ in 0..<runs { try segmenter.segment(frame, into: buffer) }
        }
        return (Int(vbg_thread_allocation_count() - before), mask)
    }
}
