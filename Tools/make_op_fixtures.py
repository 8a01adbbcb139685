#!/usr/bin/env python3
"""One-node ONNX models with onnxruntime outputs: Fixtures/ops/<case>/ and Fixtures/ops/cases.json.

Each case is one node (but the sequence and optional cases, a few nodes around the op: see
Tools/op_cases/containers.py) (opset 17 unless the case names another, IR 8). The cases of an operator family
may live in their own module under Tools/op_cases/ (a `build_cases(rng, Case)` function). Data operands are graph inputs, stored as input_<i>.npy in
graph-input order; parameters (weights, bias, slopes, Clip bounds, BatchNormalization statistics, Resize
scales/sizes, Reshape shape, Slice starts/ends/axes/steps) are initializers inside model.onnx, as in
real models (the shapes they determine are then static). Outputs are onnxruntime 1.32 results
(CPUExecutionProvider, ORT_DISABLE_ALL, 1 thread) as output_<i>.npy. Each case is also run by onnx.reference (the ONNX package's Python implementation of
the spec); cases.json records the relative difference, and the script stops above 1e-5. A case of an
onnxruntime contrib op names its domain (`com.microsoft`, imported at version 1); onnx has no schema or
reference implementation for those, so they are neither shape-checked nor cross-checked. A float16 case
(`float16_widened`, Tools/op_cases/float16.py) is also run as its float32 twin: cases.json records how many
float16 steps onnxruntime's float16 outputs are from the twin's rounded once, and the twin is what
onnx.reference cross-checks.

Shapes are small and odd, channel counts not multiples of 16; values are standard normal from
numpy.random.default_rng(17), drawn in the order the cases are listed (so the whole set is
reproducible; change nothing above a case to keep its data).

Run through Tools/make_fixtures.py (`python Tools/make_fixtures.py ops`) or directly:
    python Tools/make_op_fixtures.py [--out Fixtures]
"""

import argparse
import json
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_fixtures import OPS_SEED, OPSET, IR_VERSION, save, session  # noqa: E402

INT64_MAX = np.iinfo(np.int64).max


class Case:
    """A one-node model: data inputs (graph inputs), params (initializers), attributes."""

    def __init__(self, name, op, inputs, attrs=None, n_outputs=1, what="", opset=None, output_type=TensorProto.FLOAT):
        # inputs: list of (name, kind, value) with kind "data", "param" or "empty".
        self.name, self.op, self.inputs, self.attrs = name, op, inputs, attrs or {}
        self.n_outputs, self.what, self.opset, self.output_type = n_outputs, what, opset or OPSET, output_type


def build_cases(rng: np.random.Generator) -> list[Case]:
    def x(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    def data(name, value):
        return (name, "data", value)

    def param(name, value):
        return (name, "param", value)

    empty = ("", "empty", None)
    i64 = lambda *v: np.array(v, dtype=np.int64)  # noqa: E731
    f32 = lambda *v: np.array(v, dtype=np.float32)  # noqa: E731
    cases = []

    def conv(name, xs, ws, bias=True, what="", op="Conv", **attrs):
        ins = [data("X", x(*xs)), param("W", x(*ws))]
        if bias:
            cout = ws[0] if op == "Conv" else ws[1] * attrs.get("group", 1)
            ins.append(param("B", x(cout)))
        cases.append(Case(name, op, ins, attrs, what=what))

    # Conv
    conv("conv_1x1", (1, 5, 7, 9), (11, 5, 1, 1), kernel_shape=[1, 1], what="1x1, no pads/strides attributes")
    conv("conv_1x1_on_1x1_map", (1, 19, 1, 1), (7, 19, 1, 1), kernel_shape=[1, 1], what="SE-style FC")
    conv("conv_3x3_s1_p1", (1, 3, 9, 11), (6, 3, 3, 3), kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    conv("conv_3x3_s2_pads_0011", (1, 3, 10, 12), (6, 3, 3, 3), kernel_shape=[3, 3], strides=[2, 2],
         pads=[0, 0, 1, 1], what="TF SAME stride 2 (the model's stem)")
    conv("conv_3x3_s2_odd_input", (1, 3, 11, 13), (5, 3, 3, 3), kernel_shape=[3, 3], strides=[2, 2],
         pads=[1, 1, 1, 1])
    conv("conv_5x5_s1_p2", (1, 4, 9, 7), (5, 4, 5, 5), kernel_shape=[5, 5], pads=[2, 2, 2, 2])
    conv("conv_5x5_s2_pads_1122", (1, 4, 12, 10), (3, 4, 5, 5), kernel_shape=[5, 5], strides=[2, 2],
         pads=[1, 1, 2, 2])
    conv("conv_3x3_dilation2", (1, 3, 11, 9), (4, 3, 3, 3), kernel_shape=[3, 3], dilations=[2, 2],
         pads=[2, 2, 2, 2])
    conv("conv_3x3_dilation2_s2_asym_pads", (1, 3, 12, 13), (4, 3, 3, 3), kernel_shape=[3, 3],
         dilations=[2, 2], strides=[2, 2], pads=[1, 2, 2, 1])
    conv("conv_1x3_strides_2x1", (1, 3, 9, 8), (5, 3, 1, 3), kernel_shape=[1, 3], strides=[2, 1],
         pads=[0, 1, 0, 1], what="rectangular kernel, unequal strides")
    conv("conv_auto_pad_same_upper", (1, 3, 10, 9), (5, 3, 3, 3), kernel_shape=[3, 3], strides=[2, 2],
         auto_pad="SAME_UPPER")
    conv("conv_auto_pad_same_lower", (1, 3, 10, 9), (5, 3, 3, 3), kernel_shape=[3, 3], strides=[2, 2],
         auto_pad="SAME_LOWER")
    conv("conv_auto_pad_same_upper_k4", (1, 2, 7, 8), (3, 2, 4, 4), kernel_shape=[4, 4],
         auto_pad="SAME_UPPER", what="even kernel: odd total padding at stride 1")
    conv("conv_auto_pad_valid", (1, 3, 11, 10), (5, 3, 3, 3), kernel_shape=[3, 3], strides=[2, 2],
         auto_pad="VALID")
    conv("conv_depthwise_3x3_s1", (1, 7, 9, 11), (7, 1, 3, 3), kernel_shape=[3, 3], pads=[1, 1, 1, 1], group=7)
    conv("conv_depthwise_3x3_s2_pads_0011", (1, 7, 10, 12), (7, 1, 3, 3), kernel_shape=[3, 3],
         strides=[2, 2], pads=[0, 0, 1, 1], group=7)
    conv("conv_depthwise_5x5_s1", (1, 13, 9, 7), (13, 1, 5, 5), kernel_shape=[5, 5], pads=[2, 2, 2, 2], group=13)
    conv("conv_depthwise_5x5_s2_pads_1122", (1, 13, 10, 12), (13, 1, 5, 5), kernel_shape=[5, 5],
         strides=[2, 2], pads=[1, 1, 2, 2], group=13)
    conv("conv_depthwise_multiplier2", (1, 5, 8, 7), (10, 1, 3, 3), kernel_shape=[3, 3], pads=[1, 1, 1, 1],
         group=5, what="group = C_in, C_out = 2 C_in")
    conv("conv_grouped_3", (1, 6, 9, 8), (9, 2, 3, 3), kernel_shape=[3, 3], pads=[1, 1, 1, 1], group=3)
    conv("conv_no_bias", (1, 3, 8, 9), (5, 3, 3, 3), bias=False, kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    conv("conv_batch2", (2, 3, 7, 6), (4, 3, 3, 3), kernel_shape=[3, 3], pads=[1, 1, 1, 1], what="N = 2")

    # ConvTranspose: W is [C_in, C_out / group, kH, kW].
    conv("convtranspose_k2_s2", (1, 5, 6, 7), (5, 3, 2, 2), op="ConvTranspose", kernel_shape=[2, 2],
         strides=[2, 2], what="non-overlapping, the model's output layer shape")
    conv("convtranspose_k2_s2_16to1", (1, 16, 5, 7), (16, 1, 2, 2), op="ConvTranspose", kernel_shape=[2, 2],
         strides=[2, 2])
    conv("convtranspose_k3_s2_pads_output_padding", (1, 4, 5, 6), (4, 3, 3, 3), op="ConvTranspose",
         kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], output_padding=[1, 1])
    conv("convtranspose_k4_s2_p1", (1, 3, 5, 4), (3, 2, 4, 4), op="ConvTranspose", kernel_shape=[4, 4],
         strides=[2, 2], pads=[1, 1, 1, 1])
    conv("convtranspose_k3_s1_no_bias", (1, 3, 6, 5), (3, 4, 3, 3), bias=False, op="ConvTranspose",
         kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    conv("convtranspose_group2", (1, 4, 5, 6), (4, 3, 3, 3), op="ConvTranspose", kernel_shape=[3, 3],
         strides=[2, 2], group=2, what="C_in 4, C_out 6")
    conv("convtranspose_asym_pads_dilation2", (1, 3, 5, 6), (3, 2, 3, 3), op="ConvTranspose",
         kernel_shape=[3, 3], strides=[2, 2], pads=[0, 1, 1, 0], dilations=[2, 2])

    # Activations
    cases.append(Case("relu", "Relu", [data("X", x(1, 5, 7, 9))]))
    cases.append(Case("prelu_scalar_slope", "PRelu", [data("X", x(1, 5, 7, 9)), param("slope", f32(0.25))],
                      what="slope shape [1]"))
    cases.append(Case("prelu_channel_slope", "PRelu",
                      [data("X", x(1, 5, 7, 9)), param("slope", x(5, 1, 1))], what="slope [C,1,1]"))
    cases.append(Case("clip_min_max", "Clip", [data("X", x(1, 5, 7, 9)), param("min", np.float32(-0.5)),
                                                param("max", np.float32(0.75))]))
    cases.append(Case("clip_min_only", "Clip", [data("X", x(1, 5, 7, 9)), param("min", np.float32(0.0))]))
    cases.append(Case("clip_max_only", "Clip", [data("X", x(1, 5, 7, 9)), empty, param("max", np.float32(0.3))],
                      what="min is the empty name"))
    cases.append(Case("clip_relu6", "Clip", [data("X", 4 * x(1, 5, 7, 9)), param("min", np.float32(0.0)),
                                              param("max", np.float32(6.0))]))
    cases.append(Case("hardswish", "HardSwish", [data("X", 4 * x(1, 5, 7, 9))]))
    cases.append(Case("hardsigmoid_default", "HardSigmoid", [data("X", 4 * x(1, 5, 7, 9))],
                      what="alpha 0.2, beta 0.5"))
    cases.append(Case("hardsigmoid_alpha_beta", "HardSigmoid", [data("X", 4 * x(1, 5, 7, 9))],
                      {"alpha": 0.3, "beta": 0.4}))
    cases.append(Case("sigmoid", "Sigmoid", [data("X", 8 * x(1, 5, 7, 9))]))

    # Element-wise binary with numpy broadcasting
    def denominator(*shape):
        v = x(*shape)
        return (np.sign(v) + (v == 0)) * (0.5 + np.abs(v)).astype(np.float32)

    binaries = [
        ("add_same_shape", "Add", (1, 5, 7, 9), (1, 5, 7, 9)),
        ("add_scalar", "Add", (1, 5, 7, 9), ()),
        ("add_channel", "Add", (1, 5, 7, 9), (1, 5, 1, 1)),
        ("add_row_rank_mismatch", "Add", (2, 3, 7, 9), (9,)),
        ("sub_channel_rank3", "Sub", (1, 5, 7, 9), (5, 1, 1)),
        ("sub_scalar_left", "Sub", (), (1, 5, 7, 9)),
        ("sub_bidirectional", "Sub", (1, 5, 1, 9), (2, 1, 7, 1)),
        ("mul_channel", "Mul", (1, 5, 7, 9), (1, 5, 1, 1)),
        ("mul_rank_mismatch_hw", "Mul", (1, 5, 7, 9), (7, 9)),
        ("mul_scalar_rank1", "Mul", (1, 5, 7, 9), (1,)),
        ("div_same_shape", "Div", (1, 5, 7, 9), (1, 5, 7, 9)),
        ("div_channel", "Div", (1, 5, 7, 9), (1, 5, 1, 1)),
        ("div_scalar", "Div", (1, 5, 7, 9), ()),
        ("div_column_broadcast", "Div", (3, 1, 7, 1), (1, 5, 1, 9)),
    ]
    for name, op, sa, sb in binaries:
        a = x(*sa)
        b = denominator(*sb) if op == "Div" else x(*sb)
        cases.append(Case(name, op, [data("A", np.asarray(a, dtype=np.float32)),
                                     data("B", np.asarray(b, dtype=np.float32))],
                          what=f"{list(sa)} with {list(sb)}"))

    # Pooling and reductions
    cases.append(Case("globalaveragepool", "GlobalAveragePool", [data("X", x(1, 7, 5, 9))]))
    cases.append(Case("globalaveragepool_batch2", "GlobalAveragePool", [data("X", x(2, 3, 6, 4))]))
    pools = [
        ("averagepool_k3_s2_pads_exclude", "AveragePool",
         dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], count_include_pad=0)),
        ("averagepool_k3_s2_pads_include", "AveragePool",
         dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], count_include_pad=1)),
        ("averagepool_k3_s2_ceil", "AveragePool", dict(kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)),
        ("averagepool_k3_s2_ceil_pads_include", "AveragePool",
         dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1, count_include_pad=1)),
        ("averagepool_k2_s2", "AveragePool", dict(kernel_shape=[2, 2], strides=[2, 2])),
        ("averagepool_asym_pads", "AveragePool", dict(kernel_shape=[3, 2], strides=[1, 2], pads=[0, 1, 2, 0])),
        ("maxpool_k2_s2", "MaxPool", dict(kernel_shape=[2, 2], strides=[2, 2])),
        ("maxpool_k3_s1_pads", "MaxPool", dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1])),
        ("maxpool_k2_dilation2", "MaxPool", dict(kernel_shape=[2, 2], dilations=[2, 2])),
        ("maxpool_k3_s2_ceil", "MaxPool", dict(kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)),
        ("maxpool_k3_s2_pads_ceil", "MaxPool", dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1],
                                                      ceil_mode=1)),
    ]
    for name, op, attrs in pools:
        cases.append(Case(name, op, [data("X", x(1, 5, 9, 10))], attrs, what="input [1,5,9,10]"))

    reduces = [
        ("reducemean_hw_keepdims", dict(axes=[2, 3], keepdims=1)),
        ("reducemean_c_no_keepdims", dict(axes=[1], keepdims=0)),
        ("reducemean_negative_axis", dict(axes=[-1], keepdims=1)),
        ("reducemean_negative_axes_no_keepdims", dict(axes=[-3, -1], keepdims=0)),
        ("reducemean_all_default_keepdims", dict()),
        ("reducemean_all_no_keepdims", dict(keepdims=0)),
    ]
    for name, attrs in reduces:
        cases.append(Case(name, "ReduceMean", [data("X", x(1, 5, 7, 9))], attrs))

    cases.append(Case("batchnormalization", "BatchNormalization",
                      [data("X", x(1, 5, 7, 9)), param("scale", x(5)), param("B", x(5)), param("mean", x(5)),
                       param("var", (0.5 + np.abs(x(5))).astype(np.float32))], {"epsilon": 1e-3},
                      what="inference mode, epsilon 1e-3"))
    cases.append(Case("batchnormalization_default_eps_batch2", "BatchNormalization",
                      [data("X", x(2, 3, 4, 5)), param("scale", x(3)), param("B", x(3)), param("mean", x(3)),
                       param("var", (0.5 + np.abs(x(3))).astype(np.float32))]))

    # Resize: inputs X, roi (empty), scales, sizes.
    def resize(name, xs, attrs, scales=None, sizes=None, what=""):
        ins = [data("X", x(*xs)), empty]
        if scales is not None:
            ins.append(param("scales", np.array(scales, dtype=np.float32)))
        else:
            ins += [empty, param("sizes", np.array(sizes, dtype=np.int64))]
        cases.append(Case(name, "Resize", ins, attrs, what=what))

    lin = lambda c: dict(mode="linear", coordinate_transformation_mode=c)  # noqa: E731
    resize("resize_linear_half_pixel_scales_x2", (1, 3, 5, 7), lin("half_pixel"), scales=[1, 1, 2, 2])
    resize("resize_linear_half_pixel_sizes_x2", (1, 5, 4, 6), lin("half_pixel"), sizes=[1, 5, 8, 12],
           what="the model's upsampling")
    resize("resize_linear_half_pixel_sizes_down", (1, 3, 9, 11), lin("half_pixel"), sizes=[1, 3, 5, 6])
    resize("resize_linear_align_corners_sizes_up", (1, 3, 5, 7), lin("align_corners"), sizes=[1, 3, 9, 10])
    resize("resize_linear_align_corners_sizes_down", (1, 3, 9, 11), lin("align_corners"), sizes=[1, 3, 4, 5])
    resize("resize_linear_asymmetric_scales_x2", (1, 3, 5, 7), lin("asymmetric"), scales=[1, 1, 2, 2])
    resize("resize_linear_asymmetric_scales_down", (1, 3, 9, 11), lin("asymmetric"), scales=[1, 1, 0.5, 0.6])
    resize("resize_linear_pytorch_half_pixel_sizes_up", (1, 3, 5, 7), lin("pytorch_half_pixel"),
           sizes=[1, 3, 8, 11])
    resize("resize_linear_pytorch_half_pixel_to_1", (1, 3, 9, 11), lin("pytorch_half_pixel"),
           sizes=[1, 3, 1, 6], what="output length 1: where pytorch_half_pixel differs from half_pixel")
    resize("resize_linear_half_pixel_non_integer_scales", (1, 2, 6, 5), lin("half_pixel"),
           scales=[1, 1, 1.7, 2.3])
    near = lambda c, m: dict(mode="nearest", coordinate_transformation_mode=c, nearest_mode=m)  # noqa: E731
    resize("resize_nearest_default_attrs_scales_x2", (1, 3, 5, 7), dict(mode="nearest"), scales=[1, 1, 2, 2],
           what="half_pixel, round_prefer_floor (the defaults)")
    resize("resize_nearest_half_pixel_round_prefer_floor_sizes", (1, 3, 5, 7),
           near("half_pixel", "round_prefer_floor"), sizes=[1, 3, 8, 11])
    resize("resize_nearest_half_pixel_round_prefer_ceil_sizes", (1, 3, 5, 7),
           near("half_pixel", "round_prefer_ceil"), sizes=[1, 3, 8, 11])
    resize("resize_nearest_asymmetric_floor_scales_x2", (1, 3, 5, 7), near("asymmetric", "floor"),
           scales=[1, 1, 2, 2])
    resize("resize_nearest_asymmetric_ceil_sizes", (1, 3, 5, 7), near("asymmetric", "ceil"), sizes=[1, 3, 9, 12])
    resize("resize_nearest_align_corners_round_prefer_floor", (1, 3, 5, 7),
           near("align_corners", "round_prefer_floor"), sizes=[1, 3, 9, 13])
    resize("resize_nearest_pytorch_half_pixel_floor_down", (1, 3, 9, 11),
           near("pytorch_half_pixel", "floor"), sizes=[1, 3, 4, 5])
    resize("resize_nearest_half_pixel_scales_down", (1, 3, 10, 11), near("half_pixel", "round_prefer_floor"),
           scales=[1, 1, 0.5, 0.5])

    # Layout and shape ops
    cases.append(Case("concat_axis1", "Concat", [data("A", x(1, 3, 5, 7)), data("B", x(1, 5, 5, 7)),
                                                  data("C", x(1, 1, 5, 7))], {"axis": 1}))
    cases.append(Case("concat_axis_negative", "Concat", [data("A", x(1, 3, 5, 2)), data("B", x(1, 3, 5, 7))],
                      {"axis": -1}))
    cases.append(Case("concat_axis0", "Concat", [data("A", x(1, 3, 4)), data("B", x(2, 3, 4))], {"axis": 0}))
    cases.append(Case("reshape_zero_and_minus_one", "Reshape", [data("X", x(1, 6, 5, 7)),
                                                                 param("shape", i64(0, 3, -1, 7))],
                      what="0 copies the input dim, -1 is inferred"))
    cases.append(Case("reshape_flatten", "Reshape", [data("X", x(1, 6, 5, 7)), param("shape", i64(-1))]))
    cases.append(Case("reshape_nchw_to_nhwc_c1", "Reshape", [data("X", x(1, 1, 9, 11)),
                                                              param("shape", i64(1, 9, 11, 1))]))
    cases.append(Case("transpose_nchw_to_nhwc", "Transpose", [data("X", x(1, 5, 7, 9))], {"perm": [0, 2, 3, 1]}))
    cases.append(Case("transpose_nhwc_to_nchw", "Transpose", [data("X", x(1, 7, 9, 3))], {"perm": [0, 3, 1, 2]}))
    cases.append(Case("transpose_perm_3102", "Transpose", [data("X", x(2, 3, 4, 5))], {"perm": [3, 1, 0, 2]}))
    cases.append(Case("transpose_default_reverses", "Transpose", [data("X", x(2, 3, 5))]))
    cases.append(Case("softmax_axis_default", "Softmax", [data("X", 3 * x(1, 5, 7, 9))], what="axis -1"))
    cases.append(Case("softmax_axis_minus1", "Softmax", [data("X", 3 * x(2, 3, 7))], {"axis": -1}))
    cases.append(Case("softmax_axis1", "Softmax", [data("X", 3 * x(1, 5, 7, 9))], {"axis": 1}))

    def slc(name, xs, starts, ends, axes=None, steps=None, what=""):
        ins = [data("X", x(*xs)), param("starts", i64(*starts)), param("ends", i64(*ends))]
        if axes is not None:
            ins.append(param("axes", i64(*axes)))
        elif steps is not None:
            ins.append(empty)
        if steps is not None:
            ins.append(param("steps", i64(*steps)))
        cases.append(Case(name, "Slice", ins, what=what))

    slc("slice_axes_steps", (1, 5, 7, 9), [1, 2], [4, 9], axes=[1, 3], steps=[1, 3])
    slc("slice_negative_starts_ends", (1, 5, 7, 9), [-4, -6], [-1, -2], axes=[2, 3])
    slc("slice_negative_axes", (1, 5, 7, 9), [1], [3], axes=[-3])
    slc("slice_clamped", (1, 5, 7, 9), [-1000, 2], [INT64_MAX, 1000], axes=[2, 3],
        what="starts below -dim and ends above dim are clamped")
    slc("slice_negative_step", (1, 5, 7, 9), [-1, 5], [-INT64_MAX, 0], axes=[3, 2], steps=[-1, -2],
        what="reversal; end -INT64_MAX means 'through index 0'")
    slc("slice_no_axes_all_dims", (2, 5, 7), [0, 1, 2], [1, 4, 7], what="axes and steps absent")
    slc("slice_steps_without_axes", (2, 5, 7), [0, 0, 1], [2, 5, 7], steps=[1, 2, 2], what="axes is the empty name")
    return cases


def family_cases() -> list[Case]:
    """The cases of every module in Tools/op_cases/ (one per operator family), each drawing from
    its own generator seeded by OPS_SEED and the module's name, so families never shift each
    other's data."""
    import importlib
    import pkgutil
    import zlib
    cases = []
    folder = os.path.join(HERE, "op_cases")
    for module in sorted(m.name for m in pkgutil.iter_modules([folder])):
        family = importlib.import_module(f"op_cases.{module}")
        rng = np.random.default_rng([OPS_SEED, zlib.crc32(module.encode())])
        cases += family.build_cases(rng, Case)
    return cases


def tensor_dtype(a: np.ndarray) -> int:
    return helper.np_dtype_to_tensor_dtype(a.dtype)


def make_model(case: Case) -> onnx.ModelProto:
    graph_inputs, inits, node_inputs = [], [], []
    for name, kind, value in case.inputs:
        node_inputs.append(name)
        if kind == "data":
            graph_inputs.append(helper.make_tensor_value_info(name, tensor_dtype(value), list(value.shape)))
        elif kind == "param":
            inits.append(numpy_helper.from_array(np.asarray(value), name=name))
    while node_inputs and node_inputs[-1] == "":
        node_inputs.pop()
    outputs = ["Y"] if case.n_outputs == 1 else [f"Y{i}" for i in range(case.n_outputs)]
    # A case may carry `domain` (an onnxruntime contrib op: "com.microsoft", version 1).
    domain = getattr(case, "domain", "")
    # A case may carry `nodes` instead of its one node: the op under test within the nodes that make
    # and read the sequences or optionals it works on (Tools/op_cases/containers.py).
    nodes = getattr(case, "nodes", None) or [helper.make_node(case.op, node_inputs, outputs, name=case.name,
                                                              domain=domain or None, **case.attrs)]
    # output_type: one type for every output, or a list with one per output.
    types = case.output_type if isinstance(case.output_type, list) else [case.output_type] * len(outputs)
    graph = helper.make_graph(nodes, case.name, graph_inputs,
                              # A case may carry `output_shapes` for ops whose shape onnx cannot infer (GroupNormalization).
                              [helper.make_tensor_value_info(o, t, shape) for o, t, shape in
                               zip(outputs, types, getattr(case, "output_shapes", [None] * len(outputs)))],
                              initializer=inits)
    imports = [helper.make_opsetid("", case.opset)] + ([helper.make_opsetid(domain, 1)] if domain else [])
    model = helper.make_model(graph, opset_imports=imports,
                              producer_name="vbg Tools/make_op_fixtures.py", producer_version="1")
    model.ir_version = IR_VERSION
    # Record the inferred output shapes in the model (a reader can check its own inference against them).
    # onnx knows no com.microsoft schemas: those cases are checked by onnxruntime alone.
    if not domain:
        model = onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True)
        onnx.checker.check_model(model, full_check=True)
    return model


def cross_check(model: onnx.ModelProto, feeds: dict, results: list) -> float | None:
    """max|ORT - onnx.reference| / max|onnx.reference| over the outputs, a second opinion from the ONNX
    package's Python reference implementation; None where that implementation cannot run the case
    (it lacks grouped ConvTranspose)."""
    from onnx.reference import ReferenceEvaluator
    try:
        ref = ReferenceEvaluator(model).run(None, feeds)
    except Exception:  # noqa: BLE001 - a missing reference kernel only means no second opinion
        return None
    worst = 0.0
    for r, e in zip(results, ref):
        e = np.asarray(e)
        if np.shape(r) != e.shape:
            raise SystemExit(f"{model.graph.name}: onnxruntime shape {np.shape(r)} != reference {e.shape}")
        strings = e.dtype.kind in "OU" and np.asarray(r).dtype.kind in "OU"  # str objects or numpy's <U
        if e.dtype != np.asarray(r).dtype and not strings:
            raise SystemExit(f"{model.graph.name}: onnxruntime type {np.asarray(r).dtype} != reference {e.dtype}")
        if e.size and not np.issubdtype(e.dtype, np.floating):
            if not np.array_equal(r, e):
                raise SystemExit(f"{model.graph.name}: onnxruntime and onnx.reference differ")
        elif e.size:
            r, e = np.asarray(r, dtype=np.float64), e.astype(np.float64)
            # NaN where the spec makes one (a mean over no weight): both must have it at the same places.
            if not np.array_equal(np.isnan(r), np.isnan(e)):
                raise SystemExit(f"{model.graph.name}: onnxruntime and onnx.reference have NaN at different places")
            r, e = r[~np.isnan(e)], e[~np.isnan(e)]
            if not e.size:
                continue
            worst = max(worst, float(np.max(np.abs(r - e)) / max(float(np.max(np.abs(e))), 1e-30)))
    if worst > 1e-5:
        raise SystemExit(f"{model.graph.name}: onnxruntime and onnx.reference differ by {worst:.2e}")
    return float(f"{worst:.3g}")


def float16_steps(a: np.ndarray, b: np.ndarray) -> int:
    """The largest distance in float16 steps between two float16 arrays (bit patterns as ordered integers)."""
    def ordered(v):
        bits = np.asarray(v, dtype=np.float16).view(np.uint16).astype(np.int64)
        return np.where(bits & 0x8000, -(bits & 0x7FFF), bits)
    if np.any(np.isnan(a)) or np.any(np.isnan(b)):
        raise SystemExit("float16 case with NaN outputs")
    return int(np.max(np.abs(ordered(a) - ordered(b)))) if np.size(a) else 0


def float32_twin(case: Case):
    """The float32 version of a float16 case (every float16 array widened, exactly; float16 outputs
    float32), its feeds and onnxruntime's results."""
    widen = lambda v: v.astype(np.float32) if isinstance(v, np.ndarray) and v.dtype == np.float16 else v  # noqa: E731
    twin = Case(case.name, case.op, [(n, k, widen(v)) for n, k, v in case.inputs], case.attrs, case.n_outputs, case.what,
                case.opset, TensorProto.FLOAT)
    model = make_model(twin)
    feeds = {n: v for n, k, v in twin.inputs if k == "data"}
    sess = session(model.SerializeToString(deterministic=True))
    return model, feeds, sess.run([o.name for o in sess.get_outputs()], feeds)


def make_ops(out: str):
    root = os.path.join(out, "ops")
    if os.path.isdir(root):
        shutil.rmtree(root)
    rng = np.random.default_rng(OPS_SEED)
    index = []
    for case in build_cases(rng) + family_cases():
        d = os.path.join(root, case.name)
        os.makedirs(d)
        model = make_model(case)
        blob = model.SerializeToString(deterministic=True)
        with open(os.path.join(d, "model.onnx"), "wb") as f:
            f.write(blob)
        feeds = {}
        entry = {"name": case.name, "op": case.op, **({"domain": case.domain} if getattr(case, "domain", "") else {}), "opset": case.opset, "attributes": {k: numpy_helper.to_array(v).tolist() if isinstance(v, TensorProto) else v
                                                                    for k, v in case.attrs.items()},
                 "what": case.what, "inputs": [], "initializers": [], "outputs": []}
        for name, kind, value in case.inputs:
            if kind == "data":
                i = len(feeds)
                feeds[name] = value
                save(os.path.join(d, f"input_{i}.npy"), value)
                entry["inputs"].append({"file": f"input_{i}.npy", "name": name, "shape": list(value.shape)})
            elif kind == "param":
                entry["initializers"].append({"name": name, "shape": list(np.shape(value)),
                                              "values": np.asarray(value).reshape(-1).tolist()
                                              if np.size(value) <= 8 else None})
        sess = session(blob)
        names = [o.name for o in sess.get_outputs()]
        results = sess.run(names, feeds)
        for i, (name, r) in enumerate(zip(names, results)):
            r = np.asarray(r)
            save(os.path.join(d, f"output_{i}.npy"), r)
            entry["outputs"].append({"file": f"output_{i}.npy", "name": name, "shape": list(r.shape)})
        # A case may carry `reference_is_wrong` (why onnx.reference disagrees with the spec) to skip the cross-check.
        skipped = getattr(case, "reference_is_wrong", None)
        if getattr(case, "float16_widened", False):
            # A float16 case (Tools/op_cases/float16.py): its float32 twin is what onnx.reference checks.
            entry["float16_widened"] = True
            twin_model, twin_feeds, twin_results = float32_twin(case)
            entry["float16_steps_from_rounded_float32"] = max(
                float16_steps(r, np.asarray(t).astype(np.float16)) for r, t in zip(results, twin_results))
            entry["onnx_reference_max_rel_diff"] = cross_check(twin_model, twin_feeds, twin_results)
            entry["onnx_reference_on"] = "the float32 twin"
        else:
            entry["onnx_reference_max_rel_diff"] = None if skipped else cross_check(model, feeds, results)
        if skipped:
            entry["onnx_reference_skipped"] = skipped
        index.append(entry)
    with open(os.path.join(root, "cases.json"), "w") as f:
        json.dump({"opset": OPSET, "ir_version": IR_VERSION, "seed": OPS_SEED,
                   "runtime": f"onnxruntime {__import__('onnxruntime').__version__}, CPUExecutionProvider, "
                              "ORT_DISABLE_ALL, 1 thread",
                   "cases": index}, f, indent=1)
        f.write("\n")
    ops = sorted({c["op"] for c in index})
    print(f"ops -> {root}: {len(index)} cases, {len(ops)} op types: {' '.join(ops)}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(HERE, "..", "Fixtures"))
    make_ops(ap.parse_args().out)
