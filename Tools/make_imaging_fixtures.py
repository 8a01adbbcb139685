#!/usr/bin/env python3
"""Generates Fixtures/imaging/: expected outputs for the Imaging and PNGCodec tests.

Run with venv/ (numpy, opencv-python-headless):
    venv/bin/python Tools/make_imaging_fixtures.py [--out Fixtures/imaging]

1. preprocess_<model>_<W>x<H>.u8: MediaPipe ImageToTensor's 8-bit samples (before the /255),
   [h, w, 3] RGB uint8, from a numpy emulation of OpenCV 4.x warpPerspective (fixed point, see
   emulate_warp) of the synthetic frame `synthetic_frame(W, H)` (a formula the Swift test repeats).
2. upsample_<w>x<h>_to_<W>x<H>.f32: cv2.resize(mask, (W, H), interpolation=INTER_LINEAR) of the
   synthetic float mask `synthetic_mask(w, h)`, float32 little-endian, row-major.
3. png/*.png: tiny PNGs in every colour type and bit depth, written by a minimal encoder here, plus
   broken ones (bad CRC, truncated, not a PNG, empty).
4. README.md: what each file is and the agreement figures printed below.
"""
import argparse
import os
import struct
import zlib

import numpy as np


def synthetic_frame(width, height):
    """RGBA uint8 [H, W, 4]; the Swift tests compute the same formula."""
    y, x = np.mgrid[0:height, 0:width].astype(np.int64)
    r = (x * 255 // max(width - 1, 1)) ^ ((y * 7) & 63)
    g = (y * 255 // max(height - 1, 1)) ^ ((x * 5) & 31)
    b = ((x * 3 + y * 11) ^ (x * y >> 4)) & 255
    a = np.full_like(r, 255)
    return np.stack([r & 255, g & 255, b & 255, a], axis=-1).astype(np.uint8)


def synthetic_mask(width, height):
    """float32 [h, w] in [0, 1]; Swift: Float((x * 131 + y * 71) % 1000) / 999."""
    y, x = np.mgrid[0:height, 0:width].astype(np.int64)
    return ((x * 131 + y * 71) % 1000).astype(np.float32) / np.float32(999)


def positions(dst, src):
    """OpenCV 4.x warpPerspective source positions in 1/32 px for a pure scale (cvRound = rint)."""
    d = np.arange(dst, dtype=np.float64)
    return np.rint(d * (src / dst) * 32).astype(np.int64)


def emulate_warp(rgb, w, h):
    """MediaPipe (OpenCV 4.10) warpPerspective INTER_LINEAR, BORDER_CONSTANT 0, corner-aligned."""
    H, W, _ = rgb.shape
    sx, sy = positions(w, W), positions(h, H)
    x0, fx = sx >> 5, sx & 31
    y0, fy = sy >> 5, sy & 31
    img = rgb.astype(np.int64)

    def tap(yy, xx):
        inside = (yy[:, None] >= 0) & (yy[:, None] < H) & (xx[None, :] >= 0) & (xx[None, :] < W)
        v = img[np.clip(yy, 0, H - 1)][:, np.clip(xx, 0, W - 1)]
        return v * inside[..., None]

    wx0, wx1 = (32 - fx)[None, :, None], fx[None, :, None]
    wy0, wy1 = (32 - fy)[:, None, None], fy[:, None, None]
    v = (tap(y0, x0) * wx0 * wy0 + tap(y0, x0 + 1) * wx1 * wy0
         + tap(y0 + 1, x0) * wx0 * wy1 + tap(y0 + 1, x0 + 1) * wx1 * wy1)
    return ((32 * v + (1 << 14)) >> 15).astype(np.uint8)


# --- minimal PNG encoder (any colour type / bit depth) -------------------------------------------

def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def png_bytes(width, height, color_type, bit_depth, rows, palette=None, trns=None):
    raw = b"".join(b"\x00" + row for row in rows)
    out = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, bit_depth, color_type, 0, 0, 0))
    if palette is not None:
        out += chunk(b"PLTE", bytes(palette))
    if trns is not None:
        out += chunk(b"tRNS", bytes(trns))
    return out + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def make_pngs(folder):
    os.makedirs(folder, exist_ok=True)
    w, h = 5, 3
    files = {}
    # Expected RGBA for each: documented in README (pixel (x, y) values below).
    gray8 = [bytes((x * 55 + y * 10) for x in range(w)) for y in range(h)]
    files["gray8.png"] = png_bytes(w, h, 0, 8, gray8)
    gray16 = [b"".join(struct.pack(">H", (x * 55 + y * 10) * 257) for x in range(w)) for y in range(h)]
    files["gray16.png"] = png_bytes(w, h, 0, 16, gray16)
    ga8 = [bytes(v for x in range(w) for v in ((x * 55 + y * 10), 255 - x * 50)) for y in range(h)]
    files["gray_alpha8.png"] = png_bytes(w, h, 4, 8, ga8)
    ga16 = [b"".join(struct.pack(">HH", (x * 55 + y * 10) * 257, (255 - x * 50) * 257) for x in range(w)) for y in range(h)]
    files["gray_alpha16.png"] = png_bytes(w, h, 4, 16, ga16)
    rgb8 = [bytes(v for x in range(w) for v in (x * 50, y * 100, 200 - x * 40)) for y in range(h)]
    files["rgb8.png"] = png_bytes(w, h, 2, 8, rgb8)
    rgb16 = [b"".join(struct.pack(">HHH", x * 50 * 257, y * 100 * 257, (200 - x * 40) * 257) for x in range(w)) for y in range(h)]
    files["rgb16.png"] = png_bytes(w, h, 2, 16, rgb16)
    rgba8 = [bytes(v for x in range(w) for v in (x * 50, y * 100, 200 - x * 40, 255 - x * 50)) for y in range(h)]
    files["rgba8.png"] = png_bytes(w, h, 6, 8, rgba8)
    rgba16 = [b"".join(struct.pack(">HHHH", x * 50 * 257, y * 100 * 257, (200 - x * 40) * 257, (255 - x * 50) * 257) for x in range(w)) for y in range(h)]
    files["rgba16.png"] = png_bytes(w, h, 6, 16, rgba16)
    palette = [c for x in range(w) for c in (x * 50, 100, 200 - x * 40)]
    pal_rows = [bytes(range(w)) for _ in range(h)]
    files["palette8.png"] = png_bytes(w, h, 3, 8, pal_rows, palette=palette, trns=[255 - x * 50 for x in range(w)])
    # 1-bit grey: alternating columns 0/1 -> 0/255
    files["gray1.png"] = png_bytes(w, h, 0, 1, [bytes([0b01010000]) for _ in range(h)])
    good = files["rgb8.png"]
    # Broken ones.
    bad_crc = bytearray(good)
    bad_crc[29] ^= 0xFF  # IHDR CRC (8 signature + 4 length + 4 type + 13 data = 29)
    files["bad_crc.png"] = bytes(bad_crc)
    files["truncated.png"] = good[: len(good) - 20]
    files["not_png.png"] = b"GIF89a this is not a PNG file at all"
    files["empty.png"] = b""
    huge = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 100000, 100000, 8, 6, 0, 0, 0))
    files["huge_dimensions.png"] = huge + chunk(b"IDAT", zlib.compress(b"\x00" * 10)) + chunk(b"IEND", b"")
    for name, data in files.items():
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)
    return sorted(files)


def main():
    import cv2
    cv2.setNumThreads(1)
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "Fixtures", "imaging"))
    args = parser.parse_args()
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    notes = []

    models = {"general": (256, 256), "landscape": (256, 144)}
    frames = [(640, 480), (1280, 720), (517, 301), (200, 150), (480, 640)]
    for (W, H) in frames:
        rgb = synthetic_frame(W, H)[..., :3]
        for name, (w, h) in models.items():
            ours = emulate_warp(rgb, w, h)
            ours.tofile(os.path.join(out, f"preprocess_{name}_{W}x{H}.u8"))
            # How the pip OpenCV (5.x) differs from the 4.x emulation (expected: a few ties).
            src = np.float32([[0, H], [0, 0], [W, 0], [W, H]])
            dst = np.float32([[0, h], [0, 0], [w, 0], [w, h]])
            M = cv2.getPerspectiveTransform(src, dst)
            cv = cv2.warpPerspective(np.ascontiguousarray(rgb), M, (w, h), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_CONSTANT, borderValue=0)
            diff = np.abs(cv.astype(int) - ours.astype(int))
            notes.append(f"| {name} | {W}x{H} | {w}x{h} | {diff.max()} | {100 * (diff > 0).mean():.2f} % |")

    # Small sources and targets keep the files small (the Fixtures folder stays small) while
    # covering the same cases: non-integer upscales in both axes (2.02 x 1.18, the ratios of
    # 256 -> 517x301; 2.52 x 2.53 from a 16:9 mask) and a downscale from the model size.
    ups = [((128, 128), (259, 151)), ((64, 36), (161, 91)), ((256, 256), (200, 150))]
    up_notes = []
    for (w, h), (W, H) in ups:
        m = synthetic_mask(w, h)
        cv2.ipp.setUseIPP(True)
        with_ipp = cv2.resize(m, (W, H), interpolation=cv2.INTER_LINEAR)
        # OpenCV's own C++ resize (what a build without IPP, like MediaPipe's, runs).
        cv2.ipp.setUseIPP(False)
        r = cv2.resize(m, (W, H), interpolation=cv2.INTER_LINEAR).astype("<f4")
        cv2.ipp.setUseIPP(True)
        ipp_note = f"{np.abs(with_ipp - r).max():.2e}"
        r.tofile(os.path.join(out, f"upsample_{w}x{h}_to_{W}x{H}.f32"))
        up_notes.append(f"| {w}x{h} → {W}x{H} | `upsample_{w}x{h}_to_{W}x{H}.f32` | {r.size * 4} | {ipp_note} |")

    pngs = make_pngs(os.path.join(out, "png"))

    readme = f"""# Fixtures/imaging

Generated by `Tools/make_imaging_fixtures.py` (run with `venv/bin/python`; numpy {np.__version__},
opencv-python-headless {cv2.__version__}). Do not edit by hand; rerun the script.

## Preprocessing (`preprocess_<model>_<W>x<H>.u8`)

The 8-bit samples MediaPipe 0.10.21's ImageToTensor takes from the frame before dividing by 255:
`[h, w, 3]` RGB uint8, `general` = 256x256, `landscape` = 256x144 (width x height). The frame is
`synthetic_frame(W, H)` (formula in the script, repeated in `Tests/ImagingTests/Synthetic.swift`).
Computed by `emulate_warp`, a numpy emulation of OpenCV **4.10**'s fixed-point `warpPerspective`
(MediaPipe links 4.10 statically; `Tools/mp_preprocess.py` states the warp): source position
`rint(32·u·W/w)`, integer weights `32 − f` / `f`, `(32·Σ + 2^14) >> 15`, taps outside read 0.

The pip OpenCV here is {cv2.__version__}, whose warpPerspective differs from 4.x (it no longer
quantises to 1/32 px the same way), so it is *not* the reference; how far it is from the emulation:

| model | frame | tensor | max abs diff (0..255) | pixels differing |
|---|---|---|---|---|
""" + "\n".join(notes) + f"""

## Mask upsampling (`upsample_*.f32`)

`cv2.resize(mask, (W, H), interpolation=cv2.INTER_LINEAR)` of `synthetic_mask(w, h)`
(`((x·131 + y·71) mod 1000) / 999` in float32), float32 little-endian `[H, W]`, computed with
**`cv2.ipp.setUseIPP(False)`**: OpenCV's own C++ `resize` (float weights, `(1−f)·a + f·b` as two
multiplies and an add). The pip wheel's IPP path gives different values (last column: max |Δ|
against the C++ path); the C++ path is the one our code reproduces, and the end-to-end test against
MediaPipe's own masks decides which one MediaPipe's statically linked OpenCV 4.10 runs.

| resize | file | bytes | IPP path max abs diff |
|---|---|---|---|
""" + "\n".join(up_notes) + """

## PNG (`png/`)

Written by the script's minimal encoder (zlib + CRC by hand) so every colour type is covered:
5x3 pixels; grey value `(x·55 + y·10)`, alpha `255 − 50x`, RGB `(50x, 100y, 200 − 40x)`;
16-bit files hold the 8-bit value × 257; `palette8.png` has entries `(50x, 100, 200 − 40x)` with
tRNS alpha `255 − 50x`, pixel (x, y) = entry x; `gray1.png` alternates 0/1 per column (first
column 0). Broken files: `bad_crc.png` (IHDR CRC flipped), `truncated.png` (`rgb8.png` minus its
last 20 bytes), `not_png.png`, `empty.png`, `huge_dimensions.png` (IHDR says 100000x100000).

Files: """ + ", ".join(f"`{p}`" for p in pngs) + "\n"
    with open(os.path.join(out, "README.md"), "w") as f:
        f.write(readme)
    print(readme)


if __name__ == "__main__":
    main()
