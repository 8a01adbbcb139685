// Register tiles for the 1x1 convolution on 16 SSE registers (the portable x86-64 build: no AVX,
// no FMA), each against the one the kernels use (2 output channels × 16 pixels), interleaved
// round after round in one process so a machine whose speed drifts affects all alike.
//
//   mkdir -p .build && swiftc -O Tools/sse_tile_study.swift -o .build/sse_tile_study && .build/sse_tile_study 16 72
//
// Arguments: input and output channels (a 64x64 map). Each tile multiplies 4-lane pre-broadcast
// weights packed per group of its output channels ([group][input channel][channel][4]) with a
// packed panel of its pixels, as `pointwiseConvolution` does; no bias or activation. Compare
// the GFLOP/s with the mul+add peak of `vbg bench --kernels` on a portable build.
import Foundation

typealias Q = SIMD4<Float>
@inline(__always) func load(_ p: UnsafePointer<Float>) -> Q { UnsafeRawPointer(p).load(as: Q.self) }
@inline(__always) func loadUnaligned(_ p: UnsafePointer<Float>) -> Q { UnsafeRawPointer(p).loadUnaligned(as: Q.self) }
@inline(__always) func store(_ v: Q, _ p: UnsafeMutablePointer<Float>) { UnsafeMutableRawPointer(p).storeBytes(of: v, as: Q.self) }

let arguments = CommandLine.arguments
guard arguments.count == 3, let cin = Int(arguments[1]), let cout = Int(arguments[2]), cin > 0, cout > 0 else {
    print("usage: sse_tile_study INPUT_CHANNELS OUTPUT_CHANNELS"); exit(2)
}
let pixels = 64 * 64

func buffer(_ count: Int) -> UnsafeMutablePointer<Float> {
    let p = UnsafeMutableRawPointer.allocate(byteCount: (count + 64) * 4, alignment: 64).bindMemory(to: Float.self, capacity: count + 64)
    for i in 0..<count + 64 { p[i] = Float.random(in: -1...1) }
    return p
}
let input = buffer(cin * pixels), output = buffer(cout * pixels), weights = buffer(cout * cin), panel = buffer(cin * 24)

/// The weights in groups of `g` output channels, each weight 4 lanes wide.
func packed(_ g: Int) -> UnsafePointer<Float> {
    let groups = (cout + g - 1) / g, p = buffer(groups * g * cin * 4)
    for o in 0..<groups * g {
        for k in 0..<cin {
            for j in 0..<4 { p[((o / g * cin + k) * g + o % g) * 4 + j] = o < cout ? weights[o * cin + k] : 0 }
        }
    }
    return UnsafePointer(p)
}

/// Copies `width` pixels from `pixel` on of every input channel into the panel.
@inline(__always) func pack(_ pixel: Int, _ width: Int) {
    for k in 0..<cin {
        var j = 0
        while j < width { store(loadUnaligned(input + k * pixels + pixel + j), panel + k * width + j); j += 4 }
    }
}

/// Stores one accumulator of output channel `channel` (left out past `cout`) at `pixel`.
@inline(__always) func put(_ v: Q, _ channel: Int, _ pixel: Int) {
    if channel < cout { store(v, output + channel * pixels + pixel) }
}

// Each tile as straight-line code over named accumulators (an array would live on the heap).
let w2 = packed(2), w3 = packed(3), w4 = packed(4), w6 = packed(6)

@inline(never) func channels2pixels16() {
    var p = 0
    while p + 16 <= pixels {
        pack(p, 16)
        var o = 0
        while o < cout {
            var a0 = Q(), a1 = Q(), a2 = Q(), a3 = Q(), b0 = Q(), b1 = Q(), b2 = Q(), b3 = Q()
            var x = UnsafePointer(panel), w = w2 + o / 2 * cin * 8
            for _ in 0..<cin {
                let x0 = load(x), x1 = load(x + 4), x2 = load(x + 8), x3 = load(x + 12), u = load(w), v = load(w + 4)
                a0 += u * x0; a1 += u * x1; a2 += u * x2; a3 += u * x3
                b0 += v * x0; b1 += v * x1; b2 += v * x2; b3 += v * x3
                x += 16; w += 8
            }
            put(a0, o, p); put(a1, o, p + 4); put(a2, o, p + 8); put(a3, o, p + 12)
            put(b0, o + 1, p); put(b1, o + 1, p + 4); put(b2, o + 1, p + 8); put(b3, o + 1, p + 12)
            o += 2
        }
        p += 16
    }
}

@inline(never) func channels2pixels24() {
    var p = 0
    while p + 24 <= pixels {
        pack(p, 24)
        var o = 0
        while o < cout {
            var a0 = Q(), a1 = Q(), a2 = Q(), a3 = Q(), a4 = Q(), a5 = Q()
            var b0 = Q(), b1 = Q(), b2 = Q(), b3 = Q(), b4 = Q(), b5 = Q()
            var x = UnsafePointer(panel), w = w2 + o / 2 * cin * 8
            for _ in 0..<cin {
                let u = load(w), v = load(w + 4)
                var t = load(x); a0 += u * t; b0 += v * t
                t = load(x + 4); a1 += u * t; b1 += v * t
                t = load(x + 8); a2 += u * t; b2 += v * t
                t = load(x + 12); a3 += u * t; b3 += v * t
                t = load(x + 16); a4 += u * t; b4 += v * t
                t = load(x + 20); a5 += u * t; b5 += v * t
                x += 24; w += 8
            }
            put(a0, o, p); put(a1, o, p + 4); put(a2, o, p + 8); put(a3, o, p + 12); put(a4, o, p + 16); put(a5, o, p + 20)
            put(b0, o + 1, p); put(b1, o + 1, p + 4); put(b2, o + 1, p + 8); put(b3, o + 1, p + 12); put(b4, o + 1, p + 16)
            put(b5, o + 1, p + 20)
            o += 2
        }
        p += 24
    }
}

@inline(never) func channels3pixels12() {
    var p = 0
    while p + 12 <= pixels {
        pack(p, 12)
        var o = 0
        while o < cout {
            var a0 = Q(), a1 = Q(), a2 = Q(), b0 = Q(), b1 = Q(), b2 = Q(), c0 = Q(), c1 = Q(), c2 = Q()
            var x = UnsafePointer(panel), w = w3 + o / 3 * cin * 12
            for _ in 0..<cin {
                let x0 = load(x), x1 = load(x + 4), x2 = load(x + 8)
                var u = load(w); a0 += u * x0; a1 += u * x1; a2 += u * x2
                u = load(w + 4); b0 += u * x0; b1 += u * x1; b2 += u * x2
                u = load(w + 8); c0 += u * x0; c1 += u * x1; c2 += u * x2
                x += 12; w += 12
            }
            put(a0, o, p); put(a1, o, p + 4); put(a2, o, p + 8); put(b0, o + 1, p); put(b1, o + 1, p + 4); put(b2, o + 1, p + 8)
            put(c0, o + 2, p); put(c1, o + 2, p + 4); put(c2, o + 2, p + 8)
            o += 3
        }
        p += 12
    }
}

@inline(never) func channels4pixels8() {
    var p = 0
    while p + 8 <= pixels {
        pack(p, 8)
        var o = 0
        while o < cout {
            var a0 = Q(), a1 = Q(), b0 = Q(), b1 = Q(), c0 = Q(), c1 = Q(), d0 = Q(), d1 = Q()
            var x = UnsafePointer(panel), w = w4 + o / 4 * cin * 16
            for _ in 0..<cin {
                let x0 = load(x), x1 = load(x + 4)
                let u = load(w), v = load(w + 4), s = load(w + 8), t = load(w + 12)
                a0 += u * x0; a1 += u * x1; b0 += v * x0; b1 += v * x1
                c0 += s * x0; c1 += s * x1; d0 += t * x0; d1 += t * x1
                x += 8; w += 16
            }
            put(a0, o, p); put(a1, o, p + 4); put(b0, o + 1, p); put(b1, o + 1, p + 4)
            put(c0, o + 2, p); put(c1, o + 2, p + 4); put(d0, o + 3, p); put(d1, o + 3, p + 4)
            o += 4
        }
        p += 8
    }
}

@inline(never) func channels6pixels8() {
    var p = 0
    while p + 8 <= pixels {
        pack(p, 8)
        var o = 0
        while o < cout {
            var a0 = Q(), a1 = Q(), b0 = Q(), b1 = Q(), c0 = Q(), c1 = Q()
            var d0 = Q(), d1 = Q(), e0 = Q(), e1 = Q(), f0 = Q(), f1 = Q()
            var x = UnsafePointer(panel), w = w6 + o / 6 * cin * 24
            for _ in 0..<cin {
                let x0 = load(x), x1 = load(x + 4)
                var u = load(w); a0 += u * x0; a1 += u * x1
                u = load(w + 4); b0 += u * x0; b1 += u * x1
                u = load(w + 8); c0 += u * x0; c1 += u * x1
                u = load(w + 12); d0 += u * x0; d1 += u * x1
                u = load(w + 16); e0 += u * x0; e1 += u * x1
                u = load(w + 20); f0 += u * x0; f1 += u * x1
                x += 8; w += 24
            }
            put(a0, o, p); put(a1, o, p + 4); put(b0, o + 1, p); put(b1, o + 1, p + 4); put(c0, o + 2, p); put(c1, o + 2, p + 4)
            put(d0, o + 3, p); put(d1, o + 3, p + 4); put(e0, o + 4, p); put(e1, o + 4, p + 4); put(f0, o + 5, p); put(f1, o + 5, p + 4)
            o += 6
        }
        p += 8
    }
}

let tiles: [(name: String, width: Int, run: () -> Void)] = [
    ("2 channels x 16 pixels (the kernels')", 16, channels2pixels16), ("2 channels x 24 pixels", 24, channels2pixels24),
    ("3 channels x 12 pixels", 12, channels3pixels12), ("4 channels x 8 pixels", 8, channels4pixels8),
    ("6 channels x 8 pixels", 8, channels6pixels8),
]
let rounds = 41
var times = [[Double]](repeating: [], count: tiles.count)
for tile in tiles { tile.run(); tile.run() }
for _ in 0..<rounds {
    for (i, tile) in tiles.enumerated() {
        let start = DispatchTime.now().uptimeNanoseconds
        tile.run()
        times[i].append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1000)
    }
}
print("1x1 convolution \(cin) -> \(cout), 64x64, \(rounds) interleaved rounds (median; ratio: median of per-round time / the kernels' tile)")
for (i, tile) in tiles.enumerated() {
    let us = times[i].sorted()[rounds / 2]
    let ratio = zip(times[i], times[0]).map { $0 / $1 }.sorted()[rounds / 2]
    let flops = Double(2 * cin * cout * (pixels / tile.width * tile.width))
    print(tile.name.padding(toLength: 38, withPad: " ", startingAt: 0)
          + String(format: " %8.1f µs %6.1f GFLOP/s  %.3f", us, flops / us / 1000, ratio))
}
