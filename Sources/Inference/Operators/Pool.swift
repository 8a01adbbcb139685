import CMath

/// Sliding-window pooling over [N, C, W], [N, C, H, W] or [N, C, D, H, W] (fewer spatial axes
/// run as unit depth and height), shared by `AveragePool`, `MaxPool` and `LpPool`.
final class Pool: Operator {
    enum Kind: Sendable, Equatable {
        /// `countIncludesPad`: divide by the window's taps inside the padded input (true) or inside
        /// the input itself (false).
        case average(countIncludesPad: Bool)
        case max
        /// (Σ |x|^p)^(1/p) over the window's taps inside the input.
        case lp(p: Int)
    }

    /// How MaxPool's `Indices` output flattens the input position of each maximum: C order
    /// ((n·C + c)·D + d)·H·W + h·W + w, or with the spatial axes reversed
    /// (n·C + c)·D·H·W + w·D·H + h·D + d.
    enum IndexOrder: Sendable, Equatable { case rowMajor, columnMajor }

    let kind: Kind
    let dataInputs = [0]
    let outputShapes: [[Int]]
    let planes: Int
    let depth: WindowAxis, height: WindowAxis, width: WindowAxis
    /// Set when the node has MaxPool's second (int64) output.
    let indexOrder: IndexOrder?
    /// float32, or int8 / uint8 for MaxPool-12.
    let elementType: ElementType

    var checksInputTypes: Bool { true }
    var outputTypes: [ElementType] { indexOrder == nil ? [elementType] : [elementType, .int64] }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let x = UnsafeRawPointer(inputs[0]), y = UnsafeMutableRawPointer(outputs[0])
        switch elementType {
        case .int8: pool(x.assumingMemoryBound(to: Int8.self), y.assumingMemoryBound(to: Int8.self), outputs)
        case .uint8: pool(x.assumingMemoryBound(to: UInt8.self), y.assumingMemoryBound(to: UInt8.self), outputs)
        default: pool(x.assumingMemoryBound(to: Float.self), y.assumingMemoryBound(to: Float.self), outputs)
        }
    }

    /// The kernel for elements of type `T`, computed in float32 (exact for int8 and uint8).
    private func pool<T: PoolElement>(_ x: UnsafePointer<T>, _ y: UnsafeMutablePointer<T>, _ outputs: [UnsafeMutablePointer<Float>]) {
        let indices = indexOrder == nil ? nil : UnsafeMutableRawPointer(outputs[1]).assumingMemoryBound(to: Int64.self)
        let (inD, inH, inW) = (depth.input, height.input, width.input)
        let inPlane = inD * inH * inW
        var o = 0
        for p in 0..<planes {
            let plane = x + p * inPlane
            forEachWindowStart(depth, height, width) { front, top, left in
                var maximum = -Float.infinity, sum: Float = 0, inside = 0, argmax = (d: 0, h: 0, w: 0)
                for kd in 0..<depth.kernel {
                    let id = front + kd * depth.dilation
                    if id < 0 || id >= inD { continue }
                    for kh in 0..<height.kernel {
                        let ih = top + kh * height.dilation
                        if ih < 0 || ih >= inH { continue }
                        for kw in 0..<width.kernel {
                            let iw = left + kw * width.dilation
                            if iw < 0 || iw >= inW { continue }
                            let value = plane[(id * inH + ih) * inW + iw].float
                            if value > maximum || inside == 0 { maximum = value; argmax = (id, ih, iw) }
                            switch kind {
                            case let .lp(p): sum += powf(abs(value), Float(p))
                            default: sum += value
                            }
                            inside += 1
                        }
                    }
                }
                switch kind {
                case .max:
                    y[o] = T(pooled: maximum)
                case let .lp(p):
                    y[o] = T(pooled: powf(sum, 1 / Float(p)))
                case let .average(countIncludesPad):
                    var divisor = inside
                    if countIncludesPad {
                        // The taps inside the padded extent (onnxruntime's rule).
                        divisor = Self.tapsBefore(inD + depth.padEnd - front, depth) * Self.tapsBefore(inH + height.padEnd - top, height)
                            * Self.tapsBefore(inW + width.padEnd - left, width)
                    }
                    y[o] = T(pooled: divisor > 0 ? sum / Float(divisor) : 0)
                }
                if let indices {
                    let (d, h, w) = argmax
                    let offset = indexOrder == .rowMajor ? (d * inH + h) * inW + w : (w * inH + h) * inD + d
                    indices[o] = Int64(p * inPlane + offset)
                }
                o += 1
            }
        }
    }

    /// How many of the window's taps lie less than `extent` past its start.
    private static func tapsBefore(_ extent: Int, _ axis: WindowAxis) -> Int {
        Swift.min(axis.kernel, Swift.max(0, Shapes.ceilDivide(extent, axis.dilation)))
    }

    /// Reads the window attributes (`ceil_mode` when `allowsCeilMode`, `dilations` when
    /// `allowsDilations`) for a rank-3, 4 or 5 input.
    static func build(_ context: NodeContext, kind: Kind, allowsDilations: Bool, allowsCeilMode: Bool = true,
                      indexOrder: IndexOrder? = nil, types: Set<ElementType> = [.float32]) throws(ModelError) -> Pool {
        let x = try context.shape(ofInput: 0)
        let type = try context.requireType(ofInput: 0, in: types)
        guard (3...5).contains(x.count) else {
            throw context.error(.unsupported, "only 1-D, 2-D and 3-D pooling (rank 3 to 5 input) is supported, input has rank \(x.count)")
        }
        let ceilMode = allowsCeilMode ? try context.int("ceil_mode", default: 0, in: 0...1) == 1 : false
        let axes = try WindowGeometry.resolveSpatial(context, spatialShape: Array(x[2...]), kernelFromWeights: nil,
                                                     allowsDilations: allowsDilations, ceilMode: ceilMode)
        let output = [x[0], x[1]] + WindowGeometry.spatialOutput(axes, rank: x.count - 2)
        return Pool(kind: kind, outputShapes: indexOrder == nil ? [output] : [output, output],
                    planes: x[0] * x[1], depth: axes[0], height: axes[1], width: axes[2], indexOrder: indexOrder, elementType: type)
    }

    init(kind: Kind, outputShapes: [[Int]], planes: Int, depth: WindowAxis, height: WindowAxis, width: WindowAxis,
         indexOrder: IndexOrder?, elementType: ElementType) {
        self.kind = kind
        self.outputShapes = outputShapes
        self.planes = planes
        self.depth = depth
        self.height = height
        self.width = width
        self.indexOrder = indexOrder
        self.elementType = elementType
    }
}

/// An element type `Pool` reads and writes, through float32.
protocol PoolElement {
    var float: Float { get }
    init(pooled: Float)
}

extension Float: PoolElement {
    var float: Float { self }
    init(pooled: Float) { self = pooled }
}

extension Int8: PoolElement {
    var float: Float { Float(self) }
    init(pooled: Float) { self.init(pooled) }
}

extension UInt8: PoolElement {
    var float: Float { Float(self) }
    init(pooled: Float) { self.init(pooled) }
}
