#!/usr/bin/env python3
"""Checks `vbg segment --model MODEL` against the same model description applied with numpy and
onnxruntime, for each model under Fixtures/thirdparty/ (each has its MODEL.onnx.json beside it).

The reference: the frame resampled to the model's input size as the description's `input.sampling`
says, by the library its authors use: `asymmetric` MediaPipe's exact preprocessing
(Tools/mp_preprocess.py), `half_pixel` cv2.resize(INTER_LINEAR), `area` cv2.resize(INTER_AREA),
`align_corners` torch's interpolate(align_corners=True) on the float frame; each value
((p / 255) * (hi - lo) + lo - mean[c]) / std[c] in the description's channel order and layout,
onnxruntime (1 thread), the activation and the person channel, then cv2.resize INTER_LINEAR back to
the frame size (OpenCV's default path, IPP included). Prints IoU at 0.5 and mean |difference| per
model and image; exits 1 when a model falls short of IoU 0.97 or mean |difference| 0.02.

With --compare-sampling, also prints what the reference mask is with MediaPipe's asymmetric
sampler instead (what a model gets without `input.sampling`), and how far OpenCV's IPP resize of
the mask back is from its C++ path (the one vbg reproduces).

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


def resampled(rgb: np.ndarray, width: int, height: int, sampling: str) -> np.ndarray:
    """[h, w, 3] RGB pixel values (float32; whole levels but for align_corners)."""
    if sampling == "asymmetric":
        return np.rint(mp_preprocess_exact(rgb, width, height)[0] * 255).astype(np.float32)
    if sampling in ("half_pixel", "area"):
        flag = cv2.INTER_LINEAR if sampling == "half_pixel" else cv2.INTER_AREA
        return cv2.resize(rgb, (width, height), interpolation=flag).astype(np.float32)
    import torch
    import torch.nn.functional as F
    x = torch.from_numpy(rgb.astype(np.float32)).permute(2, 0, 1)[None]
    return F.interpolate(x, size=(height, width), mode="bilinear", align_corners=True)[0].permute(1, 2, 0).numpy()


def reference_mask(model_path: str, description: dict, rgb: np.ndarray, sampling: str = None,
                   ipp: bool = True) -> np.ndarray:
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
    pixels = resampled(rgb, width, height, sampling or inp.get("sampling", "asymmetric"))
    if inp.get("channels", "RGB") == "BGR":
        pixels = pixels[:, :, ::-1]
    values = ((pixels / np.float32(255)) * np.float32(high - low) + np.float32(low) - mean) / std
    tensor = values.transpose(2, 0, 1)[None] if layout == "NCHW" else values[None]
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 3  # not the warning per initializer listed as an input
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
    cv2.ipp.setUseIPP(ipp)
    back = cv2.resize(probability.astype(np.float32), (rgb.shape[1], rgb.shape[0]), interpolation=cv2.INTER_LINEAR)
    cv2.ipp.setUseIPP(True)
    return back


def compare(a: np.ndarray, b: np.ndarray):
    x, y = a > 0.5, b > 0.5
    union = np.logical_or(x, y).sum()
    return (np.logical_and(x, y).sum() / union if union else 1.0), float(np.abs(a - b).mean())


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--vbg", default=os.path.join(ROOT, ".build", "release", "vbg"))
    ap.add_argument("--compare-sampling", action="store_true")
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
            iou, mean_difference = compare(ours, theirs)
            ok = iou >= 0.97 and mean_difference <= 0.02
            failed |= not ok
            sampling = description.get("input", {}).get("sampling", "asymmetric")
            print(f"{name} ({sampling}) {image}: IoU at 0.5 {iou:.4f}, mean |difference| {mean_difference:.5f}"
                  f"{'' if ok else '  FAILS'}")
            if args.compare_sampling:
                other = reference_mask(model_path, description, rgb, sampling="asymmetric")
                cpp = reference_mask(model_path, description, rgb, ipp=False)
                iou_other, mean_other = compare(other, theirs)
                _, mean_cpp = compare(ours, cpp)
                print(f"    the reference with the asymmetric sampler instead: IoU {iou_other:.4f}, mean |difference| "
                      f"{mean_other:.5f}; vbg against the C++ resize back: mean |difference| {mean_cpp:.6f}, "
                      f"IPP against C++: max |difference| {float(np.abs(theirs - cpp).max()):.2e}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
