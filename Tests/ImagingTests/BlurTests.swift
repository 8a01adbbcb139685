import Foundation
import Imaging
import TestSupport
import Testing

@Suite("Background blur: level → σ → three Kovesi box passes, edge clamp, mask weighting")
struct BlurTests {
    @Test("levels are clamped into 1…10 and default to 5")
    func levels() {
        #expect(BlurStrength().level == 5)
        #expect(BlurStrength(level: -3).level == 1)
        #expect(BlurStrength(level: 0).level == 1)
        #expect(BlurStrength(level: 11).level == 10)
    }

    @Test("Kovesi widths match the published examples (σ 3 → 5/5/7, 8 → 15/15/17, 16 → 31/31/33)")
    func kovesi() {
        #expect(BlurStrength.kovesiRadii(sigma: 3, passes: 3) == [2, 2, 3])
        #expect(BlurStrength.kovesiRadii(sigma: 8, passes: 3) == [7, 7, 8])
        #expect(BlurStrength.kovesiRadii(sigma: 16, passes: 3) == [15, 15, 16])
        for sigma in stride(from: 1.5, through: 60, by: 0.7) {
            let achieved = BlurStrength.achievedSigma(radii: BlurStrength.kovesiRadii(sigma: sigma, passes: 3))
            #expect(abs(achieved - sigma) <= 0.6, "σ \(sigma) → \(achieved)")
        }
    }

    @Test("a level is the same fraction of the frame at 480p and 1080p")
    func scaleInvariance() {
        for level in 1...10 {
            let s = BlurStrength(level: level)
            #expect(abs(s.sigma(width: 1920, height: 1080) / s.sigma(width: 854, height: 480) - 1080.0 / 480.0) < 1e-9)
            let r = s.radii(width: 1920, height: 1080)
            #expect(r.count == 3 && r == r.sorted())
        }
        #expect(BlurStrength(level: 10).radii(width: 1920, height: 1080).max()! > BlurStrength(level: 1).radii(width: 1920, height: 1080).max()!)
    }

    /// A 2-D box pass per radius (horizontal, then vertical; the two commute) over a plane of
    /// `channels` interleaved channels, edges clamped, in Double with no rounding.
    static func boxPasses(_ plane: [Double], width w: Int, height h: Int, channels n: Int, radii: [Int]) -> [Double] {
        var plane = plane
        for r in radii {
            for (dx, dy) in [(1, 0), (0, 1)] {
                var next = plane
                for y in 0..<h { for x in 0..<w { for c in 0..<n {
                    var s = 0.0
                    for k in -r...r { s += plane[(min(max(y + dy * k, 0), h - 1) * w + min(max(x + dx * k, 0), w - 1)) * n + c] }
                    next[(y * w + x) * n + c] = s / Double(2 * r + 1)
                } } }
                plane = next
            }
        }
        return plane
    }

    /// Three clamped box passes of the frame's colour, in Double, unrounded.
    static func reference(_ image: Image, radii: [Int]) -> [Double] {
        let w = image.width, h = image.height
        var plane = [Double](repeating: 0, count: w * h * 3)
        for y in 0..<h { for x in 0..<w { for c in 0..<3 { plane[(y * w + x) * 3 + c] = Double(image.bytes[y * image.bytesPerRow + 4 * x + c]) } } }
        return boxPasses(plane, width: w, height: h, channels: 3, radii: radii)
    }

    @Test("the blur equals three clamped box passes to within one level (sizes not multiples of 16, radius > size)",
          arguments: [(37, 23, 1), (37, 23, 5), (40, 9, 10), (17, 33, 7)])
    func matchesReference(_ c: (Int, Int, Int)) {
        let (w, h, level) = c
        let frame = Image(width: w, height: h, format: .rgba8, bytesPerRow: 4 * w + 8,
                          bytes: Synthetic.noise(count: (4 * w + 8) * h, seed: UInt64(level)))
        var out = Image(width: w, height: h)
        let blur = BackgroundBlur()
        let strength = BlurStrength(level: level)
        blur.blur(frame, strength: strength, into: &out)
        let expected = Self.reference(frame, radii: strength.radii(width: w, height: h))
        var worst = 0.0
        for y in 0..<h { for x in 0..<w {
            for c in 0..<3 { worst = max(worst, abs(Double(out.bytes[4 * (y * w + x) + c]) - expected[(y * w + x) * 3 + c])) }
            #expect(out.bytes[4 * (y * w + x) + 3] == 255)
        } }
        #expect(worst <= 1.0, "max |Δ| \(worst) with radii \(blur.lastRadii)")
    }

    @Test("a flat frame stays flat; the object is reusable across sizes")
    func flat() {
        let blur = BackgroundBlur()
        for (w, h) in [(64, 48), (33, 17), (64, 48)] {
            let frame = Image(width: w, height: h, filledWith: (200, 100, 50, 7))
            var out = frame
            blur.blur(frame, strength: BlurStrength(level: 10), into: &out)
            #expect(out == Image(width: w, height: h, filledWith: (200, 100, 50, 255)))
        }
    }

    @Test("mask weighting keeps the person's colour out of the background (no halo)")
    func noHalo() {
        // A white person (left half) on a black background.
        let w = 96, h = 64
        var frame = Image(width: w, height: h, filledWith: (0, 0, 0, 255))
        var mask = Mask(width: w, height: h)
        for y in 0..<h { for x in 0..<w / 2 {
            for c in 0..<3 { frame.bytes[4 * (y * w + x) + c] = 255 }
            mask.values[y * w + x] = 1
        } }
        let blur = BackgroundBlur()
        var plain = frame, weighted = frame
        blur.blur(frame, strength: BlurStrength(level: 10), into: &plain)
        blur.blur(frame, strength: BlurStrength(level: 10), excluding: mask, into: &weighted)
        // Just right of the boundary the plain blur is bright (halo), the weighted one stays black.
        let probe = 4 * (h / 2 * w + w / 2 + 2)
        #expect(plain.bytes[probe] > 20)
        #expect(weighted.bytes[probe] == 0)
        // Fused blur + composite: the person stays exactly white, the background black.
        var fused = frame, coverage = CoverageMask(width: w, height: h)
        coverage.update(from: mask)
        blur.blurBackground(of: &fused, mask: mask, coverage: coverage, strength: BlurStrength(level: 10))
        #expect(fused.bytes[4 * (h / 2 * w + 3)] == 255)
        #expect(fused.bytes[probe] == 0)
    }

    /// The mask-weighted plate in Double: premultiplied `(c·w, 255·w)`, `w = round(255·(1 − m))`,
    /// three clamped box passes (no intermediate rounding), then `255·C/W` per channel. Returns
    /// the plate and the blurred weight `W` (0…65025) per pixel.
    static func maskedReference(_ image: Image, mask: Mask, radii: [Int]) -> (plate: [Double], weight: [Double]) {
        let w = image.width, h = image.height
        var plane = [Double](repeating: 0, count: w * h * 4)
        for y in 0..<h { for x in 0..<w {
            let m = min(max(Double(mask.values[y * w + x]), 0), 1)
            let weight = ((1 - m) * 255).rounded(.toNearestOrEven)
            for c in 0..<3 { plane[(y * w + x) * 4 + c] = Double(image.bytes[y * image.bytesPerRow + 4 * x + c]) * weight }
            plane[(y * w + x) * 4 + 3] = 255 * weight
        } }
        plane = boxPasses(plane, width: w, height: h, channels: 4, radii: radii)
        var plate = [Double](repeating: 0, count: w * h * 3), weights = [Double](repeating: 0, count: w * h)
        for i in 0..<(w * h) {
            let W = plane[4 * i + 3]
            weights[i] = W
            for c in 0..<3 { plate[3 * i + c] = W > 0 ? 255 * plane[4 * i + c] / W : 0 }
        }
        return (plate, weights)
    }

    /// Tolerance: the implementation rounds the 16-bit premultiplied lanes to integers after each of
    /// the first two 2-D passes (as three `cv2.blur` calls round after each call), in `Float`: each
    /// rounding errs by at most 0.5 + 3·65025·2⁻²⁴ < 0.5117 (`RowPlaneSink.quotient`), so `C` and
    /// `W` (both on a 0…65025 scale) are each off by at most 1.0233 and `255·C/W` moves by at most
    /// `2·255·1.0233/W < 522/W`, plus 0.5 for the final byte rounding. (Exact integer rounding
    /// would give `510/W`.) Where at least 4 % of the neighbourhood is background (`W ≥ 2601`)
    /// that is ≤ 0.7 < 1 level; where less, the plate is covered by the person anyway, and the
    /// bound `522/W + 0.5` is checked there too.
    @Test("the masked plate equals a Double mask-weighted three-pass blur (within the rounding bound)",
          arguments: [(37, 23, 5), (40, 9, 10), (53, 31, 1), (17, 33, 7)])
    func maskedMatchesReference(_ c: (Int, Int, Int)) {
        let (w, h, level) = c
        let frame = Image(width: w, height: h, format: .rgba8, bytesPerRow: 4 * w + 8,
                          bytes: Synthetic.noise(count: (4 * w + 8) * h, seed: UInt64(level + 100)))
        var mask = Mask(width: w, height: h)
        let noise = Synthetic.noise(count: w * h, seed: UInt64(level + 200))
        for y in 0..<h { for x in 0..<w {
            // A soft disc (person) plus noisy values, and values outside [0, 1] (clamped).
            let d = (Double(x - w / 3) * Double(x - w / 3) + Double(y - h / 2) * Double(y - h / 2)).squareRoot()
            let disc = min(max((Double(h) / 3 - d) / 3, 0), 1)
            mask.values[y * w + x] = Float(disc * 0.8 + Double(noise[y * w + x]) / 255 * 0.4 - 0.1)
        } }
        let blur = BackgroundBlur()
        let strength = BlurStrength(level: level)
        var out = Image(width: w, height: h)
        blur.blur(frame, strength: strength, excluding: mask, into: &out)
        let (plate, weight) = Self.maskedReference(frame, mask: mask, radii: strength.radii(width: w, height: h))
        var worst = 0.0, checked = 0
        for i in 0..<(w * h) {
            #expect(out.bytes[4 * i + 3] == 255)
            guard weight[i] > 0 else { continue }
            let bound = min(522 / weight[i], 255) + 0.5
            for c in 0..<3 {
                let delta = abs(Double(out.bytes[4 * i + c]) - plate[3 * i + c])
                #expect(delta <= bound, "pixel \(i) channel \(c): \(out.bytes[4 * i + c]) vs \(plate[3 * i + c]) (W \(weight[i]))")
                if weight[i] >= 2601 { worst = max(worst, delta); checked += 1 }
            }
        }
        #expect(checked > 0)
        #expect(worst <= 1.0, "max |Δ| \(worst) where W ≥ 2601, radii \(blur.lastRadii)")
    }

    /// The fused path streams the frame: row y is composited in place while rows below it are
    /// still being read (packed) for the plate. It must equal the plate computed from an untouched
    /// copy, then composited.
    @Test("blurBackground, in place or into another image, equals blur(excluding:) then the byte-coverage composite (padded rows, odd sizes, large radii)",
          arguments: [(37, 23, 10), (61, 47, 5), (18, 70, 1)])
    func fusedEqualsTwoSteps(_ c: (Int, Int, Int)) {
        let (w, h, level) = c
        let stride = 4 * w + 12
        let frame = Image(width: w, height: h, format: .bgra8, bytesPerRow: stride,
                          bytes: Synthetic.noise(count: stride * h, seed: UInt64(level + 300)))
        var mask = Mask(width: w, height: h)
        for y in 0..<h { for x in 0..<w {
            let d = (Double(x - w / 2) * Double(x - w / 2) + Double(y - h / 3) * Double(y - h / 3)).squareRoot()
            mask.values[y * w + x] = Float(min(max((Double(min(w, h)) / 3 - d) / 4 + 0.5, 0), 1))
        } }
        let blur = BackgroundBlur()
        let strength = BlurStrength(level: level)
        var plate = Image(width: w, height: h, format: .bgra8)
        blur.blur(frame, strength: strength, excluding: mask, into: &plate)
        var coverage = CoverageMask(width: w, height: h)
        coverage.update(from: mask)
        var expected = Image(width: w, height: h, format: .bgra8)
        Compositor.composite(person: frame, background: plate, coverage: coverage, into: &expected)
        var fused = frame
        blur.blurBackground(of: &fused, mask: mask, coverage: coverage, strength: strength)
        var mismatches = 0
        for y in 0..<h { for x in 0..<(4 * w) where fused.bytes[y * stride + x] != expected.bytes[y * 4 * w + x] {
            mismatches += 1
        } }
        #expect(mismatches == 0, "\(mismatches) bytes differ")
        // Into another image (dense rows here): the same bytes, and the frame is left as it was.
        var into = Image(width: w, height: h, format: .bgra8)
        let untouched = frame
        blur.blurBackground(of: frame, mask: mask, coverage: coverage, strength: strength, into: &into)
        #expect(into.bytes == expected.bytes)
        #expect(frame.bytes == untouched.bytes)
    }

    @Test("a point of light spreads into a round spot, not a square (three passes, not one)")
    func roundHighlights() {
        let n = 101
        var frame = Image(width: n, height: n, filledWith: (0, 0, 0, 255))
        for c in 0..<3 { frame.bytes[4 * (50 * n + 50) + c] = 255 }
        // Scale the point up so the blurred values are measurable: a 5x5 bright block.
        for y in 48...52 { for x in 48...52 { for c in 0..<3 { frame.bytes[4 * (y * n + x) + c] = 255 } } }
        var out = frame
        BackgroundBlur().blur(frame, strength: BlurStrength(level: 10), into: &out)
        let radii = BlurStrength(level: 10).radii(width: n, height: n)
        #expect(radii.allSatisfy { $0 >= 1 })
        func v(_ x: Int, _ y: Int) -> Double { Double(out.bytes[4 * (y * n + x)]) }
        // Along the axis at distance d vs along the diagonal at the same distance: close for a
        // Gaussian-like kernel, very different for a single box (whose corners are as bright as its axis).
        let d = 6
        let axis = v(50 + d, 50), diagonal = v(50 + Int(Double(d) / 2.0.squareRoot() + 0.5), 50 + Int(Double(d) / 2.0.squareRoot() + 0.5))
        #expect(axis > 0 && abs(axis - diagonal) / axis < 0.2, "axis \(axis) diagonal \(diagonal)")
        #expect(v(50 + 2 * d, 50 + 2 * d) < v(50 + 2 * d, 50) * 0.8)
    }
}

@Suite("The documented level table")
struct BlurTableTests {
    @Test("Sources/Imaging/README.md's 1080p and 480p radii are what BlurStrength computes")
    func readmeTable() throws {
        let text = try String(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("Sources/Imaging/README.md"), encoding: .utf8)
        var checked = 0
        for line in text.split(separator: "\n") where line.hasPrefix("| ") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let level = Int(cells[0]), cells.count == 5 else { continue }
            for (cell, size) in zip(cells[2...4], [(640, 480), (1280, 720), (1920, 1080)]) {
                let radiiText = cell.split(separator: "→")[1].split(separator: "(")[0].trimmingCharacters(in: .whitespaces)
                let radii = radiiText.split(separator: "/").compactMap { Int($0) }
                #expect(radii == BlurStrength(level: level).radii(width: size.0, height: size.1), "level \(level) \(size)")
                checked += 1
            }
        }
        #expect(checked == 30)
    }
}
