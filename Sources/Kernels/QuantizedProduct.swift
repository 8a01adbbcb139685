// The integer product under the quantized convolutions and matrix products (QLinearConv,
// QLinearMatMul): int32 sums of zero-point-shifted 8-bit operands with a requantizing epilogue
// to 8 bits.
//
// C[r][n] = bias[r] + Σ_k S[r][k] · V[k][n], both operands already shifted by their zero points
// (a uint8 or int8 value minus its zero point, −255...255, fits 16 bits), every product and sum
// in int32 wrapping as onnxruntime's accumulators do; then
// y = clamp(round_half_even(Float(C) · multiplier) + zero_point) to the output type, the
// multiplier per row or per column, computed by the caller in float32. The arithmetic is
// onnxruntime's `MlasRequantizeOutput`: the float product is clamped to
// [minimum − zero_point, maximum − zero_point], rounded to nearest even (`cvtps2dq`), and the
// zero point added in int32. Clamping before or after rounding gives the same integer (the
// bounds are integers), so this equals rounding, adding and saturating.
//
// Integer sums are exact (modulo 2^32), so the result equals the scalar reference wherever the
// float multiplication is the same: always, since both compute Float(C) · multiplier once.
//
// Layout: k in runs of 2 or 4 per 32-bit element (``QuantizedOperands``), S [rows][depth], V
// [depth][columnStride], an element's k in ascending order from its low bits:
// - bytes (the usual case: 8-bit weights with zero point 0, or any whose shifted values fit int8):
//   four k per element, one operand's bytes unsigned (the activations, shifted only to make them
//   unsigned: x, or x + 128 for int8) and the other's signed (the weights minus their zero points).
//   One `vbg_quad_dot_add` adds four products per lane: `vpdpbusd` with AVX512-VNNI (64
//   multiply-adds per instruction, 8-bit operands: a quarter of the 32-bit operand traffic), two
//   `vpmaddwd` with AVX512BW. The activations' remaining shift is a constant per weight row
//   (zero · Σ weights), folded into the bias by the callers, so the sums are the same integers.
// - pairs (the fallback: weights minus zero points outside int8, or a zero point per row of A):
//   two 16-bit values per element, both operands shifted by their zero points (−255...255).
//   `vbg_pair_dot_add`: `vpdpwssd` with AVX512-VNNI, `vpmaddwd` + `vpaddd` with AVX512BW.
// Elsewhere both are shifts and 32-bit multiplies (TargetFeatures/IntegerKernels.h).
//
// Register tile: up to 6 rows × 64 columns (24 SIMD16<Int32> accumulators; per pair four 64-byte
// loads of V and one broadcast per row), with the row count a constant in each instance so a
// 1-row tile (a depthwise convolution's group) computes one row only. (The loads of V bound the
// loop: six rows reuse each one six times.) On bytes with pixels as columns, a last tile of up
// to 16 or 32 columns computes only those vectors.

import TargetFeatures

/// Columns of one register tile, and the multiple the column stride of V must be padded to.
package let quantizedTileColumns = 64

/// 32-bit pairs for `inner` values of k.
package func quantizedPairs(_ inner: Int) -> Int { (inner + 1) / 2 }

/// 32-bit quads (four bytes) for `inner` values of k.
package func quantizedQuads(_ inner: Int) -> Int { (inner + 3) / 4 }

/// How the product's operands pack k into their 32-bit elements.
package enum QuantizedOperands: Sendable {
    /// Two signed 16-bit values per element, k = 2p in the low half (both operands).
    case pairs
    /// Four bytes per element, k = 4q + i in byte i; V's bytes unsigned, S's signed.
    case unsignedColumns
    /// Four bytes per element; S's bytes unsigned, V's signed.
    case unsignedRows

    /// Values of k per 32-bit element.
    package var perElement: Int { self == .pairs ? 2 : 4 }
    /// 32-bit elements for `inner` values of k (the last one's unused values must be 0 in the
    /// signed operand, or in both for pairs).
    package func depth(_ inner: Int) -> Int { (inner + perElement - 1) / perElement }
}

/// One product: `s` rows × `depth` (row stride `depth`), `v` `depth` rows of `columnStride`
/// (columns past `columns` up to a multiple of ``quantizedTileColumns`` readable, any value),
/// both packed as `operands`; bias per row (or nil); output bytes row-major with `outputStride`.
package struct QuantizedProduct {
    package let s: UnsafePointer<Int32>, rows: Int, depth: Int, operands: QuantizedOperands
    package let v: UnsafePointer<Int32>, columns: Int, columnStride: Int
    package let bias: UnsafePointer<Int32>?
    /// A bias per column instead (readable up to the padded column stride), or nil.
    package let columnBias: UnsafePointer<Int32>?
    package let output: UnsafeMutablePointer<UInt8>, outputStride: Int
    package let multipliers: UnsafePointer<Float>, perColumn: Bool
    package let zeroPoint: Int32, minimum: Int32, maximum: Int32
    /// Float32 outputs Float(sum) · multiplier instead of bytes (QGemm without y_scale), or nil.
    package let floatOutput: UnsafeMutablePointer<Float>?
    /// The int32 sums or their float epilogue instead of bytes (the dynamic form; its channels
    /// are the rows, or the columns when `perColumn`), or nil.
    package let sums: IntegerSumsOutput?
    /// Where each element row k of V starts (in Int32 elements from `v`) instead of k ·
    /// `columnStride` (``ShiftedPlanes``), or nil.
    package let rowOffsets: UnsafePointer<Int32>?
    /// Whether V is stored as panels of ``quantizedTileColumns`` columns instead of rows of
    /// `columnStride`: the panel of columns 64j ..< 64j + 64 at `v` + 64j · `depth`, its `depth`
    /// element rows of 64 one after another, so that a tile reads its columns' operand as one
    /// contiguous stream (constant weights as V, which a row of `columnStride` would spread over
    /// the pages of the whole matrix, a 256-byte piece per row). Not with `rowOffsets`.
    package let panels: Bool
    /// Whether every multiplier is finite (the byte epilogue then needs no NaN test:
    /// ``vbg_requantize_finite``); false when unknown.
    package let finiteMultipliers: Bool

    package init(s: UnsafePointer<Int32>, rows: Int, depth: Int, operands: QuantizedOperands = .pairs, v: UnsafePointer<Int32>,
                 columns: Int, columnStride: Int, bias: UnsafePointer<Int32>?, output: UnsafeMutablePointer<UInt8>, outputStride: Int,
                 multipliers: UnsafePointer<Float>, perColumn: Bool, zeroPoint: Int32, minimum: Int32, maximum: Int32,
                 columnBias: UnsafePointer<Int32>? = nil, floatOutput: UnsafeMutablePointer<Float>? = nil,
                 sums: IntegerSumsOutput? = nil, rowOffsets: UnsafePointer<Int32>? = nil, panels: Bool = false,
                 finiteMultipliers: Bool = false) {
        precondition(columnStride % quantizedTileColumns == 0 && columnStride >= columns, "quantized product: V's stride must be padded")
        precondition(!(panels && rowOffsets != nil), "quantized product: panels with row offsets")
        self.panels = panels; self.finiteMultipliers = finiteMultipliers
        self.columnBias = columnBias; self.floatOutput = floatOutput; self.sums = sums; self.rowOffsets = rowOffsets
        self.s = s; self.rows = rows; self.depth = depth; self.operands = operands
        self.v = v; self.columns = columns; self.columnStride = columnStride
        self.bias = bias; self.output = output; self.outputStride = outputStride
        self.multipliers = multipliers; self.perColumn = perColumn
        self.zeroPoint = zeroPoint; self.minimum = minimum; self.maximum = maximum
    }
}

/// Computes `product`'s columns `columns` (whole tiles of ``quantizedTileColumns``, the last
/// one cut at `product.columns`), every row.
@inline(never)
package func quantizedProduct(_ product: QuantizedProduct, columns: Range<Int>) {
    switch product.operands {
    case .pairs: quantizedProduct(product, columns: columns, PairDot.self)
    case .unsignedColumns: quantizedProduct(product, columns: columns, UnsignedColumnDot.self)
    case .unsignedRows: quantizedProduct(product, columns: columns, UnsignedRowDot.self)
    }
}

/// One packing's multiply-add: `acc` plus the products of each lane's values in `column` (a
/// vector of V) and `row` (one element of S, broadcast).
protocol IntegerDot {
    static func add(_ acc: IntVector, column: IntVector, row: IntVector) -> IntVector
}

enum PairDot: IntegerDot {
    @inline(__always) static func add(_ acc: IntVector, column: IntVector, row: IntVector) -> IntVector {
        vbg_pair_dot_add(acc, column, row)
    }
}

enum UnsignedColumnDot: IntegerDot {
    @inline(__always) static func add(_ acc: IntVector, column: IntVector, row: IntVector) -> IntVector {
        vbg_quad_dot_add(acc, column, row)
    }
}

enum UnsignedRowDot: IntegerDot {
    @inline(__always) static func add(_ acc: IntVector, column: IntVector, row: IntVector) -> IntVector {
        vbg_quad_dot_add(acc, row, column)
    }
}

@inline(__always)
func quantizedProduct<D: IntegerDot>(_ product: QuantizedProduct, columns: Range<Int>, _ dot: D.Type) {
    var n = columns.lowerBound
    while n < columns.upperBound {
        let width = min(quantizedTileColumns, product.columns - n)
        // Six rows need 24 accumulators: AVX-512's 32 registers; elsewhere a SIMD16 takes two or
        // four registers, so tiles of two rows.
        // The rows spread evenly over the fewest tiles (25 rows: five of 5, not four of 6 and a
        // 1-row tile that loads V for 4 multiply-adds per vector).
        let tileRows = wideRegisterFile ? 6 : 2
        let tiles = (product.rows + tileRows - 1) / tileRows
        // A last tile of up to 16 or 32 columns on bytes with the pixels as columns computes only
        // those vectors (resnet50's 14x14 maps: 196 columns, 256 computed as full tiles).
        let vectors = D.self == UnsignedColumnDot.self && width <= 2 * lanes ? (width <= lanes ? 1 : 2) : 4
        for t in 0..<tiles {
            let r = t * product.rows / tiles, count = (t + 1) * product.rows / tiles - r
            switch vectors {
            case 1: quantizedTile(product, row: r, column: n, width: width, rows: count, D.self, TileVectors1.self)
            case 2: quantizedTile(product, row: r, column: n, width: width, rows: count, D.self, TileVectors2.self)
            default: quantizedTile(product, row: r, column: n, width: width, rows: count, D.self, TileVectors4.self)
            }
        }
        n += quantizedTileColumns
    }
}

typealias IntVector = SIMD16<Int32>

/// 64 columns of one row as four int32 vectors.
struct IntRow64 {
    var a, b, c, d: IntVector

    @inline(__always) init(_ value: Int32) { a = IntVector(repeating: value); b = a; c = a; d = a }

    /// The first value of each row, or the 64 of `columnBias` from `column`.
    @inline(__always) init(_ value: Int32, columnBias: UnsafePointer<Int32>?, column: Int) {
        if let columnBias { self.init(columnBias + column) } else { self.init(value) }
    }

    /// Columns `p[0..<64]`.
    @inline(__always) init(_ p: UnsafePointer<Int32>) {
        let raw = UnsafeRawPointer(p)
        a = raw.loadUnaligned(as: IntVector.self)
        b = raw.loadUnaligned(fromByteOffset: 64, as: IntVector.self)
        c = raw.loadUnaligned(fromByteOffset: 128, as: IntVector.self)
        d = raw.loadUnaligned(fromByteOffset: 192, as: IntVector.self)
    }

    /// The first `V.count` vectors of columns `p[0..<64]` (the others zero).
    @inline(__always) init<V: TileVectorCount>(_ p: UnsafePointer<Int32>, _: V.Type) {
        let raw = UnsafeRawPointer(p), zero = IntVector(repeating: 0)
        a = raw.loadUnaligned(as: IntVector.self)
        b = V.count > 1 ? raw.loadUnaligned(fromByteOffset: 64, as: IntVector.self) : zero
        c = V.count > 2 ? raw.loadUnaligned(fromByteOffset: 128, as: IntVector.self) : zero
        d = V.count > 2 ? raw.loadUnaligned(fromByteOffset: 192, as: IntVector.self) : zero
    }

    /// Adds the products of element `s` of S with each lane's element of `x` (a row of V), in
    /// the first `V.count` vectors.
    @inline(__always) mutating func add<D: IntegerDot, V: TileVectorCount>(_ s: Int32, _ x: IntRow64, _: D.Type, _: V.Type) {
        let w = IntVector(repeating: s)
        a = D.add(a, column: x.a, row: w)
        if V.count > 1 { b = D.add(b, column: x.b, row: w) }
        if V.count > 2 { c = D.add(c, column: x.c, row: w); d = D.add(d, column: x.d, row: w) }
    }
}

/// The tile's rows (1...6) as its row-count type, computing `V`'s vectors of columns.
@inline(__always)
func quantizedTile<D: IntegerDot, V: TileVectorCount>(_ p: QuantizedProduct, row: Int, column: Int, width: Int, rows: Int,
                                                      _: D.Type, _: V.Type) {
    switch rows {
    case 1: quantizedTile(p, row: row, column: column, width: width, D.self, TileRows1.self, V.self)
    case 2: quantizedTile(p, row: row, column: column, width: width, D.self, TileRows2.self, V.self)
    case 3: quantizedTile(p, row: row, column: column, width: width, D.self, TileRows3.self, V.self)
    case 4: quantizedTile(p, row: row, column: column, width: width, D.self, TileRows4.self, V.self)
    case 5: quantizedTile(p, row: row, column: column, width: width, D.self, TileRows5.self, V.self)
    default: quantizedTile(p, row: row, column: column, width: width, D.self, TileRows6.self, V.self)
    }
}

/// How many of a tile's four vectors of 16 columns it computes (a type, so each count is its
/// own specialisation): the rest are neither loaded nor stored (the epilogues store `width`).
protocol TileVectorCount { static var count: Int { get } }
enum TileVectors1: TileVectorCount { static var count: Int { 1 } }
enum TileVectors2: TileVectorCount { static var count: Int { 2 } }
enum TileVectors4: TileVectorCount { static var count: Int { 4 } }

/// The rows of one register tile, a type so that each count is its own specialisation of
/// ``quantizedTile(_:row:column:width:_:_:)``, with the count a constant in its loop over k.
protocol TileRowCount { static var count: Int { get } }
enum TileRows1: TileRowCount { static var count: Int { 1 } }
enum TileRows2: TileRowCount { static var count: Int { 2 } }
enum TileRows3: TileRowCount { static var count: Int { 3 } }
enum TileRows4: TileRowCount { static var count: Int { 4 } }
enum TileRows5: TileRowCount { static var count: Int { 5 } }
enum TileRows6: TileRowCount { static var count: Int { 6 } }

@inline(never)
func quantizedTile<D: IntegerDot, R: TileRowCount, V: TileVectorCount>(_ p: QuantizedProduct, row: Int, column: Int, width: Int,
                                                                      _: D.Type, _: R.Type, _: V.Type) {
    let k = p.depth, count = R.count
    @inline(__always) func rowStart(_ i: Int) -> UnsafePointer<Int32> { p.s + (row + (count > i ? i : 0)) * k }
    let s0 = rowStart(0), s1 = rowStart(1), s2 = rowStart(2), s3 = rowStart(3), s4 = rowStart(4), s5 = rowStart(5)
    let cb = p.columnBias
    @inline(__always) func start(_ i: Int) -> IntRow64 {
        IntRow64(count > i ? p.bias?[row + i] ?? 0 : 0, columnBias: cb, column: column)
    }
    var acc0 = start(0), acc1 = start(1), acc2 = start(2), acc3 = start(3), acc4 = start(4), acc5 = start(5)
    let offsets = p.rowOffsets
    // A panel's rows one after another (``QuantizedProduct/panels``), else rows of the stride.
    let v = p.panels ? p.v + column * k : p.v + column, rowStride = p.panels ? quantizedTileColumns : p.columnStride
    var vp = v
    for kk in 0..<k {
        let x: IntRow64
        if let offsets { x = IntRow64(v + Int(offsets[kk]), V.self) } else { x = IntRow64(vp, V.self); vp += rowStride }
        acc0.add(s0[kk], x, D.self, V.self)
        if count > 1 { acc1.add(s1[kk], x, D.self, V.self) }
        if count > 2 { acc2.add(s2[kk], x, D.self, V.self) }
        if count > 3 { acc3.add(s3[kk], x, D.self, V.self) }
        if count > 4 { acc4.add(s4[kk], x, D.self, V.self) }
        if count > 5 { acc5.add(s5[kk], x, D.self, V.self) }
    }
    guard p.sums == nil && p.floatOutput == nil else {
        requantizeRow(acc0, p, row: row, column: column, width: width)
        if count > 1 { requantizeRow(acc1, p, row: row + 1, column: column, width: width) }
        if count > 2 { requantizeRow(acc2, p, row: row + 2, column: column, width: width) }
        if count > 3 { requantizeRow(acc3, p, row: row + 3, column: column, width: width) }
        if count > 4 { requantizeRow(acc4, p, row: row + 4, column: column, width: width) }
        if count > 5 { requantizeRow(acc5, p, row: row + 5, column: column, width: width) }
        return
    }
    let bytes = ByteEpilogue(p, column: column, width: width)
    bytes.store(acc0, row: row)
    if count > 1 { bytes.store(acc1, row: row + 1) }
    if count > 2 { bytes.store(acc2, row: row + 2) }
    if count > 3 { bytes.store(acc3, row: row + 3) }
    if count > 4 { bytes.store(acc4, row: row + 4) }
    if count > 5 { bytes.store(acc5, row: row + 5) }
}

/// ``requantizeRow(_:_:row:column:width:)`` for byte outputs (no sums, no float outputs), inline
/// in the tile with its constants made once per tile: low-depth products (a 1x1 on 16 channels:
/// four multiply-adds per accumulator) spent more in that function's calls and branches than in
/// their sums. The same operations on the same values (`vbg_requantize`), so the same bytes.
struct ByteEpilogue {
    let output: UnsafeMutablePointer<UInt8>, outputStride: Int, width: Int
    let low: Float, high: Float, zeroPoint: Int32, finite: Bool
    /// The tile's 64 column multipliers (per column), or the rows' (per row).
    let columnMultipliers: (Vector, Vector, Vector, Vector), rowMultipliers: UnsafePointer<Float>?

    @inline(__always) init(_ p: QuantizedProduct, column: Int, width: Int) {
        output = p.output + column; outputStride = p.outputStride; self.width = width
        low = Float(p.minimum - p.zeroPoint); high = Float(p.maximum - p.zeroPoint); zeroPoint = p.zeroPoint
        finite = p.finiteMultipliers
        if p.perColumn {
            @inline(__always) func load(_ i: Int) -> Vector {
                let rest = width - i * lanes, m = p.multipliers + column + i * lanes
                return rest >= lanes ? UnsafeRawPointer(m).loadUnaligned(as: Vector.self)
                    : rest > 0 ? partialMultipliers(m, rest) : Vector(repeating: 0)
            }
            columnMultipliers = (load(0), load(1), load(2), load(3)); rowMultipliers = nil
        } else {
            let zero = Vector(repeating: 0)
            columnMultipliers = (zero, zero, zero, zero); rowMultipliers = p.multipliers
        }
    }

    /// Row `row`'s `width` columns of the tile.
    @_transparent func store(_ acc: IntRow64, row: Int) {
        let out = output + row * outputStride
        if let rowMultipliers {
            let m = Vector(repeating: rowMultipliers[row])
            put(acc.a, m, out, 0); put(acc.b, m, out, 1); put(acc.c, m, out, 2); put(acc.d, m, out, 3)
        } else {
            let m = columnMultipliers
            put(acc.a, m.0, out, 0); put(acc.b, m.1, out, 1); put(acc.c, m.2, out, 2); put(acc.d, m.3, out, 3)
        }
    }

    @_transparent func put(_ v: IntVector, _ multiplier: Vector, _ out: UnsafeMutablePointer<UInt8>, _ i: Int) {
        let rest = width - i * lanes
        guard rest > 0 else { return }
        let bytes = finite ? vbg_requantize_finite(v, multiplier, low, high, zeroPoint)
            : vbg_requantize(v, multiplier, low, high, zeroPoint)
        if rest >= lanes { UnsafeMutableRawPointer(out + i * lanes).storeBytes(of: bytes, as: SIMD16<UInt8>.self) }
        else { vbg_store_bytes(out + i * lanes, bytes, Int32(rest)) }
    }
}

@inline(never)
func requantizeRow(_ acc: IntRow64, _ p: QuantizedProduct, row: Int, column: Int, width: Int) {
    let out = p.output + row * p.outputStride + column
    let low = Float(p.minimum - p.zeroPoint), high = Float(p.maximum - p.zeroPoint)
    @inline(__always) func put(_ v: IntVector, _ i: Int) {
        let rest = width - i * lanes
        guard rest > 0 else { return }
        if let sums = p.sums {
            let first = column + i * lanes
            sums.store(v, row: row, column: first, count: min(rest, lanes), channel: p.perColumn ? first : row,
                       lanesAreChannels: p.perColumn)
            return
        }
        let multiplier = p.perColumn
            ? (rest >= lanes ? UnsafeRawPointer(p.multipliers + column + i * lanes).loadUnaligned(as: Vector.self)
               : partialMultipliers(p.multipliers + column + i * lanes, rest))
            : Vector(repeating: p.multipliers[row])
        if let floats = p.floatOutput {
            let values = vbg_scale_sums(v, multiplier), out = floats + row * p.outputStride + column + i * lanes
            if rest >= lanes { UnsafeMutableRawPointer(out).storeBytes(of: values, as: Vector.self) }
            else { for lane in 0..<rest { out[lane] = values[lane] } }
            return
        }
        let bytes = vbg_requantize(v, multiplier, low, high, p.zeroPoint)
        if rest >= lanes {
            UnsafeMutableRawPointer(out + i * lanes).storeBytes(of: bytes, as: SIMD16<UInt8>.self)
        } else {
            for lane in 0..<rest { out[i * lanes + lane] = bytes[lane] }
        }
    }
    put(acc.a, 0); put(acc.b, 1); put(acc.c, 2); put(acc.d, 3)
}

@inline(__always)
func partialMultipliers(_ p: UnsafePointer<Float>, _ count: Int) -> Vector {
    var v = Vector(repeating: 0)
    for lane in 0..<count { v[lane] = p[lane] }
    return v
}

/// Integer storage owned by a step (64-byte aligned, zeroed).
package final class IntegerBuffer<Element: FixedWidthInteger>: OwnedStorage {
    package let count: Int
    package let baseAddress: UnsafeMutablePointer<Element>
    package init(count: Int) {
        self.count = count
        baseAddress = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1) * MemoryLayout<Element>.stride, alignment: 64)
            .bindMemory(to: Element.self, capacity: max(count, 1))
        baseAddress.initialize(repeating: 0, count: max(count, 1))
    }
    package var byteCount: Int { count * MemoryLayout<Element>.stride }
    deinit { baseAddress.deallocate() }
}

/// A quantized convolution's constant operands: the weights minus their zero points, packed as
/// the product's signed operand ([outputChannels][depth of inputChannels / groups · kernelHeight ·
/// kernelWidth]: bytes when every shifted value fits int8, else 16-bit pairs); the int32 bias
/// and the requantization multiplier (float32, computed by the caller) of each output channel;
/// and how the input's values enter the patch matrix.
///
/// Patch values are the input minus ``patchOffset``: with pairs that is the input's zero point
/// (values −255...255, a padding tap 0); with bytes only what makes the value unsigned (0, or
/// −128 for int8 input), so a padding tap is the zero point's byte ``paddingValue`` and each
/// channel's bias carries −paddingValue · Σ weights, the same integer sums.
package final class QuantizedConvolutionWeights {
    package let groups: Int, inputChannels: Int, outputChannels: Int, kernelHeight: Int, kernelWidth: Int
    package let inputSigned: Bool, inputZero: Int32
    let operands: QuantizedOperands
    /// The order of k: channel-minor ((tap · paddedChannels + channel), so that each 32-bit
    /// element of bytes holds four channels of one tap, which the patch builder interleaves 16
    /// pixels at a time) for bytes with a multiple of 4 channels per group, or 3 (a stem: one
    /// channel of zero weights added per tap); else channel-major (the weights' own order,
    /// (channel · taps + tap)).
    let channelMinor: Bool
    /// A group's channels, rounded up to 4 when channel-minor.
    let paddedChannels: Int
    /// 32-bit elements of the patch matrix per pixel.
    let depth: Int
    /// The weights as the patch product's rows; empty when they run depthwise or transposed.
    let values: IntegerBuffer<Int32>
    let bias: [Int32]
    let multipliers: [Float]
    /// Whether every multiplier is finite (``QuantizedProduct/finiteMultipliers``).
    let finiteMultipliers: Bool
    /// Σ_k of each output channel's weights (minus their zero points): what a change of the
    /// input's zero point takes from its sums (``IntegerSumsOutput``).
    package let weightSums: [Int32]
    /// Rows of the patch matrix: one group's input channels × taps.
    var inner: Int { inputChannels / groups * kernelHeight * kernelWidth }
    /// What the patch builder subtracts from the input's values, and the patch value of a tap in
    /// the padding (the zero point minus that).
    var patchOffset: Int32 { operands == .pairs ? inputZero : (inputSigned ? -128 : 0) }
    var paddingValue: Int32 { inputZero &- patchOffset }
    /// For maps whose pixels fill tiles of 64 worse than the group's output channels do (small
    /// maps): per group, the weights transposed (depth × channels padded to 64, stored as
    /// ``QuantizedProduct/panels`` of 64 channels), and the bias and multipliers padded the same way; the product then runs with pixels as rows
    /// (``quantizedConvolution(_:pool:)``).
    let transposed: (values: IntegerBuffer<Int32>, bias: [Int32], multipliers: [Float], stride: Int)?
    /// For a depthwise convolution (one input and one output channel per group): each channel's
    /// weights ([channel][tap]) for ``quantizedDepthwise(_:pool:)``, which needs no patch matrix.
    let depthwiseTaps: [Int32]?
    /// The same weights, bias and multipliers with channels minor, padded to 16 ([tap][channel];
    /// [channel]) for ``channelVectorDepthwise(_:block:_:_:)``.
    let depthwiseVectors: (taps: [Int32], bias: [Int32], multipliers: [Float])?
    /// For a depthwise convolution on bytes: each channel's weights as signed bytes, four taps of
    /// a kernel row per Int32 (taps 4q...4q + 3 of row kh at [channel][kh][q], zero past the
    /// row's end) for ``byteDepthwise(_:channel:_:_:quads:_:)``.
    let depthwiseQuads: [Int32]?
    /// Int32 elements of ``depthwiseQuads`` per kernel row.
    var quadsPerRow: Int { (kernelWidth + 3) / 4 }
    /// The same quads with 16 channels to a vector for ``channelByteDepthwise(_:block:_:_:)``:
    /// [block of 16 channels][kernel row · quadsPerRow + quad][channel], zero past the last channel.
    let depthwiseQuadVectors: [Int32]?
    /// For convolutions of few outputs per group, or several taps, on small maps
    /// (``GroupLaneWeights/applies(groups:channelsPerGroup:outputsPerGroup:pixels:taps:bytes:)``): the
    /// weights with each group's outputs as vector lanes for ``groupLaneConvolution(_:_:pool:)``,
    /// which requantized outputs take (the int32 sums of the dynamic form take the layouts above).
    let groupLanes: GroupLaneWeights?
    /// Whether requantized outputs run on ``groupLanes``.
    package var runsOnGroupLanes: Bool { groupLanes != nil }

    /// Whether `outputsPerGroup` channels on maps of `pixels` run transposed (pixels as rows):
    /// maps under two tiles where that pads fewer products than pixels as columns (resnet18's
    /// 10x10 maps, 128 channels: 12800 against 16384), and windows of several taps on maps up to
    /// four tiles where it pads no more (googlenet's 3x3 convolutions on 8x8 and 16x16 maps:
    /// 72.9 -> 52.7 us on 8x8, 128 -> 192 channels). Not 1x1 windows on maps of a tile or more, nor
    /// larger maps, where the row-wise patch builder or the shifted planes of the untransposed
    /// layout measured faster (1x1 on 12x12 and 16x16, 3x3 on 20x20: 3-12 us slower transposed).
    static func runsTransposed(outputsPerGroup: Int, pixels: Int, taps: Int) -> Bool {
        let tile = quantizedTileColumns
        let rowPadded = (outputsPerGroup + tile - 1) / tile * tile * pixels
        let columnPadded = (pixels + tile - 1) / tile * tile * outputsPerGroup
        return pixels < 2 * tile && rowPadded < columnPadded || taps > 1 && pixels <= 4 * tile && rowPadded <= columnPadded
    }

    /// `values`: [outputChannels][inner], each minus its zero point (within ±255); `pixels`:
    /// the output map's size; `inputSigned`, `inputZero`: the input's type (int8, else uint8)
    /// and zero point.
    package init(values: [Int16], bias: [Int32]?, multipliers: [Float], groups: Int, inputChannels: Int, outputChannels: Int,
                 kernelHeight: Int, kernelWidth: Int, pixels: Int, inputSigned: Bool, inputZero: Int32,
                 allowBytes: Bool = true) {
        let inner = inputChannels / groups * kernelHeight * kernelWidth
        precondition(values.count == outputChannels * inner, "quantized weights: size")
        precondition(multipliers.count == outputChannels && (bias?.count ?? outputChannels) == outputChannels, "quantized weights: channels")
        self.groups = groups; self.inputChannels = inputChannels; self.outputChannels = outputChannels
        self.kernelHeight = kernelHeight; self.kernelWidth = kernelWidth
        self.inputSigned = inputSigned; self.inputZero = inputZero
        operands = allowBytes && values.allSatisfy({ Int16(Int8.min)...Int16(Int8.max) ~= $0 }) ? .unsignedColumns : .pairs
        let channels = inputChannels / groups, taps = kernelHeight * kernelWidth
        channelMinor = operands != .pairs && (channels % 4 == 0 || channels == 3)
        let minor = channelMinor, padded = minor ? (channels + 3) / 4 * 4 : channels
        paddedChannels = padded
        let depth = minor ? taps * padded / 4 : operands.depth(inner), perElement = operands.perElement
        self.depth = depth
        /// Where value k (channel-major) goes in the order of k.
        func order(_ k: Int) -> Int { minor ? k % taps * padded + k / taps : k }
        // One layout of the weights, the one the kernel runs: per-channel taps (depthwise), the
        // transposed rows (small maps), or rows of channel-major patches.
        let isDepthwise = groups == inputChannels && groups == outputChannels
        let outputsPerGroup = outputChannels / groups
        let transposes = !isDepthwise && Self.runsTransposed(outputsPerGroup: outputsPerGroup, pixels: pixels, taps: kernelHeight * kernelWidth)
        self.values = IntegerBuffer<Int32>(count: isDepthwise || transposes ? 0 : outputChannels * depth)
        if !(isDepthwise || transposes) {
            packSigned(values, into: self.values.baseAddress, bytes: operands != .pairs) { m, k in m * depth * perElement + order(k) }
        }
        // The patches' remaining shift: −paddingValue · Σ_k w[m][k] (0 for pairs).
        let padding = operands == .pairs ? 0 : inputZero &- (inputSigned ? -128 : 0)
        let weightSums = (0..<outputChannels).map { m in
            (0..<inner).reduce(Int32(0)) { $0 &+ Int32(values[m * inner + $1]) }
        }
        self.weightSums = weightSums
        self.bias = (0..<outputChannels).map { m in (bias?[m] ?? 0) &- padding &* weightSums[m] }
        self.multipliers = multipliers
        finiteMultipliers = multipliers.allSatisfy { $0.isFinite }
        depthwiseTaps = isDepthwise ? values.map(Int32.init) : nil
        if depthwiseTaps != nil {
            let padded = (outputChannels + lanes - 1) / lanes * lanes
            var taps = [Int32](repeating: 0, count: inner * padded)
            for m in 0..<outputChannels { for t in 0..<inner { taps[t * padded + m] = Int32(values[m * inner + t]) } }
            depthwiseVectors = (taps, self.bias + [Int32](repeating: 0, count: padded - outputChannels),
                                multipliers + [Float](repeating: 0, count: padded - outputChannels))
        } else {
            depthwiseVectors = nil
        }
        if isDepthwise && operands != .pairs {
            let perRow = (kernelWidth + 3) / 4
            var quads = [UInt32](repeating: 0, count: outputChannels * kernelHeight * perRow)
            for m in 0..<outputChannels {
                for kh in 0..<kernelHeight {
                    for kw in 0..<kernelWidth {
                        let byte = UInt32(UInt8(bitPattern: Int8(values[m * inner + kh * kernelWidth + kw])))
                        quads[(m * kernelHeight + kh) * perRow + kw / 4] |= byte << (8 * UInt32(kw % 4))
                    }
                }
            }
            depthwiseQuads = quads.map { Int32(bitPattern: $0) }
            let taps = kernelHeight * perRow, blocks = (outputChannels + lanes - 1) / lanes
            var vectors = [Int32](repeating: 0, count: blocks * taps * lanes)
            for m in 0..<outputChannels {
                for t in 0..<taps { vectors[(m / lanes * taps + t) * lanes + m % lanes] = Int32(bitPattern: quads[m * taps + t]) }
            }
            depthwiseQuadVectors = vectors
        } else {
            depthwiseQuads = nil
            depthwiseQuadVectors = nil
        }
        if !isDepthwise && GroupLaneWeights.applies(groups: groups, channelsPerGroup: channels, outputsPerGroup: outputsPerGroup,
                                                     pixels: pixels, taps: taps, bytes: operands != .pairs) {
            let blocks = (outputsPerGroup + lanes - 1) / lanes
            let laneValues = IntegerBuffer<Int32>(count: groups * blocks * depth * lanes)
            var laneBias = [Int32](repeating: 0, count: groups * blocks * lanes)
            var laneMultipliers = [Float](repeating: 0, count: groups * blocks * lanes)
            packSigned(values, into: laneValues.baseAddress, bytes: true) { m, k in
                let g = m / outputsPerGroup, j = m % outputsPerGroup, kk = order(k)
                return (((g * blocks + j / lanes) * depth + kk / 4) * lanes + j % lanes) * 4 + kk % 4
            }
            for m in 0..<outputChannels {
                let g = m / outputsPerGroup, j = m % outputsPerGroup
                laneBias[g * blocks * lanes + j] = self.bias[m]
                laneMultipliers[g * blocks * lanes + j] = multipliers[m]
            }
            groupLanes = GroupLaneWeights(values: laneValues, bias: laneBias, multipliers: laneMultipliers, blocks: blocks)
        } else {
            groupLanes = nil
        }
        if transposes {
            let tile = quantizedTileColumns, stride = (outputsPerGroup + tile - 1) / tile * tile
            let transposed = IntegerBuffer<Int32>(count: groups * depth * stride)
            var paddedBias = [Int32](repeating: 0, count: groups * stride), paddedMultipliers = [Float](repeating: 0, count: groups * stride)
            packSigned(values, into: transposed.baseAddress, bytes: operands != .pairs) { m, k in
                let g = m / outputsPerGroup, j = m % outputsPerGroup, kk = order(k)
                return (g * depth * stride + (j / tile * depth + kk / perElement) * tile + j % tile) * perElement + kk % perElement
            }
            for m in 0..<outputChannels {
                let g = m / outputsPerGroup, j = m % outputsPerGroup
                paddedBias[g * stride + j] = self.bias[m]
                paddedMultipliers[g * stride + j] = multipliers[m]
            }
            self.transposed = (transposed, paddedBias, paddedMultipliers, stride)
        } else {
            self.transposed = nil
        }

        /// `values` ([rows][inner]) as int8 or int16 at the index `place(row, k)` of `buffer`'s bytes or halves.
        func packSigned(_ values: [Int16], into buffer: UnsafeMutablePointer<Int32>, bytes: Bool, place: (Int, Int) -> Int) {
            let raw = UnsafeMutableRawPointer(buffer)
            for m in 0..<outputChannels {
                for k in 0..<inner {
                    let value = values[m * inner + k], index = place(m, k)
                    if bytes { raw.storeBytes(of: Int8(value), toByteOffset: index, as: Int8.self) }
                    else { raw.storeBytes(of: value, toByteOffset: 2 * index, as: Int16.self) }
                }
            }
        }
    }
}

/// A 2-D window's geometry for ``quantizedConvolution(_:)``.
package struct QuantizedWindow: Sendable {
    package let inputHeight: Int, inputWidth: Int, outputHeight: Int, outputWidth: Int
    package let strideHeight: Int, strideWidth: Int, dilationHeight: Int, dilationWidth: Int, padTop: Int, padLeft: Int
    package init(inputHeight: Int, inputWidth: Int, outputHeight: Int, outputWidth: Int, strideHeight: Int, strideWidth: Int,
                 dilationHeight: Int, dilationWidth: Int, padTop: Int, padLeft: Int) {
        self.inputHeight = inputHeight; self.inputWidth = inputWidth
        self.outputHeight = outputHeight; self.outputWidth = outputWidth
        self.strideHeight = strideHeight; self.strideWidth = strideWidth
        self.dilationHeight = dilationHeight; self.dilationWidth = dilationWidth
        self.padTop = padTop; self.padLeft = padLeft
    }
}

/// Int32 elements of the patch matrix ``quantizedConvolution(_:)`` needs on `threads` threads.
package func quantizedPatchCount(_ weights: QuantizedConvolutionWeights, _ window: QuantizedWindow, threads: Int = 1) -> Int {
    quantizedPatchCount(weights, window, threads: threads, laneless: false)
}

/// ``quantizedPatchCount(_:_:threads:)``, with `laneless` what the layouts other than
/// ``QuantizedConvolutionWeights/groupLanes`` need (the sums' path).
func quantizedPatchCount(_ weights: QuantizedConvolutionWeights, _ window: QuantizedWindow, threads: Int, laneless: Bool) -> Int {
    if weights.depthwiseTaps != nil { return threads * QuantizedDepthwisePlane(window, weights).count }
    let pixels = window.outputHeight * window.outputWidth
    if weights.groupLanes != nil && !laneless {
        let map = GroupLaneMap(window, weights).elements(pixels: pixels, threads: threads)
        return max(map, quantizedPatchCount(weights, window, threads: threads, laneless: true))
    }
    if weights.transposed != nil {
        // Channel-minor bytes also keep the group's input as pixels × channels after the patches.
        let inputPixels = window.inputHeight * window.inputWidth, channels = weights.inputChannels / weights.groups
        return pixels * weights.depth + (weights.channelMinor ? (inputPixels * channels + 3) / 4 : 0)
    }
    let patches = weights.depth * ((pixels + quantizedTileColumns - 1) / quantizedTileColumns * quantizedTileColumns)
    // The shifted planes and their offsets where they apply (the patch matrix for the sums, which do not take them).
    guard let shifted = ShiftedPlanes(window, weights) else { return patches }
    return max(patches, shifted.elements(weights))
}

/// Bytes of the scratch output ``quantizedConvolution(_:pool:)`` needs (0 unless the weights run
/// transposed).
package func quantizedOutputScratchCount(_ weights: QuantizedConvolutionWeights, _ window: QuantizedWindow) -> Int {
    if weights.transposed == nil {
        return ShiftedPlanes(window, weights).map { $0.stride * (weights.outputChannels / weights.groups) } ?? 0
    }
    return window.outputHeight * window.outputWidth * (weights.outputChannels / weights.groups)
}

/// One quantized convolution of one NCHW image of 8-bit values (the type and zero point the
/// weights were made for) into 8-bit outputs: per group, the patches (the input minus the
/// weights' ``QuantizedConvolutionWeights/patchOffset``; a tap in the padding gives the
/// ``QuantizedConvolutionWeights/paddingValue``) as a K × pixels matrix packed as the weights are
/// in `patches` (``quantizedPatchCount(_:_:)``; K's unused last values stay as they are, the
/// weights there are 0), then ``quantizedProduct(_:columns:)`` with the weights as rows. Threads
/// take whole tiles of columns (pixels), each building its own columns' patches, so every output
/// is computed by the same code in the same order whatever the thread count.
package struct QuantizedConvolution {
    package let input: UnsafeRawPointer
    package let weights: QuantizedConvolutionWeights, window: QuantizedWindow
    /// The patch matrix, and its Int32 elements (at least ``quantizedPatchCount(_:_:threads:)``
    /// for the pool's threads; checked when the kernel runs).
    let patches: UnsafeMutablePointer<Int32>, patchCount: Int
    package let output: UnsafeMutablePointer<UInt8>, outputZero: Int32, minimum: Int32, maximum: Int32
    /// The transposed product, and its bytes (at least ``quantizedOutputScratchCount(_:_:)``).
    let scratch: UnsafeMutablePointer<UInt8>, scratchCount: Int
    /// The input's zero point (the weights' ``QuantizedConvolutionWeights/inputZero`` unless it
    /// is known only at run time), and the sums or their float epilogue written instead of bytes
    /// (nil: requantized bytes, which need the weights' zero point).
    package let inputZero: Int32, sums: IntegerSumsOutput?
    /// What the patch builders subtract from the input's values, and the patch value of a tap in
    /// the padding (the weights' ``QuantizedConvolutionWeights/patchOffset`` and
    /// ``QuantizedConvolutionWeights/paddingValue`` for this zero point).
    var patchOffset: Int32 { weights.operands == .pairs ? inputZero : (weights.inputSigned ? -128 : 0) }
    var paddingValue: Int32 { inputZero &- patchOffset }
    package init(input: UnsafeRawPointer, weights: QuantizedConvolutionWeights, window: QuantizedWindow,
                 patches: UnsafeMutableBufferPointer<Int32>, output: UnsafeMutablePointer<UInt8>,
                 outputZero: Int32, minimum: Int32, maximum: Int32, scratch: UnsafeMutableBufferPointer<UInt8>,
                 inputZero: Int32? = nil, sums: IntegerSumsOutput? = nil) {
        precondition(patches.baseAddress != nil && scratch.baseAddress != nil, "quantized convolution: no scratch")
        precondition(sums != nil || inputZero == nil || inputZero == weights.inputZero,
                     "quantized convolution: requantized bytes need the zero point the weights were packed for")
        self.inputZero = inputZero ?? weights.inputZero
        var sums = sums
        // The change of zero point the sums are corrected for (none on pairs, whose patches
        // subtract `inputZero` itself).
        if sums != nil { sums!.zeroShift = weights.operands == .pairs ? 0 : self.inputZero &- weights.inputZero }
        self.sums = sums
        self.scratch = scratch.baseAddress!
        scratchCount = scratch.count
        self.input = input
        self.weights = weights; self.window = window
        self.patches = patches.baseAddress!
        patchCount = patches.count
        self.output = output; self.outputZero = outputZero; self.minimum = minimum; self.maximum = maximum
    }
}

///
/// Small maps (``QuantizedConvolutionWeights/transposed``): per group, the patches as pixels ×
/// K (built by the calling thread), the product with pixels as rows and the group's channels as
/// columns into `scratch`, which each thread then transposes into the output for its columns.
///
/// - Precondition: `patches` and `scratch` hold what ``quantizedPatchCount(_:_:threads:)`` (for the
///   pool's threads) and ``quantizedOutputScratchCount(_:_:)`` state.
package func quantizedConvolution(_ convolution: QuantizedConvolution, pool: WorkerPool) {
    precondition(convolution.patchCount >= quantizedPatchCount(convolution.weights, convolution.window, threads: pool.threadCount),
                 "quantized convolution: \(convolution.patchCount) patch elements, fewer than the problem needs")
    precondition(convolution.scratchCount >= quantizedOutputScratchCount(convolution.weights, convolution.window),
                 "quantized convolution: \(convolution.scratchCount) scratch bytes, fewer than the problem needs")
    if convolution.weights.depthwiseTaps != nil {
        pool.run(QuantizedDepthwiseParts(convolution: convolution))
        return
    }
    if let groupLanes = convolution.weights.groupLanes, convolution.sums == nil {
        groupLaneConvolution(convolution, groupLanes, pool: pool)
        return
    }
    guard convolution.weights.transposed != nil else {
        if convolution.sums == nil, let shifted = ShiftedPlanes(convolution.window, convolution.weights) {
            shiftedPlaneConvolution(convolution, shifted, pool: pool)
        } else {
            pool.run(QuantizedConvolutionParts(convolution: convolution))
        }
        return
    }
    let c = convolution, w = c.weights
    for g in 0..<w.groups {
        transposedPatches(c, group: g)
        pool.run(SmallMapQuantizedParts(convolution: c, group: g))
    }
}

/// The patch matrix of group `group` as pixels × K, packed ([pixel][depth]).
@inline(never)
func transposedPatches(_ c: QuantizedConvolution, group: Int) {
    if c.weights.channelMinor {
        channelMinorTransposedPatches(c, group: group)
        return
    }
    let w = c.weights, window = c.window
    let channels = w.inputChannels / w.groups, perPixel = w.depth * w.operands.perElement
    let bytes = w.operands != .pairs, offset = c.patchOffset, padding = c.paddingValue
    let (kH, kW, inH, inW) = (w.kernelHeight, w.kernelWidth, window.inputHeight, window.inputWidth)
    let out = UnsafeMutableRawPointer(c.patches)
    let plane = inH * inW, taps = kH * kW
    for oh in 0..<window.outputHeight {
        for ow in 0..<window.outputWidth {
            let row = perPixel * (oh * window.outputWidth + ow)
            for channel in 0..<channels {
                let base = (group * channels + channel) * plane
                for kh in 0..<kH {
                    let ih = oh * window.strideHeight - window.padTop + kh * window.dilationHeight
                    for kw in 0..<kW {
                        let iw = ow * window.strideWidth - window.padLeft + kw * window.dilationWidth
                        let tap = kh * kW + kw
                        let k = row + (w.channelMinor ? tap * channels + channel : channel * taps + tap)
                        var value = padding
                        if ih >= 0 && ih < inH && iw >= 0 && iw < inW {
                            let index = base + ih * inW + iw
                            let raw = w.inputSigned ? Int32(c.input.load(fromByteOffset: index, as: Int8.self))
                                : Int32(c.input.load(fromByteOffset: index, as: UInt8.self))
                            value = raw &- offset
                        }
                        if bytes { out.storeBytes(of: UInt8(truncatingIfNeeded: value), toByteOffset: k, as: UInt8.self) }
                        else { out.storeBytes(of: Int16(truncatingIfNeeded: value), toByteOffset: 2 * k, as: Int16.self) }
                    }
                }
            }
        }
    }
}

/// The channel-minor patch matrix of group `group` as pixels × K (bytes): the group's input first
/// transposed to pixels × channels (made unsigned) after the patches, then each pixel's row of
/// patches one tap at a time, a copy of that input pixel's channels or the padding byte.
func channelMinorTransposedPatches(_ c: QuantizedConvolution, group: Int) {
    let w = c.weights, window = c.window
    let channels = w.inputChannels / w.groups, perPixel = w.depth * 4, extra = w.paddedChannels - channels
    let (kH, kW, inH, inW) = (w.kernelHeight, w.kernelWidth, window.inputHeight, window.inputWidth)
    let plane = inH * inW, pixels = window.outputHeight * window.outputWidth
    let flip: UInt8 = w.inputSigned ? 0x80 : 0, padding = UInt8(truncatingIfNeeded: c.paddingValue)
    let patches = UnsafeMutableRawPointer(c.patches).assumingMemoryBound(to: UInt8.self)
    let transposed = patches + pixels * perPixel
    let source = c.input.assumingMemoryBound(to: UInt8.self) + group * channels * plane
    transposeBytes(source, sourceStride: plane, rows: channels, columns: plane, transposed, targetStride: channels, flip: flip)
    for oh in 0..<window.outputHeight {
        for ow in 0..<window.outputWidth {
            var out = patches + perPixel * (oh * window.outputWidth + ow)
            for kh in 0..<kH {
                let ih = oh * window.strideHeight - window.padTop + kh * window.dilationHeight
                for kw in 0..<kW {
                    let iw = ow * window.strideWidth - window.padLeft + kw * window.dilationWidth
                    if ih >= 0 && ih < inH && iw >= 0 && iw < inW {
                        out.update(from: transposed + (ih * inW + iw) * channels, count: channels)
                    } else {
                        out.update(repeating: padding, count: channels)
                    }
                    // A padded channel (zero weights): any byte.
                    out += channels
                    if extra > 0 { out.update(repeating: 0, count: extra); out += extra }
                }
            }
        }
    }
}

struct SmallMapQuantizedParts: PoolJob {
    let convolution: QuantizedConvolution, group: Int
    func run(part: Int, pool: WorkerPool) {
        let c = convolution, w = c.weights, t = w.transposed!
        let pixels = c.window.outputHeight * c.window.outputWidth, outputsPerGroup = w.outputChannels / w.groups
        let columns = WorkerPool.range(outputsPerGroup, part: part, of: pool.threadCount, granularity: quantizedTileColumns)
        guard !columns.isEmpty else { return }
        let depth = w.depth
        t.multipliers.withUnsafeBufferPointer { multipliers in
            t.bias.withUnsafeBufferPointer { bias in
                let product = QuantizedProduct(
                    s: UnsafePointer(c.patches), rows: pixels, depth: depth, operands: w.operands == .pairs ? .pairs : .unsignedRows,
                    v: UnsafePointer(t.values.baseAddress + group * depth * t.stride), columns: outputsPerGroup,
                    columnStride: t.stride, bias: nil, output: c.scratch, outputStride: outputsPerGroup,
                    multipliers: multipliers.baseAddress! + group * t.stride, perColumn: true, zeroPoint: c.outputZero,
                    minimum: c.minimum, maximum: c.maximum, columnBias: bias.baseAddress! + group * t.stride,
                    // Sums go straight to their channels' planes (a pixel's channels `pixels` apart).
                    sums: c.sums?.advanced(channels: group * outputsPerGroup, elements: group * outputsPerGroup * pixels,
                                           rowStride: 1, columnStride: pixels), panels: true, finiteMultipliers: w.finiteMultipliers)
                quantizedProduct(product, columns: columns)
            }
        }
        guard c.sums == nil else { return }
        let output = c.output + group * outputsPerGroup * pixels
        transposeBytes(c.scratch + columns.lowerBound, sourceStride: outputsPerGroup, rows: pixels, columns: columns.count,
                       output + columns.lowerBound * pixels, targetStride: pixels)
    }
}

struct QuantizedConvolutionParts: PoolJob {
    let convolution: QuantizedConvolution
    func run(part: Int, pool: WorkerPool) {
        let c = convolution, w = c.weights, window = c.window
        let pixels = window.outputHeight * window.outputWidth
        let stride = (pixels + quantizedTileColumns - 1) / quantizedTileColumns * quantizedTileColumns
        let columns = WorkerPool.range(pixels, part: part, of: pool.threadCount, granularity: quantizedTileColumns)
        guard !columns.isEmpty else { return }
        let channelsPerGroup = w.inputChannels / w.groups, outputsPerGroup = w.outputChannels / w.groups
        let plane = window.inputHeight * window.inputWidth
        w.multipliers.withUnsafeBufferPointer { multipliers in
            w.bias.withUnsafeBufferPointer { bias in
                for g in 0..<w.groups {
                    quantizedPatches(c, firstChannel: g * channelsPerGroup, channels: channelsPerGroup, columns: columns,
                                     stride: stride, plane: plane)
                    let first = g * outputsPerGroup
                    let depth = w.depth
                    let product = QuantizedProduct(
                        s: UnsafePointer(w.values.baseAddress + first * depth), rows: outputsPerGroup, depth: depth,
                        operands: w.operands, v: UnsafePointer(c.patches), columns: pixels, columnStride: stride,
                        bias: bias.baseAddress! + first, output: c.output + first * pixels, outputStride: pixels,
                        multipliers: multipliers.baseAddress! + first, perColumn: false, zeroPoint: c.outputZero,
                        minimum: c.minimum, maximum: c.maximum,
                        sums: c.sums?.advanced(channels: first, elements: first * pixels, rowStride: pixels, columnStride: 1),
                        finiteMultipliers: w.finiteMultipliers)
                    quantizedProduct(product, columns: columns)
                }
            }
        }
    }
}

/// Rows (channel, tap) of the patch matrix for output pixels `columns`.
@inline(never)
func quantizedPatches(_ c: QuantizedConvolution, firstChannel: Int, channels: Int, columns: Range<Int>, stride: Int, plane: Int) {
    if c.weights.channelMinor {
        channelMinorPatches(c, firstChannel: firstChannel, channels: channels, columns: columns, stride: stride, plane: plane)
        return
    }
    switch (c.weights.inputSigned, c.weights.operands == .pairs) {
    case (true, true):
        quantizedPatches(c, Int8.self, Int16.self, firstChannel: firstChannel, channels: channels, columns: columns, stride: stride, plane: plane)
    case (false, true):
        quantizedPatches(c, UInt8.self, Int16.self, firstChannel: firstChannel, channels: channels, columns: columns, stride: stride, plane: plane)
    case (true, false):
        quantizedPatches(c, Int8.self, UInt8.self, firstChannel: firstChannel, channels: channels, columns: columns, stride: stride, plane: plane)
    case (false, false):
        quantizedPatches(c, UInt8.self, UInt8.self, firstChannel: firstChannel, channels: channels, columns: columns, stride: stride, plane: plane)
    }
}

/// `a` / `b` rounded down, for `b` > 0.
@inline(__always) func floorDivide(_ a: Int, _ b: Int) -> Int { a >= 0 ? a / b : -((-a + b - 1) / b) }

extension QuantizedConvolution {
    /// Whether every patch row is one input pixel (a 1x1 window, stride 1, no padding, the
    /// output the input's size): the patches are the input transposed.
    var hasUnitWindow: Bool {
        let w = weights
        return w.kernelHeight == 1 && w.kernelWidth == 1 && window.strideHeight == 1 && window.strideWidth == 1
            && window.padTop == 0 && window.padLeft == 0 && window.outputHeight == window.inputHeight
            && window.outputWidth == window.inputWidth
    }
}

/// The patch rows with input values of type `T` stored as `E` (Int16 for pairs, UInt8 for bytes).
@inline(__always)
func quantizedPatches<T: FixedWidthInteger, E: FixedWidthInteger>(
    _ c: QuantizedConvolution, _ type: T.Type, _ element: E.Type, firstChannel: Int, channels: Int, columns: Range<Int>,
    stride: Int, plane: Int
) {
    let w = c.weights, window = c.window
    let (kH, kW) = (w.kernelHeight, w.kernelWidth)
    let (inH, inW, outW) = (window.inputHeight, window.inputWidth, window.outputWidth)
    let (sH, sW) = (window.strideHeight, window.strideWidth)
    let unitWindow = c.hasUnitWindow
    let offset = c.patchOffset, padding = E(truncatingIfNeeded: c.paddingValue)
    let per = 4 / MemoryLayout<E>.size
    let source = c.input.assumingMemoryBound(to: T.self)
    let elements = UnsafeMutableRawPointer(c.patches).assumingMemoryBound(to: E.self)
    // Row k of the patch matrix: value k % per of element row k / per, every per-th E.
    @inline(__always) func row(_ k: Int) -> UnsafeMutablePointer<E> { elements + per * (k / per) * stride + k % per }
    @inline(__always) func shifted(_ value: T) -> E { E(truncatingIfNeeded: Int32(value) &- offset) }
    for channel in 0..<channels {
        let base = source + (firstChannel + channel) * plane
        if unitWindow {
            let out = row(channel)
            for n in columns { out[per * n] = shifted(base[n]) }
            continue
        }
        for kh in 0..<kH {
            for kw in 0..<kW {
                let out = row((channel * kH + kh) * kW + kw)
                let tapOffset = kw * window.dilationWidth - window.padLeft
                // The output columns whose tap lies inside the input row: iw = ow·sW + tapOffset in 0..<inW.
                let first = -floorDivide(tapOffset, sW), last = floorDivide(inW - 1 - tapOffset, sW) + 1
                var n = columns.lowerBound
                while n < columns.upperBound {
                    let oh = n / outW, start = n % outW, end = min(outW, start + columns.upperBound - n)
                    let ih = oh * sH - window.padTop + kh * window.dilationHeight
                    let line = out + per * (n - start)
                    if ih < 0 || ih >= inH {
                        for ow in start..<end { line[per * ow] = padding }
                    } else {
                        let lo = min(max(start, first), end), hi = max(lo, min(end, last))
                        for ow in start..<lo { line[per * ow] = padding }
                        let input = base + ih * inW + tapOffset
                        for ow in lo..<hi { line[per * ow] = shifted(input[ow * sW]) }
                        for ow in hi..<end { line[per * ow] = padding }
                    }
                    n += end - start
                }
            }
        }
    }
}

/// The patch rows of the channel-minor order (bytes, ``QuantizedConvolutionWeights/channelMinor``):
/// element row (tap, c) holds channels 4c...4c + 3 of the tap, one byte each; 16 pixels at a
/// time from the four planes (`vbg_interleave_bytes`; at stride 1 a row's last few by masked loads
/// and a masked store, at stride 2 the even bytes of 32, the last few masked likewise), else one
/// 32-bit element per pixel.
func channelMinorPatches(_ c: QuantizedConvolution, firstChannel: Int, channels: Int, columns: Range<Int>, stride: Int, plane: Int) {
    let w = c.weights, window = c.window
    let (kH, kW) = (w.kernelHeight, w.kernelWidth)
    let (inH, inW, outW) = (window.inputHeight, window.inputWidth, window.outputWidth)
    let (sH, sW) = (window.strideHeight, window.strideWidth)
    let unitWindow = c.hasUnitWindow
    // Int8 input becomes unsigned by x + 128, its top bit flipped.
    let flip: UInt32 = w.inputSigned ? 0x8080_8080 : 0
    let padding = Int32(bitPattern: UInt32(truncatingIfNeeded: c.paddingValue) &* 0x0101_0101)
    let source = c.input.assumingMemoryBound(to: UInt8.self)
    let quads = w.paddedChannels / 4
    for kh in 0..<kH {
        for kw in 0..<kW {
            let tapOffset = kw * window.dilationWidth - window.padLeft
            let first = -floorDivide(tapOffset, sW), last = floorDivide(inW - 1 - tapOffset, sW) + 1
            for q in 0..<quads {
                let out = c.patches + ((kh * kW + kw) * quads + q) * stride
                // A padded channel (zero weights) reads the quad's first plane.
                @inline(__always) func channelPlane(_ i: Int) -> UnsafePointer<UInt8> {
                    source + (firstChannel + (4 * q + i < channels ? 4 * q + i : 4 * q)) * plane
                }
                let p0 = channelPlane(0), p1 = channelPlane(1), p2 = channelPlane(2), p3 = channelPlane(3)
                /// Pixels lo..<hi of `line` from input offset `rowOffset` + ow · sW.
                @inline(__always) func copy(_ line: UnsafeMutablePointer<Int32>, _ lo: Int, _ hi: Int, _ rowOffset: Int) {
                    var ow = lo
                    if sW == 1 {
                        while ow + 16 <= hi {
                            let at = rowOffset + ow
                            @inline(__always) func load(_ p: UnsafePointer<UInt8>) -> SIMD16<UInt8> {
                                UnsafeRawPointer(p + at).loadUnaligned(as: SIMD16<UInt8>.self)
                            }
                            UnsafeMutableRawPointer(line + ow).storeBytes(
                                of: vbg_interleave_bytes(load(p0), load(p1), load(p2), load(p3), flip), as: SIMD16<Int32>.self)
                            ow += 16
                        }
                        if ow < hi && VBG_TARGET_AVX512BW != 0 && VBG_TARGET_AVX512VL != 0 {
                            // The row's last few: masked loads and a masked store.
                            let at = rowOffset + ow, count = Int32(hi - ow)
                            let words = vbg_interleave_bytes(vbg_load_bytes16(p0 + at, count), vbg_load_bytes16(p1 + at, count),
                                                             vbg_load_bytes16(p2 + at, count), vbg_load_bytes16(p3 + at, count), flip)
                            vbg_store_words(line + ow, words, count)
                            ow = hi
                        }
                    } else if sW == 2 {
                        // The even bytes of 32 (inside the channel's plane).
                        while ow + 16 <= hi && rowOffset + 2 * ow + 32 <= plane {
                            let at = rowOffset + 2 * ow
                            UnsafeMutableRawPointer(line + ow).storeBytes(
                                of: vbg_interleave_bytes(vbg_load_even_bytes(p0 + at), vbg_load_even_bytes(p1 + at),
                                                         vbg_load_even_bytes(p2 + at), vbg_load_even_bytes(p3 + at), flip),
                                as: SIMD16<Int32>.self)
                            ow += 16
                        }
                        while ow < hi && VBG_TARGET_AVX512BW != 0 && VBG_TARGET_AVX512VL != 0 {
                            // The row's last few (rows under 16 wide: every column): masked
                            // loads of the 2 · count − 1 bytes they read, a masked store.
                            let at = rowOffset + 2 * ow, count = min(16, hi - ow), span = Int32(2 * count - 1)
                            let words = vbg_interleave_bytes(vbg_load_even_bytes_masked(p0 + at, span),
                                                             vbg_load_even_bytes_masked(p1 + at, span),
                                                             vbg_load_even_bytes_masked(p2 + at, span),
                                                             vbg_load_even_bytes_masked(p3 + at, span), flip)
                            vbg_store_words(line + ow, words, Int32(count))
                            ow += count
                        }
                    }
                    while ow < hi {
                        let at = rowOffset + ow * sW
                        let word = UInt32(p0[at]) | UInt32(p1[at]) << 8 | UInt32(p2[at]) << 16 | UInt32(p3[at]) << 24
                        line[ow] = Int32(bitPattern: word ^ flip)
                        ow += 1
                    }
                }
                if unitWindow {
                    copy(out, columns.lowerBound, columns.upperBound, 0)
                    continue
                }
                var n = columns.lowerBound
                while n < columns.upperBound {
                    let oh = n / outW, start = n % outW, end = min(outW, start + columns.upperBound - n)
                    let ih = oh * sH - window.padTop + kh * window.dilationHeight
                    let line = out + (n - start)
                    if ih < 0 || ih >= inH {
                        for ow in start..<end { line[ow] = padding }
                    } else {
                        let lo = min(max(start, first), end), hi = max(lo, min(end, last))
                        for ow in start..<lo { line[ow] = padding }
                        copy(line, lo, hi, ih * inW + tapOffset)
                        for ow in hi..<end { line[ow] = padding }
                    }
                    n += end - start
                }
            }
        }
    }
}

// MARK: - Shifted planes

/// The patches of a stride-1 convolution on channel-minor bytes (``QuantizedConvolutionWeights/channelMinor``)
/// without a patch matrix: each four input channels interleaved once into a bordered plane of
/// 32-bit elements `pitch` wide (made unsigned as the patches are; the border the padding
/// value), so that element row (tap, q) of V is plane q from offset kh · dilation · pitch + kw ·
/// dilation on. The product's columns are n = oh · pitch + ow: the pitch − outW past each row's
/// end are computed into the scratch output and dropped when its rows of outW are copied out.
/// Taken where that makes at most a quarter more tiles of 64 columns than the patch matrix.
struct ShiftedPlanes {
    let pitch: Int
    /// Int32 elements of one plane: every one a tile of 64 columns reads from any tap.
    let planeElements: Int
    /// Columns of the product (the last row's dropped ones left out) and their stride (a multiple of 64).
    let columns: Int, stride: Int

    init?(_ window: QuantizedWindow, _ weights: QuantizedConvolutionWeights) {
        guard weights.channelMinor, weights.transposed == nil, weights.depthwiseTaps == nil, window.strideHeight == 1,
              window.strideWidth == 1, weights.kernelHeight * weights.kernelWidth > 1 else { return nil }
        let (outH, outW) = (window.outputHeight, window.outputWidth)
        let spanW = (weights.kernelWidth - 1) * window.dilationWidth, spanH = (weights.kernelHeight - 1) * window.dilationHeight
        pitch = max(window.padLeft + window.inputWidth, outW + spanW)
        let height = max(window.padTop + window.inputHeight, outH + spanH)
        columns = (outH - 1) * pitch + outW
        let tile = quantizedTileColumns
        stride = (columns + tile - 1) / tile * tile
        let patchTiles = (outH * outW + tile - 1) / tile
        guard stride / tile < patchTiles + patchTiles / 4 else { return nil }
        // The last tile of the last tap reads up to spanH · pitch + spanW + stride.
        planeElements = max(height * pitch, spanH * pitch + spanW + stride)
    }

    /// Int32 elements of the planes of one group and the offsets after them.
    func elements(_ weights: QuantizedConvolutionWeights) -> Int { weights.paddedChannels / 4 * planeElements + weights.depth }
}

/// ``quantizedConvolution(_:pool:)`` on ``ShiftedPlanes``: per group, the planes and offsets
/// (calling thread), the product into the scratch output (threads take tiles of columns), its
/// rows copied out (calling thread).
func shiftedPlaneConvolution(_ c: QuantizedConvolution, _ shifted: ShiftedPlanes, pool: WorkerPool) {
    let w = c.weights, window = c.window
    let channels = w.inputChannels / w.groups, quads = w.paddedChannels / 4, outputsPerGroup = w.outputChannels / w.groups
    let (inH, inW, outH, outW) = (window.inputHeight, window.inputWidth, window.outputHeight, window.outputWidth)
    let plane = inH * inW, pixels = outH * outW, pitch = shifted.pitch
    // Int8 input becomes unsigned by x + 128, its top bit flipped.
    let flip: UInt32 = w.inputSigned ? 0x8080_8080 : 0
    let padding = Int32(bitPattern: UInt32(truncatingIfNeeded: c.paddingValue) &* 0x0101_0101)
    let offsets = c.patches + quads * shifted.planeElements
    for kh in 0..<w.kernelHeight {
        for kw in 0..<w.kernelWidth {
            let tap = kh * window.dilationHeight * pitch + kw * window.dilationWidth
            for q in 0..<quads { offsets[(kh * w.kernelWidth + kw) * quads + q] = Int32(q * shifted.planeElements + tap) }
        }
    }
    for g in 0..<w.groups {
        let source = c.input.assumingMemoryBound(to: UInt8.self) + g * channels * plane
        c.patches.update(repeating: padding, count: quads * shifted.planeElements)
        for q in 0..<quads {
            // A padded channel (zero weights) reads the quad's first plane.
            @inline(__always) func channelPlane(_ i: Int) -> UnsafePointer<UInt8> { source + (4 * q + i < channels ? 4 * q + i : 4 * q) * plane }
            let p0 = channelPlane(0), p1 = channelPlane(1), p2 = channelPlane(2), p3 = channelPlane(3)
            let out = c.patches + q * shifted.planeElements + window.padTop * pitch + window.padLeft
            for ih in 0..<inH {
                let line = out + ih * pitch, row = ih * inW
                var iw = 0
                while iw + 16 <= inW {
                    let at = row + iw
                    @inline(__always) func load(_ p: UnsafePointer<UInt8>) -> SIMD16<UInt8> {
                        UnsafeRawPointer(p + at).loadUnaligned(as: SIMD16<UInt8>.self)
                    }
                    UnsafeMutableRawPointer(line + iw).storeBytes(
                        of: vbg_interleave_bytes(load(p0), load(p1), load(p2), load(p3), flip), as: SIMD16<Int32>.self)
                    iw += 16
                }
                while iw < inW {
                    let at = row + iw
                    line[iw] = Int32(bitPattern: (UInt32(p0[at]) | UInt32(p1[at]) << 8 | UInt32(p2[at]) << 16 | UInt32(p3[at]) << 24) ^ flip)
                    iw += 1
                }
            }
        }
        pool.run(ShiftedPlaneParts(convolution: c, shifted: shifted, group: g, offsets: UnsafePointer(offsets)))
        let output = c.output + g * outputsPerGroup * pixels
        for m in 0..<outputsPerGroup {
            for oh in 0..<outH {
                (output + m * pixels + oh * outW).update(from: c.scratch + m * shifted.stride + oh * pitch, count: outW)
            }
        }
    }
}

struct ShiftedPlaneParts: PoolJob {
    let convolution: QuantizedConvolution, shifted: ShiftedPlanes, group: Int, offsets: UnsafePointer<Int32>
    func run(part: Int, pool: WorkerPool) {
        let c = convolution, w = c.weights
        let columns = WorkerPool.range(shifted.columns, part: part, of: pool.threadCount, granularity: quantizedTileColumns)
        guard !columns.isEmpty else { return }
        let first = group * (w.outputChannels / w.groups)
        w.multipliers.withUnsafeBufferPointer { multipliers in
            w.bias.withUnsafeBufferPointer { bias in
                let product = QuantizedProduct(
                    s: UnsafePointer(w.values.baseAddress + first * w.depth), rows: w.outputChannels / w.groups, depth: w.depth,
                    operands: w.operands, v: UnsafePointer(c.patches), columns: shifted.columns, columnStride: shifted.stride,
                    bias: bias.baseAddress! + first, output: c.scratch, outputStride: shifted.stride,
                    multipliers: multipliers.baseAddress! + first, perColumn: false, zeroPoint: c.outputZero,
                    minimum: c.minimum, maximum: c.maximum, rowOffsets: offsets, finiteMultipliers: w.finiteMultipliers)
                quantizedProduct(product, columns: columns)
            }
        }
    }
}

// MARK: - Depthwise

/// A depthwise convolution's input channel as a zero-bordered plane of int32 patch values (the
/// input minus the weights' patch offset; the border the padding value), wide and high enough
/// that every output row's 16-pixel vectors, the last one past the map included, read inside it.
struct QuantizedDepthwisePlane {
    let width: Int, height: Int
    /// Whether the plane holds the input's bytes (``byteDepthwise(_:channel:_:_:quads:_:)``:
    /// weights on bytes, AVX512BW, a window whose four taps of 16 pixels lie within 16 bytes of
    /// each 4-pixel chunk's first one: 3 · (stride + dilation) ≤ 15, and rows over 8 wide, or 4
    /// or 8 wide with more than 16 outputs; where ``channelBytes`` is not, which takes such maps
    /// up to 64 wide in AVX512-VBMI builds), with 64 readable bytes past its end; else int32
    /// patch values.
    let bytes: Bool
    /// Whether 16 channels run together on maps too narrow for 16-pixel rows (outputs up to 8
    /// wide, not on bytes): the plane then holds 16 values (channels) per position.
    let channelsLast: Bool
    /// Whether 16 channels run together on bytes (``runsChannelBytes(_:_:)``, which then takes
    /// the place of the two above): the plane holds 16 bytes per position, with 64 readable bytes
    /// past its end, and the output's positions × 16 bytes follow it.
    let channelBytes: Bool
    /// On bytes: the output rows one 16-lane vector computes and the lanes each takes (1 and 16;
    /// on maps up to 8 wide, rows of 4 or 8 lanes, as many as fit the 64 bytes one load reads).
    let packedRows: Int, packedColumns: Int
    /// Int32 elements of the plane.
    var planeCount: Int {
        if channelBytes { return (width * height * lanes + 64 + 3) / 4 }
        return bytes ? (width * height + 64 + 3) / 4 : width * height * (channelsLast ? lanes : 1)
    }
    /// With 16 channels per vector, the bytes of the input's and the output's pixels × 16 channels
    /// (``channelVectorDepthwise``), after the plane.
    let transposedBytes: Int
    /// Int32 elements one part needs: the plane, and the transposed bytes.
    var count: Int { planeCount + (transposedBytes + 3) / 4 }
    init(_ window: QuantizedWindow, _ weights: QuantizedConvolutionWeights) {
        let (sW, dW, sH, outW, outH) = (window.strideWidth, window.dilationWidth, window.strideHeight, window.outputWidth,
                                        window.outputHeight)
        // Maps up to 8 wide run 16 channels to a vector instead, their input and output moved by
        // byte transposes, where the whole output fits one vector (one packed vector per channel
        // costs more than the channel's sums) and where packed rows would leave lanes idle (rows
        // of 4 or 8 lanes for outputs not 4 or 8 wide): Keras mobilenet_v2's 6x6 maps, 384
        // channels, 26.0 -> 19.0 us; mobilenet_v3_small's 8x8 ones stay on bytes (6.1 against 10.0).
        channelBytes = runsChannelBytes(window, weights)
        bytes = !channelBytes && VBG_TARGET_AVX512BW != 0 && weights.depthwiseQuads != nil && sW >= 1 && dW >= 1 && sW + dW <= 5
            && (outW > 8 || outH * outW > 16 && outW % 4 == 0)
        channelsLast = !channelBytes && !bytes && outW <= 8
        transposedBytes = channelsLast ? (window.inputHeight * window.inputWidth + outH * outW) * lanes
            : channelBytes ? outH * outW * lanes : 0
        let kernelWidth = (weights.kernelWidth - 1) * dW, kernelHeight = (weights.kernelHeight - 1) * window.dilationHeight
        if channelBytes {
            packedRows = 1; packedColumns = 1
            width = max(window.padLeft + window.inputWidth, (outW - 1) * sW + kernelWidth + 1)
        } else if bytes && outW <= 8 {
            // Rows of 4 or 8 lanes (a 4-lane chunk never spans two rows), the plane's width a
            // multiple of 4 (so each chunk's first byte is a word's), and the last chunk's four
            // words within the 16 one load reads: (rows − 1) · stride · width + (columns − 4) · stride ≤ 48.
            let columns = outW <= 4 ? 4 : 8
            let wide = (max(window.padLeft + window.inputWidth, columns * sW + kernelWidth) + 3) / 4 * 4
            var rows = min(lanes / columns, outH)
            while rows > 1 && (rows - 1) * sH * wide + (columns - 4) * sW > 48 { rows -= 1 }
            packedRows = rows; packedColumns = columns; width = wide
        } else {
            packedRows = 1; packedColumns = lanes
            let paddedColumns = channelsLast ? outW : (outW + lanes - 1) / lanes * lanes
            // The last vector of a row at stride 2 loads 32 values (for its 16 even ones).
            width = max(window.padLeft + window.inputWidth, paddedColumns * sW + kernelWidth)
        }
        // Every row a vector reads, those of the rows past the map that a packed vector computes too.
        let computedRows = (outH + packedRows - 1) / packedRows * packedRows
        height = max(window.padTop + window.inputHeight, (computedRows - 1) * sH + kernelHeight + 1)
    }
}

/// Threads take channels; each channel is copied into the thread's ``QuantizedDepthwisePlane`` (in the
/// patch buffer), then 16 output pixels of a row at a time sum their taps in int32 (`vpmulld`,
/// the same integers as the product: bias + Σ patch value · weight) and are requantized.
struct QuantizedDepthwiseParts: PoolJob {
    let convolution: QuantizedConvolution
    func run(part: Int, pool: WorkerPool) {
        let c = convolution, w = c.weights, window = c.window
        let channels = WorkerPool.range(w.outputChannels, part: part, of: pool.threadCount, granularity: 1)
        guard !channels.isEmpty else { return }
        let geometry = QuantizedDepthwisePlane(window, w)
        let plane = c.patches + part * geometry.count
        if geometry.bytes {
            let bytes = UnsafeMutableRawPointer(plane).assumingMemoryBound(to: UInt8.self)
            // The border is the same for every channel: written once, then only the inside.
            bytes.update(repeating: UInt8(truncatingIfNeeded: c.paddingValue), count: geometry.count * 4)
            let windows = ByteWindows(stride: window.strideWidth, dilation: window.dilationWidth,
                                      rowStep: window.strideHeight * geometry.width, rows: geometry.packedRows,
                                      columns: geometry.packedColumns)
            w.depthwiseQuads!.withUnsafeBufferPointer { quads in
                for channel in channels {
                    bytePlane(c, channel: channel, geometry, bytes)
                    byteDepthwise(c, channel: channel, geometry, UnsafePointer(bytes),
                                  quads: quads.baseAddress! + channel * w.kernelHeight * w.quadsPerRow, windows)
                }
            }
            return
        }
        if geometry.channelBytes {
            let blocks = WorkerPool.range((w.outputChannels + lanes - 1) / lanes, part: part, of: pool.threadCount, granularity: 1)
            let bytes = UnsafeMutableRawPointer(plane).assumingMemoryBound(to: UInt8.self)
            for block in blocks { channelByteDepthwise(c, block: block, geometry, bytes) }
            return
        }
        if geometry.channelsLast {
            // Whole blocks of 16 channels per part.
            let blocks = WorkerPool.range((w.outputChannels + lanes - 1) / lanes, part: part, of: pool.threadCount, granularity: 1)
            for block in blocks { channelVectorDepthwise(c, block: block, geometry, plane) }
            return
        }
        for channel in channels {
            depthwisePlane(c, channel: channel, geometry, plane)
            w.depthwiseTaps!.withUnsafeBufferPointer { taps in
                quantizedDepthwise(c, channel: channel, geometry, UnsafePointer(plane), taps: taps.baseAddress! + channel * w.inner)
            }
        }
    }
}

/// Channels 16 · block ..< 16 · block + 16 (the valid ones) together, for maps under 16 pixels
/// wide: the input as a bordered plane of 16-channel int32 vectors per position, then per output
/// pixel bias + Σ tap vector · the taps' 16 weights, requantized with each channel's multiplier,
/// each lane stored into its channel's plane. The same integers as ``quantizedDepthwise``.
@inline(never)
func channelVectorDepthwise(_ c: QuantizedConvolution, block: Int, _ geometry: QuantizedDepthwisePlane,
                            _ plane: UnsafeMutablePointer<Int32>) {
    let w = c.weights, window = c.window, vectors = w.depthwiseVectors!
    let first = block * lanes, valid = min(lanes, w.outputChannels - first)
    let (inH, inW, width) = (window.inputHeight, window.inputWidth, geometry.width), offset = c.patchOffset
    plane.update(repeating: c.paddingValue, count: geometry.planeCount)
    // The block's input as pixels × 16 channels (lanes past `valid` hold stale bytes: their sums
    // are never stored), widened into the plane's inside; the outputs as pixels × 16 channels,
    // transposed back to the channels' planes at the end.
    let inputBytes = UnsafeMutableRawPointer(plane + geometry.planeCount).assumingMemoryBound(to: UInt8.self)
    let outputBytes = inputBytes + inH * inW * lanes
    transposeBytes(c.input.assumingMemoryBound(to: UInt8.self) + first * inH * inW, sourceStride: inH * inW, rows: valid,
                   columns: inH * inW, inputBytes, targetStride: lanes)
    for ih in 0..<inH {
        let row = plane + ((ih + window.padTop) * width + window.padLeft) * lanes
        for iw in 0..<inW {
            let bytes = UnsafeRawPointer(inputBytes + (ih * inW + iw) * lanes).loadUnaligned(as: SIMD16<UInt8>.self)
            let values = w.inputSigned ? vbg_widen_i8(unsafeBitCast(bytes, to: SIMD16<Int8>.self), offset) : vbg_widen_u8(bytes, offset)
            UnsafeMutableRawPointer(row + iw * lanes).storeBytes(of: values, as: IntVector.self)
        }
    }
    let (kH, kW, sH, sW) = (w.kernelHeight, w.kernelWidth, window.strideHeight, window.strideWidth)
    let (dH, dW, outH, outW) = (window.dilationHeight, window.dilationWidth, window.outputHeight, window.outputWidth)
    let low = Float(c.minimum - c.outputZero), high = Float(c.maximum - c.outputZero)
    let padded = vectors.bias.count
    let sums = c.sums?.advanced(channels: 0, elements: 0, rowStride: 1, columnStride: outH * outW)
    vectors.taps.withUnsafeBufferPointer { taps in
        let bias = vectors.bias.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress! + first).loadUnaligned(as: IntVector.self) }
        let multiplier = vectors.multipliers.withUnsafeBufferPointer {
            UnsafeRawPointer($0.baseAddress! + first).loadUnaligned(as: Vector.self)
        }
        let weights = taps.baseAddress! + first
        for oh in 0..<outH {
            for ow in 0..<outW {
                var acc = bias
                for kh in 0..<kH {
                    let row = plane + ((oh * sH + kh * dH) * width + ow * sW) * lanes
                    for kw in 0..<kW {
                        let x = UnsafeRawPointer(row + kw * dW * lanes).loadUnaligned(as: IntVector.self)
                        let weight = UnsafeRawPointer(weights + (kh * kW + kw) * padded).loadUnaligned(as: IntVector.self)
                        acc &+= x &* weight
                    }
                }
                if let sums {
                    sums.store(acc, row: oh * outW + ow, column: first, count: valid, channel: first, lanesAreChannels: true)
                    continue
                }
                let bytes = vbg_requantize(acc, multiplier, low, high, c.outputZero)
                UnsafeMutableRawPointer(outputBytes + (oh * outW + ow) * lanes).storeBytes(of: bytes, as: SIMD16<UInt8>.self)
            }
        }
    }
    guard sums == nil else { return }
    transposeBytes(outputBytes, sourceStride: lanes, rows: outH * outW, columns: valid, c.output + first * outH * outW,
                   targetStride: outH * outW)
}

/// Channel `channel` of the input into `plane`.
@inline(never)
func depthwisePlane(_ c: QuantizedConvolution, channel: Int, _ geometry: QuantizedDepthwisePlane, _ plane: UnsafeMutablePointer<Int32>) {
    let w = c.weights, window = c.window
    let (inH, inW, width) = (window.inputHeight, window.inputWidth, geometry.width), offset = c.patchOffset
    let (top, left, right) = (window.padTop, window.padLeft, geometry.width - window.padLeft - inW)
    // The border only: the rows above and below, and each input row's two ends.
    plane.update(repeating: c.paddingValue, count: top * width)
    (plane + (top + inH) * width).update(repeating: c.paddingValue, count: (geometry.height - top - inH) * width)
    let source = c.input + channel * inH * inW
    for ih in 0..<inH {
        let row = plane + (ih + top) * width, line = source + ih * inW
        row.update(repeating: c.paddingValue, count: left)
        (row + left + inW).update(repeating: c.paddingValue, count: right)
        let out = row + left
        var iw = 0
        while iw + lanes <= inW {
            let values = w.inputSigned ? vbg_widen_i8(line.loadUnaligned(fromByteOffset: iw, as: SIMD16<Int8>.self), offset)
                : vbg_widen_u8(line.loadUnaligned(fromByteOffset: iw, as: SIMD16<UInt8>.self), offset)
            UnsafeMutableRawPointer(out + iw).storeBytes(of: values, as: IntVector.self)
            iw += lanes
        }
        while iw < inW {
            out[iw] = (w.inputSigned ? Int32(line.load(fromByteOffset: iw, as: Int8.self))
                : Int32(line.load(fromByteOffset: iw, as: UInt8.self))) &- offset
            iw += 1
        }
    }
}

@inline(never)
func quantizedDepthwise(_ c: QuantizedConvolution, channel: Int, _ geometry: QuantizedDepthwisePlane, _ plane: UnsafePointer<Int32>,
                        taps: UnsafePointer<Int32>) {
    let w = c.weights, window = c.window
    let (kH, kW, sH, sW) = (w.kernelHeight, w.kernelWidth, window.strideHeight, window.strideWidth)
    let (dH, dW, outH, outW) = (window.dilationHeight, window.dilationWidth, window.outputHeight, window.outputWidth)
    let low = Float(c.minimum - c.outputZero), high = Float(c.maximum - c.outputZero)
    let multiplier = Vector(repeating: w.multipliers[channel]), bias = IntVector(repeating: w.bias[channel])
    let output = c.output + channel * outH * outW
    let sums = c.sums?.advanced(channels: 0, elements: 0, rowStride: outW, columnStride: 1)
    // The stride a constant in each instance, so the load's switch leaves the tap loop.
    switch sW {
    case 1: rows(1)
    case 2: rows(2)
    default: rows(sW)
    }

    @inline(__always) func load(_ p: UnsafePointer<Int32>, _ sW: Int) -> IntVector {
        switch sW {
        case 1: return UnsafeRawPointer(p).loadUnaligned(as: IntVector.self)
        case 2: return vbg_load_even_i32(p)
        default:
            var v = IntVector()
            for lane in 0..<lanes { v[lane] = p[lane * sW] }
            return v
        }
    }
    @inline(__always) func rows(_ sW: Int) {
        for oh in 0..<outH {
            var ow = 0
            while ow < outW {
                var acc = bias
                for kh in 0..<kH {
                    let row = plane + (oh * sH + kh * dH) * geometry.width + ow * sW
                    for kw in 0..<kW {
                        acc &+= load(row + kw * dW, sW) &* IntVector(repeating: taps[kh * kW + kw])
                    }
                }
                if let sums {
                    sums.store(acc, row: channel * outH + oh, column: ow, count: min(lanes, outW - ow), channel: channel,
                               lanesAreChannels: false)
                    ow += lanes
                    continue
                }
                let bytes = vbg_requantize(acc, multiplier, low, high, c.outputZero)
                let out = output + oh * outW + ow
                if ow + lanes <= outW {
                    UnsafeMutableRawPointer(out).storeBytes(of: bytes, as: SIMD16<UInt8>.self)
                } else {
                    for lane in 0..<(outW - ow) { out[lane] = bytes[lane] }
                }
                ow += lanes
            }
        }
    }
}

/// The shuffle that gives each 32-bit lane of a 16-lane vector of outputs four taps' bytes
/// (``vbg_byte_windows``): lane i = 4c + l, output (row r, column k) of the vector's rows of
/// `columns` lanes (`rows` of them), reads the bytes at r · rowStep + k · stride + j · dilation (j = 0...3) from
/// the vector's start; chunk c takes the four input words from its first lane's byte (a multiple
/// of 4: `columns` and `rowStep` are), and byte j of lane l within it is byte l · stride + j ·
/// dilation of those 16.
struct ByteWindows {
    let words: SIMD16<Int32>, bytes: SIMD64<UInt8>
    init(stride: Int, dilation: Int, rowStep: Int, rows: Int, columns: Int) {
        var words = SIMD16<Int32>(), bytes = SIMD64<UInt8>()
        for e in 0..<16 {
            // Lanes past the vector's rows (rows · columns < 16) read the first words; nothing stores them.
            let first = e / 4 * 4, row = first / columns
            words[e] = Int32((row < rows ? row * rowStep + first % columns * stride : 0) / 4 + e % 4)
        }
        for lane in 0..<16 {
            for j in 0..<4 { bytes[4 * lane + j] = UInt8((lane % 4) * stride + j * dilation) }
        }
        self.words = words; self.bytes = bytes
    }
}

/// Channel `channel` of the input into the inside of the byte plane (its border already the
/// padding value): the input's bytes, int8's with the top bit flipped (x + 128, unsigned).
@inline(never)
func bytePlane(_ c: QuantizedConvolution, channel: Int, _ geometry: QuantizedDepthwisePlane, _ plane: UnsafeMutablePointer<UInt8>) {
    let window = c.window
    let (inH, inW, width) = (window.inputHeight, window.inputWidth, geometry.width)
    let source = c.input.assumingMemoryBound(to: UInt8.self) + channel * inH * inW
    let flip: UInt8 = c.weights.inputSigned ? 0x80 : 0
    for ih in 0..<inH {
        let row = plane + (ih + window.padTop) * width + window.padLeft, line = source + ih * inW
        var iw = 0
        while iw + 64 <= inW {
            let v = vbg_flip_bytes64(UnsafeRawPointer(line + iw).loadUnaligned(as: SIMD64<UInt8>.self), flip)
            UnsafeMutableRawPointer(row + iw).storeBytes(of: v, as: SIMD64<UInt8>.self)
            iw += 64
        }
        while iw + 16 <= inW {
            let v = UnsafeRawPointer(line + iw).loadUnaligned(as: SIMD16<UInt8>.self) ^ SIMD16(repeating: flip)
            UnsafeMutableRawPointer(row + iw).storeBytes(of: v, as: SIMD16<UInt8>.self)
            iw += 16
        }
        if iw < inW && VBG_TARGET_AVX512BW != 0 && VBG_TARGET_AVX512VL != 0 {
            // The row's last few: a masked load and a masked store.
            let count = Int32(inW - iw)
            vbg_store_bytes(row + iw, vbg_load_bytes16(line + iw, count) ^ SIMD16(repeating: flip), count)
            iw = inW
        }
        while iw < inW { row[iw] = line[iw] ^ flip; iw += 1 }
    }
}

/// One channel of a depthwise convolution on bytes: 16 outputs at a time (16 pixels of a row, or
/// on narrow maps several rows, ``QuantizedDepthwisePlane/packedRows``), four vectors together;
/// each kernel row's taps four at a time, gathered from the byte plane (``ByteWindows``) and
/// multiplied by the channel's signed weight bytes with ``vbg_quad_dot_add`` (`vpdpbusd`): the
/// same integers as ``quantizedDepthwise`` (bias + Σ patch value · weight, modulo 2^32).
@inline(never)
func byteDepthwise(_ c: QuantizedConvolution, channel: Int, _ geometry: QuantizedDepthwisePlane, _ plane: UnsafePointer<UInt8>,
                   quads: UnsafePointer<Int32>, _ windows: ByteWindows) {
    let w = c.weights, window = c.window
    let (kH, sH, sW) = (w.kernelHeight, window.strideHeight, window.strideWidth)
    let (dH, dW, outH, outW) = (window.dilationHeight, window.dilationWidth, window.outputHeight, window.outputWidth)
    let perRow = w.quadsPerRow, width = geometry.width
    let (rows, columns) = (geometry.packedRows, geometry.packedColumns)
    let low = Float(c.minimum - c.outputZero), high = Float(c.maximum - c.outputZero), finite = w.finiteMultipliers
    let multiplier = Vector(repeating: w.multipliers[channel]), bias = IntVector(repeating: w.bias[channel])
    let output = c.output + channel * outH * outW
    let sums = c.sums?.advanced(channels: 0, elements: 0, rowStride: outW, columnStride: 1)
    let (words, bytes) = (windows.words, windows.bytes)
    // Vectors in order: groups of `rows` output rows, then 16-pixel steps along them.
    let perGroup = (outW + columns - 1) / columns, total = (outH + rows - 1) / rows * perGroup
    @inline(__always) func start(_ n: Int) -> UnsafePointer<UInt8> {
        plane + n / perGroup * rows * sH * width + n % perGroup * columns * sW
    }
    @inline(__always) func finish(_ acc: IntVector, _ n: Int) {
        let firstRow = n / perGroup * rows, ow = n % perGroup * columns
        if rows == 1 {
            let count = min(lanes, outW - ow)
            if let sums {
                sums.store(acc, row: channel * outH + firstRow, column: ow, count: count, channel: channel, lanesAreChannels: false)
                return
            }
            let values = finite ? vbg_requantize_finite(acc, multiplier, low, high, c.outputZero)
                : vbg_requantize(acc, multiplier, low, high, c.outputZero)
            let out = output + firstRow * outW + ow
            if count == lanes { UnsafeMutableRawPointer(out).storeBytes(of: values, as: SIMD16<UInt8>.self) }
            else { vbg_store_bytes(out, values, Int32(count)) }
            return
        }
        let values = sums != nil ? SIMD16<UInt8>() : finite ? vbg_requantize_finite(acc, multiplier, low, high, c.outputZero)
            : vbg_requantize(acc, multiplier, low, high, c.outputZero)
        for r in 0..<min(rows, outH - firstRow) {
            if let sums {
                var row = IntVector()
                for lane in 0..<outW { row[lane] = acc[r * columns + lane] }
                sums.store(row, row: channel * outH + firstRow + r, column: 0, count: outW, channel: channel, lanesAreChannels: false)
            } else {
                vbg_store_lanes(output + (firstRow + r) * outW, values, Int32(r * columns), Int32(outW))
            }
        }
    }
    var n = 0
    while n + 4 <= total {
        let p0 = start(n), p1 = start(n + 1), p2 = start(n + 2), p3 = start(n + 3)
        var a0 = bias, a1 = bias, a2 = bias, a3 = bias
        var offset = 0
        for kh in 0..<kH {
            for q in 0..<perRow {
                let weight = IntVector(repeating: quads[kh * perRow + q]), at = offset + 4 * q * dW
                a0 = vbg_quad_dot_add(a0, vbg_byte_windows(p0 + at, words, bytes), weight)
                a1 = vbg_quad_dot_add(a1, vbg_byte_windows(p1 + at, words, bytes), weight)
                a2 = vbg_quad_dot_add(a2, vbg_byte_windows(p2 + at, words, bytes), weight)
                a3 = vbg_quad_dot_add(a3, vbg_byte_windows(p3 + at, words, bytes), weight)
            }
            offset += dH * width
        }
        finish(a0, n); finish(a1, n + 1); finish(a2, n + 2); finish(a3, n + 3)
        n += 4
    }
    while n < total {
        let p = start(n)
        var acc = bias, offset = 0
        for kh in 0..<kH {
            for q in 0..<perRow {
                acc = vbg_quad_dot_add(acc, vbg_byte_windows(p + offset + 4 * q * dW, words, bytes),
                                       IntVector(repeating: quads[kh * perRow + q]))
            }
            offset += dH * width
        }
        finish(acc, n)
        n += 1
    }
}

/// A quantized matrix product A (rows × inner, 8-bit, run time) · B (constant, shifted by its
/// zero points into ``QuantizedMatrixWeights``) into 8-bit outputs, the multiplier per column.
///
/// Packed as bytes (A's rows unsigned: A, or A + 128 for int8; B's values signed) when B's shifted
/// values fit int8 and A has one zero point: the column bias then carries −(A's zero point minus
/// that shift) · Σ_k B[k][n]. Else as 16-bit pairs of both operands minus their zero points.
package final class QuantizedMatrixWeights {
    package let inner: Int, columns: Int
    package let aSigned: Bool, aZero: [Int32]
    let operands: QuantizedOperands
    /// B packed as ``QuantizedProduct/panels`` of 64 columns (depth element rows each).
    let values: IntegerBuffer<Int32>
    let stride: Int
    let multipliers: [Float]
    /// Whether every multiplier is finite (``QuantizedProduct/finiteMultipliers``).
    let finiteMultipliers: Bool
    /// Per column, padded to `stride`: the bias, and with bytes the activations' remaining shift.
    let columnBias: [Int32]
    /// Σ_k B[k][n] (B minus its zero points) per column: what a change of A's zero point takes
    /// from the sums (``IntegerSumsOutput``).
    package let weightSums: [Int32]
    package var depth: Int { operands.depth(inner) }
    /// What is subtracted from A's values (with pairs, per row when `aZero` is).
    func aOffset(row: Int) -> Int32 {
        operands == .pairs ? aZero[aZero.count == 1 ? 0 : row] : (aSigned ? -128 : 0)
    }

    /// `values` row-major inner × columns (B minus its zero points, within ±255); `aZero`: A's
    /// zero point, one or one per row; `bias`: an int32 per column added to the sums, or nil.
    package init(values: [Int16], inner: Int, columns: Int, multipliers: [Float], aSigned: Bool, aZero: [Int32],
                 bias: [Int32]? = nil, allowBytes: Bool = true) {
        precondition(values.count == inner * columns && multipliers.count == columns, "quantized matrix: size")
        self.inner = inner; self.columns = columns
        self.aSigned = aSigned; self.aZero = aZero
        operands = allowBytes && aZero.count == 1 && values.allSatisfy({ Int16(Int8.min)...Int16(Int8.max) ~= $0 })
            ? .unsignedRows : .pairs
        stride = (columns + quantizedTileColumns - 1) / quantizedTileColumns * quantizedTileColumns
        let depth = operands.depth(inner), per = operands.perElement
        self.values = IntegerBuffer<Int32>(count: depth * stride)
        let raw = UnsafeMutableRawPointer(self.values.baseAddress)
        var columnBias = [Int32](repeating: 0, count: stride), weightSums = [Int32](repeating: 0, count: columns)
        if let bias { for n in 0..<columns { columnBias[n] = bias[n] } }
        let padding = operands == .pairs ? 0 : aZero[0] &- (aSigned ? -128 : 0)
        for k in 0..<inner {
            for n in 0..<columns {
                // Panels of 64 columns (``QuantizedProduct/panels``).
                let tile = quantizedTileColumns
                let value = values[k * columns + n], index = ((n / tile * depth + k / per) * tile + n % tile) * per + k % per
                if operands == .pairs { raw.storeBytes(of: value, toByteOffset: 2 * index, as: Int16.self) }
                else { raw.storeBytes(of: Int8(value), toByteOffset: index, as: Int8.self) }
                columnBias[n] = columnBias[n] &- padding &* Int32(value)
                weightSums[n] = weightSums[n] &+ Int32(value)
            }
        }
        self.columnBias = columnBias
        self.weightSums = weightSums
        self.multipliers = multipliers
        finiteMultipliers = multipliers.allSatisfy { $0.isFinite }
    }
}

/// Int32 elements of A shifted and packed for ``quantizedMatrixProduct(_:pool:)``.
package func quantizedShiftedCount(rows: Int, _ weights: QuantizedMatrixWeights) -> Int { rows * weights.depth }

/// A (`rows` × inner) shifted into `shifted` (``quantizedShiftedCount(rows:_:)`` Int32, packed as
/// the weights say; unused where A's rows already are that: ``quantizedMatrixProduct(_:pool:)``),
/// then the product with `weights`; threads take tiles of columns.
package struct QuantizedMatrixProduct {
    package let a: UnsafeRawPointer, rows: Int
    package let weights: QuantizedMatrixWeights
    let shifted: UnsafeMutablePointer<Int32>
    package let output: UnsafeMutablePointer<UInt8>, outputZero: Int32, minimum: Int32, maximum: Int32
    /// Float32 outputs (Float(sum) · multiplier) instead of bytes, or nil.
    package let floatOutput: UnsafeMutablePointer<Float>?
    /// A's zero point known only at run time (one for every row; nil: the weights' `aZero`), and
    /// the sums or their float epilogue written instead of bytes (output row-major).
    let aZero: Int32?, sums: IntegerSumsOutput?
    /// What is subtracted from A's values in row `row`.
    func aOffset(row: Int) -> Int32 {
        guard let aZero else { return weights.aOffset(row: row) }
        return weights.operands == .pairs ? aZero : (weights.aSigned ? -128 : 0)
    }
    /// - Precondition: `shifted` holds ``quantizedShiftedCount(rows:_:)`` elements; a run-time
    ///   `aZero` comes with `sums`, for weights made with one zero point.
    package init(a: UnsafeRawPointer, rows: Int, weights: QuantizedMatrixWeights,
                 shifted: UnsafeMutableBufferPointer<Int32>, output: UnsafeMutablePointer<UInt8>, outputZero: Int32,
                 minimum: Int32, maximum: Int32, floatOutput: UnsafeMutablePointer<Float>? = nil,
                 aZero: Int32? = nil, sums: IntegerSumsOutput? = nil) {
        precondition(aZero == nil || (sums != nil && weights.aZero.count == 1), "quantized matrix: a run-time zero point needs the sums' output")
        self.floatOutput = floatOutput
        self.aZero = aZero
        var sums = sums
        // The change of zero point the sums are corrected for (none on pairs, which subtract it).
        if let aZero, sums != nil { sums!.zeroShift = weights.operands == .pairs ? 0 : aZero &- weights.aZero[0] }
        self.sums = sums?.advanced(channels: 0, elements: 0, rowStride: weights.columns, columnStride: 1)
        precondition(weights.aZero.count == 1 || weights.aZero.count == rows, "quantized matrix: zero points")
        precondition(shifted.baseAddress != nil && shifted.count >= quantizedShiftedCount(rows: rows, weights),
                     "quantized matrix: \(shifted.count) shifted elements for \(rows) rows of depth \(weights.depth)")
        self.a = a; self.rows = rows
        self.weights = weights; self.shifted = shifted.baseAddress!
        self.output = output; self.outputZero = outputZero; self.minimum = minimum; self.maximum = maximum
    }
}

/// Computes `product`: A's rows as the product's row operand S, then the tiles of columns on the
/// pool's threads. With bytes S is A itself where A's rows already are its packed rows (uint8, a
/// multiple of 4 values: the bytes unsigned, the elements whole, 4-byte aligned), else A copied
/// into `shifted` (``shiftedRows(_:)``).
package func quantizedMatrixProduct(_ product: QuantizedMatrixProduct, pool: WorkerPool) {
    let w = product.weights
    let direct = w.operands != .pairs && !w.aSigned && w.inner % 4 == 0 && Int(bitPattern: product.a) % 4 == 0
    let s = direct ? product.a.assumingMemoryBound(to: Int32.self) : shiftedRows(product)
    pool.run(QuantizedMatrixParts(product: product, s: s))
}

/// A's rows shifted and packed into `product.shifted` (row r at r · depth elements): with bytes
/// each row's `inner` bytes (int8's with the top bit flipped, x + 128) 64 at a time, the
/// padding past them left as it is (the weights' padding is 0); with pairs each value minus the
/// row's zero point as 16 bits.
@inline(never)
func shiftedRows(_ product: QuantizedMatrixProduct) -> UnsafePointer<Int32> {
    let w = product.weights, k = w.inner, perRow = w.depth * w.operands.perElement
    let out = UnsafeMutableRawPointer(product.shifted), a = product.a.assumingMemoryBound(to: UInt8.self)
    if w.operands != .pairs {
        let flip: UInt8 = w.aSigned ? 0x80 : 0
        for r in 0..<product.rows {
            let source = a + r * k, target = out.assumingMemoryBound(to: UInt8.self) + r * perRow
            var p = 0
            while p + 64 <= k {
                let v = vbg_flip_bytes64(UnsafeRawPointer(source + p).loadUnaligned(as: SIMD64<UInt8>.self), flip)
                UnsafeMutableRawPointer(target + p).storeBytes(of: v, as: SIMD64<UInt8>.self)
                p += 64
            }
            if p < k { vbg_store_bytes64(target + p, vbg_flip_bytes64(vbg_load_bytes64(source + p, Int32(k - p)), flip), Int32(k - p)) }
        }
        return UnsafePointer(product.shifted)
    }
    let signed = w.aSigned
    for r in 0..<product.rows {
        let offset = product.aOffset(row: r)
        for p in 0..<k {
            let byte = a[r * k + p]
            let value = (signed ? Int32(Int8(bitPattern: byte)) : Int32(byte)) &- offset
            out.storeBytes(of: Int16(truncatingIfNeeded: value), toByteOffset: 2 * (r * perRow + p), as: Int16.self)
        }
    }
    return UnsafePointer(product.shifted)
}

struct QuantizedMatrixParts: PoolJob {
    let product: QuantizedMatrixProduct
    /// The product's row operand: A shifted and packed (``quantizedMatrixProduct(_:pool:)``).
    let s: UnsafePointer<Int32>
    func run(part: Int, pool: WorkerPool) {
        let p = product, w = p.weights
        let columns = WorkerPool.range(w.columns, part: part, of: pool.threadCount, granularity: quantizedTileColumns)
        guard !columns.isEmpty else { return }
        w.multipliers.withUnsafeBufferPointer { multipliers in
            w.columnBias.withUnsafeBufferPointer { columnBias in
                quantizedProduct(QuantizedProduct(
                    s: s, rows: p.rows, depth: w.depth, operands: w.operands,
                    v: UnsafePointer(w.values.baseAddress), columns: w.columns, columnStride: w.stride, bias: nil,
                    output: p.output, outputStride: w.columns, multipliers: multipliers.baseAddress!, perColumn: true,
                    zeroPoint: p.outputZero, minimum: p.minimum, maximum: p.maximum,
                    columnBias: columnBias.baseAddress!, floatOutput: p.floatOutput, sums: p.sums, panels: true,
                    finiteMultipliers: w.finiteMultipliers), columns: columns)
            }
        }
    }
}
