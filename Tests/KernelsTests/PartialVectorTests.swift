import Testing
@testable import Kernels

@Suite("Partial vector loads and stores")
struct PartialVectorTests {
    @Test("load(_:count:) takes lanes 0 ..< count and zeroes the rest; store(_:_:count:) writes exactly lanes 0 ..< count, at every count and offset")
    func partialLanes() {
        let source = (0..<48).map { Float($0) + 0.5 }
        var vector = Vector()
        for lane in 0..<lanes { vector[lane] = Float(100 + lane) }
        for offset in 0..<16 {
            for count in 0...lanes {
                source.withUnsafeBufferPointer { s in
                    let v = load(s.baseAddress! + offset, count: count)
                    for lane in 0..<lanes {
                        #expect(v[lane] == (lane < count ? source[offset + lane] : 0), "load offset \(offset) count \(count) lane \(lane)")
                    }
                }
                var destination = [Float](repeating: -1, count: 48)
                destination.withUnsafeMutableBufferPointer { store(vector, $0.baseAddress! + offset, count: count) }
                for i in 0..<48 {
                    let expected = i >= offset && i < offset + count ? Float(100 + i - offset) : -1
                    #expect(destination[i] == expected, "store offset \(offset) count \(count) float \(i)")
                }
            }
        }
    }
    @Test("a run of up to 16 pixels as masked pieces (ChunkPieces): stores exactly those pixels of a dense or padded plane and loads them back, across row ends, rows of 5 to 33")
    func chunkPieces() {
        let ramp = Vector((0..<lanes).map { Float($0 + 1) })
        for width in [5, 6, 7, 8, 9, 15, 16, 17, 20, 33] {
            for pad in [0, 1, 3] {
                let layout = PlaneLayout.padded(width: width, height: 9, pad: pad)
                #expect(ChunkPieces.fits(layout))
                let pixels = width * 9
                for pixel in stride(from: 0, to: pixels, by: 3) {
                    for count in [1, 4, 15, 16] where pixel + count <= pixels {
                        let floats = layout.planeStride + 2 * lanes
                        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: floats)
                        defer { buffer.deallocate() }
                        buffer.initialize(repeating: -1, count: floats)
                        let plane = buffer + lanes
                        let pieces = ChunkPieces(layout, pixel: pixel, count: count)
                        pieces.store(ramp, plane)
                        var expected = [Float](repeating: -1, count: floats)
                        for lane in 0..<count {
                            let p = pixel + lane
                            expected[lanes + layout.origin + p / width * layout.rowStride + p % width] = Float(lane + 1)
                        }
                        let what = "\(count) pixels from \(pixel), width \(width), pad \(pad)"
                        #expect(Array(UnsafeBufferPointer(start: buffer, count: floats)) == expected, "\(what)")
                        let back = pieces.load(UnsafePointer(plane))
                        #expect((0..<lanes).map { back[$0] } == (0..<lanes).map { $0 < count ? Float($0 + 1) : 0 }, "\(what): loaded")
                    }
                }
            }
        }
    }
}
