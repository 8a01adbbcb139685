import Imaging
import Testing

@Suite("Compositing: out = a·person + (1 − a)·background, a = smoothstep edge ramp of the mask")
struct CompositorTests {
    static func images(_ w: Int, _ h: Int, format: PixelFormat = .rgba8) -> (Image, Image) {
        (Image(width: w, height: h, format: format, bytes: Synthetic.noise(count: 4 * w * h, seed: 1)),
         Image(width: w, height: h, format: format, bytes: Synthetic.noise(count: 4 * w * h, seed: 2)))
    }

    @Test("mask 1 gives the person, mask 0 the background, exactly; alpha is 255", arguments: [1, 15, 16, 37])
    func endpoints(_ w: Int) {
        let (person, background) = Self.images(w, 3)
        for (value, source) in [(Float(1), person), (Float(0), background)] {
            var out = Image(width: w, height: 3)
            Compositor.composite(person: person, background: background, mask: Mask(width: w, height: 3, repeating: value), into: &out)
            for i in 0..<(w * 3) {
                #expect(Array(out.bytes[(4 * i)..<(4 * i + 3)]) == Array(source.bytes[(4 * i)..<(4 * i + 3)]))
                #expect(out.bytes[4 * i + 3] == 255)
            }
        }
    }

    @Test("in between, each byte is round((p − b)·a + b) with a the smoothstep coverage", arguments: [EdgeRamp.standard, .linear])
    func blend(_ edge: EdgeRamp) {
        let w = 37, h = 5
        let (person, background) = Self.images(w, h)
        let mask = Mask(width: w, height: h, values: (0..<(w * h)).map { Float($0 % 41) / 40 })
        var out = Image(width: w, height: h)
        Compositor.composite(person: person, background: background, mask: mask, edge: edge, into: &out)
        for i in 0..<(w * h) {
            let a = edge.coverage(mask.values[i])
            for c in 0..<3 {
                let p = Float(person.bytes[4 * i + c]), b = Float(background.bytes[4 * i + c])
                #expect(abs(Float(out.bytes[4 * i + c]) - ((p - b) * a + b)) <= 0.5 + 1e-3)
            }
        }
    }

    @Test("the smoothstep ramp: 0 below 0.25, 1 above 0.75, ½ at ½, monotone")
    func ramp() {
        let e = EdgeRamp.standard
        #expect(e.coverage(0.2) == 0 && e.coverage(0.8) == 1 && e.coverage(0.5) == 0.5)
        var last: Float = 0
        for i in 0...100 { let c = e.coverage(Float(i) / 100); #expect(c >= last); last = c }
        #expect(EdgeRamp.linear.coverage(0.3) == 0.3)
    }

    @Test("in place equals out of place; BGRA works the same (channel order is preserved)")
    func inPlace() {
        let (person, background) = Self.images(50, 7, format: .bgra8)
        let mask = Mask(width: 50, height: 7, values: (0..<350).map { Float($0 % 13) / 12 })
        var out = Image(width: 50, height: 7, format: .bgra8)
        Compositor.composite(person: person, background: background, mask: mask, into: &out)
        var frame = person
        Compositor.composite(over: &frame, background: background, mask: mask)
        #expect(frame == out)
    }

    @Test("in place, where the mask is all person the frame keeps its colour and its alpha becomes 255",
          arguments: [16, 37, 64])
    func inPlacePersonRegionBecomesOpaque(_ w: Int) {
        let h = 3
        let (person, background) = Self.images(w, h)   // noise: alpha bytes are mostly not 255
        let mask = Mask(width: w, height: h, repeating: 1)
        var coverage = CoverageMask(width: w, height: h)
        coverage.update(from: mask)
        var viaFloat = person, viaBytes = person
        Compositor.composite(over: &viaFloat, background: background, mask: mask)
        Compositor.composite(over: &viaBytes, background: background, coverage: coverage)
        for frame in [viaFloat, viaBytes] {
            for i in 0..<(w * h) {
                #expect(Array(frame.bytes[(4 * i)..<(4 * i + 3)]) == Array(person.bytes[(4 * i)..<(4 * i + 3)]))
                #expect(frame.bytes[4 * i + 3] == 255, "pixel \(i)")
            }
        }
    }

    @Test("byte coverage is round(255 · coverage(m)), ties to even; 0 and 255 exactly at the ramp's ends", arguments: [EdgeRamp.standard, .linear])
    func coverageBytes(_ edge: EdgeRamp) {
        let w = 41, h = 3
        let mask = Mask(width: w, height: h, values: (0..<(w * h)).map { Float($0 % 61) / 50 - 0.1 })
        var coverage = CoverageMask(width: w, height: h)
        coverage.update(from: mask, edge: edge)
        for i in 0..<(w * h) {
            let expected = UInt8((edge.coverage(mask.values[i]) * 255).rounded(.toNearestOrEven))
            #expect(coverage.values[i] == expected, "value \(mask.values[i])")
        }
        #expect(coverage.values.contains(0) && coverage.values.contains(255))
    }

    /// The byte path's rule, computed exactly in integers: `b + round((p − b)·a/255)`.
    static func exactByteBlend(_ p: UInt8, _ b: UInt8, _ a: UInt8) -> UInt8 {
        let q = (Int(p) - Int(b)) * Int(a)
        return UInt8(Int(b) + Int((Double(q) / 255).rounded()))
    }

    @Test("with byte coverage each byte is exactly b + round((p − b)·a/255), within one level of the Float path",
          arguments: [1, 15, 16, 37, 70])
    func byteCoverage(_ w: Int) {
        let h = 4
        let (person, background) = Self.images(w, h)
        // Runs of 0 and 255 (the skip paths) and soft values in between.
        let mask = Mask(width: w, height: h, values: (0..<(w * h)).map { i in
            let x = i % w
            return x < 18 ? 0 : x < 36 ? 1 : Float((i * 7) % 101) / 100
        })
        var coverage = CoverageMask(width: w, height: h)
        coverage.update(from: mask)
        var out = Image(width: w, height: h), viaFloat = Image(width: w, height: h)
        Compositor.composite(person: person, background: background, coverage: coverage, into: &out)
        Compositor.composite(person: person, background: background, mask: mask, into: &viaFloat)
        var worst = 0
        for i in 0..<(w * h) {
            for c in 0..<3 {
                let expected = Self.exactByteBlend(person.bytes[4 * i + c], background.bytes[4 * i + c], coverage.values[i])
                #expect(out.bytes[4 * i + c] == expected, "pixel \(i) channel \(c)")
                worst = max(worst, abs(Int(out.bytes[4 * i + c]) - Int(viaFloat.bytes[4 * i + c])))
            }
            #expect(out.bytes[4 * i + 3] == 255)
        }
        #expect(worst <= 1)
        // In place gives the same.
        var frame = person
        Compositor.composite(over: &frame, background: background, coverage: coverage)
        #expect(frame == out)
    }
}
