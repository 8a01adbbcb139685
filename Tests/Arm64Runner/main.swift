// The arm64 test runner: an Embedded Swift program (.ci/arm64.sh builds it for
// aarch64-none-none-elf, links it statically against Debian's aarch64 glibc and runs it under
// qemu-aarch64-static). It checks the fast kernels against the scalar references of
// Tests/KernelsTests/ScalarReference.swift and the exact imaging ops against
// Tests/ImagingTests/ImagingReference.swift (the same files the x86-64 tests use, compiled into
// this module), with the same tolerances; then runs the built-in models' forward pass on both
// paths and one whole frame (Tests/Arm64FixtureTests/Arm64Cases.swift, also compiled into this
// module) against the x86-64 results in Fixtures/arm64/. It prints `N passed, M failed` and exits
// 1 on any failure. Embedded Swift has one thread here (WorkerPool), so every pool is a 1-thread
// pool. Run from the repository root (it reads Weights/ and Fixtures/arm64/).
import Imaging
import Inference
import Kernels

@_extern(c, "exp") func exp(_ x: Double) -> Double
@_extern(c, "getenv") func getenv(_ name: UnsafePointer<CChar>) -> UnsafeMutablePointer<CChar>?
@_extern(c, "exit") func exit(_ status: Int32)
@_extern(c, "fopen") func fopen(_ path: UnsafePointer<CChar>, _ mode: UnsafePointer<CChar>) -> OpaquePointer?
@_extern(c, "fread") func fread(_ buffer: UnsafeMutableRawPointer, _ size: Int, _ count: Int, _ file: OpaquePointer) -> Int
@_extern(c, "fclose") func fclose(_ file: OpaquePointer) -> Int32

var passed = 0, failed = 0

/// Counts one case; prints it when it fails.
func check(_ ok: Bool, _ what: @autoclosure () -> String) {
    if ok { passed += 1 } else { failed += 1; print("FAIL: \(what())") }
}

/// `VBG_TEST_SEED` (decimal) if set, else 1.
func testSeed() -> UInt64 {
    guard let text = getenv("VBG_TEST_SEED") else { return 1 }
    var value: UInt64 = 0
    var p = text
    while p.pointee >= 48 && p.pointee <= 57 { value = value * 10 + UInt64(p.pointee - 48); p += 1 }
    return value
}

let seed = testSeed()
print("arm64 runner: seed \(seed) (replay with VBG_TEST_SEED=\(seed))")
var shapes = Random(seed: seed)

/// A pseudo-random integer in `range` from the seeded shape generator.
func pick(_ range: ClosedRange<Int>) -> Int {
    range.lowerBound + Int((shapes.next() + 1) / 2 * Float(range.count)) % range.count
}

// Channel counts: 1…3, primes, and the 8- and 16-lane tile sizes ±1.
let channelCounts = [1, 2, 3, 5, 7, 8, 9, 13, 15, 16, 17, 23, 24, 25, 31, 32, 33, 47, 48, 49, 64, 65, 97]
let activations: [Activation] = [.none, .relu, .relu6, .hardSwish, .sigmoid]
let pool = WorkerPool(threads: 1)

// 1x1 convolution, with and without a residual, dense and padded outputs.
for cin in channelCounts {
    for _ in 0..<3 {
        let cout = channelCounts[pick(0...(channelCounts.count - 1))]
        let h = pick(1...9), w = pick(1...37), outputPad = pick(0...2)
        let activation = activations[pick(0...4)]
        let withResidual = pick(0...1) == 1
        var random = Random(seed: shapes.state)
        let x = random.array(cin * h * w), weights = random.array(cin * cout, scale: 0.5), bias = random.array(cout)
        let res = withResidual ? random.array(cout * h * w) : nil
        let input = makeMap(x, channels: cin, layout: .dense(width: w, height: h))
        let output = FeatureMapStorage(channels: cout, layout: .padded(width: w, height: h, pad: outputPad))
        let residual = res.map { makeMap($0, channels: cout, layout: .dense(width: w, height: h)) }
        pool.reserve(pointwiseScratch(inputChannels: cin))
        pointwiseConvolution(input.map, weights: PointwiseWeights(weights: weights, bias: bias, outputChannels: cout, inputChannels: cin),
                             activation: activation, residual: residual?.map, output: output.map, pool: pool)
        let expected = referenceConvolution(input: x, channels: cin, height: h, width: w, weights: weights, bias: bias,
                                            outputChannels: cout, kernelSize: 1, stride: 1, padTop: 0, padLeft: 0,
                                            outHeight: h, outWidth: w, groups: 1, activation: activation, residual: res)
        let what = "1x1 \(cin)->\(cout) \(h)x\(w) pad \(outputPad) \(activation.description) residual \(withResidual)"
        check(worstOutlier(output.interior(), expected, tolerance: 2e-5) == nil && borderIsZero(output), what)
    }
}

/// TF-SAME pads: (before, after, output size).
func samePads(kernel k: Int, stride s: Int, size: Int) -> (Int, Int, Int) {
    let out = (size + s - 1) / s
    let total = max((out - 1) * s + k - size, 0)
    return (total / 2, total - total / 2, out)
}

// Depthwise and dense K×K convolutions: 3x3 and 5x5, stride 1 and 2, TF-SAME pads.
for k in [3, 5] {
    for stride in [1, 2] {
        for _ in 0..<12 {
            let channels = channelCounts[pick(0...(channelCounts.count - 1))]
            let h = pick(1...17), w = pick(1...33)
            let activation = activations[pick(0...4)]
            let (top, bottom, outH) = samePads(kernel: k, stride: stride, size: h)
            let (left, right, outW) = samePads(kernel: k, stride: stride, size: w)
            let inputPad = max(top, left, bottom, right), outputPad = pick(0...1)
            var random = Random(seed: shapes.state)
            let x = random.array(channels * h * w)
            let input = makeMap(x, channels: channels, layout: .padded(width: w, height: h, pad: inputPad))

            let dw = random.array(channels * k * k, scale: 0.5), db = random.array(channels)
            let depthwiseOut = FeatureMapStorage(channels: channels, layout: .padded(width: outW, height: outH, pad: outputPad))
            depthwiseConvolution(input.map, weights: DepthwiseWeights(weights: dw, bias: db, channels: channels, kernelSize: k),
                                 stride: stride, padTop: top, padLeft: left, activation: activation, residual: nil,
                                 output: depthwiseOut.map, pool: pool)
            let depthwiseExpected = referenceConvolution(
                input: x, channels: channels, height: h, width: w, weights: dw, bias: db, outputChannels: channels,
                kernelSize: k, stride: stride, padTop: top, padLeft: left, outHeight: outH, outWidth: outW,
                groups: channels, activation: activation)
            check(worstOutlier(depthwiseOut.interior(), depthwiseExpected, tolerance: 2e-5) == nil && borderIsZero(depthwiseOut),
                  "dw\(k)x\(k) s\(stride) \(h)x\(w) c\(channels) \(activation.description)")

            // The same on the small-map kernel (channels in lanes): dense and padded maps, a
            // residual, channel counts past a block of 64.
            let laneChannels = channels + [0, 64, 128][pick(0...2)]
            let lx = random.array(laneChannels * h * w)
            let laneInput = makeMap(lx, channels: laneChannels, layout: pick(0...1) == 0 ? .dense(width: w, height: h)
                                    : .padded(width: w, height: h, pad: 1))
            let lw = random.array(laneChannels * k * k, scale: 0.5), lb = random.array(laneChannels)
            let lr = random.array(laneChannels * outH * outW)
            let withResidual = pick(0...1) == 0
            let laneResidual = makeMap(lr, channels: laneChannels, layout: .dense(width: outW, height: outH))
            let laneOut = FeatureMapStorage(channels: laneChannels, layout: pick(0...1) == 0 ? .dense(width: outW, height: outH)
                                            : .padded(width: outW, height: outH, pad: outputPad))
            pool.reserve(smallMapDepthwiseScratch(inputWidth: w, inputHeight: h, outputWidth: outW, outputHeight: outH))
            smallMapDepthwise(laneInput.map, weights: ChannelLaneDepthwiseWeights(weights: lw, bias: lb, channels: laneChannels,
                                                                                  kernelSize: k),
                              stride: stride, padTop: top, padLeft: left, activation: activation,
                              residual: withResidual ? laneResidual.map : nil, output: laneOut.map, pool: pool)
            let laneExpected = referenceConvolution(
                input: lx, channels: laneChannels, height: h, width: w, weights: lw, bias: lb, outputChannels: laneChannels,
                kernelSize: k, stride: stride, padTop: top, padLeft: left, outHeight: outH, outWidth: outW,
                groups: laneChannels, activation: activation, residual: withResidual ? lr : nil)
            check(worstOutlier(laneOut.interior(), laneExpected, tolerance: 2e-5) == nil && borderIsZero(laneOut),
                  "small-map dw\(k)x\(k) s\(stride) \(h)x\(w) c\(laneChannels) \(activation.description) residual \(withResidual)")

            let cin = min(channels, 8), cout = channelCounts[pick(0...12)]
            let denseInput = makeMap(Array(x[0..<(cin * h * w)]), channels: cin, layout: .padded(width: w, height: h, pad: inputPad))
            let cw = random.array(cout * cin * k * k, scale: 0.5), cb = random.array(cout)
            let denseOut = FeatureMapStorage(channels: cout, layout: .padded(width: outW, height: outH, pad: outputPad))
            convolution(denseInput.map, weights: ConvolutionWeights(weights: cw, bias: cb, outputChannels: cout, inputChannels: cin, kernelSize: k),
                        stride: stride, padTop: top, padLeft: left, activation: activation, output: denseOut.map, pool: pool)
            let denseExpected = referenceConvolution(
                input: Array(x[0..<(cin * h * w)]), channels: cin, height: h, width: w, weights: cw, bias: cb,
                outputChannels: cout, kernelSize: k, stride: stride, padTop: top, padLeft: left, outHeight: outH,
                outWidth: outW, groups: 1, activation: activation)
            check(worstOutlier(denseOut.interior(), denseExpected, tolerance: 2e-5) == nil && borderIsZero(denseOut),
                  "conv\(k)x\(k) s\(stride) \(h)x\(w) \(cin)->\(cout) \(activation.description)")
        }
    }
}

/// Pseudo-random bytes for the imaging inputs.
func noise(count: Int, random: inout Random) -> [UInt8] {
    (0..<count).map { _ in UInt8(truncatingIfNeeded: Int((random.next() + 1) * 128)) }
}

// The mask upsampler: every float equals OpenCV's recipe (exact on x86-64, so exact here).
for (w, h, W, H) in [(8, 5, 700, 40), (3, 2, 100, 7), (16, 9, 1, 1), (16, 9, 17, 3), (40, 30, 33, 29), (2, 2, 64, 64),
                     (1, 3, 5, 4), (256, 144, 640, 360), (pick(1...40), pick(1...40), pick(1...300), pick(1...300))] {
    let src = (0..<(w * h)).map { Float(($0 * 37) % 101) / 100 }
    let upsampler = MaskUpsampler(sourceWidth: w, sourceHeight: h, targetWidth: W, targetHeight: H)
    var out = [Float](repeating: .nan, count: W * H)
    src.withUnsafeBufferPointer { s in out.withUnsafeMutableBufferPointer { upsampler.upsample(s, into: $0) } }
    check(out == referenceUpsample(src, w, h, W, H), "upsample \(w)x\(h) -> \(W)x\(H)")
}

// Cover-crop: every byte equals the plain per-pixel computation (exact on x86-64, so exact here).
for (w, h, W, H, bgra) in [(97, 61, 40, 30, false), (30, 20, 77, 41, false), (120, 40, 50, 50, true), (64, 48, 64, 48, false),
                           (50, 90, 31, 70, true), (pick(1...120), pick(1...120), pick(1...120), pick(1...120), pick(0...1) == 1)] {
    let stride = 4 * w + 8
    var random = Random(seed: shapes.state)
    let picture = Image(width: w, height: h, format: .rgba8, bytesPerRow: stride, bytes: noise(count: stride * h, random: &random))
    let format: PixelFormat = bgra ? .bgra8 : .rgba8
    check(CoverCrop.fit(picture, width: W, height: H, format: format).bytes == referenceCoverCrop(picture, width: W, height: H, format: format),
          "cover-crop \(w)x\(h) -> \(W)x\(H) bgra \(bgra)")
}

/// The bytes of the file at `path` (relative to the working directory), nil when it cannot be opened.
func readFile(_ path: String) -> [UInt8]? {
    let name = path.utf8.map { CChar(bitPattern: $0) } + [0], mode: [CChar] = [114, 98, 0]  // "rb"
    guard let file = fopen(name, mode) else { return nil }
    defer { _ = fclose(file) }
    var bytes: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let read = chunk.withUnsafeMutableBytes { fread($0.baseAddress!, 1, $0.count, file) }
        bytes += chunk[0..<read]
        if read < chunk.count { return bytes }
    }
}

/// A fixture of raw little-endian float32 values (empty when missing: every comparison then fails).
func floats(_ name: String) -> [Float] {
    guard let bytes = readFile("Fixtures/arm64/" + name) else { return [] }
    return bytes.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
}

/// A difference as a whole number of 1e-9 (Embedded Swift prints no floats).
func nanoUnits(_ difference: Float) -> String { difference.isFinite ? "\(Int(difference * 1e9))e-9" : "infinite" }

// The built-in models' forward pass on the reference and fast paths, each against the x86-64
// output of the same path, and one whole frame: segment (fast path), smooth, blur, composite.
if let frameBytes = readFile("Fixtures/arm64/frame_320x240.rgba") {
    let frame = Arm64Cases.frame(frameBytes)
    for entry in Arm64Cases.models {
        guard let bytes = readFile("Weights/" + entry.file) else { check(false, "read Weights/\(entry.file)"); continue }
        do throws(ModelError) {
            let model = try InferenceModel(bytes: bytes)
            let input = Arm64Cases.tensor(frame, width: entry.width, height: entry.height)
            for path in [ExecutionPath.reference, .fast] {
                let session = try InferenceSession(model: model, path: path)
                let output = try Arm64Cases.forward(session, input, outputCount: entry.width * entry.height)
                let difference = Arm64Cases.largestDifference(output, floats("\(entry.name)_\(path.rawValue).f32"))
                check(difference <= Arm64Cases.tolerance, "\(entry.name) forward pass, \(path.rawValue) path: largest difference \(nanoUnits(difference))")
            }
            if entry.name == Arm64Cases.models[Arm64Cases.frameModel].name {
                let session = try InferenceSession(model: model, path: .fast)
                let mask = try Arm64Cases.smoothedMask(frame, session)
                let difference = Arm64Cases.largestDifference(mask, floats("frame_mask.f32"))
                check(difference <= Arm64Cases.tolerance, "whole frame: smoothed mask, largest difference \(nanoUnits(difference))")
                // The imaging from the stored x86-64 mask, so that the bytes compare exactly.
                let output = Arm64Cases.composite(frame, mask: floats("frame_mask.f32"))
                let expected = readFile("Fixtures/arm64/frame_output.rgba") ?? []
                var differing = output.count == expected.count ? 0 : output.count
                if differing == 0 { for i in output.indices where output[i] != expected[i] { differing += 1 } }
                check(differing == 0, "whole frame: blurred and composited bytes, \(differing) differ")
            }
        } catch {
            check(false, "\(entry.name): \(error.message)")
        }
    }
} else {
    check(false, "read Fixtures/arm64/frame_320x240.rgba")
}

print("\(passed) passed, \(failed) failed")
if failed > 0 { exit(1) }
