#!/usr/bin/env python3
"""Fixtures/converted/: small person-segmentation-like models with random weights, written the way
the usual exporters write them, with an input and onnxruntime's outputs for each.

    venv/bin/python Tools/make_converter_models.py [--out Fixtures/converted] [--only NAME,...]

Each model is a few layers of the architecture it imitates, at a 32x32 to 64x64 input, with random
weights (no training: the masks mean nothing, the graphs are what matters). Three producers:
- tf2onnx (`tf2onnx.convert.from_keras`) on a Keras model built with random weights
  (`keras.utils.set_random_seed`): real converter output, NHWC with Transposes, ReLU6 as Clip,
  SAME pads, BatchNormalization where the converter keeps it. Needs `pip install tensorflow-cpu
  tf2onnx` in the venv;
- torch.onnx.export on a PyTorch module, when torch is installed (it is optional: without it the
  same graphs are written by onnx.helper, node for node as PyTorch 1.x's exporter writes them:
  initializers listed as graph inputs, BatchNormalization unfused, channel shuffles through
  Reshape / Transpose / Reshape, Shape / Gather / Unsqueeze / Concat for a dynamic batch);
- onnx.helper for what no converter here writes any more (Upsample at opsets 7, 8 and 9).

For each model NAME, in `Fixtures/converted/NAME/`:
- `model.onnx`;
- `input_<k>.npy`: graph input k (graph order, initializers listed as inputs excluded), float32
  uniform in [0, 1) from `numpy.random.default_rng(seed)`, seed per model below;
- `output_<k>.npy`: onnxruntime's graph output k for that input (CPUExecutionProvider,
  ORT_DISABLE_ALL, 1 thread), float32;
- `model.onnx.json` where the model needs a description beyond what detection finds (Docs/Models.md).
`manifest.json` lists each model: producer, opset, what it covers, inputs and outputs (name, shape,
file), the mask output, and the sha256 of model.onnx.

Determinism: onnx.helper and torch models are byte-identical on a rerun; tf2onnx names some nodes
after a counter and may not be (the weights and outputs are the same either way).
"""

import argparse
import functools
import hashlib
import json
import os
import sys

import numpy as np
import onnx
import onnxruntime
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from make_fixtures import save, session  # noqa: E402

# MARK: - onnx.helper graph building


class Graph:
    """A graph under construction: nodes, initializers, and random weights from one generator."""

    def __init__(self, seed, initializers_as_inputs=False):
        self.rng = np.random.default_rng(seed)
        self.nodes = []
        self.initializers = []
        self.initializers_as_inputs = initializers_as_inputs
        self.count = {}

    def name(self, prefix):
        self.count[prefix] = self.count.get(prefix, 0) + 1
        return f"{prefix}_{self.count[prefix]}"

    def const(self, prefix, array):
        name = prefix if prefix.endswith((".weight", ".bias", ".running_mean", ".running_var")) else self.name(prefix)
        self.initializers.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def node(self, op, inputs, outputs=None, name=None, **attributes):
        name = name or self.name(op)
        outputs = outputs or [f"{name}_out"]
        self.nodes.append(helper.make_node(op, inputs, outputs, name=name, **attributes))
        return outputs[0] if len(outputs) == 1 else outputs

    def weight(self, shape, fan_in):
        return (self.rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)

    def conv(self, x, cin, cout, k=3, stride=1, pad=None, group=1, dilation=1, bias=True, prefix="conv"):
        kh, kw = (k, k) if isinstance(k, int) else k
        pad = [(kh - 1) * dilation // 2, (kw - 1) * dilation // 2] * 2 if pad is None else pad
        name = self.name(prefix)
        inputs = [x, self.const(f"{name}.weight", self.weight((cout, cin // group, kh, kw), cin // group * kh * kw))]
        if bias:
            inputs.append(self.const(f"{name}.bias", (self.rng.standard_normal(cout) * 0.1).astype(np.float32)))
        return self.node("Conv", inputs, name=name, kernel_shape=[kh, kw], strides=[stride, stride], pads=pad,
                         group=group, dilations=[dilation, dilation])

    def batchnorm(self, x, channels, opset=12):
        name = self.name("bn")
        scale = self.const(f"{name}.weight", self.rng.uniform(0.5, 1.5, channels).astype(np.float32))
        bias = self.const(f"{name}.bias", (self.rng.standard_normal(channels) * 0.1).astype(np.float32))
        mean = self.const(f"{name}.running_mean", (self.rng.standard_normal(channels) * 0.1).astype(np.float32))
        var = self.const(f"{name}.running_var", self.rng.uniform(0.5, 2.0, channels).astype(np.float32))
        attributes = {"epsilon": 1e-5, "momentum": 0.9}
        if opset < 9:
            attributes["spatial"] = 1
        return self.node("BatchNormalization", [x, scale, bias, mean, var], name=name, **attributes)

    def prelu(self, x, channels):
        slope = self.const(self.name("prelu") + ".weight", self.rng.uniform(0.05, 0.3, (channels, 1, 1)).astype(np.float32))
        return self.node("PRelu", [x, slope])

    def model(self, inputs, outputs, opset, style="PyTorch 1.6", ir_version=None):
        ir_version = ir_version or {7: 3, 8: 3, 9: 4, 10: 5, 11: 6, 12: 7, 13: 7}.get(opset, 8)
        graph_inputs = list(inputs)
        if self.initializers_as_inputs or ir_version < 4:  # IR 3 requires every initializer to be an input
            graph_inputs += [helper.make_tensor_value_info(t.name, t.data_type, list(t.dims)) for t in self.initializers]
        graph = helper.make_graph(self.nodes, "main_graph", graph_inputs, outputs, self.initializers)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                                  producer_name="make_converter_models.py",
                                  producer_version=f"onnx.helper {onnx.__version__}, as {style} writes it")
        model.ir_version = ir_version
        onnx.checker.check_model(model, full_check=True)
        return model


def tensor(name, shape, dtype=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, dtype, shape)


# MARK: - PyTorch-style models (onnx.helper, or torch.onnx.export when torch is installed)


def shufflenet():
    """ShuffleNet-style unit: grouped 1x1 convs with a channel shuffle between them (Reshape [N, g,
    C/g, H, W] / Transpose / Reshape), depthwise 3x3, residual Add; MaxPool with pads; initializers
    listed as graph inputs (PyTorch < 1.5's default); Resize x4 linear and a Sigmoid."""
    g = Graph(seed=101, initializers_as_inputs=True)
    x = g.node("Relu", [g.batchnorm(g.conv("input", 3, 24, 3, 2, bias=False), 24)])                  # 24x32x32
    x = g.node("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])               # 24x16x16
    for unit in range(2):
        y = g.node("Relu", [g.batchnorm(g.conv(x, 24, 24, 1, group=2, bias=False), 24)])
        y = g.node("Reshape", [y, g.const("shape", np.array([1, 2, 12, 16, 16], np.int64))])
        y = g.node("Transpose", [y], perm=[0, 2, 1, 3, 4])
        y = g.node("Reshape", [y, g.const("shape", np.array([1, 24, 16, 16], np.int64))])
        y = g.batchnorm(g.conv(y, 24, 24, 3, group=24, bias=False), 24)
        y = g.batchnorm(g.conv(y, 24, 24, 1, group=2 if unit == 0 else 3, bias=False), 24)
        x = g.node("Relu", [g.node("Add", [x, y])])
    x = g.conv(x, 24, 1, 1)
    empty = g.const("roi", np.zeros(0, np.float32))
    x = g.node("Resize", [x, empty, g.const("scales", np.array([1, 1, 4, 4], np.float32))],
               mode="linear", coordinate_transformation_mode="pytorch_half_pixel")
    g.node("Sigmoid", [x], outputs=["mask"])
    return g.model([tensor("input", [1, 3, 64, 64])], [tensor("mask", [1, 1, 64, 64])], opset=11,
                   style="PyTorch 1.4"), None


def unet():
    """U-Net: Conv + MaxPool encoder, ConvTranspose k3 s2 pads 1 output_padding 1 and k2 s2 decoder
    with Concat skips; a side branch MaxPool k3 s3 → ConvTranspose k3 s3 added to the logits."""
    g = Graph(seed=102)
    e1 = g.node("Relu", [g.conv("input", 3, 8, 3)])                                                   # 8x48x48
    e2 = g.node("MaxPool", [e1], kernel_shape=[2, 2], strides=[2, 2])
    e2 = g.node("Relu", [g.conv(e2, 8, 16, 3)])                                                       # 16x24x24
    b = g.node("MaxPool", [e2], kernel_shape=[2, 2], strides=[2, 2])
    b = g.node("Relu", [g.conv(b, 16, 16, 3)])                                                        # 16x12x12
    up = g.node("ConvTranspose", [b, g.const("up1.weight", g.weight((16, 8, 3, 3), 16 * 9)),
                                  g.const("up1.bias", np.zeros(8, np.float32))],
                kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], output_padding=[1, 1])        # 8x24x24
    d2 = g.node("Relu", [g.conv(g.node("Concat", [up, e2], axis=1), 24, 8, 1)])
    up = g.node("ConvTranspose", [d2, g.const("up2.weight", g.weight((8, 8, 2, 2), 8 * 4))],
                kernel_shape=[2, 2], strides=[2, 2])                                                  # 8x48x48
    d1 = g.node("Relu", [g.conv(g.node("Concat", [up, e1], axis=1), 16, 8, 3)])
    logits = g.conv(d1, 8, 1, 1)
    side = g.node("MaxPool", [e1], kernel_shape=[3, 3], strides=[3, 3])                               # 8x16x16
    side = g.node("ConvTranspose", [side, g.const("side.weight", g.weight((8, 1, 3, 3), 8 * 9)),
                                    g.const("side.bias", np.zeros(1, np.float32))],
                  kernel_shape=[3, 3], strides=[3, 3])                                                # 1x48x48
    g.node("Sigmoid", [g.node("Add", [logits, side])], outputs=["mask"])
    return g.model([tensor("input", [1, 3, 48, 48])], [tensor("mask", [1, 1, 48, 48])], opset=12), None


def dynamic_batch():
    """A dynamic batch: input [N, 3, 64, 64] with dim_param N, the mask reshaped with a shape
    computed from Shape / Gather / Unsqueeze / Concat (PyTorch's `x.view(x.size(0), 1, H, W)`)."""
    g = Graph(seed=103)
    x = g.node("Relu", [g.conv("input", 3, 8, 3, 2)])                                                 # 8x32x32
    x = g.node("Relu", [g.conv(x, 8, 8, 3, 1)])
    x = g.conv(x, 8, 4, 1)                                                                            # 4x32x32
    # Pixel shuffle as PyTorch writes it: [N, 1, 2, 2, 32, 32] → [N, 1, 32, 2, 32, 2] → [N, 1, 64, 64].
    n = g.node("Unsqueeze", [g.node("Gather", [g.node("Shape", ["input"]), g.const("zero", np.array(0, np.int64))], axis=0),
                             g.const("axes", np.array([0], np.int64))])
    shape6 = g.node("Concat", [n, g.const("dims", np.array([1, 2, 2, 32, 32], np.int64))], axis=0)
    x = g.node("Transpose", [g.node("Reshape", [x, shape6])], perm=[0, 1, 4, 2, 5, 3])
    shape4 = g.node("Concat", [n, g.const("dims", np.array([1, 64, 64], np.int64))], axis=0)
    g.node("Sigmoid", [g.node("Reshape", [x, shape4])], outputs=["mask"])
    return g.model([tensor("input", ["N", 3, 64, 64])], [tensor("mask", ["N", 1, 64, 64])], opset=13,
                   style="PyTorch 1.10"), None


def multi_output():
    """Several outputs, one of them the mask (not the first): class scores through GlobalAveragePool
    → Flatten → Gemm (transB) → Softmax, an edge map at half size, a 2-channel 16x16 map, and the
    mask as raw logits (detection adds the sigmoid)."""
    g = Graph(seed=104)
    f = g.node("Relu", [g.conv("input", 3, 16, 3, 2)])                                                # 16x32x32
    f = g.node("Relu", [g.conv(f, 16, 16, 3, 1)])
    pooled = g.node("Flatten", [g.node("GlobalAveragePool", [f])], axis=1)
    scores = g.node("Gemm", [pooled, g.const("fc.weight", g.weight((3, 16), 16)), g.const("fc.bias", np.zeros(3, np.float32))],
                    transB=1, alpha=1.0, beta=1.0)
    g.node("Softmax", [scores], outputs=["scores"], axis=1)
    g.node("Sigmoid", [g.conv(f, 16, 1, 3)], outputs=["edges"])
    g.conv(g.node("MaxPool", [f], kernel_shape=[2, 2], strides=[2, 2]), 16, 2, 1)
    g.nodes[-1].output[0] = "aux"
    logits = g.conv(f, 16, 1, 1)
    g.node("Resize", [logits, "", g.const("scales", np.array([1, 1, 2, 2], np.float32))], outputs=["mask"],
           mode="linear", coordinate_transformation_mode="half_pixel")
    return g.model([tensor("input", [1, 3, 64, 64])],
                   [tensor("scores", [1, 3]), tensor("edges", [1, 1, 32, 32]), tensor("aux", [1, 2, 16, 16]),
                    tensor("mask", [1, 1, 64, 64])], opset=13, style="PyTorch 1.10"), None


SINET_DESCRIPTION = {"input": {"channels": "BGR", "range": [0, 255], "mean": [102.89, 111.25, 126.91],
                               "std": [62.93, 62.82, 66.36]},
                     "output": {"activation": "none", "personChannel": 1}}


def sinet():
    """SINet-style: Conv → BatchNormalization → PRelu blocks, depthwise convs, a Concat with an
    AveragePool of the input (pads, count_include_pad 0) followed by BatchNormalization and PRelu
    (not foldable into a Conv), Upsample-free bilinear Resize, Softmax over the two channels. BGR
    with mean / std in [0, 255] (its JSON)."""
    g = Graph(seed=105, initializers_as_inputs=True)
    x = g.prelu(g.batchnorm(g.conv("data", 3, 12, 3, 2, bias=False), 12), 12)                        # 12x32x32
    x = g.prelu(g.batchnorm(g.conv(x, 12, 12, 3, 1, group=12, bias=False), 12), 12)
    x = g.batchnorm(g.conv(x, 12, 16, 1, bias=False), 16)
    image = g.node("AveragePool", ["data"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], count_include_pad=0)
    x = g.prelu(g.batchnorm(g.node("Concat", [x, image], axis=1), 19), 19)                            # 19x32x32
    y = g.prelu(g.batchnorm(g.conv(x, 19, 19, 3, 2, group=19, bias=False), 19), 19)                  # 19x16x16
    y = g.prelu(g.batchnorm(g.conv(y, 19, 16, 1, bias=False), 16), 16)
    y = g.node("Resize", [y, "", g.const("scales", np.array([1, 1, 2, 2], np.float32))],
               mode="linear", coordinate_transformation_mode="align_corners")
    x = g.node("Add", [g.conv(x, 19, 16, 1, bias=False), y])
    x = g.prelu(g.batchnorm(x, 16), 16)
    x = g.conv(x, 16, 2, 3)
    x = g.node("Resize", [x, "", g.const("scales", np.array([1, 1, 2, 2], np.float32))], mode="linear",
               coordinate_transformation_mode="align_corners")
    g.node("Softmax", [x], outputs=["Softmax/1"], axis=1)
    return g.model([tensor("data", [1, 3, 64, 64])], [tensor("Softmax/1", [1, 2, 64, 64])], opset=13,
                   style="PyTorch 1.6"), SINET_DESCRIPTION


def matmul_gemm():
    """Token mixing with MatMul and a squeeze-excite gate with Gemm: Conv stem; Reshape [1, C, HW] →
    Transpose → MatMul [HW, C] x [C, K] + bias → Relu → MatMul back; GlobalAveragePool → Flatten →
    Gemm → Relu → Gemm (transB 0) → Sigmoid → Unsqueeze → Mul; Resize x2 nearest."""
    g = Graph(seed=106)
    x = g.node("Relu", [g.conv("input", 3, 16, 3, 2)])                                                # 16x16x16
    t = g.node("Transpose", [g.node("Reshape", [x, g.const("shape", np.array([1, 16, 256], np.int64))])], perm=[0, 2, 1])
    t = g.node("Add", [g.node("MatMul", [t, g.const("mlp1.weight", g.weight((16, 24), 16))]),
                       g.const("mlp1.bias", np.full(24, 0.05, np.float32))])
    t = g.node("MatMul", [g.node("Relu", [t]), g.const("mlp2.weight", g.weight((24, 16), 24))])
    x = g.node("Add", [x, g.node("Reshape", [g.node("Transpose", [t], perm=[0, 2, 1]),
                                             g.const("shape", np.array([1, 16, 16, 16], np.int64))])])
    s = g.node("Flatten", [g.node("GlobalAveragePool", [x])], axis=1)
    s = g.node("Relu", [g.node("Gemm", [s, g.const("se1.weight", g.weight((4, 16), 16)), g.const("se1.bias", np.zeros(4, np.float32))], transB=1)])
    s = g.node("Sigmoid", [g.node("Gemm", [s, g.const("se2.weight", g.weight((4, 16), 4)), g.const("se2.bias", np.zeros(16, np.float32))],
                                  alpha=0.5, beta=2.0)])
    x = g.node("Mul", [x, g.node("Unsqueeze", [s, g.const("axes", np.array([2, 3], np.int64))])])
    x = g.conv(x, 16, 1, 1)
    x = g.node("Resize", [x, "", g.const("scales", np.array([1, 1, 2, 2], np.float32))], mode="nearest")
    g.node("Sigmoid", [x], outputs=["mask"])
    return g.model([tensor("input", [1, 3, 32, 32])], [tensor("mask", [1, 1, 32, 32])], opset=13,
                   style="PyTorch 1.10"), None


def pools():
    """MaxPool k3 s2 pads 1, AveragePool k3 s1 pads 1 with count_include_pad 0 and 1, MaxPool k2 s2
    ceil_mode on an odd size, AveragePool k3 s2 asymmetric pads ceil_mode; Resize to `sizes`; Softmax
    over the channels, then a Transpose to an NHWC output [1, 64, 64, 2]."""
    g = Graph(seed=107)
    x = g.node("Relu", [g.conv("input", 3, 8, 3, 2)])                                                 # 8x32x32
    a = g.node("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])                # 8x16x16
    b = g.node("AveragePool", [a], kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1], count_include_pad=0)
    c = g.node("AveragePool", [a], kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1], count_include_pad=1)
    y = g.node("Relu", [g.conv(g.node("Concat", [b, c], axis=1), 16, 8, 3, 1, pad=[0, 0, 0, 0])])   # 8x14x14
    y = g.node("AveragePool", [y], kernel_shape=[3, 3], strides=[2, 2], pads=[0, 0, 1, 1], ceil_mode=1)  # 8x7x7
    y = g.node("MaxPool", [y], kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1)                      # 8x4x4
    y = g.conv(y, 8, 2, 1)
    y = g.node("Resize", [y, "", "", g.const("sizes", np.array([1, 2, 64, 64], np.int64))], mode="linear")
    z = g.node("Resize", [g.conv(a, 8, 2, 1), "", "", g.const("sizes", np.array([1, 2, 64, 64], np.int64))], mode="linear")
    x = g.node("Softmax", [g.node("Add", [y, z])], axis=1)
    g.node("Transpose", [x], outputs=["probabilities"], perm=[0, 2, 3, 1])
    return g.model([tensor("input", [1, 3, 64, 64])], [tensor("probabilities", [1, 64, 64, 2])], opset=13,
                   style="PyTorch 1.10"), {"output": {"layout": "NHWC"}}


def upsample(opset):
    """Upsample-7 (opset 7 and 8: `scales` attribute) or Upsample-9 (opset 9: `scales` input fed by
    a Constant node, as tf2onnx and PyTorch 1.x wrote it), nearest x2 and linear x4, with
    BatchNormalization of that opset (`spatial` before 9), Concat, Sigmoid."""
    g = Graph(seed=110 + opset)

    def up(x, scale, mode):
        scales = [1.0, 1.0, float(scale), float(scale)]
        if opset < 9:
            return g.node("Upsample", [x], mode=mode, scales=scales)
        constant = g.node("Constant", [], value=numpy_helper.from_array(np.array(scales, np.float32), g.name("scales")))
        return g.node("Upsample", [x, constant], mode=mode)

    a = g.node("Relu", [g.batchnorm(g.conv("input", 3, 8, 3, 2), 8, opset)])                        # 8x16x16
    b = g.node("Relu", [g.conv(a, 8, 8, 3, 2)])                                                       # 8x8x8
    a = up(a, 2, "nearest")                                                                           # 8x32x32
    b = up(b, 4, "linear")                                                                            # 8x32x32
    x = g.node("Relu", [g.conv(g.node("Concat", [a, b], axis=1), 16, 8, 3)])
    g.node("Sigmoid", [g.conv(x, 8, 1, 1)], outputs=["mask"])
    style = "tf2onnx 1.5" if opset == 8 else "PyTorch 1.2"
    return g.model([tensor("input", [1, 3, 32, 32])], [tensor("mask", [1, 1, 32, 32])], opset=opset,
                   style=style), None


# MARK: - PyTorch models through torch.onnx.export


def torch_models():
    """The PyTorch models, or {} (with a message) when torch is missing."""
    try:
        import torch  # noqa: F401
    except ImportError as error:
        print(f"torch models skipped: {error}", file=sys.stderr)
        return {}
    return {"torch_shufflenet": torch_shufflenet, "torch_unet": torch_unet, "torch_sinet": torch_sinet}


def torch_export(module, example, opset, **options):
    """torch.onnx.export with the TorchScript exporter (`dynamo=False`), the one behind the PyTorch
    models published until 2025, in eval mode (Conv + BatchNormalization pairs folded by it)."""
    import io
    import warnings
    import torch
    module.eval()
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(module, example, buffer, dynamo=False, opset_version=opset, **options)
    proto = onnx.load_from_string(buffer.getvalue())
    onnx.checker.check_model(proto, full_check=True)
    return proto


def torch_seeded(seed):
    import torch
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True)


def randomize_batchnorm(module, seed):
    """Running statistics and affine parameters away from the identity, so BatchNormalization does
    something."""
    import torch
    generator = torch.Generator().manual_seed(seed)
    for layer in module.modules():
        if isinstance(layer, torch.nn.BatchNorm2d):
            n = layer.num_features
            with torch.no_grad():
                layer.weight.copy_(torch.rand(n, generator=generator) + 0.5)
                layer.bias.copy_(torch.randn(n, generator=generator) * 0.1)
                layer.running_mean.copy_(torch.randn(n, generator=generator) * 0.1)
                layer.running_var.copy_(torch.rand(n, generator=generator) * 1.5 + 0.5)


def torch_shufflenet():
    """ShuffleNetV2 units (channel split by slicing, channel_shuffle by
    view / transpose / view on sizes read from the tensor: Shape / Gather / Unsqueeze / Concat /
    Reshape), a dynamic batch (dynamic_axes), initializers listed as inputs
    (keep_initializers_as_inputs), opset 9: F.interpolate as Upsample-9 (nearest x2, then
    bilinear x2) with Constant scales."""
    import torch
    from torch import nn
    import torch.nn.functional as F
    torch_seeded(301)

    def shuffle(x, groups):
        b, c, h, w = x.size()
        x = x.view(b, groups, c // groups, h, w).transpose(1, 2).contiguous()
        return x.view(b, -1, h, w)

    class Unit(nn.Module):
        def __init__(self, channels):
            super().__init__()
            half = self.half = channels // 2
            self.branch = nn.Sequential(nn.Conv2d(half, half, 1, bias=False), nn.BatchNorm2d(half), nn.ReLU(inplace=True),
                                        nn.Conv2d(half, half, 3, 1, 1, groups=half, bias=False), nn.BatchNorm2d(half),
                                        nn.Conv2d(half, half, 1, bias=False), nn.BatchNorm2d(half), nn.ReLU(inplace=True))

        def forward(self, x):
            # Slices with constant bounds: chunk on a dynamic batch has no opset-9 export.
            a, b = x[:, :self.half], x[:, self.half:]
            return shuffle(torch.cat((a, self.branch(b)), dim=1), 2)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU(inplace=True),
                                      nn.MaxPool2d(3, 2, 1))
            self.units = nn.Sequential(Unit(16), Unit(16))
            self.grouped = nn.Conv2d(16, 16, 1, groups=4)
            self.head = nn.Conv2d(16, 1, 1)

        def forward(self, x):
            x = self.units(self.stem(x))                                  # 16x16x16
            x = F.relu(shuffle(self.grouped(x), 4))
            x = F.interpolate(self.head(x), scale_factor=2.0, mode="nearest")
            x = F.interpolate(x, scale_factor=2.0, mode="bilinear", align_corners=False)
            return torch.sigmoid(x)

    net = Net()
    randomize_batchnorm(net, 301)
    return torch_export(net, torch.rand(1, 3, 64, 64), 9, input_names=["input"], output_names=["mask"],
                        dynamic_axes={"input": {0: "batch"}, "mask": {0: "batch"}}, keep_initializers_as_inputs=True), None


def torch_unet():
    """U-Net: Conv + BatchNorm (folded by the exporter) + ReLU encoder with MaxPool, ConvTranspose
    k2 s2 and k3 s2 padding 1 output_padding 1 decoder, torch.cat skips, a side branch MaxPool k3
    s3 → ConvTranspose k3 s3, F.interpolate bilinear (Resize-13), sigmoid; opset 13."""
    import torch
    from torch import nn
    import torch.nn.functional as F
    torch_seeded(302)

    def block(cin, cout):
        return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.e1, self.e2, self.b = block(3, 8), block(8, 12), block(12, 16)
            self.up2 = nn.ConvTranspose2d(16, 12, 3, stride=2, padding=1, output_padding=1)
            self.d2 = block(24, 8)
            self.up1 = nn.ConvTranspose2d(8, 8, 2, stride=2)
            self.d1 = block(16, 8)
            self.side = nn.ConvTranspose2d(8, 1, 3, stride=3)
            self.out = nn.Conv2d(8, 1, 1)

        def forward(self, x):
            e1 = self.e1(x)                                               # 8x48x48
            e2 = self.e2(F.max_pool2d(e1, 2))                             # 12x24x24
            b = self.b(F.max_pool2d(e2, 2))                               # 16x12x12
            d2 = self.d2(torch.cat([self.up2(b), e2], 1))
            d1 = self.d1(torch.cat([self.up1(d2), e1], 1))
            side = self.side(F.max_pool2d(e1, 3))                         # 1x48x48
            low = F.interpolate(F.avg_pool2d(self.out(d1), 4), scale_factor=4.0, mode="bilinear", align_corners=False)
            return torch.sigmoid(self.out(d1) + side + low)

    net = Net()
    randomize_batchnorm(net, 302)
    return torch_export(net, torch.rand(1, 3, 48, 48), 13, input_names=["input"], output_names=["mask"]), None


def torch_sinet():
    """SINet-style with several outputs: Conv + BatchNorm (folded) + PReLU (per channel), a depthwise
    conv, torch.cat with an AvgPool2d of the image (padding, count_include_pad False), a
    BatchNorm2d + PReLU after the cat (kept unfused), a squeeze-excite gate with nn.Linear (Gemm)
    and torch.matmul (MatMul), Softmax over the two channels as the mask output `Softmax/1`, plus
    an edge output and the gate; BGR with mean / std (its JSON); opset 12."""
    import torch
    from torch import nn
    import torch.nn.functional as F
    torch_seeded(303)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(3, 12, 3, 2, 1, bias=False), nn.BatchNorm2d(12), nn.PReLU(12))
            self.dw = nn.Sequential(nn.Conv2d(12, 12, 3, 1, 1, groups=12, bias=False), nn.BatchNorm2d(12), nn.PReLU(12))
            self.pool = nn.AvgPool2d(3, 2, 1, count_include_pad=False)
            self.bn = nn.BatchNorm2d(15)
            self.act = nn.PReLU(15)
            self.fc1 = nn.Linear(15, 4)
            self.mix = nn.Parameter(torch.randn(4, 15) * 0.5)
            self.head = nn.Conv2d(15, 2, 3, padding=1)
            self.edge = nn.Conv2d(15, 1, 1)

        def forward(self, x):
            y = self.dw(self.stem(x))                                     # 12x32x32
            y = self.act(self.bn(torch.cat([y, self.pool(x)], 1)))        # 15x32x32
            gate = torch.sigmoid(torch.matmul(F.relu(self.fc1(y.mean((2, 3)))), self.mix))  # [1, 15]
            y = y * gate.view(-1, 15, 1, 1)
            logits = F.interpolate(self.head(y), scale_factor=2.0, mode="bilinear", align_corners=True)
            return F.softmax(logits, dim=1), torch.sigmoid(self.edge(y)), gate

    net = Net()
    randomize_batchnorm(net, 303)
    return torch_export(net, torch.rand(1, 3, 64, 64), 12, input_names=["data"],
                        output_names=["Softmax/1", "edges", "gate"]), SINET_DESCRIPTION


# MARK: - Keras models through tf2onnx


def keras_models():
    """The Keras models, or {} (with a message) when tensorflow or tf2onnx is missing."""
    try:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
        import tensorflow as tf  # noqa: F401
        import tf2onnx  # noqa: F401
        import keras  # noqa: F401
    except ImportError as error:
        print(f"tf2onnx models skipped: {error}", file=sys.stderr)
        return {}
    return {"keras_mobilenet_nhwc": keras_mobilenet_raw, "keras_mobilenet_opt": keras_mobilenet_opt,
            "keras_aspp": keras_aspp}


def tf2onnx_convert(model, opset, optimize):
    import tensorflow as tf
    import tf2onnx
    spec = [tf.TensorSpec(model.inputs[0].shape, tf.float32, name="image")]
    options = {} if optimize else {"optimizers": {}}
    proto, _ = tf2onnx.convert.from_keras(model, input_signature=spec, opset=opset, **options)
    proto.producer_version = f"{tf2onnx.__version__} (tensorflow {tf.__version__})"
    onnx.checker.check_model(proto, full_check=True)
    return proto


def keras_mobilenet(seed):
    """MobileNetV2-style blocks on a 64x64x3 NHWC input: Conv2D s2 SAME → BatchNormalization → ReLU6,
    inverted residual (1x1 expand, depthwise 3x3, 1x1 project, Add), BatchNormalization after the
    Add, UpSampling2D bilinear, Conv2D + sigmoid to a [1, 64, 64, 1] mask."""
    import keras
    from keras import layers
    keras.utils.set_random_seed(seed)

    class FusedBatchNorm(layers.Layer):
        """tf.keras 2's BatchNormalization at inference: one FusedBatchNormV3 op (Keras 3 writes
        Mul / Add instead), which tf2onnx converts to a BatchNormalization node."""

        def build(self, shape):
            channels = shape[-1]
            rng = np.random.default_rng(seed + channels + len(self.name))
            values = [rng.uniform(0.5, 1.5, channels), rng.standard_normal(channels) * 0.1,
                      rng.standard_normal(channels) * 0.1, rng.uniform(0.5, 2, channels)]
            self.values = [self.add_weight(shape=(channels,), initializer=keras.initializers.Constant(v.astype(np.float32)),
                                           trainable=False, name=n) for n, v in zip(["gamma", "beta", "mean", "var"], values)]

        def call(self, x):
            import tensorflow as tf
            gamma, beta, mean, var = self.values
            return tf.compat.v1.nn.fused_batch_norm(x, gamma, beta, mean=mean, variance=var, epsilon=1e-3,
                                                    is_training=False)[0]

    def bn(x):
        return FusedBatchNorm()(x)

    inputs = keras.Input((64, 64, 3), batch_size=1, name="image")
    x = layers.ReLU(6.0)(bn(layers.Conv2D(16, 3, strides=2, padding="same", use_bias=False)(inputs)))          # 32x32x16
    y = layers.ReLU(6.0)(bn(layers.Conv2D(32, 1, use_bias=False)(x)))
    y = layers.ReLU(6.0)(bn(layers.DepthwiseConv2D(3, padding="same", use_bias=False)(y)))
    y = bn(layers.Conv2D(16, 1, use_bias=False)(y))
    x = bn(layers.Add()([x, y]))
    x = layers.ReLU(6.0)(bn(layers.DepthwiseConv2D(3, strides=2, padding="same", use_bias=False)(x)))         # 16x16x16
    x = layers.ReLU(6.0)(layers.Conv2D(16, 1)(x))
    x = layers.UpSampling2D(4, interpolation="bilinear")(x)                                                    # 64x64x16
    outputs = layers.Conv2D(1, 3, padding="same", activation="sigmoid", name="mask")(x)
    return keras.Model(inputs, outputs)


def keras_mobilenet_raw():
    """tf2onnx with its optimizers off (what tf2onnx 1.5 wrote): a Transpose before and after every
    Conv, every BatchNormalization unfused, ReLU6 as Clip with min/max inputs, SAME as pads."""
    return tf2onnx_convert(keras_mobilenet(201), opset=13, optimize=False), None


def keras_mobilenet_opt():
    """The same Keras model through tf2onnx's default optimizers: the layout Transposes pushed to the
    graph's edges, BatchNormalizations after convolutions folded, the one after the Add kept."""
    return tf2onnx_convert(keras_mobilenet(201), opset=13, optimize=True), None


def keras_aspp():
    """DeepLabV3-style head (tf2onnx, default optimizers): stride-8 MobileNet-ish backbone, ASPP with
    a 1x1 branch, dilated 3x3 branches at rates 2 and 4, image pooling (GlobalAveragePooling2D
    keepdims → Conv2D 1x1 → UpSampling2D to the feature size), Concat, 1x1 projection to two-class
    logits, bilinear UpSampling2D x8 to [1, 64, 64, 2]; input in [-1, 1] (its JSON)."""
    import keras
    from keras import layers
    keras.utils.set_random_seed(203)
    inputs = keras.Input((64, 64, 3), batch_size=1, name="image")
    x = layers.ReLU(6.0)(layers.Conv2D(16, 3, strides=2, padding="same")(inputs))                               # 32
    x = layers.ReLU(6.0)(layers.DepthwiseConv2D(3, strides=2, padding="same")(x))                              # 16
    x = layers.ReLU(6.0)(layers.Conv2D(24, 1)(x))
    x = layers.ReLU(6.0)(layers.DepthwiseConv2D(3, strides=2, padding="same")(x))                              # 8
    x = layers.ReLU(6.0)(layers.Conv2D(24, 1)(x))
    branches = [layers.ReLU()(layers.BatchNormalization()(layers.Conv2D(16, 1, use_bias=False)(x)))]
    for rate in (2, 4):
        branches.append(layers.ReLU()(layers.Conv2D(16, 3, padding="same", dilation_rate=rate)(x)))
    pooled = layers.GlobalAveragePooling2D(keepdims=True)(x)
    pooled = layers.ReLU()(layers.Conv2D(16, 1)(pooled))
    branches.append(layers.UpSampling2D(8, interpolation="bilinear")(pooled))
    x = layers.ReLU()(layers.Conv2D(16, 1)(layers.Concatenate()(branches)))
    x = layers.Conv2D(2, 1)(x)
    outputs = layers.UpSampling2D(8, interpolation="bilinear", name="logits")(x)
    model = keras.Model(inputs, outputs)
    return tf2onnx_convert(model, opset=13, optimize=True), {"input": {"range": [-1, 1]},
                                                            "output": {"activation": "softmax", "personChannel": 1}}


# MARK: - Writing


def builders(family):
    """The models of one producer family. torch and tensorflow each bundle an LLVM that cannot share
    a process with the other's, so each family is made in a process of its own."""
    if family == "helper":
        return {"shufflenet": shufflenet, "unet": unet, "dynamic_batch": dynamic_batch, "multi_output": multi_output,
                "sinet": sinet, "matmul_gemm": matmul_gemm, "pools": pools,
                "upsample_opset7": functools.partial(upsample, 7), "upsample_opset8": functools.partial(upsample, 8),
                "upsample_opset9": functools.partial(upsample, 9)}
    return torch_models() if family == "torch" else keras_models()


FAMILIES = {
    "helper": ["shufflenet", "unet", "dynamic_batch", "multi_output", "sinet", "matmul_gemm", "pools",
               "upsample_opset7", "upsample_opset8", "upsample_opset9"],
    "torch": ["torch_shufflenet", "torch_unet", "torch_sinet"],
    "keras": ["keras_mobilenet_nhwc", "keras_mobilenet_opt", "keras_aspp"],
}


BATCH = {"dynamic_batch": 2, "torch_shufflenet": 2}  # inputs with a dynamic batch are fed this many images
MASK = {"multi_output": "mask", "torch_sinet": "Softmax/1"}  # the mask output where the model has several


def write(name, build, out):
    model, description = build()
    directory = os.path.join(out, name)
    os.makedirs(directory, exist_ok=True)
    for stale in os.listdir(directory):
        os.remove(os.path.join(directory, stale))
    data = model.SerializeToString()
    with open(os.path.join(directory, "model.onnx"), "wb") as f:
        f.write(data)
    if description is not None:
        with open(os.path.join(directory, "model.onnx.json"), "w") as f:
            json.dump(description, f, indent=2)
            f.write("\n")
    ort_session = session(data)
    seed = int(hashlib.sha256(name.encode()).hexdigest()[:8], 16)
    rng = np.random.default_rng(seed)
    feeds, inputs = {}, []
    initializer_names = {t.name for t in model.graph.initializer}
    graph_inputs = [meta for meta in ort_session.get_inputs() if meta.name not in initializer_names]
    for k, meta in enumerate(graph_inputs):
        shape = [d if isinstance(d, int) else BATCH.get(name, 1) for d in meta.shape]
        value = rng.random(shape, dtype=np.float32)
        feeds[meta.name] = value
        save(os.path.join(directory, f"input_{k}.npy"), value)
        inputs.append({"name": meta.name, "shape": shape, "declared": [d if isinstance(d, int) else str(d) for d in meta.shape],
                       "file": f"input_{k}.npy"})
    results = ort_session.run(None, feeds)
    outputs = []
    for k, (meta, value) in enumerate(zip(ort_session.get_outputs(), results)):
        save(os.path.join(directory, f"output_{k}.npy"), value.astype(np.float32))
        outputs.append({"name": meta.name, "shape": list(value.shape), "file": f"output_{k}.npy",
                        "max_abs": float(np.abs(value).max())})
    ops = {}
    for node in model.graph.node:
        ops[node.op_type] = ops.get(node.op_type, 0) + 1
    return {
        "name": name,
        "producer": f"{model.producer_name} {model.producer_version}",
        "opset": next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx")),
        "what": " ".join((getattr(build, "func", build).__doc__ or "").split()),
        "seed": seed,
        "inputs": inputs,
        "outputs": outputs,
        "mask": MASK.get(name, outputs[0]["name"]),
        "initializers_as_inputs": sum(1 for i in model.graph.input if i.name in initializer_names),
        "description": "model.onnx.json" if description is not None else None,
        "ops": dict(sorted(ops.items())),
        "bytes": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
    }


def tool_versions(family):
    versions = {"numpy": np.__version__, "onnx": onnx.__version__, "onnxruntime": onnxruntime.__version__}
    try:
        if family == "keras":
            import tensorflow as tf
            import tf2onnx
            versions.update({"tensorflow": tf.__version__, "tf2onnx": tf2onnx.__version__})
        if family == "torch":
            import torch
            versions["torch"] = torch.__version__
    except ImportError:
        pass
    return versions


def main():
    onnxruntime.set_default_logger_severity(3)  # initializers listed as inputs are meant: no warning for each
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=os.path.join(ROOT, "Fixtures", "converted"))
    parser.add_argument("--only", help="comma-separated model names (the manifest keeps the others' entries)")
    parser.add_argument("--family", choices=list(FAMILIES), help=argparse.SUPPRESS)  # a child process: one family
    parser.add_argument("--entries", help=argparse.SUPPRESS)  # where the child writes its manifest entries
    args = parser.parse_args()
    only = set(args.only.split(",")) if args.only else None
    if args.family:
        entries = []
        for name, build in builders(args.family).items():
            if only is not None and name not in only:
                continue
            entry = write(name, build, args.out)
            entries.append(entry)
            print(f"{name}: {entry['producer']}, opset {entry['opset']}, {entry['bytes']} bytes, "
                  f"{sum(entry['ops'].values())} nodes, outputs {[o['shape'] for o in entry['outputs']]}", flush=True)
        with open(args.entries, "w") as f:
            json.dump({"versions": tool_versions(args.family), "entries": entries}, f)
        return

    manifest_path = os.path.join(args.out, "manifest.json")
    entries, versions = {}, {}
    if os.path.exists(manifest_path):
        with open(manifest_path) as f:
            manifest = json.load(f)
        if only is not None:
            entries = {m["name"]: m for m in manifest["models"]}
            versions = manifest["versions"]
    import subprocess
    import tempfile
    for family, names in FAMILIES.items():
        if only is not None and not only.intersection(names):
            continue
        with tempfile.NamedTemporaryFile(suffix=".json") as result:
            command = [sys.executable, os.path.abspath(__file__), "--family", family, "--out", args.out, "--entries", result.name]
            subprocess.run(command + (["--only", args.only] if args.only else []), check=True)
            with open(result.name) as f:
                made = json.load(f)
        entries.update({entry["name"]: entry for entry in made["entries"]})
        versions.update(made["versions"])
    order = [name for names in FAMILIES.values() for name in names]
    ordered = [entries[name] for name in order if name in entries]
    with open(manifest_path, "w") as f:
        json.dump({"versions": dict(sorted(versions.items())), "models": ordered}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
