"""Det (opset 11): one matrix (a scalar output), a batch of [2, 3] matrices of 4x4, 1x1 matrices, a
singular matrix (two equal rows) and one that needs row swaps (a zero on the diagonal); float32 (onnxruntime has no double Det)."""

import numpy as np


def build_cases(rng, Case):
    def data(name, value):
        return (name, "data", value)

    singular = rng.standard_normal((3, 3)).astype(np.float32)
    singular[2] = singular[0]
    swaps = rng.standard_normal((4, 4)).astype(np.float32)
    swaps[0, 0] = 0
    swaps[1, 1] = 0
    return [
        Case("det_one_matrix", "Det", [data("X", rng.standard_normal((5, 5)).astype(np.float32))], opset=11),
        Case("det_batch", "Det", [data("X", rng.standard_normal((2, 3, 4, 4)).astype(np.float32))], opset=11),
        Case("det_1x1", "Det", [data("X", rng.standard_normal((3, 1, 1)).astype(np.float32))], opset=11),
        Case("det_singular", "Det", [data("X", singular)], opset=11, what="two equal rows"),
        Case("det_row_swaps", "Det", [data("X", swaps)], opset=11, what="zeros on the diagonal"),
    ]
