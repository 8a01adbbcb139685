import TargetFeatures

// Element-wise kernels over `count` consecutive floats (dense tensors, or the whole storage of
// a layout). In-place use (output == an input) is allowed.

/// `output[i] = body(input[i])`, a vector at a time (the last one partial).
@inline(always)
func mapVectors(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, count: Int,
                _ body: (Vector) -> Vector) {
    var i = 0
    while i < count {
        let n = min(lanes, count - i)
        store(body(load(input + i, count: n)), output + i, count: n)
        i += lanes
    }
}

/// `output = activation(input)`.
@inline(never)
package func activate(_ input: UnsafePointer<Float>, activation: Activation, output: UnsafeMutablePointer<Float>, count: Int) {
    mapVectors(input, output, count: count) { activation.apply($0) }
}

/// `output = 1 / (1 + e^−input)`, accurate to a few ulp, exactly 0 / 1 when saturated.
@inline(never)
package func sigmoid(_ input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, count: Int) {
    mapVectors(input, output, count: count) { sigmoidVector($0) }
}

/// `output = erf(input)` (``erfVector(_:)``: within 2 ulp).
@inline(never)
package func erf(_ input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, count: Int) {
    mapVectors(input, output, count: count) { erfVector($0) }
}

/// How a GELU's input is scaled before its erf, as the graph spells it.
package enum GeluArgument: Sendable, Hashable {
    /// x / √2 (a Div by 1.41421354: PyTorch's and TensorFlow's exports).
    case dividedBySqrt2
    /// x · (1/√2) (0.707106769: ONNX `Gelu`, and exports that multiply).
    case timesInverseSqrt2
}

/// GELU, (x · (erf(t) + 1)) · 0.5 with t the scaled input, every operation rounded as the ONNX
/// nodes that spell it round (the erf aside, within 2 ulp); the body is TargetFeatures/FastMath.h's. The other orders exporters write,
/// (x · 0.5) · (erf(t) + 1) and x · ((erf(t) + 1) · 0.5), give the same values: halving is exact
/// above the subnormals.
@inline(always)
func geluVector(_ x: Vector, _ argument: GeluArgument) -> Vector {
    vbg_gelu_vector(x, argument == .dividedBySqrt2 ? 1 : 0)
}

/// `output = gelu(input)` (``geluVector(_:_:)``).
@inline(never)
package func gelu(_ input: UnsafePointer<Float>, argument: GeluArgument, output: UnsafeMutablePointer<Float>, count: Int) {
    mapVectors(input, output, count: count) { geluVector($0, argument) }
}

/// An element-wise function with a vector kernel, for a step or a product's epilogue.
package enum VectorFunction: Sendable, Hashable {
    case activation(Activation)
    case erf
    case gelu(GeluArgument)
}

/// `output = function(input)`.
package func apply(_ function: VectorFunction, _ input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, count: Int) {
    switch function {
    case .activation(let activation): activate(input, activation: activation, output: output, count: count)
    case .erf: erf(input, output: output, count: count)
    case .gelu(let argument): gelu(input, argument: argument, output: output, count: count)
    }
}

/// The scalar GELU computed by the same vector code (lane 0), for tests.
package func fastGelu(_ x: Float, argument: GeluArgument) -> Float {
    geluVector(Vector(repeating: x), argument)[0]
}

/// Row by row, `output[c] = input[c] · scale` over the interior of plane `c` (the squeeze-and-excite
/// gate's per-channel multiply). `output` may be `input`.
@inline(always)
func scaleRows(_ input: FeatureMap, channel c: Int, scale: Float, output: FeatureMap) {
    let w = input.layout.width
    if input.layout.isDense && output.layout.isDense {
        let src = UnsafePointer(input.plane(c)), dst = output.plane(c)
        let count = input.pixels
        var i = 0
        while i < count {
            let n = min(lanes, count - i)
            store(load(src + i, count: n) * scale, dst + i, count: n)
            i += lanes
        }
        return
    }
    for y in 0..<input.layout.height {
        let src = UnsafePointer(input.plane(c) + y * input.layout.rowStride)
        let dst = output.plane(c) + y * output.layout.rowStride
        var x = 0
        while x < w {
            let n = min(lanes, w - x)
            store(load(src + x, count: n) * scale, dst + x, count: n)
            x += lanes
        }
    }
}

/// The arithmetic of ``combine(_:step:_:step:operation:output:count:)``.
package enum BinaryOperation: Sendable {
    case add, subtract, multiply, divide
}

/// `output[i] = a[i·aStep] ∘ b[i·bStep]` for `i < count`, each step 0 (one value for the whole
/// row, a broadcast operand) or 1; IEEE arithmetic, so the same values as the scalar operators.
/// `output` may be `a` or `b` (with step 1).
package func combine(_ a: UnsafePointer<Float>, step aStep: Int, _ b: UnsafePointer<Float>, step bStep: Int,
                    operation: BinaryOperation, output: UnsafeMutablePointer<Float>, count: Int) {
    precondition((aStep == 0 || aStep == 1) && (bStep == 0 || bStep == 1), "steps are 0 or 1")
    switch operation {
    case .add: combineRow(a, aStep, b, bStep, output, count) { $0 + $1 } scalar: { $0 + $1 }
    case .subtract: combineRow(a, aStep, b, bStep, output, count) { $0 - $1 } scalar: { $0 - $1 }
    case .multiply: combineRow(a, aStep, b, bStep, output, count) { $0 * $1 } scalar: { $0 * $1 }
    case .divide: combineRow(a, aStep, b, bStep, output, count) { $0 / $1 } scalar: { $0 / $1 }
    }
}

@inline(always)
func combineRow(_ a: UnsafePointer<Float>, _ aStep: Int, _ b: UnsafePointer<Float>, _ bStep: Int,
                _ output: UnsafeMutablePointer<Float>, _ count: Int,
                _ vector: (Vector, Vector) -> Vector, scalar: (Float, Float) -> Float) {
    let aSplat = Vector(repeating: a[0]), bSplat = Vector(repeating: b[0])
    var i = 0
    while i + lanes <= count {
        let x = aStep == 0 ? aSplat : load(a + i), y = bStep == 0 ? bSplat : load(b + i)
        store(vector(x, y), output + i)
        i += lanes
    }
    while i < count {
        output[i] = scalar(a[i * aStep], b[i * bStep])
        i += 1
    }
}
