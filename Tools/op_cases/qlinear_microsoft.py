"""onnxruntime's com.microsoft QOperator cases: QLinearAdd, QLinearMul, QLinearSigmoid, QLinearLeakyRelu,
QLinearGlobalAveragePool, QLinearConcat, QGemm, QLinearSoftmax, QLinearAveragePool (the contrib ops its quantizer writes). Integer operands are uniform
over their type's range; scales are a few hundredths, as a quantizer picks them for unit-sized activations."""

import numpy as np
from onnx import TensorProto


def build_cases(rng, Case):
    def ints(dtype, *shape):
        info = np.iinfo(dtype)
        return rng.integers(info.min, int(info.max) + 1, size=shape).astype(dtype)

    def data(name, value):
        return (name, "data", value)

    def param(name, value):
        return (name, "param", value)

    def scale(low=0.005, high=0.08):
        return np.float32(rng.uniform(low, high))

    def zero(dtype):
        return ints(dtype)  # a 0-d array

    U8, I8 = TensorProto.UINT8, TensorProto.INT8
    cases = []

    def binary(name, op, dtype, a, b, omit_zero=False, what=""):
        inputs = [data("A", ints(dtype, *a)), param("A_scale", scale()), param("A_zero", zero(dtype)),
                  data("B", ints(dtype, *b)), param("B_scale", scale()), param("B_zero", zero(dtype)),
                  param("C_scale", scale(0.02, 0.15))]
        if not omit_zero:
            inputs.append(param("C_zero", zero(dtype)))
        cases.append(Case(name, op, inputs, output_type=U8 if dtype == np.uint8 else I8, what=what))

    binary("qlinearadd_uint8_same_shape", "QLinearAdd", np.uint8, (2, 5, 7), (2, 5, 7))
    binary("qlinearadd_int8_broadcast", "QLinearAdd", np.int8, (1, 4, 3, 5), (4, 1, 1), what="a per-channel operand")
    binary("qlinearadd_uint8_no_output_zero_point", "QLinearAdd", np.uint8, (3, 6), (6,), omit_zero=True)
    binary("qlinearmul_uint8_broadcast", "QLinearMul", np.uint8, (1, 3, 4, 4), (1, 3, 1, 1), what="squeeze-and-excite scaling")
    binary("qlinearmul_int8_same_shape", "QLinearMul", np.int8, (4, 9), (4, 9))

    def lookup(name, op, dtype, shape, attrs=None, what=""):
        inputs = [data("X", ints(dtype, *shape)), param("X_scale", scale(0.02, 0.1)), param("X_zero", zero(dtype)),
                  param("Y_scale", np.float32(1 / 256) if op == "QLinearSigmoid" else scale()),
                  param("Y_zero", np.array(0 if dtype == np.uint8 else -128, dtype) if op == "QLinearSigmoid" else zero(dtype))]
        cases.append(Case(name, op, inputs, attrs, output_type=U8 if dtype == np.uint8 else I8, what=what))

    lookup("qlinearsigmoid_uint8", "QLinearSigmoid", np.uint8, (2, 3, 11), what="output scale 1/256 as the quantizer fixes it")
    lookup("qlinearsigmoid_int8", "QLinearSigmoid", np.int8, (4, 13))
    lookup("qlinearleakyrelu_uint8", "QLinearLeakyRelu", np.uint8, (3, 17), {"alpha": 0.1})
    lookup("qlinearleakyrelu_int8_default_alpha", "QLinearLeakyRelu", np.int8, (2, 2, 9))

    for name, dtype, shape, last in [("qlinearglobalaveragepool_uint8", np.uint8, (2, 5, 6, 7), 0),
                                     ("qlinearglobalaveragepool_int8_channels_last", np.int8, (1, 4, 5, 6), 1)]:
        cases.append(Case(name, "QLinearGlobalAveragePool",
                          [data("X", ints(dtype, *shape)), param("x_scale", scale()), param("x_zero", zero(dtype)),
                           param("y_scale", scale(0.005, 0.02)), param("y_zero", zero(dtype))],
                          {"channels_last": last}, output_type=U8 if dtype == np.uint8 else I8))

    y_scale = scale(0.01, 0.05)
    cases.append(Case("qlinearconcat_uint8_axis1", "QLinearConcat",
                      [param("Y_scale", y_scale), param("Y_zero", np.array(128, np.uint8)),
                       data("X0", ints(np.uint8, 1, 3, 4, 5)), param("X0_scale", y_scale), param("X0_zero", np.array(128, np.uint8)),
                       data("X1", ints(np.uint8, 1, 2, 4, 5)), param("X1_scale", scale()), param("X1_zero", zero(np.uint8)),
                       data("X2", ints(np.uint8, 1, 4, 4, 5)), param("X2_scale", scale()), param("X2_zero", zero(np.uint8))],
                      {"axis": 1}, output_type=U8, what="the first input already at the output's scale (copied)"))
    cases.append(Case("qlinearconcat_int8_axis_negative", "QLinearConcat",
                      [param("Y_scale", scale()), param("Y_zero", zero(np.int8)),
                       data("X0", ints(np.int8, 3, 2)), param("X0_scale", scale()), param("X0_zero", zero(np.int8)),
                       data("X1", ints(np.int8, 3, 5)), param("X1_scale", scale()), param("X1_zero", zero(np.int8))],
                      {"axis": -1}, output_type=I8))
    # QGemm (appended last, so the cases above keep their data).
    cases.append(Case("qgemm_uint8_int8_per_column_bias_transb", "QGemm",
                      [data("A", ints(np.uint8, 3, 10)), param("a_scale", scale()), param("a_zero", zero(np.uint8)),
                       param("B", ints(np.int8, 6, 10)), param("b_scale", (rng.uniform(0.001, 0.01, 6)).astype(np.float32)),
                       param("b_zero", np.zeros(6, np.int8)), param("C", ints(np.int32, 6) // 1000000),
                       param("y_scale", scale(0.05, 0.2)), param("y_zero", zero(np.uint8))],
                      {"transB": 1}, output_type=U8, what="a quantized Gemm as the quantizer writes it (per-column b, bias [N])"))
    cases.append(Case("qgemm_float_output_alpha_transa", "QGemm",
                      [data("A", ints(np.int8, 7, 4)), param("a_scale", scale()), param("a_zero", zero(np.int8)),
                       param("B", ints(np.int8, 7, 5)), param("b_scale", scale()), param("b_zero", zero(np.int8)),
                       param("C", ints(np.int32, 4, 1) // 10000000)],
                      {"transA": 1, "alpha": 0.5}, output_type=TensorProto.FLOAT, what="no y_scale: a float Y; a [M, 1] bias"))
    # QLinearSoftmax (appended after QGemm, so the cases above keep their data): the output parameters the
    # quantizer fixes (1/256 with zero point 0 or -128) and two others.
    def softmax(name, dtype, shape, attrs, x_scale, y_scale, y_zero, what=""):
        cases.append(Case(name, "QLinearSoftmax",
                          [data("X", ints(dtype, *shape)), param("X_scale", np.float32(x_scale)), param("X_zero", zero(dtype)),
                           param("Y_scale", np.float32(y_scale)), param("Y_zero", np.array(y_zero, dtype))],
                          attrs, output_type=U8 if dtype == np.uint8 else I8, what=what))

    softmax("qlinearsoftmax_uint8_opset13_last_axis", np.uint8, (3, 1000), {"opset": 13}, 0.07, 1 / 256, 0,
            what="a classifier's softmax as the quantizer writes it")
    softmax("qlinearsoftmax_int8_opset13_axis1", np.int8, (2, 7, 3, 4), {"opset": 13, "axis": 1}, 0.05, 1 / 256, -128,
            what="along a middle axis")
    softmax("qlinearsoftmax_uint8_opset12_default_axis", np.uint8, (2, 3, 5), {"opset": 12}, 0.03, 0.0045, 17,
            what="opset 12 without axis: the schema's default -1 (rows of 5); an output scale whose reciprocal is not whole (floored)")
    softmax("qlinearsoftmax_uint8_opset12_axis1", np.uint8, (2, 3, 5), {"opset": 12, "axis": 1}, 0.03, 0.0045, 17,
            what="below opset 13 the rows are the dims from axis flattened: [2, 15]")
    softmax("qlinearsoftmax_int8_opset13_dominant", np.int8, (6, 9), {"opset": 13, "axis": -1}, 0.25, 1 / 256, -128,
            what="a wide input scale: a row's top element can take the whole mass, 256 + (-128), which onnxruntime saturates to 127")
    # QLinearAveragePool (appended after QLinearSoftmax).
    def average(name, dtype, shape, attrs, what=""):
        cases.append(Case(name, "QLinearAveragePool",
                          [data("X", ints(dtype, *shape)), param("x_scale", scale()), param("x_zero", zero(dtype)),
                           param("y_scale", scale(0.01, 0.05)), param("y_zero", zero(dtype))],
                          attrs, output_type=U8 if dtype == np.uint8 else I8, what=what))

    average("qlinearaveragepool_uint8_2x2_stride2", np.uint8, (1, 6, 8, 10), {"kernel_shape": [2, 2], "strides": [2, 2]},
            what="a DenseNet transition's pool as the quantizer writes it")
    average("qlinearaveragepool_int8_3x3_pads_count_include_pad", np.int8, (2, 3, 7, 6),
            {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1], "count_include_pad": 1})
    average("qlinearaveragepool_uint8_channels_last_ceil", np.uint8, (1, 7, 9, 5),
            {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 0, 1, 1], "ceil_mode": 1, "channels_last": 1},
            what="NHWC, ceil_mode, windows cut by the edges (divided by their taps inside)")
    average("qlinearaveragepool_int8_1d_same_upper", np.int8, (2, 4, 11), {"kernel_shape": [4], "strides": [3], "auto_pad": "SAME_UPPER"})
    average("qlinearaveragepool_uint8_whole_plane", np.uint8, (1, 5, 4, 6), {"kernel_shape": [4, 6]},
            what="a window over the whole plane: onnxruntime's global average on the integer sums")
    # QLinearAdd where onnxruntime's arithmetic (MLAS: fma(a, a_s/c_s, fma(b, b_s/c_s, c_z - ...))) and the plain
    # formula ((a_s (a - a_z) + b_s (b - b_z)) / c_s) round apart (appended last; no random draws). Same shape: the
    # pairs (a, b) where they differ for these parameters, found by search, and the pairs around them.
    pairs = [(66 + 3 * k + d, 191 - 4 * k + e) for k in range(6) for d in (-1, 0, 1) for e in (-1, 0, 1)]
    cases.append(Case("qlinearadd_uint8_mlas_rounding", "QLinearAdd",
                      [data("A", np.array([p[0] for p in pairs], np.uint8)), param("A_scale", np.float32(0.05999263748526573)),
                       param("A_zero", np.array(53, np.uint8)), data("B", np.array([p[1] for p in pairs], np.uint8)),
                       param("B_scale", np.float32(0.06922557204961777)), param("B_zero", np.array(194, np.uint8)),
                       param("C_scale", np.float32(0.0037278663367033005)), param("C_zero", np.array(20, np.uint8))],
                      output_type=U8, what="values where MLAS's fused arithmetic and the plain formula round apart"))
    # A one value per channel, B varying within it: onnxruntime passes B to its kernel first. Each channel's B holds
    # the values where the two operand orders round apart (float32 fma emulated in float64), then others.
    f32 = np.float32

    def fma(x, y, z):
        return (np.float64(x) * np.float64(y) + np.float64(z)).astype(np.float32)
    ra, rb = f32(f32(0.08601665496826172) / f32(0.08947182446718216)), f32(f32(0.02809642069041729) / f32(0.08947182446718216))
    values = np.arange(256, dtype=np.float32)
    rows = []
    for c in range(256):
        b_first = np.rint(fma(values, rb, fma(f32(c), ra, f32(f32(181) - fma(rb, f32(78), ra * f32(211))))))
        a_first = np.rint(fma(f32(c), ra, fma(values, rb, f32(f32(181) - fma(ra, f32(211), rb * f32(78))))))
        apart = [int(v) for v in np.nonzero(b_first != a_first)[0]][:12]
        rows.append(apart + [(c * 37 + 11 * j) % 256 for j in range(12 - len(apart))])
    cases.append(Case("qlinearadd_uint8_per_channel_a_first", "QLinearAdd",
                      [data("A", np.arange(256, dtype=np.uint8).reshape(1, 256, 1, 1)), param("A_scale", np.float32(0.08601665496826172)),
                       param("A_zero", np.array(211, np.uint8)),
                       data("B", np.array(rows, np.uint8).reshape(1, 256, 1, 12)),
                       param("B_scale", np.float32(0.02809642069041729)), param("B_zero", np.array(78, np.uint8)),
                       param("C_scale", np.float32(0.08947182446718216)), param("C_zero", np.array(181, np.uint8))],
                      output_type=U8, what="a per-channel A: the operands swap roles in onnxruntime's kernel"))
    for case in cases:
        case.domain = "com.microsoft"
    return cases
