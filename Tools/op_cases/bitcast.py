"""BitCast (opset 26): the bytes of one type read as another of the same width — float32 ↔ int32,
double → int64 (NaN and infinities included), float16 → int16, int8 → uint8 and uint32 → float32
(a scalar). onnxruntime 1.32 has no bool BitCast: a Swift test checks that one (BitCastTests)."""

import numpy as np
from onnx import TensorProto


def build_cases(rng, Case):
    def data(name, value):
        return (name, "data", value)

    def x(*shape, dtype=np.float32):
        return rng.standard_normal(shape).astype(dtype)

    special = np.array([np.nan, np.inf, -np.inf, -0.0, 5e-324, 1.5], dtype=np.float64)
    cases = [
        Case("bitcast_float_to_int32", "BitCast", [data("X", x(3, 4))], {"to": TensorProto.INT32}, opset=26,
             output_type=TensorProto.INT32),
        Case("bitcast_int32_to_float", "BitCast", [data("X", rng.integers(-2**20, 2**20, size=(2, 5)).astype(np.int32))],
             {"to": TensorProto.FLOAT}, opset=26),
        Case("bitcast_double_to_int64", "BitCast", [data("X", np.concatenate([special, x(4, dtype=np.float64)]).reshape(2, 5))],
             {"to": TensorProto.INT64}, opset=26, output_type=TensorProto.INT64, what="NaN, infinities, -0 and a subnormal"),
        Case("bitcast_float16_to_int16", "BitCast", [data("X", x(7, dtype=np.float16))], {"to": TensorProto.INT16}, opset=26,
             output_type=TensorProto.INT16, what="float16 input, not widened"),
        Case("bitcast_int8_to_uint8", "BitCast", [data("X", np.array([-128, -1, 0, 1, 127], dtype=np.int8))],
             {"to": TensorProto.UINT8}, opset=26, output_type=TensorProto.UINT8),
        Case("bitcast_uint32_scalar_to_float", "BitCast", [data("X", np.array(0x3FC00000, dtype=np.uint32))],
             {"to": TensorProto.FLOAT}, opset=26, what="a scalar"),
    ]
    return cases
