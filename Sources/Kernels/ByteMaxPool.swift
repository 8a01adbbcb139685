// MaxPool of 8-bit planes (uint8 or int8, compared as their type): the largest value among each
// window's taps inside the input, whose positions the caller lists per output row and column.

/// The input rows (or columns) of each output row's (column's) window taps inside the input,
/// flattened: output index i's taps are `taps[starts[i]..<starts[i + 1]]`.
package struct PoolTaps: Sendable {
    package let starts: [Int], taps: [Int]
    /// The taps of `output` windows starting at i · stride − padBegin, `kernel` taps `dilation`
    /// apart, inside 0..<input; nil if some window has none.
    package init?(input: Int, output: Int, kernel: Int, stride: Int, dilation: Int, padBegin: Int) {
        var starts = [0], taps: [Int] = []
        for o in 0..<output {
            for k in 0..<kernel {
                let i = o * stride - padBegin + k * dilation
                if i >= 0 && i < input { taps.append(i) }
            }
            guard taps.count > starts.last! else { return nil }
            starts.append(taps.count)
        }
        self.starts = starts; self.taps = taps
    }
}

/// `planes` planes of `inputPlane` values (rows of `inputWidth`) of `x` max-pooled into `y`, int8
/// when `signed`, else uint8.
package func byteMaxPool(_ x: UnsafeRawPointer, _ y: UnsafeMutableRawPointer, signed: Bool, planes: Int, inputPlane: Int,
                         inputWidth: Int, rows: PoolTaps, columns: PoolTaps) {
    // Specialised here: a generic call from another module would compare through witness tables.
    if signed {
        byteMaxPool(x.assumingMemoryBound(to: Int8.self), y.assumingMemoryBound(to: Int8.self), planes: planes,
                    inputPlane: inputPlane, inputWidth: inputWidth, rows: rows, columns: columns)
    } else {
        byteMaxPool(x.assumingMemoryBound(to: UInt8.self), y.assumingMemoryBound(to: UInt8.self), planes: planes,
                    inputPlane: inputPlane, inputWidth: inputWidth, rows: rows, columns: columns)
    }
}

@inline(__always)
func byteMaxPool<T: FixedWidthInteger>(_ x: UnsafePointer<T>, _ y: UnsafeMutablePointer<T>, planes: Int,
                                       inputPlane: Int, inputWidth: Int, rows: PoolTaps, columns: PoolTaps) {
    let outH = rows.starts.count - 1, outW = columns.starts.count - 1
    rows.starts.withUnsafeBufferPointer { rowStarts in
    rows.taps.withUnsafeBufferPointer { rowTaps in
    columns.starts.withUnsafeBufferPointer { columnStarts in
    columns.taps.withUnsafeBufferPointer { columnTaps in
        var out = y
        for plane in 0..<planes {
            let source = x + plane * inputPlane
            for oh in 0..<outH {
                for ow in 0..<outW {
                    var maximum = T.min
                    for r in rowStarts[oh]..<rowStarts[oh + 1] {
                        let line = source + rowTaps[r] * inputWidth
                        for c in columnStarts[ow]..<columnStarts[ow + 1] { maximum = max(maximum, line[columnTaps[c]]) }
                    }
                    out[ow] = maximum
                }
                out += outW
            }
        }
    }
    }
    }
    }
}
