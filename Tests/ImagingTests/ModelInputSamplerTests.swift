import Foundation
import Imaging
import Testing

@Suite("Preprocessing reproduces MediaPipe's ImageToTensor (OpenCV 4.10 fixed-point warp)")
struct ModelInputSamplerTests {
    static let cases: [(String, Int, Int, Int, Int)] = [
        ("general", 256, 256, 640, 480), ("general", 256, 256, 1280, 720), ("general", 256, 256, 517, 301),
        ("general", 256, 256, 200, 150), ("general", 256, 256, 480, 640),
        ("landscape", 256, 144, 640, 480), ("landscape", 256, 144, 1280, 720), ("landscape", 256, 144, 517, 301),
        ("landscape", 256, 144, 200, 150), ("landscape", 256, 144, 480, 640),
    ]

    @Test("every tensor value equals the numpy emulation bit for bit", arguments: cases)
    func matchesEmulation(_ c: (String, Int, Int, Int, Int)) throws {
        let (model, w, h, W, H) = c
        let expected = try Synthetic.fixture("preprocess_\(model)_\(W)x\(H).u8")
        #expect(expected.count == w * h * 3)
        let sampler = ModelInputSampler(sourceWidth: W, sourceHeight: H, tensorWidth: w, tensorHeight: h)
        var tensor = [Float](repeating: -1, count: sampler.tensorCount)
        tensor.withUnsafeMutableBufferPointer { sampler.sample(Synthetic.frame(width: W, height: H), into: $0) }
        let scale = Float(1.0 / 255.0)
        var mismatches = 0, first = -1
        for (i, byte) in expected.enumerated() where tensor[i] != Float(byte) * scale {
            mismatches += 1
            if first < 0 { first = i }
        }
        #expect(mismatches == 0, "\(mismatches) of \(expected.count) values differ, first at \(first)")
    }

    @Test("BGRA frames and padded rows give the same tensor as packed RGBA")
    func byteOrderAndStride() {
        let sampler = ModelInputSampler(sourceWidth: 517, sourceHeight: 301, tensorWidth: 256, tensorHeight: 144)
        var a = [Float](repeating: 0, count: sampler.tensorCount), b = a
        a.withUnsafeMutableBufferPointer { sampler.sample(Synthetic.frame(width: 517, height: 301), into: $0) }
        b.withUnsafeMutableBufferPointer {
            sampler.sample(Synthetic.frame(width: 517, height: 301, format: .bgra8, padding: 12), into: $0)
        }
        #expect(a == b)
    }

    @Test("the tensor is RGB in [0, 1]: a pure red frame gives (1, 0, 0) everywhere")
    func channelsAndRange() {
        let sampler = ModelInputSampler(sourceWidth: 64, sourceHeight: 48, tensorWidth: 32, tensorHeight: 32)
        var t = [Float](repeating: 0, count: sampler.tensorCount)
        t.withUnsafeMutableBufferPointer { sampler.sample(Image(width: 64, height: 48, filledWith: (255, 0, 0, 255)), into: $0) }
        #expect(stride(from: 0, to: t.count, by: 3).allSatisfy { t[$0] == 1 && t[$0 + 1] == 0 && t[$0 + 2] == 0 })
    }

    @Test("upscaling reads zero outside the frame (BORDER_CONSTANT): the last column darkens")
    func zeroBorder() {
        let sampler = ModelInputSampler(sourceWidth: 2, sourceHeight: 2, tensorWidth: 4, tensorHeight: 4)
        var t = [Float](repeating: 0, count: sampler.tensorCount)
        t.withUnsafeMutableBufferPointer { sampler.sample(Image(width: 2, height: 2, filledWith: (255, 255, 255, 255)), into: $0) }
        // Column 3 samples x = 1.5: half the right tap is outside → 128/255 on row 0.
        #expect(t[3 * 3] == Float(128) * Float(1.0 / 255.0))
        #expect(t[0] == 1)
    }
}

@Suite("The sampler equals the per-pixel fixed-point formula at any tensor width")
struct ModelInputSamplerWidthTests {
    @Test("tensor widths 1…9 and 13…18 and 21 (every step and tail mix), RGBA and BGRA", arguments: [1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 14, 15, 16, 17, 18, 21])
    func oddWidths(_ tw: Int) {
        let frame = Synthetic.frame(width: 37, height: 23)
        let sampler = ModelInputSampler(sourceWidth: 37, sourceHeight: 23, tensorWidth: tw, tensorHeight: 5)
        var t = [Float](repeating: -1, count: sampler.tensorCount), b = t
        t.withUnsafeMutableBufferPointer { sampler.sample(frame, into: $0) }
        b.withUnsafeMutableBufferPointer { sampler.sample(Synthetic.frame(width: 37, height: 23, format: .bgra8), into: $0) }
        #expect(t == b)
        // Reference: OpenCV 4.x's fixed-point formula written out per pixel and channel.
        func positions(_ n: Int, _ source: Int) -> [Int] {
            (0..<n).map { Int((Double($0) * (Double(source) / Double(n)) * 32).rounded(.toNearestOrEven)) }
        }
        let xs = positions(tw, 37), ys = positions(5, 23)
        func p(_ x: Int, _ y: Int, _ c: Int) -> Int {
            x < 0 || y < 0 || x >= 37 || y >= 23 ? 0 : Int(frame.bytes[y * frame.bytesPerRow + 4 * x + c])
        }
        for v in 0..<5 { for u in 0..<tw { for c in 0..<3 {
            let x0 = xs[u] >> 5, fx = xs[u] & 31, y0 = ys[v] >> 5, fy = ys[v] & 31
            let value = p(x0, y0, c) * (32 - fx) * (32 - fy) + p(x0 + 1, y0, c) * fx * (32 - fy)
                + p(x0, y0 + 1, c) * (32 - fx) * fy + p(x0 + 1, y0 + 1, c) * fx * fy
            #expect(t[(v * tw + u) * 3 + c] == Float((32 * value + 16384) >> 15) * Float(1.0 / 255.0))
        } } }
    }
}
