import AllocationCounter
import BuiltinModels
import FramePipeline
import Imaging
import PipelineFakes
import Testing

/// Whether this is an unoptimised build (where generic code the optimiser would specialise allocates:
/// the inference session's run does, 0 in release).
#if DEBUG
let isDebugBuild = true
#else
let isDebugBuild = false
#endif

@Suite("Real adapters (imaging and the model)")
struct ImagingAdapterTests {
    @Test("a replacement image is cover-cropped, never stretched")
    func coverCropNotStretched() {
        // 8 x 4 picture of four 2-pixel-wide stripes A B C D; the frame is 4 x 4.
        let stripes: [[UInt8]] = [[200, 0, 0], [0, 200, 0], [0, 0, 200], [200, 200, 0]]
        var picture = Image(width: 8, height: 4)
        for y in 0..<4 {
            for x in 0..<8 {
                let i = y * picture.bytesPerRow + 4 * x
                picture.bytes.replaceSubrange(i..<i + 3, with: stripes[x / 2])
            }
        }
        let frame = Image(width: 4, height: 4, filledWith: (9, 9, 9, 255))
        var output = Image(width: 4, height: 4)
        ImagingCompositor().composite(frame, mask: Mask(width: 4, height: 4, repeating: 0), maskGeneration: 0,
                                      effect: .image(picture, identifier: 1), into: &output)
        let row = (0..<4).map { x in Array(output.bytes[4 * x..<4 * x + 3]) }
        // Scaled by 1 to cover the height and centre-cropped: the middle stripes B B C C.
        #expect(row == [stripes[1], stripes[1], stripes[2], stripes[2]])
    }

    @Test("the person is kept and the background blurred")
    func blurKeepsPerson() {
        let frame = makePersonFrame(width: 32, height: 24)
        var mask = Mask(width: 32, height: 24)
        for y in 6..<18 { for x in 8..<24 { mask.values[y * 32 + x] = 1 } }
        var output = Image(width: 32, height: 24)
        ImagingCompositor().composite(frame.image, mask: mask, maskGeneration: 0, effect: .blur(level: 10), into: &output)
        let centre = (12 * 32 + 16) * 4
        #expect(Array(output.bytes[centre..<centre + 3]) == [230, 180, 150])
        #expect(output.bytes[3] == 255)
    }

    @Test("steady-state processing with the real compositor allocates nothing",
          .disabled(if: vbg_built_with_sanitizer() != 0, "a sanitizer's allocator replaces the counted malloc"),
          arguments: [false, true])
    func realCompositorAllocatesNothing(image: Bool) {
        let processor = FrameProcessor()
        let segmenter = FakeSegmenter()
        let compositor = ImagingCompositor()
        let picture = Image(width: 40, height: 30, filledWith: (1, 2, 3, 255))
        let settings = FrameSettings(isEnabled: true, effect: image ? .image(picture, identifier: 7) : .blur(level: 4))
        let frames = (0..<3).map { makePersonFrame(width: 64, height: 48, sequenceNumber: $0) }
        let (allocations, published) = SteadyState.processingAllocations(processor, frames: frames, settings: settings,
                                                                         segmenter: segmenter, compositor: compositor, rounds: 60)
        #expect(published)
        #expect(allocations == 0, "\(allocations) allocations in 60 frames")
    }

    @Test("steady-state segmentation with the built-in model allocates nothing",
          .disabled(if: vbg_built_with_sanitizer() != 0, "a sanitizer's allocator replaces the counted malloc"),
          .disabled(if: isDebugBuild, "unspecialised generics allocate in debug builds; run in release: swift test -c release -Xswiftc -enable-testing --filter Allocat"))
    func realModelAllocatesNothing() throws {
        let segmenter = try ModelSegmenter(modelBytes: BuiltinModel.landscape.bytes)
        let frame = makePersonFrame(width: 48, height: 27).image
        let (allocations, mask) = try SteadyState.segmentationAllocations(segmenter, frame: frame, runs: 2)
        #expect(allocations == 0, "\(allocations) allocations in 2 segmentations")
        #expect(mask.allSatisfy { $0 >= 0 && $0 <= 1 })
    }

    @Test("the segmenter's mask holds no subnormal floats: each value is 0 or a normal float")
    func maskHasNoSubnormals() throws {
        // Far from the person the model's sigmoid saturates towards 0; the upsampling's weights
        // would make subnormal floats of the tiniest values, and every later pass over the mask
        // (smoothing, coverage, the weighted blur) would pay a microcode assist for each.
        let segmenter = try ModelSegmenter(modelBytes: BuiltinModel.general.bytes)
        let frame = makePersonFrame(width: 640, height: 360).image
        var mask = [Float](repeating: 0, count: 640 * 360)
        try mask.withUnsafeMutableBufferPointer { try segmenter.segment(frame, into: $0) }
        let subnormal = mask.filter { $0.isSubnormal }.count
        // (Without the segmenter's flush of negligible probabilities to 0 this frame has 1245.)
        #expect(subnormal == 0, "\(subnormal) subnormal values")
    }
}
