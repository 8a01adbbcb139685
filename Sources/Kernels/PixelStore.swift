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
