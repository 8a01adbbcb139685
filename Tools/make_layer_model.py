#!/usr/bin/env python3
"""One-layer ONNX models for timing a kernel on its own (`vbg bench --model OUT`, beside
onnxruntime on the same file): random weights in [-0.5, 0.5), opset 17.

  conv OUT CIN COUT H W K STRIDE PAD [--group G] [--dilation D] [--relu]
      Conv (square kernel, equal pads), then Relu.
  maxpool OUT C H W K STRIDE PAD [--ceil]
  residual OUT C H W [--blocks N]
      N blocks of x -> 1x1 Conv (C -> C) -> Add(x) -> Relu, a ResNet block's end.

Needs onnx and numpy (Tools/requirements.txt)."""
import argparse, math
import numpy as np
import onnx
from onnx import helper as h, TensorProto as T, numpy_helper as nh


def save(nodes, inits, x_shape, y_shape, out):
    graph = h.make_graph(nodes, "layer", [h.make_tensor_value_info("x", T.FLOAT, x_shape)],
                         [h.make_tensor_value_info("y", T.FLOAT, y_shape)], inits)
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, out)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="kind", required=True)
    conv = sub.add_parser("conv")
    for name in ["out", "cin", "cout", "h", "w", "k", "stride", "pad"]:
        conv.add_argument(name, type=str if name == "out" else int)
    conv.add_argument("--group", type=int, default=1)
    conv.add_argument("--dilation", type=int, default=1)
    conv.add_argument("--relu", action="store_true")
    pool = sub.add_parser("maxpool")
    for name in ["out", "c", "h", "w", "k", "stride", "pad"]:
        pool.add_argument(name, type=str if name == "out" else int)
    pool.add_argument("--ceil", action="store_true")
    res = sub.add_parser("residual")
    for name in ["out", "c", "h", "w"]:
        res.add_argument(name, type=str if name == "out" else int)
    res.add_argument("--blocks", type=int, default=8)
    a = parser.parse_args()
    rng = np.random.default_rng(0)

    if a.kind == "conv":
        span = a.dilation * (a.k - 1) + 1
        oh, ow = (a.h + 2 * a.pad - span) // a.stride + 1, (a.w + 2 * a.pad - span) // a.stride + 1
        w = rng.uniform(-0.5, 0.5, (a.cout, a.cin // a.group, a.k, a.k)).astype(np.float32)
        b = rng.uniform(-0.5, 0.5, a.cout).astype(np.float32)
        nodes = [h.make_node("Conv", ["x", "w", "b"], ["c" if a.relu else "y"], kernel_shape=[a.k, a.k],
                             strides=[a.stride] * 2, pads=[a.pad] * 4, group=a.group, dilations=[a.dilation] * 2)]
        if a.relu:
            nodes.append(h.make_node("Relu", ["c"], ["y"]))
        save(nodes, [nh.from_array(w, "w"), nh.from_array(b, "b")], [1, a.cin, a.h, a.w], [1, a.cout, oh, ow], a.out)
    elif a.kind == "maxpool":
        size = math.ceil if a.ceil else math.floor
        oh = int(size((a.h + 2 * a.pad - a.k) / a.stride)) + 1
        ow = int(size((a.w + 2 * a.pad - a.k) / a.stride)) + 1
        node = h.make_node("MaxPool", ["x"], ["y"], kernel_shape=[a.k, a.k], strides=[a.stride] * 2, pads=[a.pad] * 4,
                           ceil_mode=int(a.ceil))
        save([node], [], [1, a.c, a.h, a.w], [1, a.c, oh, ow], a.out)
    else:
        nodes, inits, current = [], [], "x"
        for i in range(a.blocks):
            inits += [nh.from_array(rng.uniform(-0.05, 0.05, (a.c, a.c, 1, 1)).astype(np.float32), f"w{i}"),
                      nh.from_array(rng.uniform(-0.5, 0.5, a.c).astype(np.float32), f"b{i}")]
            output = "y" if i == a.blocks - 1 else f"r{i}"
            nodes += [h.make_node("Conv", [current, f"w{i}", f"b{i}"], [f"c{i}"]),
                      h.make_node("Add", [f"c{i}", current], [f"a{i}"]), h.make_node("Relu", [f"a{i}"], [output])]
            current = output
        save(nodes, inits, [1, a.c, a.h, a.w], [1, a.c, a.h, a.w], a.out)


if __name__ == "__main__":
    main()
