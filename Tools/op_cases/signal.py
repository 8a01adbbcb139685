"""Signal ops: HannWindow, HammingWindow and BlackmanWindow (opset 17; periodic and symmetric, float
outputs and a double Hann, odd and even sizes), and DFT-17 (real and complex inputs, every axis but the last,
forward and inverse, onesided, dft_length that truncates and that zero-pads, float32 and double)."""

import numpy as np
from onnx import TensorProto


def build_cases(rng, Case):
    def data(name, value):
        return (name, "data", value)

    def param(name, value):
        return (name, "param", value)

    empty = ("", "empty", None)
    cases = []

    # A double output only for Hann: onnxruntime computes Hamming and Blackman in float32 whatever
    # output_datatype says (2e-8 from the exact values; onnx.reference is within 1.2e-16), so their
    # double results are checked against the closed form in SignalOperatorTests instead.
    for op in ["HannWindow", "HammingWindow", "BlackmanWindow"]:
        sizes = [(10, 1, TensorProto.FLOAT), (7, 0, TensorProto.FLOAT), (5, 0, TensorProto.FLOAT)]
        if op == "HannWindow":
            sizes.append((9, 1, TensorProto.DOUBLE))
        for size, periodic, dtype in sizes:
            kind = "periodic" if periodic else "symmetric"
            cases.append(Case(f"{op.lower()}_{size}_{kind}_{'double' if dtype == TensorProto.DOUBLE else 'float'}", op,
                              [param("size", np.array(size, dtype=np.int64))],
                              {"periodic": periodic, "output_datatype": dtype}, opset=17, output_type=dtype,
                              what=f"{size} points, {kind}"))

    def signal(*shape, dtype=np.float32):
        return rng.standard_normal(shape).astype(dtype)

    length = lambda n: param("dft_length", np.array(n, dtype=np.int64))  # noqa: E731
    dft = [
        ("dft_real_axis1", signal(2, 9, 3, 1), None, {"axis": 1}, "real input, 9 points"),
        ("dft_complex_axis2", signal(2, 3, 8, 2), None, {"axis": 2}, "complex input"),
        ("dft_complex_axis0", signal(5, 3, 2), None, {"axis": 0}, "the first axis"),
        ("dft_real_onesided", signal(1, 10, 1), None, {"axis": 1, "onesided": 1}, "6 of 10 bins"),
        ("dft_real_onesided_odd", signal(2, 7, 1), None, {"axis": 1, "onesided": 1}, "4 of 7 bins"),
        ("dft_length_pads", signal(1, 6, 2), 11, {"axis": 1}, "6 points zero-padded to 11"),
        ("dft_length_truncates", signal(1, 12, 1), 5, {"axis": 1}, "12 points truncated to 5"),
        ("dft_inverse_complex", signal(2, 8, 2), None, {"axis": 1, "inverse": 1}, "inverse, complex"),
        ("dft_inverse_length", signal(1, 7, 2), 9, {"axis": 1, "inverse": 1}, "inverse, zero-padded"),
        ("dft_double", signal(1, 6, 2, dtype=np.float64), None, {"axis": 1}, "double"),
    ]
    for name, x, n, attrs, what in dft:
        inputs = [data("input", x)] + ([length(n)] if n is not None else [])
        cases.append(Case(name, "DFT", inputs, attrs, opset=17,
                          output_type=TensorProto.DOUBLE if x.dtype == np.float64 else TensorProto.FLOAT, what=what))
    return cases
