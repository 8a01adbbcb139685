"""TensorScatter (opset 24): a 4-D cache [batch, heads, max_seq, head] with write_indices (linear), a 3-D
cache without them (prefill), circular writes that wrap past max_seq, the sequence axis given as 1 of
a 4-D cache, and an int64 cache."""

import numpy as np
from onnx import TensorProto


def build_cases(rng, Case):
    def data(name, value):
        return (name, "data", value)

    def x(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    def at(*v):
        return data("write_indices", np.array(v, dtype=np.int64))

    return [
        Case("tensorscatter_linear_indices", "TensorScatter", [data("past", x(2, 3, 6, 4)), data("update", x(2, 3, 2, 4)), at(1, 4)],
             opset=24),
        Case("tensorscatter_3d_prefill", "TensorScatter", [data("past", x(2, 5, 3)), data("update", x(2, 3, 3))], opset=24,
             what="no write_indices: from 0"),
        Case("tensorscatter_circular_wrap", "TensorScatter", [data("past", x(2, 2, 5, 3)), data("update", x(2, 2, 3, 3)), at(3, 4)],
             {"mode": "circular"}, opset=24),
        Case("tensorscatter_axis1", "TensorScatter", [data("past", x(1, 6, 2, 3)), data("update", x(1, 2, 2, 3)), at(2)],
             {"axis": 1}, opset=24),
        Case("tensorscatter_int64", "TensorScatter",
             [data("past", rng.integers(-99, 99, size=(3, 4, 2)).astype(np.int64)),
              data("update", rng.integers(-99, 99, size=(3, 1, 2)).astype(np.int64)), at(0, 3, 2)],
             opset=24, output_type=TensorProto.INT64),
    ]
