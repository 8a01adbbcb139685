"""Attention and RotaryEmbedding cases (opset 23 and 24): 3-D and 4-D inputs, grouped heads, bool and
float masks, the key/value cache, causal masking, scale, softcap, the qk_matmul_output modes;
RotaryEmbedding with and without position_ids, interleaved and partial rotation."""

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

    # Attention: float32, with onnxruntime's CPU kernel as the oracle.
    cases.append(Case("attention_4d_gqa_causal", "Attention", [data("Q", x(1, 4, 3, 5)), data("K", x(1, 2, 4, 5)),
                                                              data("V", x(1, 2, 4, 3))], {"is_causal": 1}, opset=23,
                      what="4 query heads over 2 key/value heads, causal, V's head size 3"))
    cases.append(Case("attention_3d_bool_mask", "Attention",
                      [data("Q", x(2, 3, 8)), data("K", x(2, 5, 8)), data("V", x(2, 5, 6)),
                       data("attn_mask", rng.random((3, 5)) > 0.3)], {"q_num_heads": 2, "kv_num_heads": 2}, opset=23,
                      what="3-D, a bool mask broadcast over batch and heads"))
    cases.append(Case("attention_4d_past_softcap_bias", "Attention",
                      [data("Q", x(2, 2, 3, 4)), data("K", x(2, 2, 3, 4)), data("V", x(2, 2, 3, 5)),
                       data("attn_mask", x(2, 1, 3, 7)), data("past_key", x(2, 2, 4, 4)), data("past_value", x(2, 2, 4, 5))],
                      {"softcap": 2.5, "scale": 0.7, "qk_matmul_output_mode": 2}, n_outputs=4, opset=23,
                      what="past and present, float mask, softcap, scale, scores with the bias"))
    # Not causal there: onnxruntime writes the float's lowest value, not -inf, into the scores it masks
    # causally (qk_matmul_output_mode 2), where the spec adds -inf.
    cases.append(Case("attention_3d_gqa_past_probabilities", "Attention",
                      [data("Q", x(1, 2, 12)), data("K", x(1, 2, 4)), data("V", x(1, 2, 6)), empty,
                       data("past_key", x(1, 1, 3, 4)), data("past_value", x(1, 1, 3, 6))],
                      {"q_num_heads": 3, "kv_num_heads": 1, "qk_matmul_output_mode": 3, "is_causal": 1}, n_outputs=4, opset=23,
                      what="3-D multi-query with a cache, causal, the probabilities as the fourth output"))
    cases.append(Case("attention_4d_nonpad_causal", "Attention",
                      [data("Q", x(2, 2, 2, 4)), data("K", x(2, 2, 6, 4)), data("V", x(2, 2, 6, 3)), empty, empty, empty,
                       data("nonpad_kv_seqlen", np.array([4, 6], dtype=np.int64))], {"is_causal": 1}, opset=24,
                      what="an external cache: per-batch valid keys and causal offset"))
    return cases
