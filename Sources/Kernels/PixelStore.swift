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

    /// Offset of lane `lane` within a plane of `layout`.
    @inline(always)
    func laneOffset(_ lane: Int, layout: PlaneLayout) -> Int {
        if contiguous { return offset + lane }
        let p = pixel + lane
        let y = p / layout.width
        return layout.origin + y * layout.rowStride + (p - y * layout.width)
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
            for lane in 0..<address.count { plane[address.laneOffset(lane, layout: layout)] = v[lane] }
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
        for lane in 0..<address.count { v[lane] = plane[address.laneOffset(lane, layout: layout)] }
        return v
    }
}
