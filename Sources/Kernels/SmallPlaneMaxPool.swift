/// Max pooling of planes whose output rows fit one vector (GoogLeNet's and SqueezeNet's pools on
/// 2×2 to 17×17 maps, ResNet's on small inputs), without the row-band scratch of
/// ``pool2D(_:kind:kernelHeight:kernelWidth:strideHeight:strideWidth:padTop:padLeft:output:pool:)``:
/// each input row is loaded once into two vectors (−∞ past its end), its window columns are
/// reduced in registers (every tap an in-register shift of the row, −∞ before its start), the
/// reduced rows of a plane are kept in thread scratch, and each output row is the maximum of
/// its window's reduced rows, stored masked. Planes are split between threads.
///
/// The result is ONNX MaxPool's: the largest input in each window, clipped to the input (−∞ for
/// a window with none), the same values as `pool2D`'s for every input without NaN (a maximum
/// does not depend on the order it is taken in).
///
/// - Precondition: ``smallPlaneMaxPoolFits(inputWidth:inputHeight:outputWidth:kernelWidth:strideWidth:padLeft:)``;
///   the pool's scratch holds `inputHeight · 16` floats per thread; `output` does not overlap `input`.
package func smallPlaneMaxPool(_ input: FeatureMap, kernelHeight: Int, kernelWidth: Int, strideHeight: Int, strideWidth: Int,
                               padTop: Int, padLeft: Int, output: FeatureMap, pool: WorkerPool) {
    precondition(smallPlaneMaxPoolFits(inputWidth: input.layout.width, inputHeight: input.layout.height,
                                       outputWidth: output.layout.width, kernelWidth: kernelWidth, strideWidth: strideWidth,
                                       padLeft: padLeft), "small-plane max pool: the rows do not fit its vectors")
    precondition(kernelHeight >= 1 && strideHeight >= 1 && padTop >= 0 && output.channels == input.channels,
                 "small-plane max pool: bad window or channel count")
    precondition(pool.scratchCount >= input.layout.height * lanes, "small-plane max pool: pool scratch too small")
    pool.run(SmallPlaneMaxPoolParts(input: input, output: output, kernelHeight: kernelHeight, kernelWidth: kernelWidth,
                                    strideHeight: strideHeight, strideWidth: strideWidth, padTop: padTop, padLeft: padLeft))
}

/// Whether ``smallPlaneMaxPool(_:kernelHeight:kernelWidth:strideHeight:strideWidth:padTop:padLeft:output:pool:)``
/// takes the problem: output rows of at most 16, input rows of at most 32 and planes of at most
/// 64 rows, stride 1 or 2 across, every tap within 2 columns before an output's first input
/// column and 6 after (a left pad of at most 2, `kernelWidth − padLeft` at most 7).
package func smallPlaneMaxPoolFits(inputWidth: Int, inputHeight: Int, outputWidth: Int, kernelWidth: Int, strideWidth: Int,
                                   padLeft: Int) -> Bool {
    outputWidth >= 1 && outputWidth <= lanes && inputWidth >= 1 && inputWidth <= 2 * lanes && inputHeight <= 64
        && (strideWidth == 1 || strideWidth == 2) && kernelWidth >= 1 && padLeft >= 0 && padLeft <= 2
        && kernelWidth - padLeft <= 7
}

struct SmallPlaneMaxPoolParts: PoolJob {
    let input: FeatureMap, output: FeatureMap
    let kernelHeight: Int, kernelWidth: Int, strideHeight: Int, strideWidth: Int, padTop: Int, padLeft: Int

    func run(part: Int, pool: WorkerPool) {
        let planes = WorkerPool.range(input.channels, part: part, of: pool.threadCount)
        guard !planes.isEmpty else { return }
        let scratch = pool.scratch(part).baseAddress!
        // The common windows with their shape as literals, so the taps' shifts are constants.
        switch (strideWidth, kernelWidth, padLeft) {
        case (1, 3, 1): maxPoolPlanes(self, planes, scratch, stride: 1, kernel: 3, pad: 1)
        case (2, 3, 0): maxPoolPlanes(self, planes, scratch, stride: 2, kernel: 3, pad: 0)
        case (2, 3, 1): maxPoolPlanes(self, planes, scratch, stride: 2, kernel: 3, pad: 1)
        case (2, 2, 0): maxPoolPlanes(self, planes, scratch, stride: 2, kernel: 2, pad: 0)
        case (1, _, _): maxPoolPlanes(self, planes, scratch, stride: 1, kernel: kernelWidth, pad: padLeft)
        default: maxPoolPlanes(self, planes, scratch, stride: 2, kernel: kernelWidth, pad: padLeft)
        }
    }
}

@inline(always)
private func maxPoolPlanes(_ job: SmallPlaneMaxPoolParts, _ planes: Range<Int>, _ scratch: UnsafeMutablePointer<Float>,
                           stride: Int, kernel: Int, pad: Int) {
    let inL = job.input.layout, outL = job.output.layout
    let width = inL.width, height = inL.height
    let lowCount = min(width, lanes), highCount = width - lowCount
    let none = Vector(repeating: -.infinity)
    for c in planes {
        let source = UnsafePointer(job.input.plane(c))
        for i in 0..<height {
            let row = source + i * inL.rowStride
            let a = load(row, count: lowCount).replacing(with: -.infinity, where: laneMask(from: lowCount))
            let b = highCount > 0 ? load(row + lanes, count: highCount).replacing(with: -.infinity, where: laneMask(from: highCount))
                : none
            var reduced = columnTap(a, b, none, stride: stride, offset: -pad)
            for kx in 1..<kernel { reduced = MaxReduction.combine(reduced, columnTap(a, b, none, stride: stride, offset: kx - pad)) }
            store(reduced, scratch + i * lanes)
        }
        let destination = job.output.plane(c)
        for yo in 0..<outL.height {
            let top = yo * job.strideHeight - job.padTop
            var value = none
            for r in max(top, 0)..<max(min(top + job.kernelHeight, height), max(top, 0)) {
                value = MaxReduction.combine(value, load(scratch + r * lanes))
            }
            store(value, destination + yo * outL.rowStride, count: outL.width)
        }
    }
}

/// Input column `xo · stride + offset` of a row for each output column `xo` of a vector: the
/// row's columns 0 ..< 32 are `a` then `b`, every other column is `none`'s (−∞). `offset` in
/// −2 ... 6, `stride` 1 or 2 (constants after inlining, so one or two shuffles).
@inline(always)
func columnTap(_ a: Vector, _ b: Vector, _ none: Vector, stride: Int, offset: Int) -> Vector {
    if stride == 1 {
        switch offset {
        case -2: return Vector(none[0], none[0], a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13])
        case -1: return Vector(none[0], a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14])
        default: return shifted(a, b, by: offset)
        }
    }
    switch offset {
    case -2, -1:
        // Columns offset, offset + 2, …: the row's even (−2) or odd (−1) columns one lane later.
        let lanesOf = offset == -2 ? evenLanes(a, b) : oddLanes(a, b)
        return Vector(none[0], lanesOf[0], lanesOf[1], lanesOf[2], lanesOf[3], lanesOf[4], lanesOf[5], lanesOf[6],
                      lanesOf[7], lanesOf[8], lanesOf[9], lanesOf[10], lanesOf[11], lanesOf[12], lanesOf[13], lanesOf[14])
    default:
        return evenLanes(shifted(a, b, by: offset), shifted(b, none, by: offset))
    }
}
