import Foundation
import Imaging
import Testing

@Suite("Mask upsampling equals cv2.resize INTER_LINEAR for float32")
struct MaskUpsamplerTests {
    static let cases: [(Int, Int, Int, Int)] = [(128, 128, 259, 151), (64, 36, 161, 91), (256, 256, 200, 150)]

    @Test("every value equals cv2.resize's", arguments: cases)
    func matchesOpenCV(_ c: (Int, Int, Int, Int)) throws {
        let (w, h, W, H) = c
        let data = try Synthetic.fixture("upsample_\(w)x\(h)_to_\(W)x\(H).f32")
        let expected = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        #expect(expected.count == W * H)
        let upsampler = MaskUpsampler(sourceWidth: w, sourceHeight: h, targetWidth: W, targetHeight: H)
        var out = [Float](repeating: .nan, count: W * H)
        Synthetic.mask(width: w, height: h).withUnsafeBufferPointer { s in
            out.withUnsafeMutableBufferPointer { upsampler.upsample(s, into: $0) }
        }
        var differing = 0, worst: Float = 0
        for i in 0..<expected.count where out[i] != expected[i] {
            differing += 1
            worst = max(worst, abs(out[i] - expected[i]))
        }
        #expect(differing == 0, "\(differing) values differ, max |Δ| \(worst)")
    }

    @Test("reusing the upsampler for another mask gives the same as a fresh one")
    func reuse() {
        let up = MaskUpsampler(sourceWidth: 16, sourceHeight: 9, targetWidth: 50, targetHeight: 31)
        let a = (0..<144).map { Float($0) / 143 }, b = a.reversed().map { $0 }
        var first = [Float](repeating: 0, count: 50 * 31), second = first, fresh = first
        a.withUnsafeBufferPointer { s in first.withUnsafeMutableBufferPointer { up.upsample(s, into: $0) } }
        b.withUnsafeBufferPointer { s in second.withUnsafeMutableBufferPointer { up.upsample(s, into: $0) } }
        let other = MaskUpsampler(sourceWidth: 16, sourceHeight: 9, targetWidth: 50, targetHeight: 31)
        b.withUnsafeBufferPointer { s in fresh.withUnsafeMutableBufferPointer { other.upsample(s, into: $0) } }
        #expect(second == fresh)
        #expect(first != second)
    }

    @Test("large factors (a source interval covering more than 16 columns), 1-pixel and downscaled targets",
          arguments: [(8, 5, 700, 40), (3, 2, 100, 7), (16, 9, 1, 1), (16, 9, 17, 3), (40, 30, 33, 29), (2, 2, 64, 64), (1, 3, 5, 4)])
    func matchesRecipe(_ c: (Int, Int, Int, Int)) {
        let (w, h, W, H) = c
        let src = (0..<(w * h)).map { Float(($0 * 37) % 101) / 100 }
        let up = MaskUpsampler(sourceWidth: w, sourceHeight: h, targetWidth: W, targetHeight: H)
        var out = [Float](repeating: .nan, count: W * H)
        src.withUnsafeBufferPointer { s in out.withUnsafeMutableBufferPointer { up.upsample(s, into: $0) } }
        #expect(out == referenceUpsample(src, w, h, W, H))
    }
}
