"""RotaryEmbedding cases (opset 23): with and without position_ids, interleaved and partial rotation."""

import numpy as np
from onnx import TensorProto


def build_cases(rng, Case):
    def x(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    def data(name, value):
        return (name, "data", value)

    empty = ("", "empty", None)
    cases = []

    # RotaryEmbedding: caches of real angles, as a model computes them.
    def caches(*shape):
        angles = rng.uniform(-np.pi, np.pi, size=shape)
        return np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)

    def rotary(name, xs, cache_shape, ids=None, what="", **attrs):
        cos, sin = caches(*cache_shape)
        ins = [data("X", x(*xs)), data("cos_cache", cos), data("sin_cache", sin)]
        if ids is not None:
            ins.append(data("position_ids", ids))
        cases.append(Case(name, "RotaryEmbedding", ins, attrs, opset=23, what=what))

    rotary("rotary_4d_position_ids", (2, 3, 5, 6), (9, 3), ids=rng.integers(0, 9, size=(2, 5)).astype(np.int64),
           what="4-D, caches picked by position")
    rotary("rotary_3d_interleaved", (2, 5, 12), (2, 5, 2), num_heads=3, interleaved=1,
           what="3-D, num_heads 3, interleaved, per-token caches")
    rotary("rotary_3d_partial", (1, 4, 20), (7, 3), ids=rng.integers(0, 7, size=(1, 4)).astype(np.int64),
           num_heads=2, rotary_embedding_dim=6, what="rotary_embedding_dim 6 of head size 10")
    rotary("rotary_4d_partial_interleaved", (1, 2, 3, 8), (1, 3, 2), rotary_embedding_dim=4, interleaved=1)

    return cases
