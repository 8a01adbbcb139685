import Testing
import FramePipeline
import Imaging

@Suite("An alpha output composites with the value as the blend weight")
struct AlphaCompositingTests {
    @Test("probability goes through the edge ramp, alpha does not")
    func alphaIsLinear() {
        let frame = Image(width: 16, height: 1, filledWith: (200, 200, 200, 255))
        let picture = Image(width: 16, height: 1, filledWith: (0, 0, 0, 255))
        let mask = Mask(width: 16, height: 1, values: [Float](repeating: 0.2, count: 16))
        var probability = frame, alpha = frame
        let compositor = ImagingCompositor()
        compositor.composite(frame, mask: mask, maskGeneration: 1, effect: .image(picture, identifier: 1), maskIsAlpha: false, into: &probability)
        compositor.composite(frame, mask: mask, maskGeneration: 1, effect: .image(picture, identifier: 1), maskIsAlpha: true, into: &alpha)
        // Smoothstep from 0.25: 0.2 is background. As alpha: 0.2 of the person, round(255 · 0.2) = 51 of 255.
        #expect(probability.bytes[0] == 0)
        #expect(alpha.bytes[0] == UInt8((200.0 * 51 / 255).rounded()))
    }
}
