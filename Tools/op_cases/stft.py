"""STFT (opset 17): a real signal with the default rectangular window and onesided bins, a Hann window
given as a graph input with an explicit frame_length, onesided 0, a complex signal, and a double signal
whose last samples no frame reaches. The onesided cases set onesided 1 explicitly: onnx 1.23's shape
inference reads a left-out onesided as 0 (all frame_length bins), where the default is 1, as
onnxruntime and onnx.reference compute it; SignalOperatorTests covers the default."""

import numpy as np
from onnx import TensorProto


def build_cases(rng, Case):
    def data(name, value):
        return (name, "data", value)

    def param(name, value):
        return (name, "param", value)

    def signal(*shape, dtype=np.float32):
        return rng.standard_normal(shape).astype(dtype)

    step = lambda v: param("frame_step", np.array(v, dtype=np.int64))  # noqa: E731
    length = lambda v: param("frame_length", np.array(v, dtype=np.int64))  # noqa: E731
    hann = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(8) / 8)).astype(np.float32)
    empty = ("", "empty", None)
    cases = [
        Case("stft_real_rectangular", "STFT", [data("signal", signal(2, 20, 1)), step(4), empty, length(8)], {"onesided": 1},
             opset=17),
        Case("stft_hann_window", "STFT", [data("signal", signal(1, 23, 1)), step(3), data("window", hann), length(8)], {"onesided": 1}, opset=17,
             what="window as a graph input; the last 3 samples start no frame"),
        Case("stft_window_only_two_sided", "STFT", [data("signal", signal(1, 16, 1)), step(5), data("window", hann)],
             {"onesided": 0}, opset=17, what="frame_length from the window"),
        Case("stft_complex", "STFT", [data("signal", signal(2, 12, 2)), step(2), empty, length(5)], {"onesided": 0}, opset=17,
             what="odd frame length"),
        Case("stft_double", "STFT", [data("signal", signal(1, 18, 1, dtype=np.float64)), step(6), empty, length(7)], {"onesided": 1},
             opset=17, output_type=TensorProto.DOUBLE),
    ]
    return cases
