import FramePipeline
import Foundation
import Imaging

/// A deterministic segmenter for tests: a pixel is "person" (1) when its red channel is above 200
/// (the synthetic camera's person rectangle is red 230), else background (0). It can be told to
/// fail, counts its calls, and holds `ballastBytes` of memory like a real session's buffers.
package final class FakeSegmenter: Segmenter, @unchecked Sendable {
    // Safe: tests mutate `failing` from one thread at a time while frames flow through a lock
    // (SharedSegmenter) that serialises calls; the counters are read after capture stops.
    package struct Failure: Error, CustomStringConvertible {
        package init() {}
        package var description: String { "injected segmentation failure" }
    }

    private let lock = NSLock()
    private var _failing = false
    private var _calls = 0
    private let ballast: UnsafeMutableRawBufferPointer

    package init(ballastBytes: Int = 0) {
        ballast = .allocate(byteCount: max(1, ballastBytes), alignment: 64)
        // Touch the pages so they count as resident.
        ballast.initializeMemory(as: UInt8.self, repeating: 1)
    }

    deinit { ballast.deallocate() }

    /// Whether `segment` throws.
    package var failing: Bool {
        get { lock.lock(); defer { lock.unlock() }; return _failing }
        set { lock.lock(); _failing = newValue; lock.unlock() }
    }

    /// How many times `segment` was called.
    package var calls: Int { lock.lock(); defer { lock.unlock() }; return _calls }

    package var byteCount: Int { ballast.count }

    package func segment(_ frame: Image, into mask: UnsafeMutableBufferPointer<Float>) throws {
        lock.lock()
        _calls += 1
        let failing = _failing
        lock.unlock()
        if failing { throw Failure() }
        let red = frame.format.channelOffsets.red
        frame.bytes.withUnsafeBufferPointer { bytes in
            for y in 0..<frame.height {
                let row = y * frame.bytesPerRow
                for x in 0..<frame.width {
                    mask[y * frame.width + x] = bytes[row + 4 * x + red] > 200 ? 1 : 0
                }
            }
        }
    }
}

/// A deterministic compositor for tests: `output = mask · frame + (1 − mask) · background`, with a
/// flat background whose colour encodes the effect: grey `20 · level` for blur, the image's first
/// pixel for an image. Allocates nothing.
package final class FakeCompositor: FrameCompositor, @unchecked Sendable {
    // Safe: used by one FrameProcessor, under its processor's lock.
    package init() {}

    /// The background colour the fake paints for an effect.
    package static func backgroundColor(for effect: BackgroundEffect) -> (UInt8, UInt8, UInt8) {
        switch effect {
        case .blur(let level):
            let grey = UInt8(20 * min(max(level, 1), 10))
            return (grey, grey, grey)
        case .image(let image, _):
            return (image.bytes[0], image.bytes[1], image.bytes[2])
        }
    }

    package func composite(_ frame: Image, mask maskValue: Mask, maskGeneration: Int, effect: BackgroundEffect,
                          into output: inout Image) {
        let background = Self.backgroundColor(for: effect)
        let width = frame.width, height = frame.height, inStride = frame.bytesPerRow, outStride = output.bytesPerRow
        maskValue.values.withUnsafeBufferPointer { mask in
        frame.bytes.withUnsafeBufferPointer { source in
            output.bytes.withUnsafeMutableBufferPointer { destination in
                for y in 0..<height {
                    for x in 0..<width {
                        let m = mask[y * width + x]
                        let i = y * inStride + 4 * x, o = y * outStride + 4 * x
                        destination[o] = UInt8(m * Float(source[i]) + (1 - m) * Float(background.0))
                        destination[o + 1] = UInt8(m * Float(source[i + 1]) + (1 - m) * Float(background.1))
                        destination[o + 2] = UInt8(m * Float(source[i + 2]) + (1 - m) * Float(background.2))
                        destination[o + 3] = 255
                    }
                }
            }
        }
        }
    }
}

/// A frame with a dark background and a red-230 "person" in the middle half, like the synthetic camera.
package func makePersonFrame(width: Int, height: Int, sequenceNumber: Int = 0, format: PixelFormat = .rgba8) -> VideoFrame {
    var image = Image(width: width, height: height, format: format, filledWith: (30, 40, 50, 255))
    let red = format.channelOffsets.red
    for y in height / 4 ..< height - height / 4 {
        for x in width / 4 ..< width - width / 4 {
            let i = y * image.bytesPerRow + 4 * x
            image.bytes[i + red] = 230
            image.bytes[i + 1] = 180
            image.bytes[i + 2 - red] = 150
        }
    }
    return VideoFrame(image: image, timestamp: UInt64(sequenceNumber) * 33_333_333, sequenceNumber: sequenceNumber)
}
