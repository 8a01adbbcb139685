"""Spatial, pooling, resampling, padding and rearrangement cases: Pad, Split, Tile, DepthToSpace,
SpaceToDepth, Upsample, Resize, the pools, and 1-D / output_shape / auto_pad convolutions."""

import numpy as np
from onnx import TensorProto


def build_cases(rng, Case):
    def x(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    def ints(dtype, *shape):
        return rng.integers(-50, 50, size=shape).astype(dtype)

    def data(name, value):
        return (name, "data", value)

    def param(name, value):
        return (name, "param", value)

    empty = ("", "empty", None)
    i64 = lambda *v: np.array(v, dtype=np.int64)  # noqa: E731
    f32 = lambda *v: np.array(v, dtype=np.float32)  # noqa: E731
    cases = []

    # Pad: pads [begin..., end...]; negative pads crop first.
    cases.append(Case("pad_constant_value", "Pad", [data("X", x(1, 3, 4, 5)), param("pads", i64(0, 0, 1, 2, 0, 1, 2, -1)),
                                                   param("value", np.float32(1.5))], {"mode": "constant"}))
    cases.append(Case("pad_constant_default", "Pad", [data("X", x(2, 3, 4)), param("pads", i64(1, 0, 2, 0, 3, 1))]))
    cases.append(Case("pad_reflect", "Pad", [data("X", x(1, 2, 5, 6)), param("pads", i64(0, 0, 2, 3, 0, 0, 4, -1))],
                      {"mode": "reflect"}, what="reflect of the cropped width"))
    cases.append(Case("pad_edge_crop", "Pad", [data("X", x(1, 2, 5, 6)), param("pads", i64(0, 0, -2, 4, 0, 0, 3, -2))],
                      {"mode": "edge"}))
    cases.append(Case("pad_wrap", "Pad", [data("X", x(1, 2, 4, 5)), param("pads", i64(0, 0, 5, -1, 0, 0, 2, 7))],
                      {"mode": "wrap"}, opset=19, what="pads longer than the axis wrap again"))
    cases.append(Case("pad_axes", "Pad", [data("X", x(1, 3, 4, 5)), param("pads", i64(2, 1, 0, 3)), empty,
                                         param("axes", i64(-1, 2))], {"mode": "reflect"}, opset=18))
    cases.append(Case("pad_legacy_attributes", "Pad", [data("X", x(1, 2, 3, 4))],
                      {"pads": [0, 0, 1, 2, 0, 0, 2, 1], "value": -2.5}, opset=10, what="Pad-2: pads and value attributes"))
    cases.append(Case("pad_legacy_edge", "Pad", [data("X", x(1, 2, 3, 4))], {"pads": [0, 1, 1, 2, 0, 1, 2, 1], "mode": "edge"},
                      opset=7))
    cases.append(Case("pad_int64_edge", "Pad", [data("X", ints(np.int64, 3, 4)), param("pads", i64(1, 2, 2, 1))],
                      {"mode": "edge"}, output_type=TensorProto.INT64))
    cases.append(Case("pad_int32_constant", "Pad", [data("X", ints(np.int32, 3, 4)), param("pads", i64(1, -1, 2, 3)),
                                                   param("value", np.int32(-7))], output_type=TensorProto.INT32))
    cases.append(Case("pad_uint8_reflect", "Pad", [data("X", rng.integers(0, 255, size=(2, 5)).astype(np.uint8)),
                                                  param("pads", i64(1, 3, 0, 2))], {"mode": "reflect"},
                      output_type=TensorProto.UINT8))
    cases.append(Case("pad_bool_constant", "Pad", [data("X", rng.integers(0, 2, size=(2, 3)).astype(np.bool_)),
                                                  param("pads", i64(1, 1, 0, 2)), param("value", np.bool_(True))],
                      output_type=TensorProto.BOOL))

    # Split: one piece per output.
    cases.append(Case("split_equal", "Split", [data("X", x(2, 6, 5))], {"axis": 1}, n_outputs=3))
    cases.append(Case("split_input_lengths", "Split", [data("X", x(2, 3, 7)), param("split", i64(2, 0, 5))],
                      {"axis": -1}, n_outputs=3, opset=13, what="a zero-length piece"))
    cases.append(Case("split_attribute_lengths", "Split", [data("X", x(5, 3, 2))], {"split": [1, 4]}, n_outputs=2, opset=11))
    cases.append(Case("split_v2", "Split", [data("X", x(2, 6, 3))], {"axis": 1, "split": [2, 1, 3]}, n_outputs=3, opset=7))
    cases.append(Case("split_num_outputs_uneven", "Split", [data("X", x(2, 7, 3))], {"axis": 1, "num_outputs": 3},
                      n_outputs=3, opset=18, what="pieces of 3, 3, 1"))
    cases.append(Case("split_int64", "Split", [data("X", ints(np.int64, 4, 6)), param("split", i64(1, 3))],
                      {"axis": 0}, n_outputs=2, output_type=TensorProto.INT64))
    cases.append(Case("split_uint8", "Split", [data("X", rng.integers(0, 255, size=(3, 4)).astype(np.uint8))],
                      {"axis": 1}, n_outputs=2, output_type=TensorProto.UINT8))

    # Tile.
    cases.append(Case("tile", "Tile", [data("X", x(2, 3, 4)), param("repeats", i64(2, 1, 3))]))
    cases.append(Case("tile_int32", "Tile", [data("X", ints(np.int32, 3, 2)), param("repeats", i64(1, 4))],
                      output_type=TensorProto.INT32))
    cases.append(Case("tile_bool_zero", "Tile", [data("X", rng.integers(0, 2, size=(2, 3)).astype(np.bool_)),
                                                param("repeats", i64(3, 0))], output_type=TensorProto.BOOL,
                      what="a zero repeat empties the axis"))
    cases.append(Case("tile_int64", "Tile", [data("X", ints(np.int64, 2, 1, 3)), param("repeats", i64(2, 3, 2))],
                      output_type=TensorProto.INT64))

    # DepthToSpace / SpaceToDepth.
    cases.append(Case("depthtospace_dcr", "DepthToSpace", [data("X", x(2, 12, 3, 5))], {"blocksize": 2}))
    cases.append(Case("depthtospace_crd", "DepthToSpace", [data("X", x(1, 18, 2, 3))], {"blocksize": 3, "mode": "CRD"}))
    cases.append(Case("depthtospace_double", "DepthToSpace", [data("X", rng.standard_normal((1, 8, 3, 2)))],
                      {"blocksize": 2}, output_type=TensorProto.DOUBLE))
    cases.append(Case("spacetodepth", "SpaceToDepth", [data("X", x(2, 3, 6, 4))], {"blocksize": 2}))
    cases.append(Case("spacetodepth_b3", "SpaceToDepth", [data("X", x(1, 2, 6, 9))], {"blocksize": 3}))
    cases.append(Case("spacetodepth_double", "SpaceToDepth", [data("X", rng.standard_normal((1, 2, 4, 4)))],
                      {"blocksize": 2}, output_type=TensorProto.DOUBLE))
    return cases
