import TargetFeatures

// MaxPool of 8-bit planes (uint8 or int8, compared as their type): the largest value among each
// window's taps inside the input.

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
/// when `signed`, else uint8: the input rows of each output row's window listed in `rows`, each
/// output column's window `kernel` taps `dilation` apart from ow · stride − padBegin. Per output
/// row, the maximum of its window's input rows (64, then 16 values at a time) into the bordered
/// row `line` (the type's minimum in the border), then each output the maximum of its window's
/// taps of that row (16 at a time at strides 1 and 2). `line` holds
/// ``bytePoolLineCount(inputWidth:outputWidth:kernel:stride:dilation:padBegin:)`` bytes. The
/// maxima are those of the taps inside the input: every window has one (`PoolTaps`), and the
/// border's value is no larger than any.
package func byteMaxPool(_ x: UnsafeRawPointer, _ y: UnsafeMutableRawPointer, signed: Bool, planes: Int, inputPlane: Int,
                         inputWidth: Int, rows: PoolTaps, outputWidth: Int, kernel: Int, stride: Int, dilation: Int, padBegin: Int,
                         line: UnsafeMutableRawPointer) {
    if signed {
        rowMaxPool(x.assumingMemoryBound(to: Int8.self), y.assumingMemoryBound(to: Int8.self), planes: planes, inputPlane: inputPlane,
                   inputWidth: inputWidth, rows: rows, outputWidth: outputWidth, kernel: kernel, stride: stride, dilation: dilation,
                   padBegin: padBegin, line: line.assumingMemoryBound(to: Int8.self))
    } else {
        rowMaxPool(x.assumingMemoryBound(to: UInt8.self), y.assumingMemoryBound(to: UInt8.self), planes: planes, inputPlane: inputPlane,
                   inputWidth: inputWidth, rows: rows, outputWidth: outputWidth, kernel: kernel, stride: stride, dilation: dilation,
                   padBegin: padBegin, line: line.assumingMemoryBound(to: UInt8.self))
    }
}

/// Bytes of the bordered row of ``byteMaxPool(_:_:signed:planes:inputPlane:inputWidth:rows:outputWidth:kernel:stride:dilation:padBegin:line:)``:
/// every tap of every window, and 64 readable past the last.
package func bytePoolLineCount(inputWidth: Int, outputWidth: Int, kernel: Int, stride: Int, dilation: Int, padBegin: Int) -> Int {
    max(padBegin + inputWidth, (outputWidth - 1) * stride + (kernel - 1) * dilation + 1) + 64
}

@inline(__always)
func rowMaxPool<T: FixedWidthInteger & SIMDScalar>(_ x: UnsafePointer<T>, _ y: UnsafeMutablePointer<T>, planes: Int, inputPlane: Int,
                                                 inputWidth: Int, rows: PoolTaps, outputWidth: Int, kernel: Int, stride: Int,
                                                 dilation: Int, padBegin: Int, line: UnsafeMutablePointer<T>) {
    let outH = rows.starts.count - 1, outW = outputWidth, inW = inputWidth
    let count = bytePoolLineCount(inputWidth: inW, outputWidth: outW, kernel: kernel, stride: stride, dilation: dilation, padBegin: padBegin)
    line.update(repeating: T.min, count: count)
    let inside = line + padBegin
    rows.starts.withUnsafeBufferPointer { rowStarts in
    rows.taps.withUnsafeBufferPointer { rowTaps in
        var out = y
        for plane in 0..<planes {
            let source = x + plane * inputPlane
            for oh in 0..<outH {
                let first = rowStarts[oh], last = rowStarts[oh + 1]
                var iw = 0
                while iw + 64 <= inW {
                    var m = UnsafeRawPointer(source + rowTaps[first] * inW + iw).loadUnaligned(as: SIMD64<T>.self)
                    for r in (first + 1)..<last {
                        m = pointwiseMax(m, UnsafeRawPointer(source + rowTaps[r] * inW + iw).loadUnaligned(as: SIMD64<T>.self))
                    }
                    UnsafeMutableRawPointer(inside + iw).storeBytes(of: m, as: SIMD64<T>.self)
                    iw += 64
                }
                while iw + 16 <= inW {
                    var m = UnsafeRawPointer(source + rowTaps[first] * inW + iw).loadUnaligned(as: SIMD16<T>.self)
                    for r in (first + 1)..<last {
                        m = pointwiseMax(m, UnsafeRawPointer(source + rowTaps[r] * inW + iw).loadUnaligned(as: SIMD16<T>.self))
                    }
                    UnsafeMutableRawPointer(inside + iw).storeBytes(of: m, as: SIMD16<T>.self)
                    iw += 16
                }
                while iw < inW {
                    var m = source[rowTaps[first] * inW + iw]
                    for r in (first + 1)..<last { m = max(m, source[rowTaps[r] * inW + iw]) }
                    inside[iw] = m
                    iw += 1
                }
                var ow = 0
                if stride == 1 {
                    while ow < outW {
                        var m = UnsafeRawPointer(line + ow).loadUnaligned(as: SIMD16<T>.self)
                        for k in 1..<kernel {
                            m = pointwiseMax(m, UnsafeRawPointer(line + ow + k * dilation).loadUnaligned(as: SIMD16<T>.self))
                        }
                        if ow + 16 <= outW { UnsafeMutableRawPointer(out + ow).storeBytes(of: m, as: SIMD16<T>.self) }
                        else { for lane in 0..<(outW - ow) { out[ow + lane] = m[lane] } }
                        ow += 16
                    }
                } else if stride == 2 {
                    // 16 outputs from the even bytes of each tap's 32 (`vbg_load_even_bytes`).
                    while ow + 16 <= outW {
                        let window = UnsafeRawPointer(line + 2 * ow).assumingMemoryBound(to: UInt8.self)
                        var m = unsafeBitCast(vbg_load_even_bytes(window), to: SIMD16<T>.self)
                        for k in 1..<kernel {
                            m = pointwiseMax(m, unsafeBitCast(vbg_load_even_bytes(window + k * dilation), to: SIMD16<T>.self))
                        }
                        UnsafeMutableRawPointer(out + ow).storeBytes(of: m, as: SIMD16<T>.self)
                        ow += 16
                    }
                }
                // The outputs no vector took: other strides, and stride 2's last few.
                while ow < outW {
                    let window = line + ow * stride
                    var m = window[0]
                    for k in 1..<kernel { m = max(m, window[k * dilation]) }
                    out[ow] = m
                    ow += 1
                }
                out += outW
            }
        }
    }
    }
}
