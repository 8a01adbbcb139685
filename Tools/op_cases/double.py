"""Double (float64) kernels of ops that compute float32 otherwise: Exp, Log, Softmax, LogSoftmax,
the reductions, Mod (fmod 0 and 1), Min, Max, TopK, Add, Sub, Mul, Div and MatMul. Double operands
are graph inputs (the engine stores a double initializer as float32). onnxruntime has no double
Hardmax, no uint64 TopK and no uint64 Pow exponent: Swift tests check those
(Tests/InferenceTests/DoubleKernelTests.swift)."""

import numpy as np
from onnx import TensorProto


def build_cases(rng, Case):
    def x(*shape, scale=1.0):
        return (scale * rng.standard_normal(shape)).astype(np.float64)

    def data(name, value):
        return (name, "data", value)

    def param(name, value):
        return (name, "param", value)

    D, I64, = TensorProto.DOUBLE, TensorProto.INT64
    axes = lambda *v: param("axes", np.array(v, dtype=np.int64))  # noqa: E731
    cases = [
        Case("exp_double", "Exp", [data("X", x(3, 5, scale=3))], output_type=D),
        Case("log_double", "Log", [data("X", np.abs(x(4, 3, scale=10)) + 1e-3)], output_type=D),
        Case("softmax_double_axis1", "Softmax", [data("X", x(2, 4, 3, scale=5))], {"axis": 1}, opset=13, output_type=D),
        Case("logsoftmax_double", "LogSoftmax", [data("X", x(3, 6, scale=20))], opset=13, output_type=D),
        Case("reducelogsumexp_double", "ReduceLogSumExp", [data("X", x(3, 4, 5, scale=30)), axes(0, 2)], opset=18, output_type=D),
        Case("reducesum_double", "ReduceSum", [data("X", x(2, 3, 4)), axes(-1)], {"keepdims": 0}, opset=13, output_type=D),
        Case("reducemean_double", "ReduceMean", [data("X", x(4, 3))], {"axes": [0]}, opset=13, output_type=D),
        Case("reducemax_double", "ReduceMax", [data("X", x(3, 5)), axes(1)], opset=18, output_type=D),
        Case("reducemin_double", "ReduceMin", [data("X", x(3, 5))], opset=18, output_type=D, what="every axis"),
        Case("reduceprod_double", "ReduceProd", [data("X", x(2, 5)), axes(1)], opset=18, output_type=D),
        Case("reducel1_double", "ReduceL1", [data("X", x(3, 4)), axes(0)], opset=18, output_type=D),
        Case("reducel2_double", "ReduceL2", [data("X", x(3, 4)), axes(1)], opset=18, output_type=D),
        Case("reducesumsquare_double", "ReduceSumSquare", [data("X", x(2, 3, 2)), axes(0, 1)], opset=18, output_type=D),
        Case("reducelogsum_double", "ReduceLogSum", [data("X", np.abs(x(3, 4)) + 0.1), axes(1)], opset=18, output_type=D),
        Case("mod_double_fmod0", "Mod", [data("A", x(3, 4, scale=10)), data("B", x(4, scale=3))], opset=28, output_type=D,
             what="the sign of the divisor, broadcast"),
        Case("mod_double_fmod1", "Mod", [data("A", x(2, 5, scale=10)), data("B", x(2, 5, scale=3))], {"fmod": 1}, output_type=D),
        Case("min_double", "Min", [data("A", x(3, 4)), data("B", x(4)), data("C", x(3, 1))], output_type=D),
        Case("max_double", "Max", [data("A", x(2, 3)), data("B", x(2, 3))], output_type=D),
        Case("topk_double", "TopK", [data("X", x(3, 6)), param("K", np.array([4], dtype=np.int64))], {"axis": 1}, n_outputs=2,
             opset=11, output_type=[D, I64]),
        # Appended after the cases above, so their draws stay as they were.
        Case("add_double", "Add", [data("A", x(2, 3, 4)), data("B", x(3, 1))], output_type=D, what="broadcast"),
        Case("sub_double", "Sub", [data("A", x(4)), data("B", x(2, 4))], output_type=D, what="broadcast"),
        Case("mul_double", "Mul", [data("A", x(3, 5)), data("B", x(3, 5))], output_type=D),
        Case("div_double", "Div", [data("A", x(2, 5)), data("B", x(5, scale=3))], output_type=D),
        Case("matmul_double_batched", "MatMul", [data("A", x(2, 1, 3, 4)), data("B", x(3, 4, 5))], output_type=D,
             what="batch broadcast"),
    ]
    return cases
