"""Shape, type and data-movement ops of shape subgraphs: Shape, Size, Cast, CastLike, Gather,
Unsqueeze, Squeeze, Flatten, Expand, ConstantOfShape, Range, and Reshape/Concat/Transpose/Slice
on integer tensors."""

import numpy as np
from onnx import TensorProto, helper


def build_cases(rng, Case):
    def x(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    def ints(*shape, low=-50, high=50, dtype=np.int64):
        return rng.integers(low, high, size=shape).astype(dtype)

    def data(name, value):
        return (name, "data", value)

    def param(name, value):
        return (name, "param", value)

    i64 = lambda *v: np.array(v, dtype=np.int64)  # noqa: E731
    I64, F16 = TensorProto.INT64, TensorProto.FLOAT16
    cases = [
        Case("shape", "Shape", [data("X", x(2, 3, 5))], output_type=I64),
        Case("shape_start_end", "Shape", [data("X", x(2, 3, 5, 7))], {"start": 1, "end": -1}, output_type=I64),
        Case("size", "Size", [data("X", x(2, 3, 5))], output_type=I64),
        Case("cast_float_to_int64", "Cast", [data("X", 40 * x(3, 7))], {"to": TensorProto.INT64}, output_type=I64,
             what="truncation toward zero"),
        Case("cast_int64_to_float", "Cast", [data("X", ints(3, 7, low=-10**6, high=10**6))], {"to": TensorProto.FLOAT}),
        Case("cast_float_to_float16", "Cast", [data("X", 100 * x(3, 7))], {"to": F16}, output_type=F16),
        Case("cast_int32_to_bool", "Cast", [data("X", ints(3, 7, low=-2, high=3, dtype=np.int32))], {"to": TensorProto.BOOL},
             output_type=TensorProto.BOOL),
        Case("castlike_float_to_int32", "CastLike", [data("X", 20 * x(3, 5)), data("like", ints(1, dtype=np.int32))],
             output_type=TensorProto.INT32),
        Case("gather_axis0_int64_data", "Gather", [data("X", ints(5, 3)), data("indices", i64(4, 0, -1, 2))], {"axis": 0},
             output_type=I64),
        Case("gather_axis1_matrix_indices", "Gather", [data("X", x(3, 6, 2)), data("indices", i64(5, -6, 0, 2, 1, 1).reshape(2, 3))],
             {"axis": 1}),
        Case("gather_scalar_index", "Gather", [data("X", x(4, 5)), param("indices", np.array(2, dtype=np.int32))], {"axis": -1}),
        Case("unsqueeze_axes_input", "Unsqueeze", [data("X", x(3, 5)), param("axes", i64(0, -1))]),
        Case("unsqueeze_axes_attribute_opset11", "Unsqueeze", [data("X", ints(3, 5))], {"axes": [1]}, opset=11, output_type=I64),
        Case("squeeze_axes_input", "Squeeze", [data("X", x(1, 3, 1, 5)), param("axes", i64(2))]),
        Case("squeeze_all_ones", "Squeeze", [data("X", ints(1, 3, 1, 5))], output_type=I64),
        Case("squeeze_axes_attribute_opset11", "Squeeze", [data("X", x(1, 3, 1, 5))], {"axes": [0, -2]}, opset=11),
        Case("flatten_default_axis", "Flatten", [data("X", x(2, 3, 4, 5))]),
        Case("flatten_axis0", "Flatten", [data("X", x(2, 3, 4))], {"axis": 0}),
        Case("flatten_axis_negative", "Flatten", [data("X", ints(2, 3, 4))], {"axis": -1}, output_type=I64),
        Case("expand_both_ways", "Expand", [data("X", x(3, 1)), param("shape", i64(2, 1, 4))]),
        Case("expand_int64", "Expand", [data("X", ints(1, 5)), param("shape", i64(3, 5))], output_type=I64),
        Case("constantofshape_default", "ConstantOfShape", [param("shape", i64(2, 3))]),
        Case("constantofshape_int64_value", "ConstantOfShape", [param("shape", i64(4))],
             {"value": helper.make_tensor("value", I64, [1], [7])}, output_type=I64),
        Case("range_float", "Range", [param("start", np.float32(1.5)), param("limit", np.float32(-3.2)),
                                      param("delta", np.float32(-0.7))], what="negative delta"),
        Case("range_int64", "Range", [param("start", np.int64(-3)), param("limit", np.int64(10)), param("delta", np.int64(4))],
             output_type=I64),
        Case("reshape_int64", "Reshape", [data("X", ints(2, 6)), param("shape", i64(3, -1))], output_type=I64),
        Case("concat_int64", "Concat", [data("A", ints(2)), data("B", ints(3))], {"axis": 0}, output_type=I64),
        Case("transpose_int32", "Transpose", [data("X", ints(2, 3, 4, dtype=np.int32))], {"perm": [2, 0, 1]},
             output_type=TensorProto.INT32),
        Case("slice_int64", "Slice", [data("X", ints(7)), param("starts", i64(1)), param("ends", i64(-1)),
                                      param("axes", i64(0)), param("steps", i64(2))], output_type=I64),
        Case("slice_attributes_opset9", "Slice", [data("X", x(4, 6))], {"starts": [1, 0], "ends": [3, 5], "axes": [0, 1]},
             opset=9),
        Case("clip_attributes_opset8", "Clip", [data("X", 4 * x(3, 5))], {"min": -1.0, "max": 2.5}, opset=8),
    ]
    # CenterCropPad (opset 18): odd and even differences, crops and pads on one map, axes.
    cases += [
        Case("centercroppad_crop_odd", "CenterCropPad", [data("X", x(7, 9, 3)), param("shape", i64(4, 6, 3))], opset=18,
             what="crops of 3 on both axes: 1 dropped before, 2 after"),
        Case("centercroppad_pad_odd", "CenterCropPad", [data("X", x(3, 4, 2)), param("shape", i64(6, 7, 2))], opset=18,
             what="pads of 3: 1 zero before, 2 after"),
        Case("centercroppad_crop_and_pad", "CenterCropPad", [data("X", x(8, 3, 5)), param("shape", i64(5, 6))],
             {"axes": [0, 1]}, opset=18),
        Case("centercroppad_negative_axes_int32", "CenterCropPad",
             [data("X", ints(2, 5, 9, dtype=np.int32)), param("shape", i64(8, 4))], {"axes": [-2, -1]}, opset=18,
             output_type=TensorProto.INT32),
    ]
    return cases
