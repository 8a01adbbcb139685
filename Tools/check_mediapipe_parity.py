#!/usr/bin/env python3
"""Does an independent pipeline reproduce MediaPipe's masks in Fixtures/mediapipe/?

For every mask in Fixtures/mediapipe/masks.json: read the frame, build the model input with
Tools/mp_preprocess.py (the exact OpenCV-4 fixed-point warp), run Weights/*.onnx with onnxruntime
(1 thread, ORT_DISABLE_ALL), upsample the [h, w] mask to the frame size with cv2.resize INTER_LINEAR
(half-pixel centres, what MediaPipe's TensorsToSegmentationCalculator does), and compare with
MediaPipe's mask: IoU at 0.5, mean|d|, max|d|. Exit 1 if IoU < 0.999 or mean|d| > 1e-4 (the bound
of Docs/Numerics.md). Also prints the same for cv2.resize-based preprocessing, to show why the exact warp
matters.

    python Tools/check_mediapipe_parity.py [--masks DIR]   (DIR: default Fixtures/mediapipe)
"""

import argparse
import json
import os
import sys

import cv2
import imageio.v3 as iio
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_fixtures import MODELS, session  # noqa: E402
from mp_preprocess import mp_preprocess_exact  # noqa: E402


def main():
    root = os.path.join(HERE, "..", "Fixtures")
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--masks", default=os.path.join(root, "mediapipe"))
    args = ap.parse_args()
    with open(os.path.join(args.masks, "masks.json")) as f:
        index = json.load(f)
    sessions = {}
    ok = True
    for e in index["masks"]:
        key = e["model"]
        if key not in sessions:
            with open(os.path.join(HERE, "..", "Weights", MODELS[key]), "rb") as f:
                s = session(f.read())
            shape = s.get_inputs()[0].shape
            sessions[key] = (s, shape[2], shape[1])
        s, w, h = sessions[key]
        rgb = iio.imread(os.path.join(root, "images", e["frame"]))
        reference = np.load(os.path.join(args.masks, e["file"])).astype(np.float32)
        H, W = reference.shape
        for label, x in [("exact", mp_preprocess_exact(rgb, w, h)),
                         ("cv2.resize", (cv2.resize(rgb, (w, h), interpolation=cv2.INTER_LINEAR)
                                         .astype(np.float32) / 255)[None])]:
            small = s.run(None, {s.get_inputs()[0].name: x})[0][0, :, :, 0]
            mask = cv2.resize(small, (W, H), interpolation=cv2.INTER_LINEAR)
            a, b = mask > 0.5, reference > 0.5
            iou = (a & b).sum() / max((a | b).sum(), 1)
            d = np.abs(mask.astype(np.float64) - reference)
            print(f"{e['file']:48s} {label:10s} IoU {iou:.6f} mean|d| {d.mean():.2e} max|d| {d.max():.2e}")
            if label == "exact" and not (iou >= 0.999 and d.mean() <= 1e-4):
                ok = False
    if not ok:
        print("FAIL: below IoU 0.999 / above mean|d| 1e-4")
        sys.exit(1)


if __name__ == "__main__":
    main()
