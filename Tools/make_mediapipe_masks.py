#!/usr/bin/env python3
"""MediaPipe 0.10.21's own full-resolution masks for the person frames: Fixtures/mediapipe/.

Runs the legacy solution `mp.solutions.selfie_segmentation.SelfieSegmentation(model_selection=m)`
(m = 0 "general", 1 "landscape") on every PNG in Fixtures/images/ (read as RGB uint8, the layout the
Python API expects) and stores `results.segmentation_mask` (float32 [H, W], values in [0, 1]) as
`<frame>_<model>.npy`, plus `masks.json` with shape, stored dtype and statistics.

Storage: float16 (`<f2`) by default to keep Fixtures/ small (the float32 set is 11 MB). Rounding is to
nearest, except that no value crosses 0.5: a mask value above 0.5 that would round to 0.5 is stored as
the next float16 above 0.5 (0.50048828125), and one below as the next below (0.499755859375). So
`stored > 0.5` equals `float32 > 0.5` on every pixel (IoU at 0.5 is exact) -- plain rounding flipped up
to 78 pixels per frame, because MediaPipe's bilinear upsampling of a near-binary mask lands on values
close to 0.5 often. The storage error, max|stored - float32| and mean|...|, is measured here and
written to masks.json for every file. `--float32` stores the exact float32 masks instead.

Needs the MediaPipe venv (Tools/requirements-mediapipe.txt; mediapipe pins protobuf<5):
    venv-mp/bin/python Tools/make_mediapipe_masks.py [--images Fixtures/images] [--out Fixtures/mediapipe]
"""

import argparse
import glob
import json
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = {"general": 0, "landscape": 1}


def save(path: str, array: np.ndarray):
    with open(path, "wb") as f:
        np.lib.format.write_array(f, np.array(array, order="C", copy=True), version=(1, 0), allow_pickle=False)


def to_float16_keeping_threshold(mask: np.ndarray) -> np.ndarray:
    half = np.float16(0.5)
    above = np.nextafter(half, np.float16(1))
    below = np.nextafter(half, np.float16(0))
    stored = mask.astype(np.float16)
    stored[(mask > 0.5) & (stored <= half)] = above
    stored[(mask < 0.5) & (stored >= half)] = below
    return stored


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--images", default=os.path.join(HERE, "..", "Fixtures", "images"))
    ap.add_argument("--out", default=os.path.join(HERE, "..", "Fixtures", "mediapipe"))
    ap.add_argument("--float32", action="store_true", help="store float32 masks (about 14 MB)")
    args = ap.parse_args()

    import imageio.v3 as iio
    import mediapipe as mp

    os.makedirs(args.out, exist_ok=True)
    frames = sorted(glob.glob(os.path.join(args.images, "*.png")))
    if not frames:
        raise SystemExit(f"no PNG in {args.images}: run Tools/make_fixtures.py images first")
    index = {"mediapipe": mp.__version__, "solution": "mp.solutions.selfie_segmentation.SelfieSegmentation",
             "stored_dtype": "float32" if args.float32 else "float16", "masks": []}
    for model, selection in MODELS.items():
        with mp.solutions.selfie_segmentation.SelfieSegmentation(model_selection=selection) as seg:
            for path in frames:
                rgb = iio.imread(path)
                if rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.dtype != np.uint8:
                    raise SystemExit(f"{path}: expected RGB uint8")
                mask = seg.process(np.ascontiguousarray(rgb)).segmentation_mask
                again = seg.process(np.ascontiguousarray(rgb)).segmentation_mask
                if mask.dtype != np.float32 or mask.shape != rgb.shape[:2]:
                    raise SystemExit(f"{path}: unexpected mask {mask.dtype} {mask.shape}")
                stored = mask if args.float32 else to_float16_keeping_threshold(mask)
                if not np.array_equal(stored > 0.5, mask > 0.5):
                    raise SystemExit(f"{path}: storage moved a value across 0.5")
                err = np.abs(stored.astype(np.float64) - mask.astype(np.float64))
                frame = os.path.splitext(os.path.basename(path))[0]
                name = f"{frame}_{model}.npy"
                save(os.path.join(args.out, name), stored)
                entry = {"file": name, "frame": os.path.basename(path), "model": model,
                         "model_selection": selection, "shape": list(mask.shape), "dtype": str(stored.dtype),
                         "storage_max_abs_error": float(f"{err.max():.3g}"),
                         "storage_mean_abs_error": float(f"{err.mean():.3g}"),
                         "mean": round(float(mask.mean()), 6), "fraction_above_0_5": round(float((mask > 0.5).mean()), 6),
                         "same_on_second_call": bool(np.array_equal(mask, again))}
                index["masks"].append(entry)
                print(json.dumps(entry))
    with open(os.path.join(args.out, "masks.json"), "w") as f:
        json.dump(index, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
