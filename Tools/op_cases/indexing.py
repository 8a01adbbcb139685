"""Indexing, triangle, scan and normalisation ops: GatherElements, Trilu, CumProd, RMSNormalization,
Swish."""

import numpy as np
from onnx import TensorProto


def build_cases(rng, Case):
    def x(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    def ints(*shape, low=-50, high=50, dtype=np.int64):
        return rng.integers(low, high, size=shape).astype(dtype)

    def data(name, value):
        return (name, "data", value)

    def param(name, value):
        return (name, "param", value)

    I32, I64 = TensorProto.INT32, TensorProto.INT64
    cases = [
        Case("gatherelements_axis0", "GatherElements", [data("X", x(3, 4)), data("indices", ints(2, 4, low=-3, high=3))]),
        Case("gatherelements_axis1_int32_indices", "GatherElements",
             [data("X", x(2, 5, 3)), data("indices", ints(2, 4, 3, low=-5, high=5, dtype=np.int32))], {"axis": 1}),
        Case("gatherelements_int64_data_axis_negative", "GatherElements",
             [data("X", ints(3, 5)), data("indices", ints(2, 3, low=0, high=5))], {"axis": -1}, output_type=I64),
        Case("gatherelements_opset11", "GatherElements", [data("X", x(4, 3)), data("indices", ints(4, 2, low=-3, high=3))],
             {"axis": 1}, opset=11),
        Case("trilu_upper_default", "Trilu", [data("X", x(4, 5))], opset=14),
        Case("trilu_lower_k_batched", "Trilu", [data("X", x(2, 3, 5, 4)), param("k", np.array(-1, dtype=np.int64))],
             {"upper": 0}, opset=14),
        Case("trilu_upper_k2_int32", "Trilu", [data("X", ints(5, 3, dtype=np.int32)), param("k", np.array(2, dtype=np.int64))],
             opset=14, output_type=I32),
        Case("trilu_lower_k_out_of_range", "Trilu", [data("X", x(3, 4)), param("k", np.array(7, dtype=np.int64))],
             {"upper": 0}, opset=14, what="k beyond the matrix keeps everything"),
        Case("cumprod_axis0", "CumProd", [data("X", x(4, 3)), param("axis", np.array(0, dtype=np.int64))], opset=26),
        Case("cumprod_exclusive_reverse", "CumProd", [data("X", x(2, 5, 3)), param("axis", np.array([-2], dtype=np.int32))],
             {"exclusive": 1, "reverse": 1}, opset=26),
        Case("cumprod_int64", "CumProd", [data("X", ints(3, 4, low=-5, high=6)), param("axis", np.array(1, dtype=np.int64))],
             opset=26, output_type=I64),
        Case("rmsnormalization_last_axis", "RMSNormalization", [data("X", x(2, 3, 5)), data("scale", x(5))], opset=23),
        Case("rmsnormalization_axis1_epsilon", "RMSNormalization", [data("X", x(2, 3, 4)), param("scale", x(1, 4))],
             {"axis": 1, "epsilon": 0.1}, opset=23, what="scale broadcast over the normalised dims"),
        Case("swish_default", "Swish", [data("X", 3 * x(3, 7))], opset=24),
        Case("swish_alpha", "Swish", [data("X", 3 * x(5, 3))], {"alpha": 1.7}, opset=24),
    ]
    return cases
