#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Kernels

// Naive scalar references (in Double), shared by the kernel tests and the arm64 runner
// (Tests/Arm64Runner, Embedded Swift: so no Foundation and no Testing here; there the C
// library's `exp` is declared by the runner).
//
// Tolerance: a float kernel summing n products differs from the exact (Double) sum by at most
// about n·2⁻²⁴·Σ|terms| (with FMA, fewer roundings). n ≤ 128·… here, so n·2⁻²⁴ ≤ 1e-5 for
// n ≤ 160 terms; the bound used is |Δ| ≤ 1e-5·(Σ|terms| + |bias| + |residual|) · 2, the factor 2
// covering the activation (hard-swish's slope is at most 1.5, plus its own 3 roundings) and the
// mean's division. The 25·128-term dense convolutions are not swept at that size. Relative to
// the output itself this is ~1e-6 for typical layers: a kernel indexing a wrong element or
// dropping a term is off by a whole term, orders of magnitude above it.

/// Deterministic pseudo-random floats in [-1, 1) (64-bit LCG), so failures reproduce.
struct Random {
    var state: UInt64
    init(seed: UInt64) { state = seed &* 6364136223846793005 &+ 1442695040888963407 }
    mutating func next() -> Float {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Float(Int64(bitPattern: state >> 11) % (1 << 24)) / Float(1 << 23) - 1
    }
    mutating func array(_ count: Int, scale: Float = 1) -> [Float] { (0..<count).map { _ in next() * scale } }
}

/// A reference value with the magnitude that bounds its rounding error.
struct Expected {
    var value: Double
    var scale: Double
}

func applyActivation(_ activation: Activation, _ x: Double) -> Double {
    switch activation {
    case .none: return x
    case .relu: return max(x, 0)
    case .relu6: return min(max(x, 0), 6)
    case .hardSwish: return x * min(max(x + 3, 0), 6) / 6
    case .sigmoid: return 1 / (1 + exp(-x))
    case .silu: return x / (1 + exp(-x))
    }
}

/// The first element outside |actual − value| ≤ tolerance · scale (+ 1e-30 for exact zeros), or
/// the first NaN, by the largest excess: its index, or nil when every element is within.
func worstOutlier(_ actual: [Float], _ expected: [Expected], tolerance: Double) -> Int? {
    var worst = 0.0, worstIndex = -1
    for (i, (a, e)) in zip(actual, expected).enumerated() {
        let excess = (Double(a) - e.value).magnitude / (tolerance * e.scale + 1e-30)
        if !(excess <= 1) && !(excess <= worst) { worst = excess; worstIndex = i }
        if a.isNaN { worst = .infinity; worstIndex = i; break }
    }
    return worstIndex < 0 ? nil : worstIndex
}

/// Naive grouped convolution in NCHW (dense arrays), with TF/ONNX explicit pads; out-of-range
/// taps read zero. `weights` [Cout][Cin/groups][K][kernelWidth ?? K] (a window of K rows).
/// Each output sums bias, then the terms in (input channel, ky, kx) order. The operands are
/// widened to Double once and read through buffer pointers: the kernel tests run in debug builds,
/// where the reference would otherwise cost more than the kernel it checks.
func referenceConvolution(input: [Float], channels: Int, height: Int, width: Int,
                          weights: [Float], bias: [Float]?, outputChannels: Int, kernelSize k: Int,
                          kernelWidth: Int? = nil,
                          stride: Int, padTop: Int, padLeft: Int, outHeight: Int, outWidth: Int,
                          groups: Int, activation: Activation, residual: [Float]? = nil, dilation: Int = 1) -> [Expected] {
    let kw = kernelWidth ?? k
    let cinPerGroup = channels / groups, coutPerGroup = outputChannels / groups
    let wideInput = input.map(Double.init), wideWeights = weights.map(Double.init)
    var out: [Expected] = []
    out.reserveCapacity(outputChannels * outHeight * outWidth)
    wideInput.withUnsafeBufferPointer { x in
        wideWeights.withUnsafeBufferPointer { w in
            for o in 0..<outputChannels {
                let g = o / coutPerGroup
                for yo in 0..<outHeight {
                    for xo in 0..<outWidth {
                        var sum = Double(bias?[o] ?? 0), magnitude = sum.magnitude
                        for ci in 0..<cinPerGroup {
                            let plane = (g * cinPerGroup + ci) * height * width
                            let window = (o * cinPerGroup + ci) * k * kw
                            for ky in 0..<k {
                                let y = yo * stride - padTop + ky * dilation
                                if y < 0 || y >= height { continue }
                                for kx in 0..<kw {
                                    let column = xo * stride - padLeft + kx * dilation
                                    if column < 0 || column >= width { continue }
                                    let term = w[window + ky * kw + kx] * x[plane + y * width + column]
                                    sum += term
                                    magnitude += term.magnitude
                                }
                            }
                        }
                        var value = applyActivation(activation, sum)
                        if let residual {
                            let r = Double(residual[(o * outHeight + yo) * outWidth + xo])
                            value += r
                            magnitude += r.magnitude
                        }
                        out.append(Expected(value: value, scale: magnitude))
                    }
                }
            }
        }
    }
    return out
}

/// A feature map filled with dense NCHW `values`, in `layout`.
func makeMap(_ values: [Float], channels: Int, layout: PlaneLayout) -> FeatureMapStorage {
    let storage = FeatureMapStorage(channels: channels, layout: layout)
    storage.setInterior(values)
    return storage
}

/// Whether the border and row tails of a padded map are still zero (producers write only the interior).
func borderIsZero(_ storage: FeatureMapStorage) -> Bool {
    let layout = storage.layout
    let p = storage.buffer.baseAddress
    for c in 0..<storage.channels {
        for row in 0..<(layout.height + 2 * layout.pad) {
            for column in 0..<layout.rowStride {
                let inside = row >= layout.pad && row < layout.pad + layout.height
                    && column >= layout.pad && column < layout.pad + layout.width
                if !inside && p[c * layout.planeStride + row * layout.rowStride + column] != 0 { return false }
            }
        }
    }
    return true
}
