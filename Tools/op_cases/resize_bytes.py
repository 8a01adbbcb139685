"""Resize with mode linear on uint8 and int8 (what onnxruntime's QOperator quantizer leaves between quantized
nodes; onnxruntime truncates its float32 blend to the type). Values uniform over the type's range; sizes and
scales as upsampling decoders and crops use them."""

import numpy as np
from onnx import TensorProto


def build_cases(rng, Case):
    def ints(dtype, *shape):
        info = np.iinfo(dtype)
        return rng.integers(info.min, int(info.max) + 1, size=shape).astype(dtype)

    empty = ("", "empty", None)
    cases = []

    def resize(name, dtype, shape, attrs, sizes=None, scales=None, roi=None, what=""):
        inputs = [("X", "data", ints(dtype, *shape)),
                  ("roi", "param", np.array(roi, np.float32)) if roi is not None else empty,
                  ("scales", "param", np.array(scales, np.float32)) if scales is not None else empty]
        if sizes is not None:
            inputs.append(("sizes", "param", np.array(sizes, np.int64)))
        case = Case(name, "Resize", inputs, {"mode": "linear", **attrs}, opset=19,
                    output_type=TensorProto.UINT8 if dtype == np.uint8 else TensorProto.INT8, what=what)
        # onnx.reference blends in float and rounds to nearest; onnxruntime (and onnx's own Resize tests on
        # uint8, which pass nearest only) truncates: the spec leaves integer rounding open.
        case.reference_is_wrong = "onnx.reference rounds the linear blend of integers to nearest; onnxruntime truncates it"
        cases.append(case)

    resize("resize_uint8_linear_half_pixel_2x", np.uint8, (1, 5, 6, 7), {"coordinate_transformation_mode": "half_pixel"},
           sizes=[1, 5, 12, 14], what="a decoder's 2x upsampling (the built-in model's, quantized)")
    resize("resize_int8_linear_align_corners_odd", np.int8, (2, 3, 5, 4), {"coordinate_transformation_mode": "align_corners"},
           sizes=[2, 3, 9, 11], what="odd sizes, both axes growing by different ratios")
    resize("resize_uint8_linear_asymmetric_shrink", np.uint8, (1, 2, 9, 10), {"coordinate_transformation_mode": "asymmetric"},
           scales=[1, 1, 0.5, 0.75], what="shrinking by scales")
    resize("resize_int8_linear_2d_pytorch_half_pixel", np.int8, (6, 5), {"coordinate_transformation_mode": "pytorch_half_pixel"},
           sizes=[13, 1], what="a 2-D tensor; an axis resized to length 1")
    resize("resize_uint8_linear_tf_crop_and_resize", np.uint8, (1, 2, 6, 6), {"coordinate_transformation_mode": "tf_crop_and_resize",
                                                                             "extrapolation_value": 7.9},
           roi=[0, 0, -0.2, 0.1, 1, 1, 0.8, 1.3], sizes=[1, 2, 7, 5], what="a crop past the edges: extrapolation 7.9 stored as 7")
    return cases
