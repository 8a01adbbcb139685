"""GridSample: every mode (opset 16 names bilinear / nearest / bicubic, opset 20 linear / nearest / cubic),
padding_mode zeros / border / reflection, align_corners 0 and 1, 4-D and (opset 20) 5-D, float32 and double.
Grid positions reach past [-1, 1] (to ±1.9) so every padding rule decides taps, and some sit exactly on
the edges and on tap boundaries."""

import numpy as np
from onnx import TensorProto


def build_cases(rng, Case):
    def data(name, value):
        return (name, "data", value)

    def x(*shape, dtype=np.float32):
        return rng.standard_normal(shape).astype(dtype)

    def grid(*shape, dtype=np.float32):
        g = rng.uniform(-1.9, 1.9, size=shape)
        # Exact values: the edges (±1), the centre, and the quarter points (pixel boundaries of a 2-pixel axis).
        flat = g.reshape(-1)
        exact = np.array([-1.0, 1.0, 0.0, -0.5, 0.5, -1.5, 1.5])
        flat[: min(len(exact), flat.size)] = exact[: min(len(exact), flat.size)]
        return g.astype(dtype)

    def taps_padded(case):
        case.reference_is_wrong = ("onnx.reference clamps or reflects the sampling position before taking the cubic taps; "
                                   "onnxruntime pads each tap, as PyTorch's grid_sample does (they agree within 2.4e-7)")
        return case

    cases = []
    for opset, modes in [(16, ["bilinear", "nearest", "bicubic"]), (20, ["linear", "nearest", "cubic"])]:
        for mode in modes:
            for padding in ["zeros", "border", "reflection"]:
                for align in [0, 1]:
                    case = Case(f"gridsample_{opset}_{mode}_{padding}_align{align}", "GridSample",
                                [data("X", x(2, 3, 4, 5)), data("grid", grid(2, 3, 6, 2))],
                                {"mode": mode, "padding_mode": padding, "align_corners": align}, opset=opset,
                                what=f"4-D, {mode}, {padding}, align_corners {align}")
                    cases.append(taps_padded(case) if mode == "cubic" and padding != "zeros" else case)
    for mode in ["linear", "nearest"]:
        for padding in ["zeros", "border", "reflection"]:
            for align in [0, 1]:
                cases.append(Case(f"gridsample_5d_{mode}_{padding}_align{align}", "GridSample",
                                  [data("X", x(1, 2, 3, 4, 5)), data("grid", grid(1, 2, 3, 4, 3))],
                                  {"mode": mode, "padding_mode": padding, "align_corners": align}, opset=20,
                                  what=f"5-D, {mode}, {padding}, align_corners {align}"))
    cases.append(Case("gridsample_default", "GridSample", [data("X", x(1, 2, 3, 3)), data("grid", grid(1, 4, 2, 2))],
                      opset=16, what="the defaults: bilinear, zeros, align_corners 0"))
    cases.append(Case("gridsample_single_pixel_reflection", "GridSample",
                      [data("X", x(1, 2, 1, 1)), data("grid", grid(1, 3, 3, 2))],
                      {"mode": "bicubic", "padding_mode": "reflection", "align_corners": 1}, opset=16,
                      what="a 1x1 image under reflection with align_corners: every tap is the pixel"))
    cases.append(taps_padded(Case("gridsample_double_cubic_border", "GridSample",
                                  [data("X", x(1, 2, 4, 3, dtype=np.float64)),
                                   data("grid", grid(1, 3, 4, 2, dtype=np.float64))],
                                  {"mode": "cubic", "padding_mode": "border"}, opset=20, output_type=TensorProto.DOUBLE,
                                  what="double")))
    cases.append(Case("gridsample_double_linear_reflection", "GridSample",
                      [data("X", x(2, 1, 3, 4, dtype=np.float64)), data("grid", grid(2, 2, 5, 2, dtype=np.float64))],
                      {"mode": "linear", "padding_mode": "reflection", "align_corners": 1}, opset=20,
                      output_type=TensorProto.DOUBLE, what="double"))
    # AffineGrid (opset 20): 2-D and 3-D, align_corners 0 and 1, odd sizes, a batch of 2.
    for align in [0, 1]:
        cases.append(Case(f"affinegrid_2d_align{align}", "AffineGrid",
                          [data("theta", x(2, 2, 3)), ("size", "param", np.array([2, 3, 5, 7], dtype=np.int64))],
                          {"align_corners": align}, opset=20, what=f"2-D, align_corners {align}"))
        cases.append(Case(f"affinegrid_3d_align{align}", "AffineGrid",
                          [data("theta", x(1, 3, 4)), ("size", "param", np.array([1, 2, 3, 4, 5], dtype=np.int64))],
                          {"align_corners": align}, opset=20, what=f"3-D, align_corners {align}"))
    return cases
