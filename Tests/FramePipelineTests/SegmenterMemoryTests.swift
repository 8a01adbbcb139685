import AllocationCounter
import BuiltinModels
import Foundation
import Testing
@testable import FramePipeline

/// `Segmenter.byteCount` ("model weights, plan, scratch buffers") against the C heap's growth
/// while the segmenter is made (`vbg_thread_heap_balance`: the usable bytes this thread's
/// allocations keep, whatever other tests allocate meanwhile), as the SDK makes one at install: the
/// model decoded and planned, one fast session, the segmenter's own buffers. The median of seven
/// attempts counts.
@Suite("Segmenter memory", .serialized)
struct SegmenterMemoryTests {
    @Test("a segmenter reports the heap it takes, within 10%: both built-in models, a brought model and an int8 (QDQ) one",
          .disabled(if: vbg_built_with_sanitizer() != 0, "a sanitizer's allocator replaces the counted malloc"),
          arguments: ["general", "landscape", "converted/keras_mobilenet_nhwc", "quantized/general_qdq"])
    func reportsTheHeapItTakes(model: String) throws {
        try #require(vbg_allocation_counting_is_active() != 0, "the interposed allocator is not in use on this platform")
        let make: () throws -> ModelSegmenter
        switch model {
        case "general": make = { try ModelSegmenter(modelBytes: BuiltinModel.general.bytes) }
        case "landscape": make = { try ModelSegmenter(modelBytes: BuiltinModel.landscape.bytes) }
        default:
            let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("Fixtures/\(model)/model.onnx").path
            make = { try ModelSegmenter(modelPath: path) }
        }
        _ = try make()  // warm-up
        var growths: [Int64] = [], reported = 0
        for _ in 0..<7 {
            let before = vbg_thread_heap_balance()
            let segmenter = try make()
            growths.append(vbg_thread_heap_balance() - before)
            reported = segmenter.byteCount
        }
        let growth = growths.sorted()[3]
        print("segmenter memory \(model): reported \(reported) bytes, heap growth \(growth) (attempts \(growths))")
        #expect(abs(Double(reported) - Double(growth)) <= 0.1 * Double(growth), "reported \(reported), heap growth \(growth)")
    }
}
