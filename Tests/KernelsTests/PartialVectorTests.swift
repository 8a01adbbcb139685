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
}
