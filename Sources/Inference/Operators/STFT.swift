import CMath

/// ONNX `STFT` (STFT-17): the short-time Fourier transform of `signal` [batch, n, 1] (real) or
/// [batch, n, 2] (complex); float32, double or float16.
///
/// Frames of `frame_length` samples start every `frame_step` (a constant scalar, ≥ 1):
/// frames = ⌊(n − frame_length) / frame_step⌋ + 1. Each frame is multiplied by `window` (input 2,
/// 1-D, of the signal's type; all ones when absent) and transformed as `DFT` does, with L =
/// `frame_length`: `Y[b, f, k] = Σ_t x[b, f·step + t]·w[t]·e^(−2πi·kt/L)`. `frame_length` (input 3,
/// a constant scalar) defaults to the window's length, else to n; given both, they must agree.
/// `onesided` (default 1) keeps the first ⌊L/2⌋ + 1 bins, which a complex signal does not allow.
/// The output is [batch, frames, bins, 2], computed in double by the direct sum and rounded to the
/// signal's type.
final class STFT: Operator {
    let dataInputs: [Int]
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    let type: ElementType
    let windowType: ElementType?
    let batch: Int, length: Int, components: Int
    let frames: Int, step: Int, frameLength: Int, bins: Int
    /// cos(2π·j/L) and −sin(2π·j/L) for j in 0..<L; the exponent kt is taken modulo L.
    let cosines: [Double], sines: [Double]
    var checksInputTypes: Bool { true }

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 2, 4)
        try context.checkAttributes(["onesided"])
        let type = try context.requireType(ofInput: 0, in: [.float32, .double, .float16])
        let shape = try context.shape(ofInput: 0)
        guard shape.count == 3, shape[2] == 1 || shape[2] == 2 else {
            throw context.error(.invalidShape, "input 0 ('signal') has shape \(shape); it must be [batch, signal_length, 1 or 2]")
        }
        let n = shape[1], components = shape[2]
        func scalar(_ index: Int, _ name: String) throws(ModelError) -> Int {
            _ = try context.requireType(ofInput: index, in: [.int32, .int64])
            guard let values = try context.constantIntegers(index, name), values.count == 1 else {
                throw context.error(.invalidShape, "input \(index) ('\(name)') must be a constant scalar")
            }
            return Int(clamping: values[0])
        }
        let step = try scalar(1, "frame_step")
        guard step >= 1 else { throw context.error(.invalidValue, "input 1 ('frame_step') is \(step); it must be at least 1") }
        var windowType: ElementType? = nil, windowLength: Int? = nil
        if context.hasInput(2) {
            windowType = try context.requireType(ofInput: 2, in: [type, .float32])
            let window = try context.shape(ofInput: 2)
            guard window.count == 1 else { throw context.error(.invalidShape, "input 2 ('window') has shape \(window); it must be 1-D") }
            windowLength = window[0]
        }
        var frameLength = windowLength ?? n
        if context.hasInput(3) {
            frameLength = try scalar(3, "frame_length")
            if let windowLength, windowLength != frameLength {
                throw context.error(.invalidShape, "input 2 ('window') has length \(windowLength), frame_length is \(frameLength); they must be equal")
            }
        }
        guard frameLength >= 1, frameLength <= n, frameLength <= 1 << 24 else {
            throw context.error(.invalidValue, "frame_length is \(frameLength); it must be between 1 and the signal length \(n)")
        }
        let onesided = try context.int("onesided", default: 1, in: 0...1) == 1
        guard !(onesided && components == 2) else {
            throw context.error(.invalidValue, "onesided 1 needs a real signal; input 0 ('signal') is complex", attribute: "onesided")
        }
        let frames = (n - frameLength) / step + 1
        let bins = onesided ? frameLength / 2 + 1 : frameLength
        var cosines = [Double](repeating: 0, count: frameLength), sines = cosines
        for j in 0..<frameLength {
            let angle = 2 * Double.pi * Double(j) / Double(frameLength)
            cosines[j] = cos(angle)
            sines[j] = -sin(angle)
        }
        return STFT(dataInputs: windowType == nil ? [0] : [0, 2], outputShapes: [[shape[0], frames, bins, 2]], outputTypes: [type],
                    type: type, windowType: windowType, batch: shape[0], length: n, components: components,
                    frames: frames, step: step, frameLength: frameLength, bins: bins, cosines: cosines, sines: sines)
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let x = UnsafeRawPointer(inputs[0]), y = UnsafeMutableRawPointer(outputs[0])
        let l = frameLength
        var window = [Double](repeating: 1, count: l)
        if let windowType {
            let w = UnsafeRawPointer(inputs[1])
            for t in 0..<l { window[t] = TensorElements.double(w, at: t, windowType) }
        }
        for b in 0..<batch {
            for f in 0..<frames {
                let start = b * length + f * step
                for k in 0..<bins {
                    var sumRe = 0.0, sumIm = 0.0
                    for t in 0..<l {
                        let at = (start + t) * components, w = (t * k) % l
                        let re = TensorElements.double(x, at: at, type) * window[t]
                        let im = components == 2 ? TensorElements.double(x, at: at + 1, type) * window[t] : 0
                        sumRe += re * cosines[w] - im * sines[w]
                        sumIm += re * sines[w] + im * cosines[w]
                    }
                    let out = ((b * frames + f) * bins + k) * 2
                    TensorElements.setDouble(sumRe, y, at: out, type)
                    TensorElements.setDouble(sumIm, y, at: out + 1, type)
                }
            }
        }
    }

    init(dataInputs: [Int], outputShapes: [[Int]], outputTypes: [ElementType], type: ElementType,
         windowType: ElementType?, batch: Int, length: Int, components: Int, frames: Int, step: Int, frameLength: Int,
         bins: Int, cosines: [Double], sines: [Double]) {
        self.dataInputs = dataInputs
        self.outputShapes = outputShapes
        self.outputTypes = outputTypes
        self.type = type
        self.windowType = windowType
        self.batch = batch
        self.length = length
        self.components = components
        self.frames = frames
        self.step = step
        self.frameLength = frameLength
        self.bins = bins
        self.cosines = cosines
        self.sines = sines
    }
}
