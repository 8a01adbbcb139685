import Imaging
import Testing

@Suite("Cover-crop: scale to cover keeping the aspect ratio, centre-crop, area downscale, cached")
struct CoverCropTests {
    @Test("a wider picture at the frame's height is cropped, not squeezed: the centre columns come out unchanged")
    func cropOnly() {
        let picture = Image(width: 40, height: 10, format: .rgba8, bytes: Synthetic.noise(count: 1600, seed: 3))
        let fitted = CoverCrop.fit(picture, width: 10, height: 10, format: .rgba8)
        for y in 0..<10 { for x in 0..<10 { for c in 0..<3 {
            #expect(fitted.bytes[4 * (y * 10 + x) + c] == picture.bytes[4 * (y * 40 + x + 15) + c])
        } } }
    }

    @Test("a 2x downscale is the exact area average of each 2x2 block")
    func areaAverage() {
        let picture = Image(width: 8, height: 6, format: .rgba8, bytes: Synthetic.noise(count: 192, seed: 4))
        let fitted = CoverCrop.fit(picture, width: 4, height: 3, format: .rgba8)
        for y in 0..<3 { for x in 0..<4 { for c in 0..<3 {
            var s = 0
            for dy in 0..<2 { for dx in 0..<2 { s += Int(picture.bytes[4 * ((2 * y + dy) * 8 + 2 * x + dx) + c]) } }
            #expect(abs(Int(fitted.bytes[4 * (y * 4 + x) + c]) - Int((Double(s) / 4).rounded())) <= 1)
        } } }
    }

    @Test("the covered region keeps the aspect ratio for portrait, landscape and upscaling")
    func regions() {
        let r1 = CoverCrop.sourceRegion(sourceWidth: 1600, sourceHeight: 1200, width: 1920, height: 1080)
        #expect(r1.width == 1600 && abs(r1.height - 900) < 1e-9 && abs(r1.y - 150) < 1e-9)
        let r2 = CoverCrop.sourceRegion(sourceWidth: 1000, sourceHeight: 1000, width: 270, height: 480)
        #expect(abs(r2.width / r2.height - 270.0 / 480.0) < 1e-9 && r2.height == 1000)
        let r3 = CoverCrop.sourceRegion(sourceWidth: 160, sourceHeight: 90, width: 1280, height: 720)
        #expect(r3.width == 160 && r3.height == 90)
    }

    @Test("BGRA output swaps the channels; a flat picture upscales flat; alpha is 255")
    func formats() {
        let picture = Image(width: 5, height: 4, filledWith: (10, 20, 30, 40))
        let fitted = CoverCrop.fit(picture, width: 23, height: 11, format: .bgra8)
        #expect(fitted == Image(width: 23, height: 11, format: .bgra8, filledWith: (30, 20, 10, 255)))
    }

    @Test("the fitted picture is computed once per frame size and then shared")
    func cache() {
        let background = ReplacementBackground(Image(width: 64, height: 48, filledWith: (1, 2, 3, 255)))
        let a = background.covering(width: 32, height: 32, format: .rgba8)
        let b = background.covering(width: 32, height: 32, format: .rgba8)
        let sameStorage = a.bytes.withUnsafeBufferPointer { p in b.bytes.withUnsafeBufferPointer { $0.baseAddress == p.baseAddress } }
        #expect(sameStorage)
        #expect(background.covering(width: 16, height: 32, format: .rgba8).width == 16)
    }

    @Test("every byte equals the plain per-pixel computation: downscale, upscale, mixed, BGRA, padded rows",
          arguments: [(97, 61, 40, 30, false), (30, 20, 77, 41, false), (120, 40, 50, 50, true), (64, 48, 64, 48, false),
                      (50, 90, 31, 70, true)])
    func matchesPlainComputation(_ c: (Int, Int, Int, Int, Bool)) {
        let (w, h, W, H, bgra) = c
        let stride = 4 * w + 8
        let picture = Image(width: w, height: h, format: .rgba8, bytesPerRow: stride, bytes: Synthetic.noise(count: stride * h, seed: 9))
        let format: PixelFormat = bgra ? .bgra8 : .rgba8
        #expect(CoverCrop.fit(picture, width: W, height: H, format: format).bytes == referenceCoverCrop(picture, width: W, height: H, format: format))
    }
}
