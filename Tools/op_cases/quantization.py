"""Quantization cases: QuantizeLinear, DequantizeLinear (per tensor, per axis, blocked; int8, uint8, int16,
uint16, int32), DynamicQuantizeLinear, MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv.

Quantize inputs mix standard normal values with exact ties (k + 0.5 times a power-of-two scale, so
x / scale is exact and round-half-to-even decides) and values far outside the type's range (saturation).
Integer operands are uniform over their type's range."""

import numpy as np
from onnx import TensorProto


def build_cases(rng, Case):
    def x(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    def ints(dtype, *shape):
        info = np.iinfo(dtype)
        return rng.integers(info.min, int(info.max) + 1, size=shape).astype(dtype)

    def data(name, value):
        return (name, "data", value)

    def param(name, value):
        return (name, "param", value)

    def ties(*shape, scale=0.25, spread=300):
        """Values k·scale/2 for odd and even k: half of them exact ties at the given scale, many beyond
        the 8-bit range; the rest standard normal."""
        count = int(np.prod(shape))
        k = rng.integers(-spread, spread, size=count)
        values = (k * (scale / 2)).astype(np.float32)
        normal = rng.standard_normal(count).astype(np.float32)
        return np.where(np.arange(count) % 2 == 0, values, normal).reshape(shape)

    f32 = lambda *v: np.array(v, dtype=np.float32)  # noqa: E731
    U8, I8, I16, U16, I32, F, F16 = (TensorProto.UINT8, TensorProto.INT8, TensorProto.INT16, TensorProto.UINT16,
                                     TensorProto.INT32, TensorProto.FLOAT, TensorProto.FLOAT16)
    cases = [
        # QuantizeLinear
        Case("quantizelinear_uint8_opset10", "QuantizeLinear",
             [data("X", ties(3, 7)), param("scale", np.float32(0.25)), param("zero", np.uint8(121))],
             opset=10, output_type=U8, what="per tensor, ties to even, saturation at 0 and 255"),
        Case("quantizelinear_int8_per_axis", "QuantizeLinear",
             [data("X", ties(2, 3, 5)), param("scale", f32(0.25, 0.5, 0.125)), param("zero", np.array([-3, 0, 9], np.int8))],
             {"axis": 1}, opset=13, output_type=I8, what="per channel, ties, saturation at -128 and 127"),
        Case("quantizelinear_int8_axis_negative_runtime_scale", "QuantizeLinear",
             [data("X", x(4, 6) * 3), data("scale", np.abs(x(6)) * 0.05 + 0.01), data("zero", ints(np.int8, 6))],
             {"axis": -1}, opset=13, output_type=I8, what="scale and zero point as graph inputs, last axis"),
        Case("quantizelinear_uint8_no_zero_point", "QuantizeLinear", [data("X", ties(5, 4, scale=0.5)), param("scale", np.float32(0.5))],
             opset=19, output_type=U8, what="no zero point: uint8, zero point 0"),
        Case("quantizelinear_uint16_output_dtype", "QuantizeLinear",
             [data("X", x(3, 5) * 1000), param("scale", np.float32(0.03125))], {"output_dtype": U16}, opset=21,
             output_type=U16, what="output_dtype without a zero point"),
        Case("quantizelinear_int16_blocked", "QuantizeLinear",
             [data("X", ties(2, 6, 3, scale=0.0078125, spread=20000)), param("scale", np.abs(x(2, 3, 3)) * 0.01 + 0.0078125),
              param("zero", ints(np.int16, 2, 3, 3) // 64)],
             {"axis": 1, "block_size": 2}, opset=21, output_type=I16, what="blocks of 2 along axis 1"),
        Case("quantizelinear_int8_blocked_ragged", "QuantizeLinear",
             [data("X", x(3, 7) * 2), param("scale", np.abs(x(3, 3)) * 0.02 + 0.01), param("zero", ints(np.int8, 3, 3) // 4)],
             {"axis": 1, "block_size": 3}, opset=21, output_type=I8, what="7 columns in blocks of 3: the last block short"),
        # DequantizeLinear
        Case("dequantizelinear_uint8_opset10", "DequantizeLinear",
             [data("X", ints(np.uint8, 3, 8)), param("scale", np.float32(0.0625)), param("zero", np.uint8(130))], opset=10),
        Case("dequantizelinear_int8_per_axis", "DequantizeLinear",
             [data("X", ints(np.int8, 2, 4, 3)), param("scale", np.abs(x(4)) + 0.01), param("zero", ints(np.int8, 4))],
             {"axis": 1}, opset=13),
        Case("dequantizelinear_int32_no_zero_point", "DequantizeLinear",
             [data("X", ints(np.int32, 9) // 1024), param("scale", np.float32(0.001))], opset=13, what="int32 (a bias)"),
        Case("dequantizelinear_int16_blocked", "DequantizeLinear",
             [data("X", ints(np.int16, 4, 5)), param("scale", np.abs(x(2, 5)) * 0.001 + 0.0001), param("zero", ints(np.int16, 2, 5))],
             {"axis": 0, "block_size": 3}, opset=21, what="4 rows in blocks of 3"),
        Case("dequantizelinear_uint16_runtime_scale", "DequantizeLinear",
             [data("X", ints(np.uint16, 3, 4)), data("scale", np.abs(x(4)) * 0.01 + 0.001), data("zero", ints(np.uint16, 4))],
             {"axis": 1}, opset=21, what="scale and zero point as graph inputs"),
        Case("dequantizelinear_float16_scale", "DequantizeLinear",
             [data("X", ints(np.int8, 2, 6)), data("scale", np.array(0.0397, np.float16)), data("zero", np.array(-7, np.int8))],
             opset=19, output_type=F16, what="a float16 scale makes a float16 output"),
        # DynamicQuantizeLinear
        Case("dynamicquantizelinear_mixed", "DynamicQuantizeLinear", [data("X", x(3, 11) * 4)], n_outputs=3,
             opset=11, output_type=[U8, F, U8]),
        Case("dynamicquantizelinear_positive", "DynamicQuantizeLinear", [data("X", np.abs(x(2, 3, 5)) + 0.5)], n_outputs=3,
             opset=11, output_type=[U8, F, U8], what="all positive: the range is widened to 0"),
        Case("dynamicquantizelinear_zeros", "DynamicQuantizeLinear", [data("X", np.zeros((4, 3), np.float32))], n_outputs=3,
             opset=11, output_type=[U8, F, U8], what="all zero: scale 1 as onnxruntime has it", ),
        # MatMulInteger
        Case("matmulinteger_uint8_scalar_zero_points", "MatMulInteger",
             [data("A", ints(np.uint8, 5, 7)), data("B", ints(np.uint8, 7, 3)), data("a_zero", np.array(131, np.uint8)), data("b_zero", np.array(7, np.uint8))],
             opset=10, output_type=I32),
        Case("matmulinteger_int8_uint8_per_column_batched", "MatMulInteger",
             [data("A", ints(np.uint8, 2, 3, 9)), param("B", ints(np.int8, 9, 4)), param("a_zero", np.uint8(128)),
              param("b_zero", ints(np.int8, 4))],
             opset=10, output_type=I32, what="uint8 × int8, a per-column b zero point, batched A"),
        Case("matmulinteger_no_zero_points", "MatMulInteger", [data("A", ints(np.int8, 4, 6)), data("B", ints(np.int8, 6, 5))],
             opset=10, output_type=I32),
        # ConvInteger
        Case("convinteger_uint8_zero_points", "ConvInteger",
             [data("X", ints(np.uint8, 1, 3, 6, 7)), param("W", ints(np.uint8, 4, 3, 3, 3)), param("x_zero", np.uint8(120)),
              param("w_zero", np.uint8(131))], {"kernel_shape": [3, 3]}, opset=10, output_type=I32),
        Case("convinteger_int8_stride2_group", "ConvInteger",
             [data("X", ints(np.int8, 1, 4, 7, 6)), param("W", ints(np.int8, 6, 2, 2, 3)), param("x_zero", np.int8(-5))],
             {"kernel_shape": [2, 3], "strides": [2, 2], "group": 2, "dilations": [1, 2]}, opset=10, output_type=I32),
        # QLinearMatMul
        Case("qlinearmatmul_uint8", "QLinearMatMul",
             [data("A", ints(np.uint8, 4, 9)), param("a_scale", np.float32(0.0213)), param("a_zero", np.uint8(121)),
              param("B", ints(np.uint8, 9, 5)), param("b_scale", np.float32(0.0071)), param("b_zero", np.uint8(133)),
              param("y_scale", np.float32(0.0519)), param("y_zero", np.uint8(118))], opset=10, output_type=U8),
        Case("qlinearmatmul_int8_per_column_batched", "QLinearMatMul",
             [data("A", ints(np.int8, 2, 3, 8)), param("a_scale", np.float32(0.031)), param("a_zero", np.int8(-3)),
              param("B", ints(np.int8, 8, 6)), param("b_scale", np.abs(x(6)) * 0.01 + 0.002), param("b_zero", np.zeros(6, np.int8)),
              param("y_scale", np.float32(0.21)), param("y_zero", np.int8(5))],
             opset=10, output_type=I8, what="per-column b scale, batched A"),
        # QLinearConv
        Case("qlinearconv_uint8_bias_pads", "QLinearConv",
             [data("X", ints(np.uint8, 1, 3, 7, 6)), param("x_scale", np.float32(0.0187)), param("x_zero", np.uint8(125)),
              param("W", ints(np.uint8, 5, 3, 3, 3)), param("w_scale", np.float32(0.0043)), param("w_zero", np.uint8(129)),
              param("y_scale", np.float32(0.0719)), param("y_zero", np.uint8(122)), param("B", ints(np.int32, 5) // 100000)],
             {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}, opset=10, output_type=U8),
        Case("qlinearconv_int8_per_channel_stride2", "QLinearConv",
             [data("X", ints(np.int8, 1, 4, 9, 8)), param("x_scale", np.float32(0.023)), param("x_zero", np.int8(-2)),
              param("W", ints(np.int8, 6, 4, 3, 3)), param("w_scale", np.abs(x(6)) * 0.005 + 0.001), param("w_zero", np.zeros(6, np.int8)),
              param("y_scale", np.float32(0.33)), param("y_zero", np.int8(-9)), param("B", ints(np.int32, 6) // 200000)],
             {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 0, 1, 1]}, opset=10, output_type=I8,
             what="per output channel w scale (symmetric, as onnxruntime's quantizer writes)"),
        Case("qlinearconv_uint8_depthwise_no_bias", "QLinearConv",
             [data("X", ints(np.uint8, 1, 5, 6, 6)), param("x_scale", np.float32(0.02)), param("x_zero", np.uint8(128)),
              param("W", ints(np.uint8, 5, 1, 3, 3)), param("w_scale", np.float32(0.004)), param("w_zero", np.uint8(127)),
              param("y_scale", np.float32(0.05)), param("y_zero", np.uint8(131))],
             {"kernel_shape": [3, 3], "group": 5, "pads": [1, 1, 1, 1]}, opset=10, output_type=U8),
    ]
    for case in cases:
        if case.name == "dynamicquantizelinear_zeros":
            case.reference_is_wrong = ("onnx.reference divides by the zero scale that onnx's formula gives an all-zero x "
                                       "(y_scale 0, y NaN cast to uint8); onnxruntime takes scale 1, zero point 0")
    return cases
