"""Element-wise ops: unary float functions and activations, the integer-capable unary and binary ops,
N-input Min/Max/Sum/Mean, comparisons and logical ops (bool outputs), Where, Pow, Mod, BitShift,
Identity and inference-mode Dropout. Legacy op versions through `opset=`; integer cases for every op
that takes integers."""

import numpy as np
from onnx import TensorProto

BOOL, I32, I64 = TensorProto.BOOL, TensorProto.INT32, TensorProto.INT64


def build_cases(rng, Case):
    def x(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    def ints(dtype, *shape, low=-20, high=20):
        return rng.integers(low, high, shape).astype(dtype)

    def nonzero(dtype, *shape):
        v = ints(dtype, *shape, low=1, high=9)
        return (v * np.where(rng.random(shape) < 0.5, -1, 1)).astype(dtype)

    def bools(*shape):
        return rng.random(shape) < 0.5

    def data(name, value):
        return (name, "data", value)

    def param(name, value):
        return (name, "param", value)

    empty = ("", "empty", None)
    cases = []

    def unary(name, op, value, attrs=None, opset=None, output_type=TensorProto.FLOAT, what=""):
        cases.append(Case(name, op, [data("X", value)], attrs, opset=opset, output_type=output_type, what=what))

    # Float functions, with inputs inside their domains.
    positive = lambda *s: (np.abs(x(*s)) + 0.1).astype(np.float32)  # noqa: E731
    unit = lambda *s: (0.95 * np.tanh(x(*s))).astype(np.float32)  # noqa: E731
    functions = [
        ("tanh", "Tanh", 2 * x(1, 5, 7, 9)), ("exp", "Exp", x(1, 5, 7, 9)), ("log", "Log", positive(1, 5, 7, 9)),
        ("sqrt", "Sqrt", positive(2, 3, 7)), ("reciprocal", "Reciprocal", positive(3, 7) * np.sign(x(3, 7))),
        ("erf", "Erf", 2 * x(1, 5, 7, 9)), ("floor", "Floor", 3 * x(2, 5, 7)), ("ceil", "Ceil", 3 * x(2, 5, 7)),
        ("round_half_to_even", "Round", (np.round(4 * x(3, 5, 7)) / 2).astype(np.float32)),
        ("sin", "Sin", 3 * x(1, 5, 7, 9)), ("cos", "Cos", 3 * x(1, 5, 7, 9)), ("tan", "Tan", unit(3, 5, 7)),
        ("asin", "Asin", unit(3, 5, 7)), ("acos", "Acos", unit(3, 5, 7)), ("atan", "Atan", 3 * x(3, 5, 7)),
        ("sinh", "Sinh", 2 * x(3, 5, 7)), ("cosh", "Cosh", 2 * x(3, 5, 7)), ("asinh", "Asinh", 3 * x(3, 5, 7)),
        ("acosh", "Acosh", 1 + positive(3, 5, 7)), ("atanh", "Atanh", unit(3, 5, 7)),
        ("softplus", "Softplus", 8 * x(1, 5, 7, 9)), ("softsign", "Softsign", 3 * x(1, 5, 7, 9)),
    ]
    for name, op, value in functions:
        unary(name, op, value)
    unary("tanh_opset7", "Tanh", x(3, 5, 7), opset=7, what="Tanh-6")
    unary("exp_opset7", "Exp", x(3, 5, 7), opset=7, what="Exp-6")
    unary("erf_opset9", "Erf", x(3, 5, 7), opset=9, what="Erf-9")

    # Activations and their attributes.
    unary("leakyrelu_default", "LeakyRelu", x(1, 5, 7, 9), what="alpha 0.01")
    unary("leakyrelu_alpha", "LeakyRelu", x(1, 5, 7, 9), {"alpha": 0.2})
    unary("leakyrelu_opset7", "LeakyRelu", x(3, 5, 7), {"alpha": 0.3}, opset=7, what="LeakyRelu-6")
    unary("elu_default", "Elu", 2 * x(1, 5, 7, 9))
    unary("elu_alpha", "Elu", 2 * x(1, 5, 7, 9), {"alpha": 0.5})
    unary("selu_default", "Selu", 2 * x(1, 5, 7, 9))
    unary("selu_alpha_gamma", "Selu", 2 * x(1, 5, 7, 9), {"alpha": 1.5, "gamma": 0.8})
    unary("celu_default", "Celu", 2 * x(1, 5, 7, 9))
    unary("celu_alpha", "Celu", 2 * x(1, 5, 7, 9), {"alpha": 0.7})
    unary("mish", "Mish", 4 * x(1, 5, 7, 9), opset=18)
    unary("gelu_default", "Gelu", 3 * x(1, 5, 7, 9), opset=20, what="approximate none")
    unary("gelu_tanh", "Gelu", 3 * x(1, 5, 7, 9), {"approximate": "tanh"}, opset=20)
    unary("thresholdedrelu_default", "ThresholdedRelu", 2 * x(1, 5, 7, 9), what="alpha 1")
    unary("thresholdedrelu_alpha", "ThresholdedRelu", 2 * x(1, 5, 7, 9), {"alpha": 0.3})
    unary("shrink_default", "Shrink", 2 * x(1, 5, 7, 9), what="bias 0, lambd 0.5")
    unary("shrink_bias_lambd", "Shrink", 2 * x(1, 5, 7, 9), {"bias": 0.3, "lambd": 0.8})

    # Float classification (bool outputs).
    special = x(3, 5, 7)
    special.flat[::4], special.flat[1::6], special.flat[2::9] = np.nan, np.inf, -np.inf
    unary("isnan", "IsNaN", special, output_type=BOOL)
    unary("isnan_opset9", "IsNaN", special, opset=9, output_type=BOOL)
    unary("isinf_default", "IsInf", special, output_type=BOOL, what="both signs")
    unary("isinf_negative_only", "IsInf", special, {"detect_positive": 0}, output_type=BOOL)
    unary("isinf_positive_only", "IsInf", special, {"detect_negative": 0}, output_type=BOOL)

    # Neg, Abs, Sign on floats and integers.
    for op in ["Neg", "Abs", "Sign"]:
        signs = x(3, 5, 7)
        signs.flat[::5] = 0
        unary(f"{op.lower()}_float", op, signs)
        unary(f"{op.lower()}_int32", op, ints(np.int32, 3, 5, 7), output_type=I32)
        unary(f"{op.lower()}_int64", op, ints(np.int64, 3, 5, 7), output_type=I64)
    unary("abs_opset7_int64", "Abs", ints(np.int64, 3, 7), opset=7, output_type=I64, what="Abs-6")

    # Identity and inference-mode Dropout.
    unary("identity_float", "Identity", x(3, 5, 7))
    unary("identity_int64", "Identity", ints(np.int64, 3, 5), output_type=I64)
    unary("identity_bool", "Identity", bools(3, 5), output_type=BOOL)
    unary("identity_opset7", "Identity", x(3, 5), opset=7, what="Identity-1")
    unary("dropout_opset7", "Dropout", x(3, 5, 7), {"ratio": 0.3}, opset=7, what="Dropout-7, ratio attribute")
    unary("dropout_opset10", "Dropout", x(3, 5, 7), {"ratio": 0.3}, opset=10, what="Dropout-10")
    cases.append(Case("dropout_opset12_ratio_input", "Dropout", [data("X", x(3, 5, 7)), param("ratio", np.float32(0.2))],
                      {"seed": 3}, opset=12, what="Dropout-12, ratio input and seed"))
    cases.append(Case("dropout_mask", "Dropout", [data("X", x(3, 5, 7))], n_outputs=2,
                      output_type=[TensorProto.FLOAT, BOOL], what="Dropout-13, mask all true"))
    cases.append(Case("dropout_training_mode_false", "Dropout",
                      [data("X", x(3, 5, 7)), param("ratio", np.float32(0.5)), param("training_mode", np.array(False))],
                      n_outputs=2, output_type=[TensorProto.FLOAT, BOOL], what="constant training_mode false"))

    # Integer arithmetic (truncating integer division) with broadcasting.
    arithmetic = [("Add", np.int64, I64), ("Sub", np.int32, I32), ("Mul", np.int64, I64), ("Div", np.int64, I64),
                  ("Div", np.int32, I32)]
    for op, dtype, code in arithmetic:
        name = f"{op.lower()}_{np.dtype(dtype).name}"
        b = nonzero(dtype, 5, 1) if op == "Div" else ints(dtype, 5, 1)
        cases.append(Case(name, op, [data("A", ints(dtype, 3, 5, 7, low=-50, high=50)), data("B", b)], output_type=code,
                          what="[3,5,7] with [5,1]" + (", negative operands truncate toward zero" if op == "Div" else "")))
    cases.append(Case("mul_int64_shape_arithmetic", "Mul", [data("A", np.array([1, 3, 224, 224], dtype=np.int64)),
                                                            param("B", np.array(2, dtype=np.int64))],
                      output_type=I64, what="a shape times a scalar initializer"))
    cases.append(Case("add_int32_opset7", "Add", [data("A", ints(np.int32, 3, 5)), data("B", ints(np.int32, 5))],
                      opset=7, output_type=I32, what="Add-7"))
    cases.append(Case("clip_int64", "Clip", [data("X", ints(np.int64, 3, 5, 7)), param("min", np.int64(-5)),
                                             param("max", np.int64(7))], output_type=I64))
    cases.append(Case("clip_int32_max_only", "Clip", [data("X", ints(np.int32, 3, 5, 7)), empty, param("max", np.int32(3))],
                      output_type=I32))

    # Pow: float base, float or integer exponent.
    cases.append(Case("pow_float", "Pow", [data("X", positive(3, 5, 7)), data("E", x(5, 7))], what="[3,5,7] ^ [5,7]"))
    cases.append(Case("pow_opset7", "Pow", [data("X", positive(3, 5, 7)), data("E", x(7))], opset=7, what="Pow-7"))
    cases.append(Case("pow_int64_exponent", "Pow", [data("X", x(3, 5, 7)), data("E", ints(np.int64, 5, 1, low=-3, high=4))],
                      what="negative bases, integer exponents"))
    cases.append(Case("pow_int32_scalar_exponent", "Pow", [data("X", x(3, 5, 7)), param("E", np.int32(3))], opset=15))

    # Min, Max, Sum, Mean over 1 to 3 broadcast inputs.
    for op in ["Min", "Max", "Sum", "Mean"]:
        low = op.lower()
        cases.append(Case(f"{low}_one_input", op, [data("A", x(3, 5, 7))]))
        cases.append(Case(f"{low}_two_broadcast", op, [data("A", x(3, 5, 7)), data("B", x(5, 1))]))
        cases.append(Case(f"{low}_three_broadcast", op, [data("A", x(3, 1, 7)), data("B", x(5, 1)), data("C", x(1, 1, 1))],
                          what="[3,1,7], [5,1], [1,1,1]"))
        cases.append(Case(f"{low}_opset8", op, [data("A", x(3, 5)), data("B", x(5))], opset=8, what=f"{op}-8"))
    cases.append(Case("min_int64", "Min", [data("A", ints(np.int64, 3, 5, 7)), data("B", ints(np.int64, 7))],
                      output_type=I64))
    cases.append(Case("max_int32_three", "Max", [data("A", ints(np.int32, 3, 5)), data("B", ints(np.int32, 5)),
                                                 data("C", ints(np.int32, 3, 1))], output_type=I32))

    # Mod.
    cases.append(Case("mod_int64_default", "Mod", [data("A", ints(np.int64, 3, 5, 7, low=-50, high=50)),
                                                   data("B", nonzero(np.int64, 5, 7))],
                      output_type=I64, what="fmod 0: sign of the divisor"))
    cases.append(Case("mod_int32_fmod", "Mod", [data("A", ints(np.int32, 3, 5, 7, low=-50, high=50)),
                                                data("B", nonzero(np.int32, 7))],
                      {"fmod": 1}, output_type=I32, what="fmod 1: sign of the dividend"))
    cases.append(Case("mod_float_fmod", "Mod", [data("A", 5 * x(3, 5, 7)), data("B", positive(5, 1) * np.sign(x(5, 1)))],
                      {"fmod": 1}))
    cases.append(Case("mod_opset10_int64", "Mod", [data("A", ints(np.int64, 3, 5, low=-50, high=50)),
                                                   data("B", nonzero(np.int64, 5))], opset=10, output_type=I64))

    # Comparisons (bool outputs); float operands with repeated values so that equality occurs.
    def coarse(*shape):
        return np.round(2 * x(*shape)).astype(np.float32)

    for op in ["Equal", "Greater", "GreaterOrEqual", "Less", "LessOrEqual"]:
        low = op.lower()
        cases.append(Case(f"{low}_float", op, [data("A", coarse(3, 5, 7)), data("B", coarse(5, 1))], output_type=BOOL))
        cases.append(Case(f"{low}_int64", op, [data("A", ints(np.int64, 3, 5, 7, low=-3, high=3)),
                                               data("B", ints(np.int64, 7, low=-3, high=3))], output_type=BOOL))
    cases.append(Case("equal_bool", "Equal", [data("A", bools(3, 5)), data("B", bools(5))], output_type=BOOL))
    cases.append(Case("equal_opset7_int32", "Equal", [data("A", ints(np.int32, 3, 5, low=-3, high=3)),
                                                      data("B", ints(np.int32, 5, low=-3, high=3))],
                      opset=7, output_type=BOOL, what="Equal-7"))
    cases.append(Case("greater_opset7_float", "Greater", [data("A", coarse(3, 5)), data("B", coarse(5))],
                      opset=7, output_type=BOOL, what="Greater-7"))
    cases.append(Case("less_opset9_int32", "Less", [data("A", ints(np.int32, 3, 5, low=-3, high=3)),
                                                    data("B", ints(np.int32, 5, low=-3, high=3))],
                      opset=9, output_type=BOOL, what="Less-9"))

    # Logical ops.
    cases.append(Case("not", "Not", [data("X", bools(3, 5, 7))], output_type=BOOL))
    for op in ["And", "Or", "Xor"]:
        cases.append(Case(op.lower(), op, [data("A", bools(3, 5, 7)), data("B", bools(5, 1))], output_type=BOOL,
                          what="[3,5,7] with [5,1]"))

    # Where.
    cases.append(Case("where_float_broadcast", "Where", [data("C", bools(5, 1)), data("A", x(3, 1, 7)), data("B", x(7))],
                      what="condition [5,1], X [3,1,7], Y [7]"))
    cases.append(Case("where_int64", "Where", [data("C", bools(3, 5)), data("A", ints(np.int64, 3, 5)),
                                               param("B", np.int64(-1))], output_type=I64))
    cases.append(Case("where_int32_opset9", "Where", [data("C", bools(3, 5)), data("A", ints(np.int32, 3, 5)),
                                                      data("B", ints(np.int32, 5))], opset=9, output_type=I32, what="Where-9"))

    # BitShift.
    cases.append(Case("bitshift_uint8_left", "BitShift", [data("X", ints(np.uint8, 3, 5, low=0, high=256)),
                                                          data("S", ints(np.uint8, 5, low=0, high=10))],
                      {"direction": "LEFT"}, output_type=TensorProto.UINT8, what="shifts up to 9: bits past 8 are lost"))
    cases.append(Case("bitshift_uint32_right", "BitShift", [data("X", ints(np.uint32, 3, 5, low=0, high=2**31)),
                                                            data("S", ints(np.uint32, 3, 1, low=0, high=33))],
                      {"direction": "RIGHT"}, output_type=TensorProto.UINT32))
    cases.append(Case("bitshift_uint64_left", "BitShift", [data("X", ints(np.uint64, 3, 5, low=0, high=2**40)),
                                                           data("S", ints(np.uint64, 5, low=0, high=30))],
                      {"direction": "LEFT"}, output_type=TensorProto.UINT64))

    # Integer bases of Pow, and the uint64 kernels that are exact on bit patterns.
    cases.append(Case("pow_int64_base", "Pow", [data("X", ints(np.int64, 3, 5, low=-4, high=5)),
                                                data("E", ints(np.int64, 5, low=0, high=5))], output_type=I64))
    cases.append(Case("pow_int32_base_float_exponent", "Pow", [data("X", ints(np.int32, 3, 5, low=1, high=9)),
                                                               data("E", (2 * np.abs(x(5))).astype(np.float32))],
                      output_type=I32, what="truncated toward zero"))
    big = lambda *s: rng.integers(0, 2**63, s, dtype=np.uint64) * np.uint64(2)  # noqa: E731
    cases.append(Case("add_uint64", "Add", [data("A", big(3, 5)), data("B", big(5))], output_type=TensorProto.UINT64,
                      what="values above 2^63, wrapping"))
    equal_a = big(3, 5)
    cases.append(Case("equal_uint64", "Equal", [data("A", equal_a), data("B", np.where(bools(3, 5), equal_a, big(3, 5)))],
                      output_type=BOOL))

    # More legacy op versions (the same meaning, checked at each version the builders accept).
    for op, value in [("Log", positive(3, 5)), ("Sqrt", positive(3, 5)), ("Reciprocal", positive(3, 5)),
                      ("Floor", 3 * x(3, 5)), ("Ceil", 3 * x(3, 5)), ("Neg", ints(np.int32, 3, 5))]:
        unary(f"{op.lower()}_opset7", op, value, opset=7, output_type=I32 if value.dtype == np.int32 else TensorProto.FLOAT,
              what=f"{op}-6")
    unary("sign_opset9_int64", "Sign", ints(np.int64, 3, 5), opset=9, output_type=I64, what="Sign-9")
    unary("isnan_opset20", "IsNaN", special, opset=20, output_type=BOOL, what="IsNaN-20")
    unary("isinf_opset20", "IsInf", special, opset=20, output_type=BOOL, what="IsInf-20")
    unary("identity_opset13_int32", "Identity", ints(np.int32, 3, 5), opset=13, output_type=I32, what="Identity-13")
    unary("identity_opset21", "Identity", x(3, 5), opset=21, what="Identity-21")
    cases.append(Case("pow_opset12_int64_exponent", "Pow", [data("X", x(3, 5)), data("E", ints(np.int64, 5, low=-2, high=4))],
                      opset=12, what="Pow-12"))
    cases.append(Case("pow_opset13_int32_base", "Pow", [data("X", ints(np.int32, 3, 5, low=-3, high=4)),
                                                        data("E", ints(np.int32, 5, low=0, high=4))],
                      opset=13, output_type=I32, what="Pow-13"))
    cases.append(Case("min_opset12_int32", "Min", [data("A", ints(np.int32, 3, 5)), data("B", ints(np.int32, 5))],
                      opset=12, output_type=I32, what="Min-12"))
    cases.append(Case("max_opset12_int64", "Max", [data("A", ints(np.int64, 3, 5)), data("B", ints(np.int64, 5))],
                      opset=12, output_type=I64, what="Max-12"))
    cases.append(Case("equal_opset11_float", "Equal", [data("A", coarse(3, 5)), data("B", coarse(5))],
                      opset=11, output_type=BOOL, what="Equal-11"))
    cases.append(Case("equal_opset19_int64", "Equal", [data("A", ints(np.int64, 3, 5, low=-3, high=3)),
                                                       data("B", ints(np.int64, 5, low=-3, high=3))],
                      opset=19, output_type=BOOL, what="Equal-19"))
    cases.append(Case("greater_opset9_int32", "Greater", [data("A", ints(np.int32, 3, 5, low=-3, high=3)),
                                                          data("B", ints(np.int32, 5, low=-3, high=3))],
                      opset=9, output_type=BOOL, what="Greater-9"))
    cases.append(Case("less_opset7_float", "Less", [data("A", coarse(3, 5)), data("B", coarse(5))],
                      opset=7, output_type=BOOL, what="Less-7"))
    for op in ["GreaterOrEqual", "LessOrEqual"]:
        cases.append(Case(f"{op.lower()}_opset12_int32", op, [data("A", ints(np.int32, 3, 5, low=-3, high=3)),
                                                              data("B", ints(np.int32, 5, low=-3, high=3))],
                          opset=12, output_type=BOOL, what=f"{op}-12"))
    cases.append(Case("sub_int64_opset13", "Sub", [data("A", ints(np.int64, 3, 5)), data("B", ints(np.int64, 5))],
                      opset=13, output_type=I64, what="Sub-13"))
    cases.append(Case("mul_int32_opset7", "Mul", [data("A", ints(np.int32, 3, 5)), data("B", ints(np.int32, 3, 1))],
                      opset=7, output_type=I32, what="Mul-7"))
    cases.append(Case("div_int32_opset13", "Div", [data("A", ints(np.int32, 3, 5, low=-50, high=50)),
                                                   data("B", nonzero(np.int32, 5))], opset=13, output_type=I32,
                      what="Div-13"))
    cases.append(Case("clip_opset12_int32", "Clip", [data("X", ints(np.int32, 3, 5)), param("min", np.int32(-4)),
                                                     param("max", np.int32(6))], opset=12, output_type=I32, what="Clip-12"))

    # Bitwise ops (opset 18): signed values of both signs, unsigned ones above the signed range.
    types = [(np.int8, TensorProto.INT8), (np.int16, TensorProto.INT16), (np.int32, I32), (np.int64, I64),
             (np.uint8, TensorProto.UINT8), (np.uint16, TensorProto.UINT16), (np.uint32, TensorProto.UINT32),
             (np.uint64, TensorProto.UINT64)]
    for op in ["BitwiseAnd", "BitwiseOr", "BitwiseXor"]:
        for dtype, onnx_type in types:
            info = np.iinfo(dtype)
            low, high = (info.min, info.max) if dtype != np.uint64 else (0, 2**63)
            a = rng.integers(low, high, (3, 5), dtype=dtype, endpoint=dtype != np.uint64)
            b = rng.integers(low, high, (5,), dtype=dtype, endpoint=dtype != np.uint64)
            cases.append(Case(f"{op.lower()}_{np.dtype(dtype).name}", op, [data("A", a), data("B", b)], opset=18,
                              output_type=onnx_type))
    for dtype, onnx_type in types:
        info = np.iinfo(dtype)
        low, high = (info.min, info.max) if dtype != np.uint64 else (0, 2**63)
        unary(f"bitwisenot_{np.dtype(dtype).name}", "BitwiseNot",
              rng.integers(low, high, (3, 5), dtype=dtype, endpoint=dtype != np.uint64), opset=18, output_type=onnx_type)

    # uint64 ordered as unsigned: values on both sides of 2^63.
    u64 = lambda *s: rng.integers(0, 2**64 - 1, s, dtype=np.uint64, endpoint=True)  # noqa: E731
    for op in ["Greater", "GreaterOrEqual", "Less", "LessOrEqual"]:
        a = u64(3, 5)
        cases.append(Case(f"{op.lower()}_uint64", op, [data("A", a), data("B", np.where(bools(3, 5), a, u64(3, 5)))],
                          output_type=BOOL))
    for op in ["Min", "Max"]:
        cases.append(Case(f"{op.lower()}_uint64", op, [data("A", u64(3, 5)), data("B", u64(5)), data("C", u64(3, 1))],
                          output_type=TensorProto.UINT64))
    cases.append(Case("div_uint64", "Div", [data("A", u64(3, 5)), data("B", u64(5) >> np.uint64(rng.integers(0, 60)))],
                      output_type=TensorProto.UINT64))
    cases.append(Case("mod_uint64", "Mod", [data("A", u64(3, 5)), data("B", (u64(5) >> np.uint64(40)) + np.uint64(1))],
                      output_type=TensorProto.UINT64))
    return cases
