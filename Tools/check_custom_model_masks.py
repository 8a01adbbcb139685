#!/usr/bin/env python3
"""Checks `vbg segment --model MODEL` against the same model description applied with numpy and
onnxruntime, for each model under Fixtures/thirdparty/ (each has its MODEL.onnx.json beside it).

The reference: MediaPipe's exact preprocessing (Tools/mp_preprocess.py) to the model's input size,
each value ((p / 255) * (hi - lo) + lo - mean[c]) / std[c] in the description's channel order and
layout, onnxruntime (1 thread), the activation and the person channel, then cv2.resize INTER_LINEAR
to the frame size. Prints IoU at 0.5 and mean |difference| per model and image; exits 1 when a
model falls short of IoU 0.97 or mean |difference| 0.02.

    swift build -c release --product vbg
    venv/bin/python Tools/check_custom_model_masks.py [--vbg .build/release/vbg]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

import cv2
import numpy as np
import onnx
import onnxruntime as ort

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
sys.path.insert(0, HERE)
from mp_preprocess import mp_preprocess_exact  # noqa: E402

IMAGES = ["astronaut.png", "astronaut_on_coffee_1280x720.png", "astronaut_on_coffee_portrait_270x480.png"]


def reference_mask(model_path: str, description: dict, rgb: np.ndarray) -> np.ndarray:
    model = onnx.load(model_path)
    inp = description.get("input", {})
    out = description.get("output", {})
    graph_input = inp.get("name") or model.graph.input[0].name
    dims = next(i for i in model.graph.input if i.name == graph_input).type.tensor_type.shape.dim
    shape = [d.dim_value for d in dims]
    layout = inp.get("layout") or ("NCHW" if shape[1] == 3 else "NHWC")
    height, width = (shape[2], shape[3]) if layout == "NCHW" else (shape[1], shape[2])
    low, high = inp.get("range", [0, 1])
    mean = np.array(inp.get("mean", [0, 0, 0]), np.float32)
    std = np.array(inp.get("std", [1, 1, 1]), np.float32)
    pixels = np.rint(mp_preprocess_exact(rgb, width, height)[0] * 255).astype(np.float32)  # [h, w, 3] RGB bytes
    if inp.get("channels", "RGB") == "BGR":
        pixels = pixels[:, :, ::-1]
    values = ((pixels / np.float32(255)) * np.float32(high - low) + np.float32(low) - mean) / std
    tensor = values.transpose(2, 0, 1)[None] if layout == "NCHW" else values[None]
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(model_path, options, providers=["CPUExecutionProvider"])
    name = out.get("name") or session.get_outputs()[0].name
    (y,) = session.run([name], {graph_input: tensor.astype(np.float32)})
    y = y[0] if (out.get("layout") or layout) == "NCHW" else y[0].transpose(2, 0, 1)
    channels = y.shape[0]
    activation = out.get("activation") or ("softmax" if channels == 2 else "sigmoid")
    person = out.get("personChannel", 1 if channels == 2 else 0)
    if activation == "softmax":
        e = np.exp(y - y.max(axis=0, keepdims=True))
        probability = (e / e.sum(axis=0, keepdims=True))[person]
    elif activation == "sigmoid":
        probability = 1 / (1 + np.exp(-y[person]))
    else:
        probability = np.clip(y[person], 0, 1)
    return cv2.resize(probability.astype(np.float32), (rgb.shape[1], rgb.shape[0]), interpolation=cv2.INTER_LINEAR)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--vbg", default=os.path.join(ROOT, ".build", "release", "vbg"))
    args = ap.parse_args()
    failed = False
    root = os.path.join(ROOT, "Fixtures", "thirdparty")
    for name in sorted(os.listdir(root)):
        model_path = os.path.join(root, name, "model.onnx")
        if not os.path.exists(model_path + ".json"):
            continue
        description = json.load(open(model_path + ".json"))
        for image in IMAGES:
            image_path = os.path.join(ROOT, "Fixtures", "images", image)
            rgb = cv2.cvtColor(cv2.imread(image_path), cv2.COLOR_BGR2RGB)
            with tempfile.TemporaryDirectory() as scratch:
                mask_path = os.path.join(scratch, "mask.npy")
                subprocess.run([args.vbg, "segment", image_path, "--model", model_path, "--mask-npy", mask_path], check=True)
                ours = np.load(mask_path)
            theirs = reference_mask(model_path, description, rgb)
            a, b = ours > 0.5, theirs > 0.5
            union = np.logical_or(a, b).sum()
            iou = np.logical_and(a, b).sum() / union if union else 1.0
            mean_difference = float(np.abs(ours - theirs).mean())
            ok = iou >= 0.97 and mean_difference <= 0.02
            failed |= not ok
            print(f"{name} {image}: IoU at 0.5 {iou:.4f}, mean |difference| {mean_difference:.5f}{'' if ok else '  FAILS'}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
