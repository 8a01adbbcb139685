#!/usr/bin/env python3
"""Fixtures/quantized/: the built-in general model quantized by onnxruntime's own quantizer, with
onnxruntime's output on the astronaut.

`general_qdq/model.onnx`: `Weights/selfie_segmentation.onnx` through
`onnxruntime.quantization.quantize_static(quant_format=QuantFormat.QDQ, activation_type=QUInt8,
weight_type=QInt8)` (per tensor, MinMax), calibrated on four frames made from `Fixtures/model/general/input.npy`
(the astronaut as MediaPipe preprocesses it): as it is, mirrored, and with its levels scaled by 0.8 and by
0.6 then raised by 0.2. (Random levels, which show no person, give logits near −1000 and a logit quantum of
several units, so the mask would take a handful of values.)
`general_qdq/mask.npy`: onnxruntime 1.32's output for `Fixtures/model/general/input.npy`,
ORT_ENABLE_ALL on 1 thread (its QDQ groups fused into integer kernels, as vbg's fast path rewrites them).

    venv/bin/python Tools/make_quantized_fixtures.py
"""

import os
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def main():
    source = os.path.join(ROOT, "Weights", "selfie_segmentation.onnx")
    inputs = os.path.join(ROOT, "Fixtures", "model", "general")
    astronaut = np.load(os.path.join(inputs, "input.npy")).astype(np.float32)
    samples = [astronaut, np.ascontiguousarray(astronaut[:, :, ::-1, :]), astronaut * np.float32(0.8),
               astronaut * np.float32(0.6) + np.float32(0.2)]
    name = onnx.load(source).graph.input[0].name

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.samples = iter([{name: s} for s in samples])

        def get_next(self):
            return next(self.samples, None)

    out = os.path.join(ROOT, "Fixtures", "quantized", "general_qdq")
    os.makedirs(out, exist_ok=True)
    target = os.path.join(out, "model.onnx")
    with tempfile.TemporaryDirectory() as work:
        # The quantizer writes its preprocessed copy beside the source; keep the repository clean.
        copy = os.path.join(work, "general.onnx")
        onnx.save(onnx.load(source), copy)
        quantize_static(copy, target, Reader(), quant_format=QuantFormat.QDQ,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    session = ort.InferenceSession(target, options, providers=["CPUExecutionProvider"])
    mask = session.run(None, {name: astronaut})[0].astype(np.float32)
    np.save(os.path.join(out, "mask.npy"), mask)
    print(f"{target}: {os.path.getsize(target)} bytes; mask {mask.shape}, mean {mask.mean():.4f}")


if __name__ == "__main__":
    main()
