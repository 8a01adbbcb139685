#!/usr/bin/env python3
"""Writes Fixtures/model/landscape_small/model.onnx: the landscape selfie segmentation model
(Weights/selfie_segmentation_landscape.onnx) with the same nodes and weights at a 48x80 input
instead of 144x256 (the three Resize target sizes and the output Reshape scaled to match; 48 and
80 are multiples of 16, so every stride-2 stage halves exactly, as 144x256 does).

One inference costs about a tenth of the real model's, so a debug-build test can run 100 of them
(the allocation test of the fused fast path: every fused step kind of the landscape network,
1 and 2 threads). The numbers it computes mean nothing; only that it runs is used.

    venv/bin/python Tools/make_small_landscape.py
"""
import os

import numpy as np
import onnx
from onnx import numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE = os.path.join(ROOT, "Weights", "selfie_segmentation_landscape.onnx")
TARGET = os.path.join(ROOT, "Fixtures", "model", "landscape_small", "model.onnx")
HEIGHT, WIDTH = 48, 80


def main():
    model = onnx.load(SOURCE)
    (graph_input,) = model.graph.input
    dims = graph_input.type.tensor_type.shape.dim
    old_h, old_w = dims[1].dim_value, dims[2].dim_value
    dims[1].dim_value, dims[2].dim_value = HEIGHT, WIDTH
    (graph_output,) = model.graph.output
    out_dims = graph_output.type.tensor_type.shape.dim
    out_dims[1].dim_value, out_dims[2].dim_value = HEIGHT, WIDTH
    for initializer in model.graph.initializer:
        if initializer.name.endswith("/Size"):  # Resize sizes, NCHW
            size = numpy_helper.to_array(initializer).copy()
            size[2] = size[2] * HEIGHT // old_h
            size[3] = size[3] * WIDTH // old_w
            initializer.CopyFrom(numpy_helper.from_array(size.astype(np.int64), initializer.name))
        elif initializer.name == "segment_back_shape":  # output Reshape, NHWC
            initializer.CopyFrom(numpy_helper.from_array(np.array([1, HEIGHT, WIDTH, 1], np.int64), initializer.name))
    del model.graph.value_info[:]
    onnx.checker.check_model(model)
    onnx.shape_inference.infer_shapes(model, strict_mode=True)
    os.makedirs(os.path.dirname(TARGET), exist_ok=True)
    onnx.save(model, TARGET)
    print(f"wrote {TARGET} ({os.path.getsize(TARGET)} bytes)")


if __name__ == "__main__":
    main()
