#!/usr/bin/env python3
"""Generates Fixtures/imaging/sampling/: the frame → tensor samplers of `input.sampling` as OpenCV
and PyTorch compute them, for Tests/ImagingTests/InputSamplingTests.swift.

Run with venv/ (numpy, opencv-python-headless 5.0.0, torch):
    venv/bin/python Tools/make_sampling_fixtures.py [--out Fixtures/imaging/sampling]

The frame is `synthetic_frame(W, H)` of Tools/make_imaging_fixtures.py (its RGB channels; the Swift
test computes the same formula). Files, [h, w, 3] RGB row-major:

- `half_pixel_<W>x<H>_to_<w>x<h>.u8`: `cv2.resize(rgb, (w, h), interpolation=cv2.INTER_LINEAR)`;
- `area_<W>x<H>_to_<w>x<h>.u8`: `cv2.resize(rgb, (w, h), interpolation=cv2.INTER_AREA)`;
- `align_corners_<W>x<H>_to_<w>x<h>.f32`: `torch.nn.functional.interpolate(rgb / 255, (h, w),
  mode="bilinear", align_corners=True)` in float32, transposed to HWC;
- `torch_half_pixel_<W>x<H>_to_<w>x<h>.f32`: the same with `align_corners=False` (what the
  half-pixel sampler is within one level of).

Before writing, the script checks its numpy statement of each OpenCV formula (the ones
Docs/Models.md gives and Sources/Imaging implements) against cv2.resize on random frames of many
sizes and prints the agreement; it stops if any value differs.
"""
import argparse
import math
import os
import sys

import cv2
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_imaging_fixtures import synthetic_frame  # noqa: E402

f32 = np.float32
cv2.setNumThreads(1)

CASES = {
    "half_pixel": [(517, 301, 96, 80), (128, 96, 64, 48), (37, 23, 50, 41), (200, 150, 96, 200), (37, 23, 1, 5)],
    "area": [(160, 120, 40, 30), (128, 96, 64, 48), (517, 301, 96, 80), (1280, 720, 64, 64), (200, 150, 100, 150),
             (37, 23, 50, 41), (200, 150, 96, 200)],
    "align_corners": [(517, 301, 96, 80), (37, 23, 50, 41), (37, 23, 1, 5)],
    "torch_half_pixel": [(517, 301, 96, 80), (37, 23, 50, 41)],
}


# --- The formulas, as Docs/Models.md states them ---------------------------------------------------

def linear_taps(source, count, area_positions):
    """Per tensor index: (s, f) before clamping (INTER_LINEAR, or INTER_AREA's growing-axis path)."""
    inverse = count / source
    scale = 1.0 / inverse
    taps = []
    for d in range(count):
        if area_positions:
            s = math.floor(d * scale)
            f = f32((d + 1) - (s + 1) * inverse)
            f = f32(0) if f <= 0 else f32(f - f32(math.floor(f)))
        else:
            f = f32((d + 0.5) * scale - 0.5)
            s = int(math.floor(f))
            f = f32(f - f32(s))
        taps.append((s, f))
    return taps


def weight(c):
    return int(np.rint(f32(c * f32(2048))))


def linear_resize(rgb, w, h, area_positions=False):
    """cv2.resize INTER_LINEAR of uint8 (or INTER_AREA with an axis that grows)."""
    height, width, _ = rgb.shape
    columns = []
    for s, f in linear_taps(width, w, area_positions):
        if s < 0:
            s, f = 0, f32(0)
        elif s >= width - 1:
            s, f = width - 1, f32(0)
        columns.append((s, min(s + 1, width - 1), weight(f32(1) - f), weight(f)))
    left = np.array([c[0] for c in columns]); right = np.array([c[1] for c in columns])
    a0 = np.array([c[2] for c in columns])[:, None]; a1 = np.array([c[3] for c in columns])[:, None]
    pixels = rgb.astype(np.int64)
    out = np.zeros((h, w, 3), np.int64)
    for v, (s, f) in enumerate(linear_taps(height, h, area_positions)):
        r0, r1 = min(max(s, 0), height - 1), min(max(s + 1, 0), height - 1)
        b0, b1 = weight(f32(1) - f), weight(f)
        d0 = pixels[r0, left] * a0 + pixels[r0, right] * a1
        d1 = pixels[r1, left] * a0 + pixels[r1, right] * a1
        out[v] = ((((d0 >> 4) * b0) >> 16) + (((d1 >> 4) * b1) >> 16) + 2) >> 2
    return np.clip(out, 0, 255).astype(np.uint8)


def area_shares(source, count):
    scale = source / count
    shares = []
    for d in range(count):
        start = d * scale
        end = start + scale
        cell = min(scale, source - start)
        s2 = min(math.floor(end), source - 1)
        s1 = min(math.ceil(start), s2)
        if s1 - start > 1e-3:
            shares.append((d, s1 - 1, f32((s1 - start) / cell)))
        for s in range(s1, s2):
            shares.append((d, s, f32(1.0 / cell)))
        if end - s2 > 1e-3:
            shares.append((d, s2, f32(min(min(end - s2, 1.0), cell) / cell)))
    return shares


def area_resize(rgb, w, h):
    """cv2.resize INTER_AREA of uint8."""
    height, width, _ = rgb.shape
    if w > width or h > height:
        return linear_resize(rgb, w, h, area_positions=True)
    if width % w == 0 and height % h == 0:
        kx, ky = width // w, height // h
        sums = rgb.astype(np.int64).reshape(h, ky, w, kx, 3).sum(axis=(1, 3))
        if kx == 2 and ky == 2:
            return ((sums + 2) >> 2).astype(np.uint8)
        return np.clip(np.rint(sums.astype(f32) * f32(1.0 / (kx * ky))), 0, 255).astype(np.uint8)
    columns = area_shares(width, w)
    pixels = rgb.astype(f32)
    sums = {}
    for d, s, beta in area_shares(height, h):
        row = np.zeros((w, 3), f32)
        for t, x, alpha in columns:
            row[t] = row[t] + pixels[s, x] * alpha
        sums[d] = beta * row if d not in sums else sums[d] + beta * row
    out = np.stack([sums[d] for d in range(h)])
    return np.clip(np.rint(out), 0, 255).astype(np.uint8)


def self_check():
    rng = np.random.default_rng(20260301)
    sizes = [(64, 48, 40, 30), (50, 37, 32, 32), (30, 20, 47, 33), (100, 60, 32, 32), (33, 17, 7, 5), (13, 11, 3, 3),
             (64, 48, 32, 24), (96, 72, 32, 24), (60, 40, 15, 10), (1280, 720, 320, 320), (333, 251, 37, 29),
             (270, 480, 320, 320), (20, 30, 47, 13), (64, 48, 128, 96), (200, 150, 100, 150), (5, 4, 5, 4), (1, 7, 3, 2)]
    for _ in range(20):
        sizes.append(tuple(int(v) for v in rng.integers(1, 160, size=4)))
    checked = 0
    for width, height, w, h in sizes:
        rgb = rng.integers(0, 256, (height, width, 3), dtype=np.uint8)
        for name, ours, flag in (("half_pixel", linear_resize, cv2.INTER_LINEAR), ("area", area_resize, cv2.INTER_AREA)):
            theirs = cv2.resize(rgb, (w, h), interpolation=flag)
            differing = int((ours(rgb, w, h) != theirs).sum())
            if differing:
                sys.exit(f"{name} {width}x{height} -> {w}x{h}: {differing} values differ from cv2.resize")
            checked += theirs.size
    print(f"formulas equal cv2.resize {cv2.__version__} on {len(sizes)} random frames ({checked} values, both modes)")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(HERE, "..", "Fixtures", "imaging", "sampling"))
    args = ap.parse_args()
    self_check()
    import torch
    import torch.nn.functional as F
    os.makedirs(args.out, exist_ok=True)
    for mode, cases in CASES.items():
        for width, height, w, h in cases:
            rgb = np.ascontiguousarray(synthetic_frame(width, height)[:, :, :3])
            name = f"{mode}_{width}x{height}_to_{w}x{h}"
            if mode in ("half_pixel", "area"):
                flag = cv2.INTER_LINEAR if mode == "half_pixel" else cv2.INTER_AREA
                values = cv2.resize(rgb, (w, h), interpolation=flag)
                assert (values == (linear_resize(rgb, w, h) if mode == "half_pixel" else area_resize(rgb, w, h))).all()
                path = os.path.join(args.out, name + ".u8")
                values.astype(np.uint8).tofile(path)
            else:
                x = torch.from_numpy(rgb.astype(np.float32) / np.float32(255)).permute(2, 0, 1)[None]
                y = F.interpolate(x, size=(h, w), mode="bilinear", align_corners=(mode == "align_corners"))
                values = y[0].permute(1, 2, 0).contiguous().numpy().astype("<f4")
                if mode == "torch_half_pixel":
                    levels = linear_resize(rgb, w, h).astype(np.float32)
                    print(f"{name}: half_pixel levels within {np.abs(values * 255 - levels).max():.3f} of PyTorch's floats x 255")
                path = os.path.join(args.out, name + ".f32")
                values.tofile(path)
            print(f"{os.path.basename(path)}: {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    main()
