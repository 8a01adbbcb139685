import TargetFeatures

// Writing a 16-pixel chunk of a channel given by its dense pixel index into any plane layout.

/// Where a chunk of up to 16 consecutive pixels (in dense numbering) lands in a layout.
struct ChunkAddress {
    /// Offset of the chunk's first pixel within a plane, when the chunk lies within one row.
    var offset: Int
    /// Whether all `count` pixels are consecutive in memory.
    var contiguous: Bool
    var pixel: Int
    var count: Int

    @inline(always)
    init(pixel: Int, count: Int, layout: PlaneLayout) {
        self.pixel = pixel
        self.count = count
        if layout.isDense {
            offset = pixel
            contiguous = true
        } else {
            let y = pixel / layout.width, x = pixel - y * layout.width
            offset = layout.origin + y * layout.rowStride + x
            contiguous = x + count <= layout.width
        }
    }
}

extension FeatureMap {
    /// Stores the first `address.count` lanes of `v` to `channel`.
    @inline(always)
    func store(_ v: Vector, channel: Int, at address: ChunkAddress) {
        let plane = base + channel * layout.planeStride
        if address.contiguous {
            Kernels.store(v, plane + address.offset, count: address.count)
        } else {
            var copy = v
            storeAcrossRows(&copy, plane, at: address)
        }
    }

    /// The lanes of a chunk that crosses row ends, row segment by row segment (one division for
    /// the chunk, not one per lane).
    @inline(never)
    func storeAcrossRows(_ v: inout Vector, _ plane: UnsafeMutablePointer<Float>, at address: ChunkAddress) {
        let w = layout.width
        let y = address.pixel / w
        var x = address.pixel - y * w
        var row = plane + layout.origin + y * layout.rowStride
        for lane in 0..<address.count {
            row[x] = v[lane]
            x += 1
            if x == w { x = 0; row += layout.rowStride }
        }
    }

    /// Loads the first `address.count` lanes of `channel` (zero beyond).
    @inline(always)
    func load(channel: Int, at address: ChunkAddress) -> Vector {
        let plane = base + channel * layout.planeStride
        if address.contiguous {
            return Kernels.load(UnsafePointer(plane + address.offset), count: address.count)
        }
        var v = Vector()
        loadAcrossRows(&v, UnsafePointer(plane), at: address)
        return v
    }

    /// The lanes of a chunk that crosses row ends, as ``storeAcrossRows(_:_:at:)`` walks them.
    @inline(never)
    func loadAcrossRows(_ v: inout Vector, _ plane: UnsafePointer<Float>, at address: ChunkAddress) {
        let w = layout.width
        let y = address.pixel / w
        var x = address.pixel - y * w
        var row = plane + layout.origin + y * layout.rowStride
        for lane in 0..<address.count {
            v[lane] = row[x]
            x += 1
            if x == w { x = 0; row += layout.rowStride }
        }
    }
}

/// A run of up to 16 consecutive pixels of a plane (row-major over its interior) as it lies in
/// a layout: up to four pieces, each the lanes of a mask at an offset from the plane's start
/// (lane i of a piece at offset + i), one per row the run touches.
struct ChunkPieces {
    var o0 = 0, o1 = 0, o2 = 0, o3 = 0
    var m0: UInt16 = 0, m1: UInt16 = 0, m2: UInt16 = 0, m3: UInt16 = 0

    /// Whether every run of 16 pixels of `layout` is at most four pieces: dense planes (one), or
    /// rows of at least 5 pixels.
    static func fits(_ layout: PlaneLayout) -> Bool { layout.isDense || layout.width >= 5 }

    /// No pixels (a vector a chunk does not have).
    init() {}

    /// Pixels `pixel ..< pixel + count` (count 1…16).
    @inline(always) init(_ layout: PlaneLayout, pixel: Int, count: Int) {
        let all: UInt16 = count == lanes ? 0xFFFF : UInt16((1 << count) - 1)
        if layout.isDense {
            o0 = pixel
            m0 = all
            return
        }
        var lane = 0, p = pixel, piece = 0
        while lane < count {
            let y = p / layout.width, x = p % layout.width
            let run = min(layout.width - x, count - lane)
            // The vector placed so that its lane `lane` lands on (y, x).
            let offset = layout.origin + y * layout.rowStride + x - lane
            let mask = UInt16(truncatingIfNeeded: ((1 << run) - 1) << lane) & all
            switch piece {
            case 0: (o0, m0) = (offset, mask)
            case 1: (o1, m1) = (offset, mask)
            case 2: (o2, m2) = (offset, mask)
            default: (o3, m3) = (offset, mask)
            }
            piece += 1
            lane += run
            p += run
        }
    }

    @inline(always) func store(_ v: Vector, _ plane: UnsafeMutablePointer<Float>) {
        vbg_store_masked(plane + o0, v, m0)
        if m1 != 0 { vbg_store_masked(plane + o1, v, m1) }
        if m2 != 0 { vbg_store_masked(plane + o2, v, m2) }
        if m3 != 0 { vbg_store_masked(plane + o3, v, m3) }
    }

    @inline(always) func load(_ plane: UnsafePointer<Float>) -> Vector {
        var v = vbg_load_masked(plane + o0, Vector(), m0)
        if m1 != 0 { v = vbg_load_masked(plane + o1, v, m1) }
        if m2 != 0 { v = vbg_load_masked(plane + o2, v, m2) }
        if m3 != 0 { v = vbg_load_masked(plane + o3, v, m3) }
        return v
    }
}
