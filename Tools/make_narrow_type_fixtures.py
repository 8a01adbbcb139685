"""Writes Fixtures/narrowtypes/casts.json: ONNX Cast to and from the narrow types (bfloat16, the
float8 formats, float4e2m1, the 4- and 2-bit integers) as onnx's reference implementation
(`onnx.reference.ReferenceEvaluator`, which converts through ml_dtypes) computes them, and
Fixtures/narrowtypes/quantization.json: QuantizeLinear and DequantizeLinear with those types.

onnxruntime 1.32 cannot be the oracle here: its CPU provider lacks most of these casts (it runs 6
of onnx's 60 Cast node tests, none of the 27 QuantizeLinear / DequantizeLinear ones at opset 28),
so the Swift tests `NarrowTypeCastTests` and `QuantizationTests` check the engine against these
values instead.

The file holds
- `values`: float32 inputs as bit patterns (so NaN, -0 and the exact ties survive JSON): zeros,
  infinities, NaN of both signs, every value each narrow float format holds and every midpoint
  between two neighbours (the round-to-nearest-even ties) with their neighbours one float32 ulp
  away, values around each format's largest finite one, whole numbers and halves for the integer
  types, and 600 values at magnitudes 1e-12 to 1e6 from numpy's generator seeded with 0;
- `encode`: for each target type and attribute setting (`saturate` 1 or 0 for float8; `round_mode`
  up, down, nearest for float8e8m0 with both saturate settings), the output bit pattern of
  Cast(float32 -> type) on `values` (one element per entry: the 4- and 2-bit types unpacked, the
  signed ones as their signed value);
- `decode`: for each type, every bit pattern (bfloat16: every 97th of the 65536 and the specials)
  and the float32 bit pattern of Cast(type -> float32).

quantization.json holds, per quantized type (int4, uint4, int2, uint2, the four float8 formats with
a sign, float4e2m1): `quantize`, QuantizeLinear-25 of a [2, 64] float32 x (128 of `values` evenly spaced
among those of magnitude 1e-3 to 250, times 4; for the float types `x_special`, the same with NaN
and ±infinity as each row's last three) with the
per-axis (axis 0) scale [0.5, 3] and zero point (integers: [1, -1] signed, [1, 2] unsigned; floats:
zeros), for float8 with saturate 1 and 0, as stored elements; `dequantize`, DequantizeLinear-25 of
every value or bit pattern of the type (a [1, n] tensor) with scale 0.5 and zero point 1 (integers)
or 0 (floats), as float32 bit patterns.

Run: venv/bin/python Tools/make_narrow_type_fixtures.py
"""

from __future__ import annotations

import json
from pathlib import Path

import ml_dtypes
import numpy as np
import onnx
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "Fixtures" / "narrowtypes" / "casts.json"

FLOATS = {  # name: (TensorProto type, ml_dtypes type)
    "bfloat16": (TensorProto.BFLOAT16, ml_dtypes.bfloat16),
    "float8e4m3fn": (TensorProto.FLOAT8E4M3FN, ml_dtypes.float8_e4m3fn),
    "float8e4m3fnuz": (TensorProto.FLOAT8E4M3FNUZ, ml_dtypes.float8_e4m3fnuz),
    "float8e5m2": (TensorProto.FLOAT8E5M2, ml_dtypes.float8_e5m2),
    "float8e5m2fnuz": (TensorProto.FLOAT8E5M2FNUZ, ml_dtypes.float8_e5m2fnuz),
    "float4e2m1": (TensorProto.FLOAT4E2M1, ml_dtypes.float4_e2m1fn),
    "float8e8m0": (TensorProto.FLOAT8E8M0, ml_dtypes.float8_e8m0fnu),
}
INTEGERS = {
    "int4": (TensorProto.INT4, ml_dtypes.int4),
    "uint4": (TensorProto.UINT4, ml_dtypes.uint4),
    "int2": (TensorProto.INT2, ml_dtypes.int2),
    "uint2": (TensorProto.UINT2, ml_dtypes.uint2),
}
FLOAT8 = {"float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz"}


def codes(name: str) -> np.ndarray:
    """Every bit pattern of a narrow float type (bfloat16: a sample), as its storage integers."""
    if name == "bfloat16":
        sample = np.arange(0, 65536, 97, dtype=np.uint32)
        specials = np.array([0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0xFFC0, 0x7F7F, 0xFF7F, 0x0001, 0x8001, 0x0080], np.uint32)
        return np.unique(np.concatenate([sample, specials])).astype(np.uint16)
    if name == "float4e2m1":
        return np.arange(16, dtype=np.uint8)
    return np.arange(256, dtype=np.uint8)


def as_type(bits: np.ndarray, name: str) -> np.ndarray:
    return bits.view(FLOATS[name][1])


def input_values() -> np.ndarray:
    values = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1e-45, -1e-45, 3.4e38, -3.4e38]
    for name in FLOATS:
        held = as_type(codes(name), name).astype(np.float32)
        held = np.unique(held[np.isfinite(held)])
        values += held.tolist()
        middle = ((held[:-1].astype(np.float64) + held[1:]) / 2).astype(np.float32)
        values += middle.tolist()
        values += np.nextafter(middle, np.float32(np.inf)).tolist() + np.nextafter(middle, np.float32(-np.inf)).tolist()
        top = float(ml_dtypes.finfo(FLOATS[name][1]).max)
        values += [top * f for f in (1.0, 1.0625, 1.125, 1.2, 2.0)] + [-top * f for f in (1.0, 1.0625, 1.125, 1.2, 2.0)]
    values += np.arange(-20, 20.5, 0.5).tolist()
    random = np.random.default_rng(0)
    values += (random.standard_normal(600) * 10.0 ** random.uniform(-12, 6, 600)).tolist()
    array = np.array(values, dtype=np.float32)
    bits = np.unique(array.view(np.uint32))  # distinct bit patterns, sorted
    return bits.view(np.float32)


def run_cast(x: np.ndarray, to: int, **attributes) -> np.ndarray:
    source = helper.np_dtype_to_tensor_dtype(x.dtype)
    node = helper.make_node("Cast", ["x"], ["y"], to=to, **attributes)
    graph = helper.make_graph([node], "cast", [helper.make_tensor_value_info("x", source, [len(x)])],
                              [helper.make_tensor_value_info("y", to, [len(x)])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 25)])
    return ReferenceEvaluator(model).run(None, {"x": x})[0]


def storage(y: np.ndarray) -> list[int]:
    """The elements as the engine stores them: bit patterns, or signed values for int4 / int2."""
    if y.dtype in (ml_dtypes.int4, ml_dtypes.int2):
        return y.astype(np.int8).tolist()
    if y.dtype in (ml_dtypes.uint4, ml_dtypes.uint2):
        return y.astype(np.uint8).tolist()
    if y.dtype == ml_dtypes.float4_e2m1fn:
        return (y.view(np.uint8) & 0x0F).tolist()
    return y.view(np.uint16 if y.dtype.itemsize == 2 else np.uint8).tolist()


def run_node(op: str, inputs: dict[str, np.ndarray], output_type: int, **attributes) -> np.ndarray:
    names = list(inputs)
    node = helper.make_node(op, names, ["y"], **attributes)
    graph = helper.make_graph([node], op, [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(v.dtype), v.shape)
                                           for n, v in inputs.items()],
                              [helper.make_tensor_value_info("y", output_type, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 25)])
    return ReferenceEvaluator(model).run(None, inputs)[0]


def quantization(values: np.ndarray) -> dict:
    finite = values[np.isfinite(values) & (np.abs(values) >= 1e-3) & (np.abs(values) <= 250)]
    x = (finite[np.linspace(0, len(finite) - 1, 128).astype(int)] * 4).astype(np.float32).reshape(2, 64)
    # NaN and infinities only for the float types: numpy's float-to-int32 cast of them, which the
    # reference's integer path takes, is undefined.
    x_special = x.copy()
    x_special[:, -3:] = [np.nan, np.inf, -np.inf]
    scale = np.array([0.5, 3.0], np.float32)
    cases = {}
    types = {**INTEGERS, **{name: FLOATS[name] for name in sorted(FLOAT8) + ["float4e2m1"]}}
    for name, (code, dtype) in types.items():
        if name in INTEGERS:
            zero = np.array([1, -1] if name.startswith("int") else [1, 2]).astype(dtype)
            held = np.arange(ml_dtypes.iinfo(dtype).min, ml_dtypes.iinfo(dtype).max + 1).astype(dtype)
            dequantize_zero = np.array(1).astype(dtype)
        else:
            zero = np.zeros(2, np.float32).astype(dtype)
            held = as_type(codes(name), name)
            dequantize_zero = np.array(0, np.float32).astype(dtype)
        settings = {"saturate": 1, "nosaturate": 0} if name in FLOAT8 else {"default": None}
        quantize = {}
        for label, saturate in settings.items():
            attributes = {"axis": 0} | ({} if saturate is None else {"saturate": saturate})
            given = x if name in INTEGERS else x_special
            quantize[label] = storage(run_node("QuantizeLinear", {"x": given, "scale": scale, "zero": zero}, code, **attributes).reshape(-1))
        y = run_node("DequantizeLinear", {"q": held.reshape(1, -1), "scale": np.array(0.5, np.float32), "zero": dequantize_zero},
                     TensorProto.FLOAT)
        cases[name] = {
            "zero_point": storage(zero), "quantize": quantize,
            "held": storage(held), "dequantize": y.astype(np.float32).reshape(-1).view(np.uint32).tolist(),
        }
    return {"x": x.reshape(-1).view(np.uint32).tolist(), "x_special": x_special.reshape(-1).view(np.uint32).tolist(),
            "scale": scale.tolist(), "types": cases}


def main() -> None:
    x = input_values()
    encode: dict[str, dict[str, list[int]]] = {}
    for name, (code, _) in {**FLOATS, **INTEGERS}.items():
        settings: dict[str, dict] = {"default": {}}
        if name in FLOAT8:
            settings = {"saturate": {"saturate": 1}, "nosaturate": {"saturate": 0}}
        if name == "float8e8m0":
            settings = {f"{mode}{'' if s else '_nosaturate'}": {"saturate": s, "round_mode": mode}
                        for mode in ("up", "down", "nearest") for s in (1, 0)}
        encode[name] = {label: storage(run_cast(x, code, **attributes)) for label, attributes in settings.items()}
    decode = {}
    for name in FLOATS:
        bits = codes(name)
        y = run_cast(as_type(bits, name), TensorProto.FLOAT)
        decode[name] = {"codes": bits.tolist(), "float32": y.view(np.uint32).tolist()}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    document = {
        "generator": "Tools/make_narrow_type_fixtures.py",
        "onnx": onnx.__version__, "ml_dtypes": ml_dtypes.__version__, "numpy": np.__version__,
        "values": x.view(np.uint32).tolist(),
        "encode": encode,
        "decode": decode,
    }
    OUT.write_text(json.dumps(document, separators=(",", ":")) + "\n")
    print(f"{OUT.relative_to(REPO)}: {len(x)} values, {OUT.stat().st_size / 1024:.0f} KB")
    quantized = OUT.with_name("quantization.json")
    quantized.write_text(json.dumps({"generator": document["generator"], "onnx": onnx.__version__, "ml_dtypes": ml_dtypes.__version__,
                                     **quantization(x)}, separators=(",", ":")) + "\n")
    print(f"{quantized.relative_to(REPO)}: {quantized.stat().st_size / 1024:.0f} KB")


if __name__ == "__main__":
    main()
