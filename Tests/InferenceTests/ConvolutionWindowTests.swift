import Testing
@testable import Inference
import Kernels

/// `FusionRules.inputWindow(of:)`: a convolution's window cut to the taps that read the input,
/// and the kernel that then runs it (the sums are checked against the reference path in
/// `KernelSweepTests.paddingTapSweep`).
@Suite("Convolution windows cut to the taps that read the input")
struct ConvolutionWindowTests {
    /// A square 2-D convolution, batch 1, on a `size`×`size` map.
    static func conv(size: Int, kernel: Int, stride: Int = 1, dilation: Int, pads: (Int, Int), channels: Int = 8,
                     group: Int = 1) -> Conv {
        let span = (kernel - 1) * dilation + 1
        let output = (size + pads.0 + pads.1 - span) / stride + 1
        let axis = WindowAxis(input: size, kernel: kernel, stride: stride, dilation: dilation, padBegin: pads.0,
                              padEnd: pads.1, output: output)
        return Conv(dataInputs: [0, 1], outputShapes: [[1, channels, output, output]], batch: 1, inputChannels: channels,
                    outputChannels: channels, group: group, depth: .unit, height: axis, width: axis, hasBias: false)
    }

    @Test("at a dilation of at least the map size only the centre tap is left: a 1x1 convolution (DeepLabV3's ASPP)")
    func centreTapOnly() throws {
        for (size, dilation) in [(6, 12), (6, 24), (6, 36), (12, 12), (16, 16), (1, 1)] {
            let conv = Self.conv(size: size, kernel: 3, dilation: dilation, pads: (dilation, dilation))
            let window = try #require(FusionRules.inputWindow(of: conv), "size \(size) dilation \(dilation)")
            #expect(window.rows == 1..<2 && window.columns == 1..<2)
            #expect(window.conv.height.kernel == 1 && window.conv.height.padBegin == 0 && window.conv.height.padEnd == 0)
            #expect(FusionRules.kind(of: conv) == .pointwise(groups: 1))
        }
    }

    @Test("a window whose every tap reads the input for some output is kept as it is")
    func everyTapUsed() {
        #expect(FusionRules.inputWindow(of: Self.conv(size: 16, kernel: 3, dilation: 12, pads: (12, 12))) == nil)
        #expect(FusionRules.inputWindow(of: Self.conv(size: 7, kernel: 3, dilation: 1, pads: (1, 1))) == nil)
        #expect(FusionRules.inputWindow(of: Self.conv(size: 3, kernel: 3, stride: 2, dilation: 1, pads: (1, 1))) == nil)
        // ASPP at 16x16 with a rate of 12 keeps every tap; its border (12) is above the direct
        // kernels' 8, so the small-map kernel takes it where it runs (it skips the taps in the
        // border per tile), else the patch matrix.
        let aspp = Self.conv(size: 16, kernel: 3, dilation: 12, pads: (12, 12))
        #expect(FusionRules.kind(of: aspp) == (smallMapTilesSpanRows ? .dense(pad: 12) : nil))
        #expect(FusionRules.runsOverChannels(dense: aspp) == smallMapTilesSpanRows)
        // A border past the map's larger side stays with the patch matrix.
        #expect(FusionRules.kind(of: Self.conv(size: 8, kernel: 3, dilation: 5, pads: (10, 10))) == nil)
    }

    @Test("a window cut on one side keeps its other taps and the border they need")
    func oneSideCut() throws {
        // 5x5 at dilation 3 on a 4x4 map, pads 6: taps 0 and 4 read rows −6…−3 and 6…9 only.
        let conv = Self.conv(size: 4, kernel: 5, dilation: 3, pads: (6, 6))
        let window = try #require(FusionRules.inputWindow(of: conv))
        #expect(window.rows == 1..<4 && window.columns == 1..<4)
        #expect(window.conv.height.kernel == 3 && window.conv.height.dilation == 3)
        #expect(window.conv.height.padBegin == 3 && window.conv.height.padEnd == 3 && window.conv.height.output == 4)
        #expect(FusionRules.kind(of: conv) == .dense(pad: 3))
    }

    @Test("depthwise convolutions, and windows cut to different sizes on the two axes, are not cut")
    func notCut() {
        #expect(FusionRules.inputWindow(of: Self.conv(size: 6, kernel: 3, dilation: 12, pads: (12, 12), group: 8)) == nil)
        let h = WindowAxis(input: 1, kernel: 3, stride: 1, dilation: 1, padBegin: 1, padEnd: 1, output: 1)
        let w = WindowAxis(input: 9, kernel: 3, stride: 1, dilation: 1, padBegin: 1, padEnd: 1, output: 9)
        let wide = Conv(dataInputs: [0, 1], outputShapes: [[1, 8, 1, 9]], batch: 1, inputChannels: 8, outputChannels: 8,
                        group: 1, depth: .unit, height: h, width: w, hasBias: false)
        #expect(FusionRules.inputWindow(of: wide) == nil)
    }
}

@Suite("Dense convolutions on narrow maps")
struct NarrowDenseConvolutionTests {
    static func conv(_ size: Int, _ channels: Int) -> Conv {
        ConvolutionWindowTests.conv(size: size, kernel: 3, dilation: 1, pads: (1, 1), channels: channels)
    }

    @Test("a dense K×K convolution is the dense kind whatever its width (a 1x1 map cuts a 3x3 to its centre tap)")
    func narrowRowsAreDense() {
        for size in [2, 3, 8, 17, 64] { #expect(FusionRules.kind(of: Self.conv(size, 64)) == .dense(pad: 1)) }
    }

    @Test("rows that leave the pixel vectors' lanes idle run vectorised over output channels, unless the channels leave more idle")
    func narrowRowsRunOverChannels() {
        // Rows of 1–8, 12 and 17 fill 6–50%, 75% and 53% of the pixel tiles' lanes; multiples of 16 fill them all.
        for size in [1, 3, 4, 8, 12, 17] { #expect(FusionRules.runsOverChannels(dense: Self.conv(size, 64)), "\(size)") }
        for size in [16, 32, 48, 64] { #expect(!FusionRules.runsOverChannels(dense: Self.conv(size, 64)), "\(size)") }
        // 8 output channels fill a quarter of a 32-channel tile.
        #expect(!FusionRules.runsOverChannels(dense: Self.conv(8, 8)))
    }

    @Test("grouped 3x3s of 16 output channels a group (RegNet-X) run over channels two groups to a panel, where one group to a panel would leave half its lanes idle, and over pixels on rows that fill 7/8 of a pixel tile; groups of 8 or 32 do not pair",
          .enabled(if: pairsGroups))
    func pairedGroups() {
        /// A 3x3 of `groups` groups of `perGroup` channels in and out, on a map `size` wide, stride `stride`, pad 1.
        func conv(groups: Int, perGroup: Int, size: Int, stride: Int) -> Conv {
            let output = (size + 2 - 3) / stride + 1
            let axis = WindowAxis(input: size, kernel: 3, stride: stride, dilation: 1, padBegin: 1, padEnd: 1, output: output)
            return Conv(dataInputs: [0, 1], outputShapes: [[1, groups * perGroup, output, output]], batch: 1,
                        inputChannels: groups * perGroup, outputChannels: groups * perGroup, group: groups, depth: .unit,
                        height: axis, width: axis, hasBias: false)
        }
        // RegNet-X 400MF on an 80×80 input: rows of 20 fill 62 % of the pixel tiles' lanes, paired
        // panels all of theirs (one group to a panel: half).
        for (groups, size, stride) in [(2, 40, 2), (4, 20, 2), (4, 10, 1), (10, 10, 2), (10, 5, 1), (25, 5, 2), (25, 3, 1)] {
            let c = conv(groups: groups, perGroup: 16, size: size, stride: stride)
            #expect(FusionRules.pairsGroups(c) && FusionRules.runsOverChannels(dense: c), "\(groups) groups on \(size)")
        }
        // At 224×224 (RegNet-Y 800MF, ResNeXt-50's third stage): rows of 56, 28 and 14 fill 7/8 of
        // the pixel tiles' lanes, and those measured faster over pixels.
        for (groups, size, stride) in [(4, 112, 2), (2, 112, 2), (4, 28, 1), (20, 14, 1), (32, 14, 1)] {
            let c = conv(groups: groups, perGroup: 16, size: size, stride: stride)
            #expect(FusionRules.pairsGroups(c) && !FusionRules.runsOverChannels(dense: c), "\(groups) groups on \(size)")
        }
        #expect(!FusionRules.pairsGroups(conv(groups: 13, perGroup: 8, size: 10, stride: 1)))
        #expect(!FusionRules.pairsGroups(conv(groups: 4, perGroup: 32, size: 10, stride: 1)))
        #expect(!FusionRules.pairsGroups(conv(groups: 1, perGroup: 16, size: 10, stride: 1)))
    }

    @Test("a sum of few terms stays over pixels where the channels would fill more lanes: the products' spread to the planes costs more than the lanes gain (3x3 stems of 3 channels on rows of 40 and 28)")
    func fewTermsRunOverPixels() {
        /// A 3x3 of `input` channels → 32 on a map `size` wide, stride `stride`, pad 1.
        func conv(input: Int, size: Int, stride: Int) -> Conv {
            let output = (size + 2 - 3) / stride + 1
            let axis = WindowAxis(input: size, kernel: 3, stride: stride, dilation: 1, padBegin: 1, padEnd: 1, output: output)
            return Conv(dataInputs: [0, 1], outputShapes: [[1, 32, output, output]], batch: 1, inputChannels: input,
                        outputChannels: 32, group: 1, depth: .unit, height: axis, width: axis, hasBias: false)
        }
        // Rows of 40 and 28 fill 83 % and 88 % of the pixel tiles' lanes and all of the channel tiles'.
        #expect(!FusionRules.runsOverChannels(dense: conv(input: 3, size: 80, stride: 2)))
        #expect(!FusionRules.runsOverChannels(dense: conv(input: 3, size: 56, stride: 2)))
        #expect(FusionRules.runsOverChannels(dense: conv(input: 16, size: 40, stride: 1)))
        #expect(FusionRules.runsOverChannels(dense: conv(input: 32, size: 40, stride: 1)))
    }
}
