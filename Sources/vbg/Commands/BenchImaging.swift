import Foundation
import Imaging
import Y4MFormat

/// `vbg bench --imaging [--json] [--repeat N] [--sizes WxH,...]`: times the imaging operations on
/// synthetic RGBA frames (release builds; single thread). Times are the thread's CPU time
/// (`CLOCK_THREAD_CPUTIME_ID`), so preemption on a shared machine does not count. One line per (operation, size); with
/// `--json` one JSON object per line: `op`, `width`, `height`, `median_ms`, `p10_ms`, `p90_ms`,
/// `runs`, and for blur `level` and `radii`. `composite` blends with the float mask; `coverage`
/// converts that mask to a ``CoverageMask`` and `composite_coverage` blends with it (what the
/// pipeline runs: the conversion once per mask generation, the blend every frame). `blur_masked` is
/// the pipeline's fused mask-weighted blur and blend, with that byte coverage.
func runImagingBench(_ arguments: inout Arguments) throws {
    let json = try arguments.flag("json")
    _ = try arguments.flag("imaging")
    let runs = try arguments.integer("repeat", default: 31, in: 3...10_000)
    let sizesText = try arguments.value("sizes") ?? "640x480,1280x720,1920x1080"
    let ops = Set((try arguments.value("ops") ?? "preprocess,upsample,blur,blur_masked,cover_crop,composite,yuv")
        .split(separator: ",").map(String.init))
    try arguments.finish()
    var sizes: [(Int, Int)] = []
    for item in sizesText.split(separator: ",") {
        let parts = item.split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2, parts[0] > 0, parts[1] > 0 else { throw CLIError.usage("bad size '\(item)' (want WxH)") }
        sizes.append((parts[0], parts[1]))
    }
    var bench = ImagingBench(runs: runs, json: json)
    for (w, h) in sizes { bench.run(ops, width: w, height: h) }
}

/// The imaging operations on synthetic frames of one size after another, each timed `runs`
/// times after three warm-up runs, one report line per operation and size.
private struct ImagingBench {
    let runs: Int
    let json: Bool
    var generator = SplitMix(seed: 42)

    init(runs: Int, json: Bool) { (self.runs, self.json) = (runs, json) }

    /// The operations of `ops` on a `width` x `height` frame of random colours (alpha 255, as
    /// camera frames are: a random alpha once hid a cost the composite paid only on opaque
    /// frames) and a soft person-like mask (a disc with a ramp).
    mutating func run(_ ops: Set<String>, width w: Int, height h: Int) {
        let frame = Image(width: w, height: h, format: .rgba8, bytes: opaqueNoise(w, h))
        let other = Image(width: w, height: h, format: .rgba8, bytes: opaqueNoise(w, h))
        var mask = Mask(width: w, height: h)
        for y in 0..<h { for x in 0..<w {
            let dx = Double(x - w / 2) / Double(w), dy = Double(y - h / 2) / Double(h)
            mask.values[y * w + x] = Float(min(max((0.3 - (dx * dx + dy * dy).squareRoot()) * 20 + 0.5, 0), 1))
        } }
        if ops.contains("preprocess") {
            let sampler = ModelInputSampler(sourceWidth: w, sourceHeight: h, tensorWidth: 256, tensorHeight: 256)
            var tensor = [Float](repeating: 0, count: sampler.tensorCount)
            let t = time { tensor.withUnsafeMutableBufferPointer { sampler.sample(frame, into: $0) } }
            report("preprocess", w, h, t, extra: [("tensor", "\"256x256\"")])
        }
        if ops.contains("upsample") {
            let small = (0..<(256 * 256)).map { _ in Float(generator.next() % 1000) / 1000 }
            let upsampler = MaskUpsampler(sourceWidth: 256, sourceHeight: 256, targetWidth: w, targetHeight: h)
            var out = [Float](repeating: 0, count: w * h)
            let t = time { small.withUnsafeBufferPointer { s in out.withUnsafeMutableBufferPointer { upsampler.upsample(s, into: $0) } } }
            report("upsample", w, h, t, extra: [("mask", "\"256x256\"")])
        }
        if ops.contains("blur") || ops.contains("blur_masked") { blurs(ops, frame: frame, other: other, mask: mask) }
        if ops.contains("cover_crop") { coverCrop(width: w, height: h) }
        if ops.contains("yuv") { yuv(frame: frame, other: other) }
        if ops.contains("composite") { composites(frame: frame, other: other, mask: mask) }
    }

    /// The plain three-pass blur and the pipeline's fused mask-weighted blur and blend, at levels 1, 5 and 10.
    func blurs(_ ops: Set<String>, frame: Image, other: Image, mask: Mask) {
        let (w, h) = (frame.width, frame.height)
        let blur = BackgroundBlur()
        for level in [1, 5, 10] {
            let strength = BlurStrength(level: level)
            let radii = strength.radii(width: w, height: h)
            let extra = [("level", "\(level)"), ("radii", "[\(radii.map(String.init).joined(separator: ", "))]")]
            if ops.contains("blur") {
                var out = other
                let t = time { blur.blur(frame, strength: strength, into: &out) }
                report("blur", w, h, t, extra: extra)
            }
            if ops.contains("blur_masked") {
                // The pipeline's fused blur and blend, with the byte coverage it makes once per mask.
                var out = frame, coverage = CoverageMask(width: w, height: h)
                coverage.update(from: mask)
                let t = time { out = frame; blur.blurBackground(of: &out, mask: mask, coverage: coverage, strength: strength) }
                let copy = time { out = frame; out.bytes[0] = 1 }
                let median = { (a: [Double]) in a.sorted()[a.count / 2] }
                // Subtract the copy that restores the frame each run (not part of the operation).
                report("blur_masked", w, h, t.map { $0 - median(copy) }, extra: extra)
            }
        }
    }

    /// Cover-cropping a 1600x1200 picture: the first time, and from the cache.
    mutating func coverCrop(width w: Int, height h: Int) {
        let pictureWidth = 1600, pictureHeight = 1200
        let picture = Image(width: pictureWidth, height: pictureHeight, format: .rgba8,
                            bytes: (0..<(4 * pictureWidth * pictureHeight)).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
        let first = time(max(runs / 4, 3)) { _ = ReplacementBackground(picture).covering(width: w, height: h, format: .rgba8) }
        report("cover_crop", w, h, first, extra: [("cached", "false"), ("source", "\"1600x1200\"")])
        let background = ReplacementBackground(picture)
        var sink = 0
        let cached = time { sink &+= background.covering(width: w, height: h, format: .rgba8).width }
        report("cover_crop", w, h, cached, extra: [("cached", "true"), ("source", "\"1600x1200\"")])
    }

    /// Y4M frame conversion, 4:2:0 BT.601 limited range, both directions.
    func yuv(frame: Image, other: Image) {
        let (w, h) = (frame.width, frame.height)
        let header = Y4MHeader(width: w, height: h, chroma: .c420jpeg)
        var planes = [UInt8](repeating: 0, count: header.frameByteCount)
        let toYUV = time { planes.withUnsafeMutableBufferPointer { YUVConversion.toPlanes(frame, header: header, into: $0.baseAddress!) } }
        report("rgba_to_yuv420", w, h, toYUV)
        var image = other
        let toRGBA = time { planes.withUnsafeBufferPointer { YUVConversion.toImage(planes: $0.baseAddress!, header: header, into: &image) } }
        report("yuv420_to_rgba", w, h, toRGBA)
    }

    /// The blend with the float mask, the mask's conversion to a byte coverage, and the blend with it.
    func composites(frame: Image, other: Image, mask: Mask) {
        let (w, h) = (frame.width, frame.height)
        var out = other
        let t = time { Compositor.composite(person: frame, background: other, mask: mask, into: &out) }
        report("composite", w, h, t)
        var coverage = CoverageMask(width: w, height: h)
        let convert = time { coverage.update(from: mask) }
        report("coverage", w, h, convert)
        let withCoverage = time { Compositor.composite(person: frame, background: other, coverage: coverage, into: &out) }
        report("composite_coverage", w, h, withCoverage)
    }

    mutating func opaqueNoise(_ w: Int, _ h: Int) -> [UInt8] {
        (0..<(4 * w * h)).map { i in i % 4 == 3 ? 255 : UInt8(truncatingIfNeeded: generator.next()) }
    }

    /// `count` timings (default `runs`) of `body` after three warm-up runs, in milliseconds of the
    /// thread's CPU time: on a shared machine, time spent preempted is not ours.
    func time(_ count: Int? = nil, _ body: () -> Void) -> [Double] {
        func now() -> Double {
            var t = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
            return Double(t.tv_sec) * 1e3 + Double(t.tv_nsec) / 1e6
        }
        for _ in 0..<3 { body() }
        return (0..<(count ?? runs)).map { _ in
            let start = now()
            body()
            return now() - start
        }
    }

    func report(_ op: String, _ w: Int, _ h: Int, _ times: [Double], extra: [(String, String)] = []) {
        let sorted = times.sorted()
        let median = sorted[sorted.count / 2], p10 = sorted[sorted.count / 10], p90 = sorted[sorted.count * 9 / 10]
        if json {
            var fields = ["\"op\": \"\(op)\"", "\"width\": \(w)", "\"height\": \(h)",
                          String(format: "\"median_ms\": %.4f", median), String(format: "\"p10_ms\": %.4f", p10),
                          String(format: "\"p90_ms\": %.4f", p90), "\"runs\": \(times.count)"]
            fields += extra.map { "\"\($0.0)\": \($0.1)" }
            print("{" + fields.joined(separator: ", ") + "}")
        } else {
            let extraText = extra.map { "\($0.0)=\($0.1)" }.joined(separator: " ")
            print(String(format: "%-12@ %5dx%-5d median %8.3f ms  p10 %8.3f  p90 %8.3f  %@", op, w, h, median, p10, p90, extraText))
        }
        fflush(nil)
    }
}

/// A tiny deterministic generator for benchmark data.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
