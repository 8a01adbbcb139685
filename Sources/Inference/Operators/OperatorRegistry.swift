/// The ONNX operators this engine implements (default domain), by op type, and the opsets it reads.
///
/// Adding an op: write `Operators/<Op>.swift` with a builder, add one line here, and add its
/// one-node fixtures (`Tools/make_fixtures.py`). `Constant` is not listed: its value is folded
/// into the plan by the graph loader.
enum OperatorRegistry {
    static let builders: [String: OperatorBuilder] = [
        "Abs": Abs.build,
        "Acos": Acos.build,
        "Acosh": Acosh.build,
        "Add": Add.build,
        "AffineGrid": AffineGrid.build,
        "And": And.build,
        "ArgMax": ArgMax.build,
        "ArgMin": ArgMin.build,
        "Attention": Attention.build,
        "Asin": Asin.build,
        "Asinh": Asinh.build,
        "Atan": Atan.build,
        "Atanh": Atanh.build,
        "AveragePool": AveragePool.build,
        "BatchNormalization": BatchNormalization.build,
        "BitCast": BitCast.build,
        "BitShift": BitShift.build,
        "BitwiseAnd": BitwiseAnd.build,
        "BitwiseNot": BitwiseNot.build,
        "BitwiseOr": BitwiseOr.build,
        "BitwiseXor": BitwiseXor.build,
        "BlackmanWindow": BlackmanWindow.build,
        "Cast": Cast.build,
        "CastLike": CastLike.build,
        "Ceil": Ceil.build,
        "Celu": Celu.build,
        "CenterCropPad": CenterCropPad.build,
        "Clip": Clip.build,
        "Col2Im": Col2Im.build,
        "Compress": Compress.build,
        "Concat": Concat.build,
        "ConstantOfShape": ConstantOfShape.build,
        "Conv": Conv.build,
        "ConvTranspose": ConvTranspose.build,
        "ConvInteger": ConvInteger.build,
        "Cos": Cos.build,
        "Cosh": Cosh.build,
        "CumProd": CumProd.build,
        "CumSum": CumSum.build,
        "DFT": DFT.build,
        "DepthToSpace": DepthToSpace.build,
        "DequantizeLinear": DequantizeLinear.build,
        "Det": Det.build,
        "Div": Div.build,
        "Dropout": Dropout.build,
        "DynamicQuantizeLinear": DynamicQuantizeLinear.build,
        "Einsum": Einsum.build,
        "Elu": Elu.build,
        "Equal": Equal.build,
        "Erf": Erf.build,
        "Exp": Exp.build,
        "Expand": Expand.build,
        "EyeLike": EyeLike.build,
        "Flatten": Flatten.build,
        "Floor": Floor.build,
        "Gather": Gather.build,
        "GatherElements": GatherElements.build,
        "GatherND": GatherND.build,
        "Gelu": Gelu.build,
        "GRU": GRU.build,
        "Gemm": Gemm.build,
        "GlobalAveragePool": GlobalAveragePool.build,
        "GlobalLpPool": GlobalLpPool.build,
        "GlobalMaxPool": GlobalMaxPool.build,
        "Greater": Greater.build,
        "GreaterOrEqual": GreaterOrEqual.build,
        "GridSample": GridSample.build,
        "GroupNormalization": GroupNormalization.build,
        "HammingWindow": HammingWindow.build,
        "HannWindow": HannWindow.build,
        "HardSigmoid": HardSigmoid.build,
        "HardSwish": HardSwish.build,
        "Hardmax": Hardmax.build,
        "Identity": Identity.build,
        "InstanceNormalization": InstanceNormalization.build,
        "IsInf": IsInf.build,
        "IsNaN": IsNaN.build,
        "LRN": LRN.build,
        "LSTM": LSTM.build,
        "LayerNormalization": LayerNormalization.build,
        "LeakyRelu": LeakyRelu.build,
        "Less": Less.build,
        "LessOrEqual": LessOrEqual.build,
        "Log": Log.build,
        "LogSoftmax": LogSoftmax.build,
        "LpNormalization": LpNormalization.build,
        "LpPool": LpPool.build,
        "MatMul": MatMul.build,
        "MatMulInteger": MatMulInteger.build,
        "Max": Max.build,
        "MaxPool": MaxPool.build,
        "MaxUnpool": MaxUnpool.build,
        "Mean": Mean.build,
        "MeanVarianceNormalization": MeanVarianceNormalization.build,
        "Min": Min.build,
        "Mish": Mish.build,
        "Mod": Mod.build,
        "Mul": Mul.build,
        "Neg": Neg.build,
        "NegativeLogLikelihoodLoss": NegativeLogLikelihoodLoss.build,
        "NonZero": NonZero.build,
        "Not": Not.build,
        "OneHot": OneHot.build,
        "Or": Or.build,
        "PRelu": PRelu.build,
        "RMSNormalization": RMSNormalization.build,
        "RNN": RNN.build,
        "RotaryEmbedding": RotaryEmbedding.build,
        "Pad": Pad.build,
        "Pow": Pow.build,
        "QLinearConv": QLinearConv.build,
        "QLinearMatMul": QLinearMatMul.build,
        "QuantizeLinear": QuantizeLinear.build,
        "Range": Range.build,
        "Reciprocal": Reciprocal.build,
        "ReduceL1": ReduceL1.build,
        "ReduceL2": ReduceL2.build,
        "ReduceLogSum": ReduceLogSum.build,
        "ReduceLogSumExp": ReduceLogSumExp.build,
        "ReduceMax": ReduceMax.build,
        "ReduceMean": ReduceMean.build,
        "ReduceMin": ReduceMin.build,
        "ReduceProd": ReduceProd.build,
        "ReduceSum": ReduceSum.build,
        "ReduceSumSquare": ReduceSumSquare.build,
        "Relu": Relu.build,
        "Reshape": Reshape.build,
        "Resize": Resize.build,
        "ReverseSequence": ReverseSequence.build,
        "Round": Round.build,
        "Scatter": Scatter.build,
        "ScatterElements": ScatterElements.build,
        "ScatterND": ScatterND.build,
        "Selu": Selu.build,
        "Shape": Shape.build,
        "Shrink": Shrink.build,
        "Sigmoid": Sigmoid.build,
        "Sign": Sign.build,
        "Sin": Sin.build,
        "Sinh": Sinh.build,
        "Size": Size.build,
        "Slice": Slice.build,
        "Softmax": Softmax.build,
        "SoftmaxCrossEntropyLoss": SoftmaxCrossEntropyLoss.build,
        "Softplus": Softplus.build,
        "Softsign": Softsign.build,
        "SpaceToDepth": SpaceToDepth.build,
        "Split": Split.build,
        "Sqrt": Sqrt.build,
        "Squeeze": Squeeze.build,
        "STFT": STFT.build,
        "Sub": Sub.build,
        "Sum": Sum.build,
        "Swish": Swish.build,
        "Tan": Tan.build,
        "Tanh": Tanh.build,
        "TensorScatter": TensorScatter.build,
        "ThresholdedRelu": ThresholdedRelu.build,
        "Tile": Tile.build,
        "TopK": TopK.build,
        "Transpose": Transpose.build,
        "Trilu": Trilu.build,
        "Unique": Unique.build,
        "Unsqueeze": Unsqueeze.build,
        "Upsample": Upsample.build,
        "Where": Where.build,
        "Xor": Xor.build,
    ]

    /// Every op type accepted in a model: `Constant` and the sequence and optional operators
    /// (`PlanTimeOperators`, rewritten at plan time) included.
    static var supportedOpTypes: Set<String> { Set(builders.keys).union(["Constant"]).union(PlanTimeOperators.builders.keys) }

    /// The default-domain opsets a model may import. The semantics implemented are those of
    /// opsets 7–21; a definition of opsets 1–6 is rewritten into opset 7's (`LegacyDefinitions`);
    /// a newer opset is read when each op the graph uses changed after 21 only in the element
    /// types it allows (`version(of:opset:node:)`).
    static let supportedOpsets: ClosedRange<Int> = 1...OperatorVersions.newestOpset

    /// The newest opset whose definitions the builders implement.
    static let implementedOpset = 21

    /// Definitions after opset 21 that the generated table does not list as type-only but that
    /// mean the same for the types this engine computes: ReduceLogSum(Exp)-28 only dropped the
    /// integer types; Cast(Like)-24 added float8e8m0 and `round_mode`, which only applies to it and
    /// which the builder implements (`E8M0`); Range-27 added `stash_type`, which only applies to
    /// float16 and bfloat16, types its builder refuses.
    static let unchangedForStoredTypes: Set<String> = ["ReduceLogSum-28", "ReduceLogSumExp-28", "Cast-24", "CastLike-24", "Range-27"]

    /// Definitions newer than opset 21 that a builder implements as they are (each builder
    /// branches on `NodeContext.opVersion` where it must): ops introduced after opset 21, and
    /// SpaceToDepth-28, which added `mode` (CRD as well as DCR); QuantizeLinear-23 (`precision`)
    /// and DequantizeLinear-23 (`output_dtype`).
    static let implementedNewerDefinitions: Set<String> = ["RMSNormalization-23", "CumProd-26", "BitCast-26", "Swish-24", "SpaceToDepth-28",
                                                           "QuantizeLinear-23", "DequantizeLinear-23", "RotaryEmbedding-23",
                                                           "Attention-23", "Attention-24", "Attention-25", "TensorScatter-24"]

    /// The version of `op`'s definition that `opset` selects, taken back past the definitions
    /// after opset 21 that only added element types, unless that definition is implemented
    /// (`implementedNewerDefinitions`).
    ///
    /// - Throws: `ModelError` naming the node and op when the op does not exist at `opset`, or its
    ///   definition there changed meaning after opset 21.
    static func version(of op: String, opset: Int, node: String) throws(ModelError) -> Int {
        guard let history = OperatorVersions.sinceVersions[op] else {
            throw ModelError(.unsupported, "operator '\(op)' is not an ONNX operator (default domain)", node: node, op: op)
        }
        guard var version = history.last(where: { $0 <= opset }) else {
            throw ModelError(.unsupported, "operator '\(op)' does not exist at opset \(opset) (it was introduced in opset \(history[0]))",
                             node: node, op: op)
        }
        while version > implementedOpset {
            let key = "\(op)-\(version)"
            if implementedNewerDefinitions.contains(key) { return version }
            guard OperatorVersions.typeOnlyChanges.contains(key) || unchangedForStoredTypes.contains(key),
                  let previous = history.last(where: { $0 < version }) else {
                throw ModelError(.unsupported, "operator '\(op)' version \(version) (opset \(opset)) changed meaning after opset \(implementedOpset), the newest this engine implements",
                                 node: node, op: op)
            }
            version = previous
        }
        return version
    }
}
