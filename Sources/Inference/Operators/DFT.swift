import CMath

/// ONNX `DFT` (17, 20): the discrete Fourier transform of `input` along one axis.
///
/// `input` is [..., n, ..., 1] (real) or [..., n, ..., 2] (complex, real and imaginary parts);
/// float32, double or float16. The axis is the attribute `axis` (DFT-17, default 1) or the
/// constant scalar input 2 (DFT-20, default −2); it cannot be the last axis. `dft_length`
/// (input 1, a constant scalar; default n) truncates or zero-pads the signal along the axis.
/// - Forward: `Y[k] = Σ_t x[t]·e^(−2πi·kt/L)`, all L bins, or the first ⌊L/2⌋ + 1 with `onesided`.
/// - `inverse`: `y[t] = (1/L)·Σ_k X[k]·e^(2πi·kt/L)`, complex output; with `onesided` too, the
///   inverse of a one-sided spectrum (as numpy's `irfft`): the bins above L/2 are the conjugates
///   of those below, the imaginary parts of bin 0 and (L even) bin L/2 are ignored, the output is
///   real ([..., L, ..., 1]) and L defaults to 2(n − 1).
///
/// Computed in double by the direct sum (twiddles from one table of L points), then rounded to
/// the input's type.
final class DFT: Operator {
    let dataInputs = [0]
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    let type: ElementType
    /// Elements before the axis, along it (input), after it (excluding the last axis).
    let outer: Int, length: Int, inner: Int
    /// Floats per input element (1 real, 2 complex).
    let components: Int
    let transformLength: Int, bins: Int
    let inverse: Bool, onesided: Bool
    /// cos(2π·j/L) and ±sin(2π·j/L) (− forward, + inverse) for j in 0..<L; the exponent kt is
    /// taken modulo L.
    let cosines: [Double], sines: [Double]
    var checksInputTypes: Bool { true }

    static let build: OperatorBuilder = { context throws(ModelError) in
        let version = context.opVersion
        try context.checkArity(inputs: 1, version >= 20 ? 3 : 2)
        try context.checkAttributes(version >= 20 ? ["inverse", "onesided"] : ["axis", "inverse", "onesided"])
        let type = try context.requireType(ofInput: 0, in: [.float32, .double, .float16])
        let shape = try context.shape(ofInput: 0)
        let rank = shape.count
        guard rank >= 2, shape[rank - 1] == 1 || shape[rank - 1] == 2 else {
            throw context.error(.invalidShape, "input 0 ('input') has shape \(shape); its last axis must be 1 (real) or 2 (complex)")
        }
        var axis: Int
        if version >= 20 {
            axis = -2
            if context.hasInput(2) {
                _ = try context.requireType(ofInput: 2, in: [.int32, .int64])
                guard let values = try context.constantIntegers(2, "axis"), values.count == 1 else {
                    throw context.error(.invalidShape, "input 2 ('axis') must be a scalar")
                }
                axis = Int(values[0])
            }
        } else {
            axis = try context.int("axis", default: 1)
        }
        let normalized = axis < 0 ? axis + rank : axis
        guard normalized >= 0, normalized < rank - 1 else {
            throw context.error(.invalidValue, "axis \(axis) is outside the signal axes of rank \(rank) (the last axis holds the complex parts)")
        }
        let inverse = try context.int("inverse", default: 0, in: 0...1) == 1
        let onesided = try context.int("onesided", default: 0, in: 0...1) == 1
        let n = shape[normalized]
        var transformLength = inverse && onesided ? 2 * (n - 1) : n
        if context.hasInput(1) {
            _ = try context.requireType(ofInput: 1, in: [.int32, .int64])
            guard let values = try context.constantIntegers(1, "dft_length"), values.count == 1 else {
                throw context.error(.invalidShape, "input 1 ('dft_length') must be a scalar")
            }
            transformLength = Int(clamping: values[0])
        }
        guard transformLength >= 1, transformLength <= 1 << 24 else {
            throw context.error(.invalidValue, "the transform length is \(transformLength); it must be between 1 and \(1 << 24)")
        }
        let bins = inverse ? transformLength : (onesided ? transformLength / 2 + 1 : transformLength)
        let sign = inverse ? 1.0 : -1.0
        var cosines = [Double](repeating: 0, count: transformLength), sines = cosines
        for j in 0..<transformLength {
            let angle = 2 * Double.pi * Double(j) / Double(transformLength)
            cosines[j] = cos(angle)
            sines[j] = sign * sin(angle)
        }
        var output = shape
        output[normalized] = bins
        output[rank - 1] = inverse && onesided ? 1 : 2
        return DFT(outputShapes: [output], outputTypes: [type], type: type,
                   outer: shape[..<normalized].reduce(1, *), length: n,
                   inner: shape[(normalized + 1)..<(rank - 1)].reduce(1, *), components: shape[rank - 1],
                   transformLength: transformLength, bins: bins, inverse: inverse, onesided: onesided,
                   cosines: cosines, sines: sines)
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let x = UnsafeRawPointer(inputs[0]), y = UnsafeMutableRawPointer(outputs[0])
        let l = transformLength, realOutput = inverse && onesided
        // Input bins or samples read: the rest of the transform length is zero padding.
        let taken = min(length, realOutput ? l / 2 + 1 : l)
        for o in 0..<outer {
            for i in 0..<inner {
                func element(_ t: Int) -> (re: Double, im: Double) {
                    let at = ((o * length + t) * inner + i) * components
                    return (TensorElements.double(x, at: at, type), components == 2 ? TensorElements.double(x, at: at + 1, type) : 0)
                }
                for k in 0..<bins {
                    var sumRe = 0.0, sumIm = 0.0
                    for t in 0..<taken {
                        let (re, im) = element(t), w = (t * k) % l
                        if realOutput {
                            // Bin t stands for itself and its conjugate L − t, except 0 and L/2
                            // (real: their imaginary parts are ignored).
                            let real = t == 0 || 2 * t == l
                            sumRe += real ? re * cosines[w] : 2 * (re * cosines[w] - im * sines[w])
                        } else {
                            sumRe += re * cosines[w] - im * sines[w]
                            sumIm += re * sines[w] + im * cosines[w]
                        }
                    }
                    if inverse {
                        sumRe /= Double(l)
                        sumIm /= Double(l)
                    }
                    let out = ((o * bins + k) * inner + i) * (realOutput ? 1 : 2)
                    TensorElements.setDouble(sumRe, y, at: out, type)
                    if !realOutput { TensorElements.setDouble(sumIm, y, at: out + 1, type) }
                }
            }
        }
    }

    init(outputShapes: [[Int]], outputTypes: [ElementType], type: ElementType, outer: Int, length: Int, inner: Int,
         components: Int, transformLength: Int, bins: Int, inverse: Bool, onesided: Bool, cosines: [Double],
         sines: [Double]) {
        self.outputShapes = outputShapes
        self.outputTypes = outputTypes
        self.type = type
        self.outer = outer
        self.length = length
        self.inner = inner
        self.components = components
        self.transformLength = transformLength
        self.bins = bins
        self.inverse = inverse
        self.onesided = onesided
        self.cosines = cosines
        self.sines = sines
    }
}
