"""MediaPipe 0.10.21's CPU ImageToTensor preprocessing, reproduced exactly in numpy.

MediaPipe's `ImageToTensorCalculator` (selfie segmentation graph: keep_aspect_ratio false, float range
[0, 1], BORDER_ZERO, full-image ROI) maps the frame corners onto the tensor corners with
`cv::getPerspectiveTransform` and calls `cv::warpPerspective(INTER_LINEAR, BORDER_CONSTANT)` on the uint8
image, then `convertTo(CV_32F, 1/255)`. MediaPipe links OpenCV 4.10 statically; its warp quantizes source
positions to 1/32 pixel and uses integer bilinear weights, which the OpenCV 5.x pip wheels do not
reproduce exactly. The mapping and the fixed point below are the whole contract.

Mapping: tensor pixel u (0..w-1) samples source x = u * W / w (corner to corner, no half-pixel offset).
Fixed point: sx = cvRound(x * 32) (round half to even), x0 = sx >> 5, fx = sx & 31; same for y.
v = sum(p * wx * wy) with wx in {32 - fx, fx}, wy in {32 - fy, fy}; out = (32 * v + 2**14) >> 15.
Taps outside the image read 0. Result / 255 as float32.
"""

import numpy as np


def mp_preprocess_exact(rgb: np.ndarray, width: int, height: int) -> np.ndarray:
    """RGB uint8 [H, W, 3] -> float32 NHWC [1, height, width, 3] in [0, 1], as MediaPipe builds it."""
    if rgb.dtype != np.uint8 or rgb.ndim != 3 or rgb.shape[2] != 3:
        raise ValueError("expected uint8 [H, W, 3] RGB")
    src_h, src_w = rgb.shape[:2]
    u = np.arange(width, dtype=np.float64)
    v = np.arange(height, dtype=np.float64)
    sx = np.rint(u * src_w / width * 32.0).astype(np.int64)
    sy = np.rint(v * src_h / height * 32.0).astype(np.int64)
    x0, fx = sx >> 5, sx & 31
    y0, fy = sy >> 5, sy & 31

    padded = np.zeros((src_h + 2, src_w + 2, 3), dtype=np.int64)  # one zero pixel of border each side
    padded[1:-1, 1:-1] = rgb

    def tap(yy, xx):
        yy = np.clip(yy + 1, 0, src_h + 1)
        xx = np.clip(xx + 1, 0, src_w + 1)
        return padded[yy[:, None], xx[None, :]]

    wx0 = (32 - fx)[None, :, None]
    wx1 = fx[None, :, None]
    wy0 = (32 - fy)[:, None, None]
    wy1 = fy[:, None, None]
    acc = (tap(y0, x0) * wx0 * wy0 + tap(y0, x0 + 1) * wx1 * wy0
           + tap(y0 + 1, x0) * wx0 * wy1 + tap(y0 + 1, x0 + 1) * wx1 * wy1)
    out = (32 * acc + (1 << 14)) >> 15
    out = np.clip(out, 0, 255).astype(np.float32) / np.float32(255.0)
    return out[None].astype(np.float32)
