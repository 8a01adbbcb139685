"""Indexing, triangle, scan and normalisation ops: GatherElements, GatherND, ScatterElements, ScatterND,
OneHot, EyeLike, Compress, ReverseSequence, Trilu, CumProd, RMSNormalization, Swish, NonZero, Unique."""

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
        Case("cumprod_double_exclusive", "CumProd", [data("X", x(3, 4).astype(np.float64)), param("axis", np.array(1, dtype=np.int64))],
             {"exclusive": 1}, opset=26, output_type=TensorProto.DOUBLE),
        Case("cumsum_double", "CumSum", [data("X", x(2, 5).astype(np.float64)), param("axis", np.array(-1, dtype=np.int64))],
             opset=14, output_type=TensorProto.DOUBLE),
        Case("rmsnormalization_last_axis", "RMSNormalization", [data("X", x(2, 3, 5)), data("scale", x(5))], opset=23),
        Case("rmsnormalization_axis1_epsilon", "RMSNormalization", [data("X", x(2, 3, 4)), param("scale", x(1, 4))],
             {"axis": 1, "epsilon": 0.1}, opset=23, what="scale broadcast over the normalised dims"),
        Case("swish_default", "Swish", [data("X", 3 * x(3, 7))], opset=24),
        Case("swish_alpha", "Swish", [data("X", 3 * x(5, 3))], {"alpha": 1.7}, opset=24),
        Case("scatterelements_axis0_opset11", "ScatterElements",
             [data("X", x(3, 4)), data("indices", np.array([[1, 0, 2, 0], [-1, 2, 1, 1]], dtype=np.int64)), data("U", x(2, 4))],
             opset=11),
        Case("scatterelements_axis1_int32_data", "ScatterElements",
             [data("X", ints(2, 5, dtype=np.int32)), data("indices", np.array([[4, 0, 2], [1, 3, -5]], dtype=np.int32)),
              data("U", ints(2, 3, dtype=np.int32))], {"axis": 1}, opset=13, output_type=I32),
        Case("scatterelements_add_duplicates", "ScatterElements",
             [data("X", x(4, 3)), data("indices", np.array([[1, 1, 0], [1, 3, 0]], dtype=np.int64)), data("U", x(2, 3))],
             {"reduction": "add"}, opset=16),
        Case("scatterelements_mul", "ScatterElements",
             [data("X", x(3, 3)), data("indices", np.array([[2, 2], [0, 0]], dtype=np.int64)), data("U", x(2, 2))],
             {"axis": 1, "reduction": "mul"}, opset=16),
        Case("scatterelements_max_int64", "ScatterElements",
             [data("X", ints(3, 4)), data("indices", np.array([[0, 1, 2, 0], [0, 1, 2, 2]], dtype=np.int64)), data("U", ints(2, 4))],
             {"reduction": "max"}, opset=18, output_type=I64),
        Case("scatterelements_min", "ScatterElements",
             [data("X", x(3, 4)), data("indices", np.array([[0, 1, 2, 0], [0, 1, 2, 2]], dtype=np.int64)), data("U", x(2, 4))],
             {"reduction": "min"}, opset=18),
        Case("scatternd_slices_opset11", "ScatterND",
             [data("X", x(4, 3, 2)), data("indices", np.array([[2], [-4]], dtype=np.int64)), data("U", x(2, 3, 2))], opset=11),
        Case("scatternd_elements_int64", "ScatterND",
             [data("X", ints(3, 5)), data("indices", np.array([[[0, 4], [2, 1]], [[1, -1], [0, 0]]], dtype=np.int64)),
              data("U", ints(2, 2))], opset=13, output_type=I64),
        Case("scatternd_add", "ScatterND",
             [data("X", x(3, 4)), data("indices", np.array([[1], [1], [0]], dtype=np.int64)), data("U", x(3, 4))],
             {"reduction": "add"}, opset=16, what="duplicate indices accumulate"),
        Case("scatternd_mul", "ScatterND",
             [data("X", x(3, 4)), data("indices", np.array([[2, 3], [2, 3]], dtype=np.int64)), data("U", x(2))],
             {"reduction": "mul"}, opset=16),
        Case("scatternd_max", "ScatterND",
             [data("X", x(2, 3)), data("indices", np.array([[0], [0], [1]], dtype=np.int64)), data("U", x(3, 3))],
             {"reduction": "max"}, opset=18),
        Case("scatternd_min", "ScatterND",
             [data("X", x(2, 3)), data("indices", np.array([[1, 2], [1, 2], [0, 0]], dtype=np.int64)), data("U", x(3))],
             {"reduction": "min"}, opset=18),
        Case("gathernd_slices", "GatherND", [data("X", x(4, 3, 2)), data("indices", np.array([[[1], [-1]], [[0], [2]]], dtype=np.int64))],
             opset=13),
        Case("gathernd_elements_opset11", "GatherND", [data("X", ints(3, 5)), data("indices", np.array([[2, 4], [0, -5], [1, 1]], dtype=np.int64))],
             opset=11, output_type=I64),
        Case("gathernd_batch_dims", "GatherND", [data("X", x(2, 3, 4)), data("indices", np.array([[[1, 3]], [[2, 0]]], dtype=np.int64))],
             {"batch_dims": 1}, opset=12),
        Case("onehot_default_axis", "OneHot", [data("indices", np.array([[1, 4, 0], [-1, 2, 7]], dtype=np.int64)),
                                               param("depth", np.array(5, dtype=np.int64)),
                                               data("values", np.array([-2.0, 3.5], dtype=np.float32))], opset=11,
             what="negative counts from the end, 7 gives off values"),
        Case("onehot_axis0_float_indices_int64_values", "OneHot",
             [data("indices", np.array([2.7, 0.0, 1.0, 3.0], dtype=np.float32)), param("depth", np.array([4], dtype=np.int64)),
              data("values", np.array([0, 9], dtype=np.int64))], {"axis": 0}, opset=11, output_type=I64),
        Case("onehot_int32_indices_float_depth", "OneHot",
             [data("indices", np.array([[0, 2, -3]], dtype=np.int32)), param("depth", np.array(3.0, dtype=np.float32)),
              data("values", np.array([0.5, -1.0], dtype=np.float32))], {"axis": 1}, opset=11),
        Case("onehot_opset9", "OneHot", [data("indices", np.array([[1, 0], [2, 2]], dtype=np.int64)),
                                         param("depth", np.array(3, dtype=np.int64)),
                                         data("values", np.array([0.0, 1.0], dtype=np.float32))], {"axis": 1}, opset=9),
        Case("eyelike_k_dtype", "EyeLike", [data("X", x(3, 5))], {"k": 1, "dtype": TensorProto.INT64}, opset=9, output_type=I64),
        Case("eyelike_negative_k", "EyeLike", [data("X", x(4, 3))], {"k": -2}, opset=9),
        Case("compress_axis", "Compress", [data("X", x(3, 4)), param("condition", np.array([True, False, True, True]))],
             {"axis": 1}, opset=11),
        Case("compress_flat_short_condition", "Compress", [data("X", ints(2, 3)), param("condition", np.array([False, True, True]))],
             opset=11, output_type=I64),
        Case("compress_axis0_opset9", "Compress", [data("X", x(4, 2)), param("condition", np.array([True, False, False, True]))],
             {"axis": 0}, opset=9),
        Case("reversesequence_time_major", "ReverseSequence", [data("X", x(4, 3, 2)), data("lens", np.array([4, 1, 2], dtype=np.int64))],
             {"time_axis": 0, "batch_axis": 1}, opset=10),
        Case("reversesequence_batch_major_int64", "ReverseSequence",
             [data("X", ints(3, 5)), data("lens", np.array([1, 5, 3], dtype=np.int64))], {"time_axis": 1, "batch_axis": 0},
             opset=10, output_type=I64),
    ]
    # Scatter-9, the deprecated name of ScatterElements without reduction (onnx's checker refuses
    # Scatter at opset 11, where it was deprecated).
    cases += [
        Case("scatter_opset9_axis1", "Scatter",
             [data("X", x(3, 5)), data("indices", np.array([[4, 0], [1, 3], [2, 2]], dtype=np.int64)), data("U", x(3, 2))],
             {"axis": 1}, opset=9),
        Case("scatter_opset9_int32_indices", "Scatter",
             [data("X", x(4, 3)), data("indices", np.array([[3, 0, 2], [1, 2, 0]], dtype=np.int32)), data("U", x(2, 3))],
             opset=9),
    ]
    # NonZero and Unique: outputs shaped by the values, so X is an initializer (the engine computes
    # them when the plan is built).
    repeated = rng.integers(-2, 3, size=(4, 5)).astype(np.float32)
    rows = np.array([[1, 2, 1], [0, 5, 2], [1, 2, 1], [0, 5, 1], [0, 5, 2]], dtype=np.int64)
    cases += [
        Case("nonzero_float", "NonZero", [param("X", repeated)], output_type=I64),
        Case("nonzero_bool_3d", "NonZero", [param("X", rng.integers(0, 2, size=(2, 3, 4)).astype(bool))], opset=13, output_type=I64),
        Case("unique_sorted_flat", "Unique", [param("X", repeated)], n_outputs=4, opset=11,
             output_type=[TensorProto.FLOAT, I64, I64, I64]),
        Case("unique_unsorted_flat_int64", "Unique", [param("X", rng.integers(-3, 4, size=(9,)).astype(np.int64))],
             {"sorted": 0}, n_outputs=4, opset=11, output_type=[I64, I64, I64, I64]),
        Case("unique_axis0_rows", "Unique", [param("X", rows)], {"axis": 0}, n_outputs=4, opset=11,
             output_type=[I64, I64, I64, I64]),
        Case("unique_axis2_unsorted", "Unique", [param("X", np.stack([repeated[:, :3], repeated[:, :3]], axis=0)[:, :, [0, 1, 0]])],
             {"axis": 2, "sorted": 0}, n_outputs=4, opset=11, output_type=[TensorProto.FLOAT, I64, I64, I64]),
        Case("unique_values_only", "Unique", [param("X", repeated)], opset=11),
    ]
    for case in cases:
        if case.name == "unique_axis2_unsorted":
            case.reference_is_wrong = ("onnx.reference's Unique with sorted=0 takes Y's slices along axis 0 whatever `axis` "
                                       "says (np.take(x, indices, axis=0)); onnxruntime follows the spec")
        if case.name == "compress_axis0_opset9":
            case.output_shapes = [[2, 2]]  # onnx infers no shape for Compress-9
    return cases
