"""float16 models of float operators: every data input, parameter and output float16 (Resize's sizes
int64), as a float16 model exported by a converter holds them. The engine runs each on float32 copies
(Sources/Inference/Graph/FloatWidening.swift): a Cast before the node, float32 kernels, one rounding to
float16 after it.

Each case is marked `float16_widened`: make_op_fixtures.py then also runs its float32 twin (the same
node with every float16 array widened to float32, exactly) through onnxruntime, records how far
onnxruntime's float16 outputs are from the twin's outputs rounded once to float16
(`float16_steps_from_rounded_float32`, in float16 steps), and cross-checks the twin, not the float16
model, against onnx.reference (whose float16 kernels accumulate in float16)."""

import numpy as np
from onnx import TensorProto


def build_cases(rng, Case):
    def data(name, value):
        return (name, "data", value)

    def param(name, value):
        return (name, "param", value)

    def h(*shape, scale=1.0):
        return (scale * rng.standard_normal(shape)).astype(np.float16)

    empty = ("", "empty", None)
    cases = []

    def add(name, op, inputs, attrs=None, what="", opset=None):
        case = Case(name, op, inputs, attrs, what=what, opset=opset, output_type=TensorProto.FLOAT16)
        case.float16_widened = True
        cases.append(case)

    add("float16_conv_3x3_s1_p1", "Conv", [data("X", h(1, 3, 9, 11)), param("W", h(6, 3, 3, 3, scale=0.5)), param("B", h(6))],
        {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}, what="float16 input, weights and bias")
    add("float16_conv_depthwise_3x3_s2_pads_0011", "Conv",
        [data("X", h(1, 7, 10, 12)), param("W", h(7, 1, 3, 3, scale=0.5)), param("B", h(7))],
        {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [0, 0, 1, 1], "group": 7}, what="float16 depthwise, the model's stem geometry")
    add("float16_relu", "Relu", [data("X", h(1, 5, 7, 9))])
    add("float16_sigmoid", "Sigmoid", [data("X", h(1, 5, 7, 9, scale=8.0))])
    add("float16_softmax_axis_minus1", "Softmax", [data("X", h(2, 3, 7, scale=3.0))], {"axis": -1})
    add("float16_matmul_batched", "MatMul", [data("A", h(2, 5, 7)), data("B", h(7, 6))], what="[2,5,7] x [7,6]")
    add("float16_add_channel", "Add", [data("A", h(1, 5, 7, 9)), data("B", h(1, 5, 1, 1))], what="[1,5,7,9] with [1,5,1,1]")
    add("float16_resize_linear_half_pixel_sizes_x2", "Resize",
        [data("X", h(1, 5, 4, 6)), empty, empty, param("sizes", np.array([1, 5, 8, 12], dtype=np.int64))],
        {"mode": "linear", "coordinate_transformation_mode": "half_pixel"}, what="the model's upsampling, float16")
    add("float16_globalaveragepool", "GlobalAveragePool", [data("X", h(1, 7, 5, 9))])
    add("float16_layernormalization", "LayerNormalization",
        [data("X", h(2, 3, 8)), param("scale", h(8)), param("B", h(8))], {"axis": -1}, what="last axis, default epsilon")
    add("float16_gridsample_linear_border", "GridSample",
        [data("X", h(1, 2, 4, 5)), data("grid", rng.uniform(-1.2, 1.2, size=(1, 3, 4, 2)).astype(np.float16))],
        {"mode": "linear", "padding_mode": "border"}, opset=20, what="float16 image and grid")
    return cases
