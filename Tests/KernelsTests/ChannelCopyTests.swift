import AllocationCounter
import Testing
@testable import Kernels

@Suite("Channel copy and shuffle")
struct ChannelCopyTests {
    @Test("copyChannels copies every plane between any layouts, into a channel slice too")
    func copy() {
        for (c, h, w) in oddShapes {
            for (inPad, outPad) in layoutPairs {
                var random = Random(seed: UInt64(c * 13 + w + inPad))
                let x = random.array(c * h * w)
                let input = makeMap(x, channels: c, layout: .padded(width: w, height: h, pad: inPad))
                let output = FeatureMapStorage(channels: c, layout: .padded(width: w, height: h, pad: outPad))
                copyChannels(input.map, output: output.map)
                #expect(output.interior() == x, "copy \(c)x\(h)x\(w) pad \(inPad)->\(outPad)")
                #expect(borderIsZero(output))
                // Concat: the input into channels 2 ..< 2 + c of a larger padded map.
                let concat = FeatureMapStorage(channels: c + 3, layout: .padded(width: w, height: h, pad: outPad))
                var slice = concat.map
                slice.base += 2 * concat.layout.planeStride
                slice.channels = c
                copyChannels(input.map, output: slice)
                let all = concat.interior()
                #expect(Array(all[(2 * h * w)..<((2 + c) * h * w)]) == x, "concat slice \(c)x\(h)x\(w)")
                #expect(all[..<(2 * h * w)].allSatisfy { $0 == 0 } && all[((2 + c) * h * w)...].allSatisfy { $0 == 0 })
                #expect(borderIsZero(concat))
            }
        }
    }

    @Test("shuffleChannels(groups: g) is Reshape [1,g,C/g,H,W] → Transpose(0,2,1,3,4) → Reshape [1,C,H,W]")
    func shuffle() {
        for (c, h, w, groups) in [(1, 1, 1, 1), (3, 5, 7, 1), (3, 5, 7, 3), (17, 33, 19, 17), (12, 5, 7, 3), (12, 5, 7, 4),
                                  (6, 33, 19, 2), (16, 2, 40, 4)] {
            for (inPad, outPad) in layoutPairs {
                var random = Random(seed: UInt64(c * 29 + groups + inPad))
                let x = random.array(c * h * w)
                // The reshape/transpose as index arithmetic: input element (a, b, y, x) of the
                // [g, C/g, H, W] view (flat ((a·C/g + b)·H + y)·W + x) lands at (b, a, y, x) of the
                // transposed [C/g, g, H, W] tensor, flat ((b·g + a)·H + y)·W + x.
                let perGroup = c / groups
                var expected = [Float](repeating: .nan, count: x.count)
                for a in 0..<groups {
                    for b in 0..<perGroup {
                        for y in 0..<h {
                            for xi in 0..<w {
                                expected[((b * groups + a) * h + y) * w + xi] = x[((a * perGroup + b) * h + y) * w + xi]
                            }
                        }
                    }
                }
                let input = makeMap(x, channels: c, layout: .padded(width: w, height: h, pad: inPad))
                let output = FeatureMapStorage(channels: c, layout: .padded(width: w, height: h, pad: outPad))
                shuffleChannels(input.map, groups: groups, output: output.map)
                #expect(output.interior() == expected, "shuffle \(c)x\(h)x\(w) g\(groups) pad \(inPad)->\(outPad)")
                #expect(borderIsZero(output))
            }
        }
    }

    @Test("copyChannels and shuffleChannels allocate nothing per call", .enabled(if: vbg_allocation_counting_is_active() == 1))
    func noAllocation() {
        var random = Random(seed: 3)
        let input = makeMap(random.array(12 * 33 * 19), channels: 12, layout: .dense(width: 19, height: 33))
        let dense = FeatureMapStorage(channels: 12, layout: .dense(width: 19, height: 33))
        let padded = FeatureMapStorage(channels: 12, layout: .padded(width: 19, height: 33, pad: 1))
        let kernels: [(String, () -> Void)] = [
            ("copyChannels dense", { copyChannels(input.map, output: dense.map) }),
            ("copyChannels padded", { copyChannels(input.map, output: padded.map) }),
            ("shuffleChannels", { shuffleChannels(input.map, groups: 3, output: padded.map) }),
        ]
        for (name, kernel) in kernels {
            kernel()
            let n = allocations { for _ in 0..<10 { kernel() } }
            #expect(n == 0, "\(name): \(n) allocations in 10 calls")
        }
    }
}
