/// Dense 3×3 stride-1 convolutions of dilation d ≥ 2 whose pads are d on every side (the output
/// the input's size: the dilated blocks of DeepLab's and FCN's ResNets) by Winograd's F(2×2, 3×3)
/// on the d² sub-lattices. Output pixel (y, x) reads only inputs of its own residues (y mod d,
/// x mod d), so each sub-lattice (a, b), every d-th row from a and column from b, is an
/// undilated 3×3 convolution with pads of 1 on its own map.
///
/// Split over input channels: each sub-lattice copied into a zero-bordered plane of thread
/// scratch and transformed there, its tiles after the previous sub-lattice's, into
/// `[ξ][input channel][tile]` in shared scratch; the 16 products as 1x1 convolutions over every
/// tile (``pointwiseConvolution(_:weights:activation:residual:output:pool:)``); split over output
/// channels: each sub-lattice's output transform (bias and activation) into thread scratch,
/// spread to every d-th row and column of the output. The same transforms and sums as
/// ``winogradConvolution(_:weights:padTop:padLeft:activation:residual:rectifiesSum:output:pool:sharedOffset:form:)``
/// on each sub-lattice's map.
struct DilatedWinogradGeometry {
    let width: Int, height: Int, dilation: Int
    let inputChannels: Int, outputChannels: Int
    /// Tiles of every sub-lattice: the tile rows of the row residues times the tile columns of the column residues.
    let tiles: Int

    init(width: Int, height: Int, dilation: Int, inputChannels: Int, outputChannels: Int) {
        (self.width, self.height, self.dilation) = (width, height, dilation)
        (self.inputChannels, self.outputChannels) = (inputChannels, outputChannels)
        var (tileRows, tileColumns) = (0, 0)
        for r in 0..<dilation {
            tileRows += ((height - r + dilation - 1) / dilation + 1) / 2
            tileColumns += ((width - r + dilation - 1) / dilation + 1) / 2
        }
        tiles = tileRows * tileColumns
    }

    /// Rows (columns) of the sub-lattice of residue `r` in `n` rows (columns).
    func extent(_ n: Int, residue r: Int) -> Int { (n - r + dilation - 1) / dilation }

    /// Floats from one channel's tiles to the next: every tile, whole vectors.
    var stride: Int { roundUp(tiles, toMultipleOf: lanes) }

    /// The zero-bordered plane of the largest sub-lattice (residues 0, 0), as the input transform reads it.
    var inputPlane: PlaneLayout { .padded(width: extent(width, residue: 0), height: extent(height, residue: 0), pad: 1) }
    /// A row of zeros for the window rows past a sub-lattice's bottom border (as ``WinogradGeometry/zeroRowCount``).
    var zeroRowCount: Int { roundUp(2 * ((extent(width, residue: 0) + 1) / 2) + 18 + lanes, toMultipleOf: lanes) }
    /// Floats of thread scratch: the input plane and the zero row, or a sub-lattice's output plane, or the 1x1's.
    var perThread: Int {
        max(inputPlane.storageCount(channels: 1) + zeroRowCount,
            extent(width, residue: 0) * extent(height, residue: 0) + lanes,
            pointwiseScratch(inputChannels: inputChannels).perThread)
    }
    /// Floats of shared scratch: the transformed input, the products and the 1x1 kernel's slack.
    var shared: Int { winogradTileScratch(inputChannels: inputChannels, outputChannels: outputChannels, stride: stride) }
}

/// Whether ``dilatedWinogradConvolution(_:weights:dilation:activation:output:pool:sharedOffset:)``
/// takes a 3×3 stride-1 convolution of dilation `dilation` with pads of `dilation` on a map of
/// `width` × `height`: what ``winogradFits(inputChannels:outputChannels:outputWidth:outputHeight:)``
/// takes of the whole map, with a dilation of at least 2 and at least three of each tile's four
/// pixels inside its sub-lattice on average (a dilation near the map's size leaves sub-lattices of
/// a row or two, mostly partial tiles).
package func dilatedWinogradFits(inputChannels: Int, outputChannels: Int, width: Int, height: Int, dilation: Int) -> Bool {
    guard dilation >= 2,
          winogradFits(inputChannels: inputChannels, outputChannels: outputChannels, outputWidth: width, outputHeight: height)
    else { return false }
    let g = DilatedWinogradGeometry(width: width, height: height, dilation: dilation, inputChannels: inputChannels,
                                    outputChannels: outputChannels)
    return width * height >= 3 * g.tiles
}

/// The scratch ``dilatedWinogradConvolution(_:weights:dilation:activation:output:pool:sharedOffset:)``
/// uses; its shared scratch from `sharedOffset` on.
package func dilatedWinogradScratch(inputChannels: Int, outputChannels: Int, width: Int, height: Int, dilation: Int,
                                    sharedOffset: Int = 0) -> ScratchSize {
    let g = DilatedWinogradGeometry(width: width, height: height, dilation: dilation, inputChannels: inputChannels,
                                    outputChannels: outputChannels)
    return ScratchSize(perThread: g.perThread, shared: roundUp(sharedOffset, toMultipleOf: lanes) + g.shared)
}

/// `output = act(bias + conv(input))` for a 3×3 convolution of stride 1, dilation `dilation` and
/// pads of `dilation` on every side (see ``DilatedWinogradGeometry``).
///
/// - Precondition: ``dilatedWinogradFits(inputChannels:outputChannels:width:height:dilation:)``;
///   `input` (any layout; its interior is read) and `output` (any layout; its border is left as
///   it is) of the same width and height; the pool's scratch holds
///   ``dilatedWinogradScratch(inputChannels:outputChannels:width:height:dilation:sharedOffset:)``
///   (the shared scratch before `sharedOffset` is left as it is).
package func dilatedWinogradConvolution(_ input: FeatureMap, weights: WinogradWeights, dilation: Int, activation: Activation,
                                        output: FeatureMap, pool: WorkerPool, sharedOffset: Int = 0) {
    let (width, height) = (input.layout.width, input.layout.height)
    precondition(input.channels == weights.inputChannels && output.channels == weights.outputChannels,
                 "dilated Winograd convolution channel mismatch")
    precondition(output.layout.width == width && output.layout.height == height, "dilated Winograd convolution: output size")
    precondition(dilatedWinogradFits(inputChannels: input.channels, outputChannels: output.channels, width: width, height: height,
                                     dilation: dilation), "dilated Winograd convolution: a problem it does not take")
    precondition(pool.holds(dilatedWinogradScratch(inputChannels: input.channels, outputChannels: output.channels, width: width,
                                                   height: height, dilation: dilation, sharedOffset: sharedOffset)),
                 "dilated Winograd convolution: pool scratch too small")
    let g = DilatedWinogradGeometry(width: width, height: height, dilation: dilation, inputChannels: input.channels,
                                    outputChannels: output.channels)
    let transformed = pool.shared.baseAddress! + roundUp(sharedOffset, toMultipleOf: lanes)
    let products = transformed + 16 * g.inputChannels * g.stride
    pool.run(DilatedWinogradInput(input: input, geometry: g, transformed: transformed))
    winogradTileProducts(transformed, weights: weights, stride: g.stride, pool: pool)
    let parts = DilatedWinogradOutputParts(output: output, bias: UnsafePointer(weights.bias.baseAddress), geometry: g,
                                           products: UnsafePointer(products))
    switch activation {
    case .none: pool.run(DilatedWinogradOutput<Identity>(parts: parts))
    case .relu: pool.run(DilatedWinogradOutput<ReLU>(parts: parts))
    case .relu6: pool.run(DilatedWinogradOutput<ReLU6>(parts: parts))
    case .hardSwish: pool.run(DilatedWinogradOutput<HardSwish>(parts: parts))
    case .sigmoid: pool.run(DilatedWinogradOutput<Sigmoid>(parts: parts))
    case .silu: pool.run(DilatedWinogradOutput<SiLU>(parts: parts))
    }
}

/// The input transform of this part's input channels, sub-lattice by sub-lattice; the lanes past
/// the last tile zeroed (the 1x1 kernel computes whole vectors).
struct DilatedWinogradInput: PoolJob {
    let input: FeatureMap, geometry: DilatedWinogradGeometry, transformed: UnsafeMutablePointer<Float>

    func run(part: Int, pool: WorkerPool) {
        let g = geometry, d = g.dilation, stride = g.stride, xiStride = g.inputChannels * stride
        let channels = WorkerPool.range(input.channels, part: part, of: pool.threadCount)
        guard !channels.isEmpty else { return }
        let scratch = pool.scratch(part).baseAddress!
        let zeroRow = scratch, planeBuffer = scratch + g.zeroRowCount
        zeroRow.update(repeating: 0, count: g.zeroRowCount)
        let inL = input.layout
        for c in channels {
            let source = UnsafePointer(input.plane(c))
            var firstTile = 0
            for a in 0..<d {
                let rows = g.extent(g.height, residue: a)
                for b in 0..<d {
                    let columns = g.extent(g.width, residue: b)
                    let layout = PlaneLayout.padded(width: columns, height: rows, pad: 1)
                    planeBuffer.update(repeating: 0, count: layout.planeStride)
                    let plane = planeBuffer + layout.origin
                    for u in 0..<rows {
                        let from = source + (a + d * u) * inL.rowStride + b, to = plane + u * layout.rowStride
                        for v in 0..<columns { to[v] = from[d * v] }
                    }
                    let tilesWide = (columns + 1) / 2, tilesHigh = (rows + 1) / 2
                    winogradInputPlane(UnsafePointer(plane), layout: layout, tilesWide: tilesWide, rows: 0..<tilesHigh, padTop: 1,
                                       padLeft: 1, into: transformed + c * stride + firstTile, xiStride: xiStride,
                                       zeroRow: UnsafePointer(zeroRow))
                    firstTile += tilesWide * tilesHigh
                }
            }
            zeroTileTails(transformed + c * stride, tiles: firstTile, stride: stride, xiStride: xiStride)
        }
    }
}

struct DilatedWinogradOutputParts {
    let output: FeatureMap, bias: UnsafePointer<Float>, geometry: DilatedWinogradGeometry, products: UnsafePointer<Float>
}

/// The output transform of this part's output channels, sub-lattice by sub-lattice into thread
/// scratch, then spread to the sub-lattice's pixels of the output.
struct DilatedWinogradOutput<A: ActivationFunction>: PoolJob {
    let parts: DilatedWinogradOutputParts

    func run(part: Int, pool: WorkerPool) {
        let g = parts.geometry, d = g.dilation, stride = g.stride, output = parts.output, outL = output.layout
        let channels = WorkerPool.range(output.channels, part: part, of: pool.threadCount)
        guard !channels.isEmpty else { return }
        let buffer = pool.scratch(part).baseAddress!
        for c in channels {
            let target = output.plane(c)
            var firstTile = 0
            for a in 0..<d {
                let rows = g.extent(g.height, residue: a)
                for b in 0..<d {
                    let columns = g.extent(g.width, residue: b)
                    let tilesWide = (columns + 1) / 2, tilesHigh = (rows + 1) / 2
                    winogradOutputPlane(parts.products + c * stride + firstTile, xiStride: g.outputChannels * stride,
                                        tilesWide: tilesWide, rows: 0..<tilesHigh, bias: parts.bias[c], A.self, residual: nil,
                                        residualRow: 0, floor: -.infinity, into: buffer,
                                        layout: .dense(width: columns, height: rows))
                    for u in 0..<rows {
                        let from = buffer + u * columns, to = target + (a + d * u) * outL.rowStride + b
                        for v in 0..<columns { to[d * v] = from[v] }
                    }
                    firstTile += tilesWide * tilesHigh
                }
            }
        }
    }
}
