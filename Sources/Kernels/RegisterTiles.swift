// Register tiles: a row of pixels held in SIMD16 fields, so a tile of 8 such rows (one per
// output channel) stays in registers.

protocol PixelRow {
    /// Pixels in the row (a multiple of 16).
    static var width: Int { get }
    init(repeating value: Float)
    init(_ p: UnsafePointer<Float>)
    mutating func accumulate(_ weight: Float, _ x: Self)
    /// Adds `weight · x` lane by lane (`weight` already broadcast).
    mutating func accumulate(broadcast weight: Vector, _ x: Self)
    /// Vector `index` of the row (0 ..< width / 16).
    func vector(_ index: Int) -> Vector
}

/// 48 pixels in three vectors: 8 rows of it are 24 accumulators, leaving registers for the
/// three input vectors of an AVX-512 register file.
struct Row48: PixelRow {
    var a, b, c: Vector
    static var width: Int { 48 }
    @inline(always) init(repeating value: Float) { a = Vector(repeating: value); b = a; c = a }
    @inline(always) init(_ p: UnsafePointer<Float>) { a = load(p); b = load(p + 16); c = load(p + 32) }
    @inline(always) mutating func accumulate(_ weight: Float, _ x: Row48) {
        a = multiplyAdd(a, weight, x.a)
        b = multiplyAdd(b, weight, x.b)
        c = multiplyAdd(c, weight, x.c)
    }
    @inline(always) mutating func accumulate(broadcast weight: Vector, _ x: Row48) {
        a = multiplyAdd(a, weight, x.a)
        b = multiplyAdd(b, weight, x.b)
        c = multiplyAdd(c, weight, x.c)
    }
    @inline(always) func vector(_ index: Int) -> Vector {
        switch index {
        case 0: a
        case 1: b
        default: c
        }
    }
}

/// 32 pixels in two vectors.
struct Row32: PixelRow {
    var a, b: Vector
    static var width: Int { 32 }
    @inline(always) init(repeating value: Float) { a = Vector(repeating: value); b = a }
    @inline(always) init(_ p: UnsafePointer<Float>) { a = load(p); b = load(p + 16) }
    @inline(always) mutating func accumulate(_ weight: Float, _ x: Row32) {
        a = multiplyAdd(a, weight, x.a)
        b = multiplyAdd(b, weight, x.b)
    }
    @inline(always) mutating func accumulate(broadcast weight: Vector, _ x: Row32) {
        a = multiplyAdd(a, weight, x.a)
        b = multiplyAdd(b, weight, x.b)
    }
    @inline(always) func vector(_ index: Int) -> Vector { index == 0 ? a : b }
}

/// 16 pixels in one vector.
struct Row16: PixelRow {
    var a: Vector
    static var width: Int { 16 }
    @inline(always) init(repeating value: Float) { a = Vector(repeating: value) }
    @inline(always) init(_ p: UnsafePointer<Float>) { a = load(p) }
    @inline(always) mutating func accumulate(_ weight: Float, _ x: Row16) { a = multiplyAdd(a, weight, x.a) }
    @inline(always) mutating func accumulate(broadcast weight: Vector, _ x: Row16) { a = multiplyAdd(a, weight, x.a) }
    @inline(always) func vector(_ index: Int) -> Vector { a }
}

/// A register tile of `channels` output channels × one pixel row, whose weights for one input
/// channel are `channels` consecutive packed weights (a slice of an 8-channel packed group,
/// ``packedWeightLanes`` floats each).
protocol ChannelTile {
    associatedtype Row: PixelRow
    static var channels: Int { get }
    init(bias: UnsafePointer<Float>)
    mutating func accumulate(_ w: UnsafePointer<Float>, _ x: Row)
    func spill(to p: UnsafeMutablePointer<Float>)
    func forEachRow<S: TileRowSink>(_ rows: Int, _ sink: S) where S.Row == Row
    func forEachRow(_ rows: Int, _ body: (Int, Row) -> Void)
}

/// Eight output channels × one pixel row.
struct Tile8<Row: PixelRow>: ChannelTile {
    static var channels: Int { 8 }
    var r0, r1, r2, r3, r4, r5, r6, r7: Row

    /// Each row starts at its channel's bias.
    @inline(always) init(bias: UnsafePointer<Float>) {
        r0 = Row(repeating: bias[0]); r1 = Row(repeating: bias[1])
        r2 = Row(repeating: bias[2]); r3 = Row(repeating: bias[3])
        r4 = Row(repeating: bias[4]); r5 = Row(repeating: bias[5])
        r6 = Row(repeating: bias[6]); r7 = Row(repeating: bias[7])
    }

    /// Adds packed weight r · x to row r.
    @inline(always) mutating func accumulate(_ w: UnsafePointer<Float>, _ x: Row) {
        let l = packedWeightLanes
        r0.accumulate(w[0], x); r1.accumulate(w[l], x); r2.accumulate(w[2 * l], x); r3.accumulate(w[3 * l], x)
        r4.accumulate(w[4 * l], x); r5.accumulate(w[5 * l], x); r6.accumulate(w[6 * l], x); r7.accumulate(w[7 * l], x)
    }

    /// Stores every row's vectors to `p`, rows `Row.width` floats apart.
    @inline(always) func spill(to p: UnsafeMutablePointer<Float>) {
        forEachRow(8, ActivatedStore<Identity, Row>(base: p, planeStride: Row.width, o0: 0, o1: lanes, o2: 2 * lanes))
    }

    /// Hands the first `rows` rows to `sink` (a struct, not a closure: a closure called from
    /// eight places is left out of line and each row then crosses the call as xmm pieces).
    @inline(always) func forEachRow<S: TileRowSink>(_ rows: Int, _ sink: S) where S.Row == Row {
        sink.take(0, r0)
        if rows > 1 { sink.take(1, r1) }
        if rows > 2 { sink.take(2, r2) }
        if rows > 3 { sink.take(3, r3) }
        if rows > 4 { sink.take(4, r4) }
        if rows > 5 { sink.take(5, r5) }
        if rows > 6 { sink.take(6, r6) }
        if rows > 7 { sink.take(7, r7) }
    }

    /// Calls `body(r, row r)` for the first `rows` rows.
    @inline(always) func forEachRow(_ rows: Int, _ body: (Int, Row) -> Void) {
        body(0, r0)
        if rows > 1 { body(1, r1) }
        if rows > 2 { body(2, r2) }
        if rows > 3 { body(3, r3) }
        if rows > 4 { body(4, r4) }
        if rows > 5 { body(5, r5) }
        if rows > 6 { body(6, r6) }
        if rows > 7 { body(7, r7) }
    }
}

/// Two output channels × one pixel row: the tile for 16 XMM registers (``narrowRegisterFile``),
/// where `Tile2<Row16>` is 8 accumulators and leaves room for the four input registers, the
/// broadcast weight and a product.
struct Tile2<Row: PixelRow>: ChannelTile {
    var r0, r1: Row
    static var channels: Int { 2 }

    @inline(always) init(bias: UnsafePointer<Float>) {
        r0 = Row(repeating: bias[0]); r1 = Row(repeating: bias[1])
    }

    @inline(always) mutating func accumulate(_ w: UnsafePointer<Float>, _ x: Row) {
        r0.accumulate(broadcast: packedWeight(w), x); r1.accumulate(broadcast: packedWeight(w + packedWeightLanes), x)
    }

    @inline(always) func spill(to p: UnsafeMutablePointer<Float>) {
        forEachRow(2, ActivatedStore<Identity, Row>(base: p, planeStride: Row.width, o0: 0, o1: lanes, o2: 2 * lanes))
    }

    @inline(always) func forEachRow<S: TileRowSink>(_ rows: Int, _ sink: S) where S.Row == Row {
        sink.take(0, r0)
        if rows > 1 { sink.take(1, r1) }
    }

    @inline(always) func forEachRow(_ rows: Int, _ body: (Int, Row) -> Void) {
        body(0, r0)
        if rows > 1 { body(1, r1) }
    }
}

/// What a register tile does with each row (see `Tile8.forEachRow(_:_:)`).
protocol TileRowSink {
    associatedtype Row: PixelRow
    func take(_ r: Int, _ row: Row)
}

/// Row r activated and stored to plane `base + r·planeStride`: its vector v at offset o_v (the
/// vectors of a row may lie in different rows of a padded plane), plus the residual at the same
/// place of `residual`'s planes when there is one.
struct ActivatedStore<A: ActivationFunction, Row: PixelRow>: TileRowSink {
    var base: UnsafeMutablePointer<Float>
    var planeStride: Int
    var o0: Int, o1: Int, o2: Int
    var residual: UnsafePointer<Float>? = nil
    var residualPlane: Int = 0
    var r0: Int = 0, r1: Int = 0, r2: Int = 0

    @inline(always) func take(_ r: Int, _ row: Row) {
        let plane = base + r &* planeStride
        let vectors = Row.width / lanes
        if let residual {
            let add = residual + r &* residualPlane
            store(A.apply(row.vector(0)) + load(add + r0), plane + o0)
            if vectors > 1 { store(A.apply(row.vector(1)) + load(add + r1), plane + o1) }
            if vectors > 2 { store(A.apply(row.vector(2)) + load(add + r2), plane + o2) }
        } else {
            store(A.apply(row.vector(0)), plane + o0)
            if vectors > 1 { store(A.apply(row.vector(1)), plane + o1) }
            if vectors > 2 { store(A.apply(row.vector(2)), plane + o2) }
        }
    }
}

/// ``ActivatedStore`` with a residual whose sum is raised to `floor` (0: a Relu after the
/// residual Add). Kept apart from ``ActivatedStore``, which every 1x1 without a rectified sum
/// uses, so that store stays as small as it is.
struct RectifiedSumStore<A: ActivationFunction, Row: PixelRow>: TileRowSink {
    var base: UnsafeMutablePointer<Float>
    var planeStride: Int
    var o0: Int, o1: Int, o2: Int
    var residual: UnsafePointer<Float>
    var residualPlane: Int
    var r0: Int, r1: Int, r2: Int
    var floor: Float

    @inline(always) func take(_ r: Int, _ row: Row) {
        let plane = base + r &* planeStride
        let vectors = Row.width / lanes
        let add = residual + r &* residualPlane
        store(raised(A.apply(row.vector(0)) + load(add + r0), to: floor), plane + o0)
        if vectors > 1 { store(raised(A.apply(row.vector(1)) + load(add + r1), to: floor), plane + o1) }
        if vectors > 2 { store(raised(A.apply(row.vector(2)) + load(add + r2), to: floor), plane + o2) }
    }
}

/// The first `count` (< 16) lanes of one-vector rows, activated and stored.
struct PartialStore<A: ActivationFunction>: TileRowSink {
    var base: UnsafeMutablePointer<Float>
    var planeStride: Int
    var count: Int
    @inline(always) func take(_ r: Int, _ row: Row16) {
        store(A.apply(row.a), base + r &* planeStride, count: count)
    }
}
