import Foundation
import Imaging
import Testing

/// The samplers of `input.sampling` against OpenCV's and PyTorch's own outputs
/// (`Tools/make_sampling_fixtures.py`, `Fixtures/imaging/sampling/`).
@Suite("input.sampling: each sampler gives what OpenCV or PyTorch gives")
struct InputSamplingTests {
    typealias Case = (sampling: InputSampling, frameWidth: Int, frameHeight: Int, width: Int, height: Int)

    static func tensor(_ sampling: InputSampling, _ c: (Int, Int, Int, Int), format: PixelFormat = .rgba8, padding: Int = 0) -> [Float] {
        let (frameWidth, frameHeight, width, height) = c
        let sampler = sampling.sampler(sourceWidth: frameWidth, sourceHeight: frameHeight, tensorWidth: width, tensorHeight: height)
        var tensor = [Float](repeating: -1, count: width * height * 3)
        tensor.withUnsafeMutableBufferPointer {
            sampler.sample(Synthetic.frame(width: frameWidth, height: frameHeight, format: format, padding: padding), into: $0)
        }
        return tensor
    }

    static func name(_ prefix: String, _ c: (Int, Int, Int, Int)) -> String { "sampling/\(prefix)_\(c.0)x\(c.1)_to_\(c.2)x\(c.3)" }

    @Test("half_pixel equals cv2.resize(INTER_LINEAR) level for level: shrinking, exactly 2x, growing, both, one column",
          arguments: [(517, 301, 96, 80), (128, 96, 64, 48), (37, 23, 50, 41), (200, 150, 96, 200), (37, 23, 1, 5)])
    func halfPixel(_ c: (Int, Int, Int, Int)) throws {
        let expected = try Synthetic.fixture(Self.name("half_pixel", c) + ".u8")
        let tensor = Self.tensor(.halfPixel, c)
        #expect(expected.count == tensor.count)
        let differing = zip(expected, tensor).filter { Float($0) * Float(1.0 / 255.0) != $1 }.count
        #expect(differing == 0, "\(differing) of \(tensor.count) values differ")
    }

    @Test("area equals cv2.resize(INTER_AREA) level for level: whole factors, 2x2, fractional boxes, one axis, growing, mixed",
          arguments: [(160, 120, 40, 30), (128, 96, 64, 48), (517, 301, 96, 80), (1280, 720, 64, 64), (200, 150, 100, 150),
                      (37, 23, 50, 41), (200, 150, 96, 200)])
    func area(_ c: (Int, Int, Int, Int)) throws {
        let expected = try Synthetic.fixture(Self.name("area", c) + ".u8")
        let tensor = Self.tensor(.area, c)
        #expect(expected.count == tensor.count)
        let differing = zip(expected, tensor).filter { Float($0) * Float(1.0 / 255.0) != $1 }.count
        #expect(differing == 0, "\(differing) of \(tensor.count) values differ")
    }

    /// PyTorch sums in its own order (and may fuse multiply-adds); the values agree to a few float
    /// roundings of [0, 1]: 2e-6 is 0.0005 of a level.
    @Test("align_corners equals PyTorch's interpolate(align_corners=True) within 2e-6",
          arguments: [(517, 301, 96, 80), (37, 23, 50, 41), (37, 23, 1, 5)])
    func alignCorners(_ c: (Int, Int, Int, Int)) throws {
        let expected = try Self.floats(Self.name("align_corners", c) + ".f32")
        let tensor = Self.tensor(.alignCorners, c)
        #expect(expected.count == tensor.count)
        let largest = zip(expected, tensor).map { abs($0 - $1) }.max() ?? .infinity
        #expect(largest <= 2e-6, "largest difference \(largest)")
    }

    /// The half-pixel sampler rounds to levels with OpenCV's 11-bit weights; PyTorch's
    /// align_corners=False has the same geometry in floats.
    @Test("half_pixel is within one level of PyTorch's interpolate(align_corners=False)",
          arguments: [(517, 301, 96, 80), (37, 23, 50, 41)])
    func halfPixelAgainstPyTorch(_ c: (Int, Int, Int, Int)) throws {
        let expected = try Self.floats(Self.name("torch_half_pixel", c) + ".f32")
        let tensor = Self.tensor(.halfPixel, c)
        let largest = zip(expected, tensor).map { abs($0 - $1) * 255 }.max() ?? .infinity
        #expect(largest <= 1, "largest difference \(largest) levels")
    }

    @Test("BGRA frames and padded rows give the RGBA tensor, in every mode", arguments: InputSampling.allCases)
    func byteOrderAndStride(_ sampling: InputSampling) {
        for c in [(517, 301, 96, 80), (37, 23, 50, 41), (160, 120, 40, 30)] {
            #expect(Self.tensor(sampling, c) == Self.tensor(sampling, c, format: .bgra8, padding: 12))
        }
    }

    @Test("asymmetric is MediaPipe's sampler, unchanged")
    func asymmetricIsMediaPipe() {
        let direct = ModelInputSampler(sourceWidth: 517, sourceHeight: 301, tensorWidth: 256, tensorHeight: 144)
        var expected = [Float](repeating: 0, count: direct.tensorCount)
        expected.withUnsafeMutableBufferPointer { direct.sample(Synthetic.frame(width: 517, height: 301), into: $0) }
        #expect(Self.tensor(.asymmetric, (517, 301, 256, 144)) == expected)
    }

    static func floats(_ name: String) throws -> [Float] {
        let data = try Synthetic.fixture(name)
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }
}
