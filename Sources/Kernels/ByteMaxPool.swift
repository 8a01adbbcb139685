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
/// border's value is no larger than any. Rows and outputs of at most 64 and windows of up to 3
/// taps along the row (AVX512-VBMI builds) stay in registers instead (``registerRowMaxPool``).
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

/// The larger of each lane's values as `T` compares them (`vpmaxub` / `vpmaxsb`): the generic
/// `pointwiseMax` is a lane loop (ResNet's 3x3 stride-2 pool on 64 planes of 112x112, 1574 us).
@inline(__always) func byteMax<T: FixedWidthInteger & SIMDScalar>(_ a: SIMD16<T>, _ b: SIMD16<T>) -> SIMD16<T> {
    let x = unsafeBitCast(a, to: SIMD16<UInt8>.self), y = unsafeBitCast(b, to: SIMD16<UInt8>.self)
    return unsafeBitCast(T.isSigned ? vbg_max_i8x16(x, y) : vbg_max_u8x16(x, y), to: SIMD16<T>.self)
}

@inline(__always) func byteMax<T: FixedWidthInteger & SIMDScalar>(_ a: SIMD64<T>, _ b: SIMD64<T>) -> SIMD64<T> {
    let x = unsafeBitCast(a, to: SIMD64<UInt8>.self), y = unsafeBitCast(b, to: SIMD64<UInt8>.self)
    return unsafeBitCast(T.isSigned ? vbg_max_i8x64(x, y) : vbg_max_u8x64(x, y), to: SIMD64<T>.self)
}

@inline(__always)
func rowMaxPool<T: FixedWidthInteger & SIMDScalar>(_ x: UnsafePointer<T>, _ y: UnsafeMutablePointer<T>, planes: Int, inputPlane: Int,
                                                 inputWidth: Int, rows: PoolTaps, outputWidth: Int, kernel: Int, stride: Int,
                                                 dilation: Int, padBegin: Int, line: UnsafeMutablePointer<T>) {
    let outH = rows.starts.count - 1, outW = outputWidth, inW = inputWidth
    if byteGatherIsFast && inW <= 64 && outW <= 64 && kernel <= 3 && stride <= 64 && dilation <= 64 && padBegin <= 64 {
        registerRowMaxPool(x, y, planes: planes, inputPlane: inputPlane, inputWidth: inW, rows: rows, outputWidth: outW, kernel: kernel,
                           stride: stride, dilation: dilation, padBegin: padBegin)
        return
    }
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
                        m = byteMax(m, UnsafeRawPointer(source + rowTaps[r] * inW + iw).loadUnaligned(as: SIMD64<T>.self))
                    }
                    UnsafeMutableRawPointer(inside + iw).storeBytes(of: m, as: SIMD64<T>.self)
                    iw += 64
                }
                while iw + 16 <= inW {
                    var m = UnsafeRawPointer(source + rowTaps[first] * inW + iw).loadUnaligned(as: SIMD16<T>.self)
                    for r in (first + 1)..<last {
                        m = byteMax(m, UnsafeRawPointer(source + rowTaps[r] * inW + iw).loadUnaligned(as: SIMD16<T>.self))
                    }
                    UnsafeMutableRawPointer(inside + iw).storeBytes(of: m, as: SIMD16<T>.self)
                    iw += 16
                }
                if iw < inW && VBG_TARGET_AVX512BW != 0 && VBG_TARGET_AVX512VL != 0 {
                    // The row's last few: masked loads and a masked store.
                    let count = Int32(inW - iw)
                    @inline(__always) func tail(_ r: Int) -> SIMD16<T> {
                        unsafeBitCast(vbg_load_bytes16(UnsafeRawPointer(source + rowTaps[r] * inW + iw).assumingMemoryBound(to: UInt8.self),
                                                       count), to: SIMD16<T>.self)
                    }
                    var m = tail(first)
                    for r in (first + 1)..<last { m = byteMax(m, tail(r)) }
                    vbg_store_bytes(UnsafeMutableRawPointer(inside + iw).assumingMemoryBound(to: UInt8.self),
                                    unsafeBitCast(m, to: SIMD16<UInt8>.self), count)
                    iw = inW
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
                            m = byteMax(m, UnsafeRawPointer(line + ow + k * dilation).loadUnaligned(as: SIMD16<T>.self))
                        }
                        if ow + 16 <= outW { UnsafeMutableRawPointer(out + ow).storeBytes(of: m, as: SIMD16<T>.self) }
                        else { storeFirst(m, out + ow, outW - ow) }
                        ow += 16
                    }
                } else if stride == 2 {
                    // 16 outputs from the even bytes of each tap's 32 (`vbg_load_even_bytes`).
                    while ow + 16 <= outW {
                        let window = UnsafeRawPointer(line + 2 * ow).assumingMemoryBound(to: UInt8.self)
                        var m = unsafeBitCast(vbg_load_even_bytes(window), to: SIMD16<T>.self)
                        for k in 1..<kernel {
                            m = byteMax(m, unsafeBitCast(vbg_load_even_bytes(window + k * dilation), to: SIMD16<T>.self))
                        }
                        UnsafeMutableRawPointer(out + ow).storeBytes(of: m, as: SIMD16<T>.self)
                        ow += 16
                    }
                    if ow < outW && VBG_TARGET_AVX512BW != 0 && VBG_TARGET_AVX512VL != 0 {
                        // The last few: the same vectors (the line has 64 readable bytes past its
                        // last tap), a masked store.
                        let window = UnsafeRawPointer(line + 2 * ow).assumingMemoryBound(to: UInt8.self)
                        var m = unsafeBitCast(vbg_load_even_bytes(window), to: SIMD16<T>.self)
                        for k in 1..<kernel {
                            m = byteMax(m, unsafeBitCast(vbg_load_even_bytes(window + k * dilation), to: SIMD16<T>.self))
                        }
                        storeFirst(m, out + ow, outW - ow)
                        ow = outW
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

/// ``rowMaxPool`` for rows and outputs of at most 64 and windows of at most 3 taps along the row
/// (AVX512-VBMI): per output row, the maximum
/// of its window's input rows in one 64-byte register (masked loads: zeros past the row), then
/// each output the maximum of its window's taps, each tap's 64 outputs one `vpermi2b` of that
/// register and a register of the type's minimum (a tap outside the row reads the minimum), one
/// masked store. The same maxima over the same taps. (The row written to memory and read back
/// 32 bytes at a time across two 16-byte stores waited on store forwarding: ~40 cycles a row.)
@inline(never)
func registerRowMaxPool<T: FixedWidthInteger & SIMDScalar>(_ x: UnsafePointer<T>, _ y: UnsafeMutablePointer<T>, planes: Int,
                                                          inputPlane: Int, inputWidth: Int, rows: PoolTaps, outputWidth: Int,
                                                          kernel: Int, stride: Int, dilation: Int, padBegin: Int) {
    let outH = rows.starts.count - 1, outW = outputWidth, inW = inputWidth
    let signed = T.isSigned
    let minimum = SIMD64<UInt8>(repeating: signed ? 0x80 : 0)
    // The maximum as the type's (`vpmaxsb` / `vpmaxub`; the generic pointwiseMax is a lane loop).
    @inline(__always) func larger(_ a: SIMD64<UInt8>, _ b: SIMD64<UInt8>) -> SIMD64<UInt8> {
        signed ? vbg_max_i8x64(a, b) : vbg_max_u8x64(a, b)
    }
    // Tap k of output i: row byte i · stride − padBegin + k · dilation, or 64 (the minimum) outside the row.
    @inline(__always) func tapIndex(_ k: Int) -> SIMD64<UInt8> {
        vbg_pool_tap_indices(Int32(stride), Int32(k * dilation - padBegin), Int32(inW), Int32(outW))
    }
    let index0 = tapIndex(0), index1 = kernel > 1 ? tapIndex(1) : index0, index2 = kernel > 2 ? tapIndex(2) : index1
    let source = UnsafeRawPointer(x).assumingMemoryBound(to: UInt8.self)
    var out = UnsafeMutableRawPointer(y).assumingMemoryBound(to: UInt8.self)
    rows.starts.withUnsafeBufferPointer { rowStarts in
    rows.taps.withUnsafeBufferPointer { rowTaps in
        for plane in 0..<planes {
            let input = source + plane * inputPlane
            for oh in 0..<outH {
                let first = rowStarts[oh], last = rowStarts[oh + 1]
                var row = vbg_load_bytes64(input + rowTaps[first] * inW, Int32(inW))
                for r in (first + 1)..<last { row = larger(row, vbg_load_bytes64(input + rowTaps[r] * inW, Int32(inW))) }
                // Kernels of up to three taps (index1, index2 repeat the last otherwise).
                let o = larger(larger(vbg_permute_bytes(row, minimum, index0), vbg_permute_bytes(row, minimum, index1)),
                               vbg_permute_bytes(row, minimum, index2))
                vbg_store_bytes64(out, o, Int32(outW))
                out += outW
            }
        }
    }
    }
}

/// MaxPool of planes too narrow for ``byteMaxPool(_:_:signed:planes:inputPlane:inputWidth:rows:outputWidth:kernel:stride:dilation:padBegin:line:)``'s
/// rows (under 16 bytes wide): each output a byte gathered from at most 128 consecutive input
/// bytes per tap. The outputs of `planesPerGroup` consecutive planes (their input bytes and
/// their outputs consecutive) are cut into blocks of up to 64 whose taps lie within 128 input
/// bytes; per block and tap, the index of each output's tap among those bytes (a tap outside the
/// input repeats one inside the window, which leaves the maximum unchanged). Each block is then
/// one `vpermi2b` and one maximum per tap (``smallPlaneByteMaxPool(_:_:signed:planes:_:)``).
package struct SmallPlanePool: Sendable {
    struct Block: Sendable {
        /// The block's first output and its count (within a group of planes), and its first input byte.
        let output: Int, count: Int, input: Int
    }
    let inputPlane: Int, outputPlane: Int, planesPerGroup: Int, taps: Int
    let blocks: [Block]
    /// `taps` index vectors per block.
    let indices: [SIMD64<UInt8>]

    /// The plan for planes of `inputHeight` × `inputWidth` pooled by the windows `rows` and
    /// `columns` list; nil where the blocks would average fewer than 16 outputs.
    package init?(inputHeight: Int, inputWidth: Int, rows: PoolTaps, columns: PoolTaps) {
        let outH = rows.starts.count - 1, outW = columns.starts.count - 1
        inputPlane = inputHeight * inputWidth
        outputPlane = outH * outW
        guard inputPlane > 0, outputPlane > 0 else { return nil }
        planesPerGroup = max(1, min(64 / outputPlane, 128 / inputPlane))
        var taps = 0
        for oh in 0..<outH {
            for ow in 0..<outW {
                taps = max(taps, (rows.starts[oh + 1] - rows.starts[oh]) * (columns.starts[ow + 1] - columns.starts[ow]))
            }
        }
        self.taps = taps
        // Each output's input bytes within its group, padded to `taps` with its first.
        let outputs = planesPerGroup * outputPlane
        var sources = [Int](repeating: 0, count: outputs * taps)
        for o in 0..<outputs {
            let plane = o / outputPlane, oh = o % outputPlane / outW, ow = o % outW
            var t = 0
            for r in rows.starts[oh]..<rows.starts[oh + 1] {
                for c in columns.starts[ow]..<columns.starts[ow + 1] {
                    sources[o * taps + t] = plane * inputPlane + rows.taps[r] * inputWidth + columns.taps[c]
                    t += 1
                }
            }
            for rest in t..<taps { sources[o * taps + rest] = sources[o * taps] }
        }
        var blocks: [Block] = [], indices: [SIMD64<UInt8>] = []
        var first = 0
        while first < outputs {
            var low = Int.max, high = Int.min, count = 0
            while first + count < outputs && count < 64 {
                let own = sources[((first + count) * taps)..<((first + count + 1) * taps)]
                let newLow = min(low, own.min()!), newHigh = max(high, own.max()!)
                guard newHigh - newLow < 128 else { break }
                low = newLow; high = newHigh; count += 1
            }
            guard count > 0 else { return nil }
            blocks.append(Block(output: first, count: count, input: low))
            for t in 0..<taps {
                var v = SIMD64<UInt8>(repeating: 0)
                for lane in 0..<count { v[lane] = UInt8(sources[(first + lane) * taps + t] - low) }
                indices.append(v)
            }
            first += count
        }
        guard blocks.count * 16 <= outputs else { return nil }
        self.blocks = blocks
        self.indices = indices
    }
}

/// Whether this build gathers bytes in one instruction (AVX512-VBMI), which
/// ``smallPlaneByteMaxPool(_:_:signed:planes:_:)`` needs to be the faster kernel.
package let byteGatherIsFast = VBG_TARGET_AVX512VBMI != 0 && VBG_TARGET_AVX512BW != 0

/// `planes` planes of `x` max-pooled into `y` by `plan`, int8 when `signed`, else uint8.
package func smallPlaneByteMaxPool(_ x: UnsafeRawPointer, _ y: UnsafeMutableRawPointer, signed: Bool, planes: Int, _ plan: SmallPlanePool) {
    let taps = plan.taps
    plan.blocks.withUnsafeBufferPointer { blocks in
    plan.indices.withUnsafeBufferPointer { indices in
        var first = 0
        while first < planes {
            let count = min(plan.planesPerGroup, planes - first)
            let input = x.assumingMemoryBound(to: UInt8.self) + first * plan.inputPlane
            let output = y.assumingMemoryBound(to: UInt8.self) + first * plan.outputPlane
            let inputs = count * plan.inputPlane, outputs = count * plan.outputPlane
            for b in blocks.indices {
                let block = blocks[b]
                guard block.output < outputs else { break }
                // The block's bytes that lie in the input (its first is an input byte of a plane here).
                let available = inputs - block.input
                let low = vbg_load_bytes64(input + block.input, Int32(min(64, available)))
                let high = vbg_load_bytes64(input + block.input + 64, Int32(max(0, min(64, available - 64))))
                var m = vbg_permute_bytes(low, high, indices[b * taps])
                for t in 1..<taps {
                    let g = vbg_permute_bytes(low, high, indices[b * taps + t])
                    m = signed ? vbg_max_i8x64(m, g) : vbg_max_u8x64(m, g)
                }
                vbg_store_bytes64(output + block.output, m, Int32(min(block.count, outputs - block.output)))
            }
            first += count
        }
    }
    }
}

/// The first `count` (under 16) lanes of `v` at `p`: one masked store with AVX512BW and AVX512VL.
@inline(__always)
func storeFirst<T: FixedWidthInteger & SIMDScalar>(_ v: SIMD16<T>, _ p: UnsafeMutablePointer<T>, _ count: Int) {
    if VBG_TARGET_AVX512BW != 0 && VBG_TARGET_AVX512VL != 0 {
        vbg_store_bytes(UnsafeMutableRawPointer(p).assumingMemoryBound(to: UInt8.self), unsafeBitCast(v, to: SIMD16<UInt8>.self), Int32(count))
    } else {
        for lane in 0..<count { p[lane] = v[lane] }
    }
}
