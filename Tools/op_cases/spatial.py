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
    # Pools: 1-D (rank 3), dilated averages, MaxPool's Indices, Lp and global max / Lp.
    pool = lambda name, op, xs, what="", opset=None, n_outputs=1, output_type=TensorProto.FLOAT, **attrs: cases.append(  # noqa: E731
        Case(name, op, [data("X", x(*xs))], attrs, what=what, opset=opset, n_outputs=n_outputs, output_type=output_type))
    pool("maxpool_1d", "MaxPool", (2, 3, 11), kernel_shape=[3], strides=[2], pads=[1, 1])
    pool("averagepool_1d_include_pad", "AveragePool", (1, 4, 9), kernel_shape=[4], strides=[2], pads=[2, 1], count_include_pad=1)
    pool("averagepool_1d_ceil", "AveragePool", (1, 3, 10), kernel_shape=[3], strides=[2], ceil_mode=1)
    pool("averagepool_dilations", "AveragePool", (1, 3, 9, 10), kernel_shape=[3, 2], dilations=[2, 3], strides=[1, 2],
         pads=[1, 1, 2, 1], opset=19)
    pool("averagepool_dilations_include_pad", "AveragePool", (1, 3, 9, 10), kernel_shape=[3, 3], dilations=[2, 2],
         strides=[2, 1], pads=[2, 1, 1, 2], count_include_pad=1, opset=19)
    pool("averagepool_dilations_ceil", "AveragePool", (1, 2, 8, 9), kernel_shape=[2, 2], dilations=[2, 2], strides=[2, 2],
         ceil_mode=1, count_include_pad=1, pads=[1, 1, 0, 0], opset=19)
    pool("maxpool_indices", "MaxPool", (2, 3, 7, 8), kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], n_outputs=2,
         output_type=[TensorProto.FLOAT, TensorProto.INT64])
    pool("maxpool_indices_column_major", "MaxPool", (1, 3, 7, 6), kernel_shape=[2, 3], strides=[2, 1], dilations=[2, 1],
         storage_order=1, n_outputs=2, output_type=[TensorProto.FLOAT, TensorProto.INT64])
    pool("maxpool_indices_1d", "MaxPool", (2, 2, 9), kernel_shape=[2], strides=[2], n_outputs=2,
         output_type=[TensorProto.FLOAT, TensorProto.INT64])
    pool("lppool_p2", "LpPool", (1, 3, 7, 8), kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    pool("lppool_p3_1d", "LpPool", (1, 3, 9), kernel_shape=[3], p=3, what="p = 3, 1-D")
    pool("lppool_18_ceil_dilations", "LpPool", (1, 2, 9, 8), kernel_shape=[2, 2], strides=[2, 2], dilations=[2, 1],
         ceil_mode=1, p=1, opset=18)
    pool("maxpool_3d_indices", "MaxPool", (1, 2, 5, 6, 7), kernel_shape=[2, 3, 2], strides=[2, 2, 1], pads=[1, 0, 1, 0, 1, 1],
         n_outputs=2, output_type=[TensorProto.FLOAT, TensorProto.INT64])
    pool("maxpool_3d_indices_column_major", "MaxPool", (1, 2, 4, 5, 6), kernel_shape=[2, 2, 3], dilations=[1, 2, 1],
         storage_order=1, n_outputs=2, output_type=[TensorProto.FLOAT, TensorProto.INT64])
    pool("averagepool_3d_include_pad", "AveragePool", (1, 3, 5, 4, 6), kernel_shape=[3, 2, 3], strides=[2, 1, 2],
         pads=[1, 1, 0, 1, 0, 2], count_include_pad=1)
    pool("averagepool_3d_whole_map", "AveragePool", (1, 3, 3, 4, 5), kernel_shape=[3, 4, 5],
         what="a whole-map window the fast path must not take for 2-D")
    pool("lppool_3d", "LpPool", (1, 2, 4, 5, 3), kernel_shape=[2, 2, 2], strides=[2, 2, 1])
    pool("globalmaxpool", "GlobalMaxPool", (2, 5, 6, 7))
    pool("globallppool", "GlobalLpPool", (1, 5, 4, 6))
    pool("globallppool_p3", "GlobalLpPool", (2, 3, 7), p=3)

    # Convolutions: 1-D, and ConvTranspose's output_shape / auto_pad SAME_*.
    def conv(name, op, xs, ws, bias=True, what="", **attrs):
        ins = [data("X", x(*xs)), param("W", x(*ws))]
        if bias:
            ins.append(param("B", x(ws[0] if op == "Conv" else ws[1] * attrs.get("group", 1))))
        cases.append(Case(name, op, ins, attrs, what=what))

    conv("conv_1d", "Conv", (1, 4, 13), (5, 4, 3), strides=[2], pads=[1, 2])
    conv("conv_1d_dilated_group", "Conv", (2, 6, 11), (4, 3, 3), dilations=[2], group=2, bias=False)
    conv("conv_1d_pointwise", "Conv", (1, 5, 9), (7, 5, 1), what="kernel 1: the fast path's pointwise kernel")
    conv("conv_1d_same_lower", "Conv", (1, 3, 10), (2, 3, 4), auto_pad="SAME_LOWER", strides=[3])
    conv("convtranspose_1d", "ConvTranspose", (1, 3, 6), (3, 2, 3), strides=[2], pads=[1, 0], output_padding=[1])
    conv("convtranspose_output_shape", "ConvTranspose", (1, 3, 5, 4), (3, 2, 3, 3), strides=[2, 2], output_shape=[10, 8],
         what="total padding 0 and 1 (odd: the extra at the start)")
    conv("convtranspose_output_shape_same_upper", "ConvTranspose", (1, 3, 5, 4), (3, 2, 4, 3), strides=[1, 2],
         output_shape=[5, 7], auto_pad="SAME_UPPER")
    conv("convtranspose_same_upper", "ConvTranspose", (1, 2, 5, 4), (2, 3, 3, 2), strides=[2, 2], auto_pad="SAME_UPPER")
    conv("convtranspose_same_lower", "ConvTranspose", (1, 2, 5, 4), (2, 3, 3, 4), strides=[2, 3], auto_pad="SAME_LOWER")
    conv("convtranspose_1d_output_shape", "ConvTranspose", (1, 2, 5), (2, 3, 4), strides=[2], output_shape=[9])
    # Upsample: asymmetric coordinates, scales >= 1.
    cases.append(Case("upsample_v7_nearest", "Upsample", [data("X", x(1, 2, 3, 4))], {"scales": [1.0, 1.0, 2.0, 2.5]},
                      opset=7, what="scales attribute"))
    cases.append(Case("upsample_v7_linear", "Upsample", [data("X", x(1, 2, 3, 4))],
                      {"scales": [1.0, 1.0, 2.0, 1.5], "mode": "linear"}, opset=7))
    cases.append(Case("upsample_v9_nearest_int32", "Upsample", [data("X", ints(np.int32, 2, 3, 2)),
                                                               param("scales", f32(1.0, 2.0, 3.0))],
                      opset=9, output_type=TensorProto.INT32, what="N-D nearest on any axes"))
    cases.append(Case("upsample_v9_linear_2d", "Upsample", [data("X", x(3, 4)), param("scales", f32(2.0, 1.7))],
                      {"mode": "linear"}, opset=9))

    # Resize beyond the 2-D linear / nearest cases of make_op_fixtures.py: inputs X, roi, scales, sizes.
    def resize(name, xs, attrs, scales=None, sizes=None, roi=None, opset=None, what="", dtype=None):
        value = x(*xs) if dtype is None else ints(dtype, *xs)
        ins = [data("X", value), param("roi", f32(*roi)) if roi is not None else empty]
        if scales is not None:
            ins.append(param("scales", np.array(scales, dtype=np.float32)))
        else:
            ins += [empty, param("sizes", np.array(sizes, dtype=np.int64))]
        output_type = TensorProto.FLOAT if dtype is None else {np.int32: TensorProto.INT32, np.uint8: TensorProto.UINT8}[dtype]
        cases.append(Case(name, "Resize", ins, attrs, what=what, opset=opset, output_type=output_type))

    def resize10(name, xs, scales, mode):
        cases.append(Case(name, "Resize", [data("X", x(*xs)), param("scales", f32(*scales))], {"mode": mode}, opset=10))

    resize10("resize_v10_nearest_up", (1, 2, 4, 5), (1, 1, 1.7, 2.5), "nearest")
    resize10("resize_v10_nearest_down", (1, 2, 9, 10), (1, 1, 0.6, 0.45), "nearest")
    resize10("resize_v10_linear", (1, 2, 4, 5), (1, 1, 2.0, 1.5), "linear")
    cubic = lambda c="half_pixel", **more: dict(mode="cubic", coordinate_transformation_mode=c, **more)  # noqa: E731
    resize("resize_cubic_up", (1, 2, 5, 6), cubic(), scales=[1, 1, 1.6, 2.3])
    resize("resize_cubic_down", (1, 2, 9, 11), cubic(), sizes=[1, 2, 5, 4])
    resize("resize_cubic_a05_exclude_outside", (1, 2, 5, 6), cubic("align_corners", cubic_coeff_a=-0.5, exclude_outside=1),
           sizes=[1, 2, 9, 8])
    resize("resize_cubic_asymmetric", (2, 1, 4, 5), cubic("asymmetric"), scales=[1, 1, 2, 2])
    resize("resize_antialias_linear_down", (1, 2, 11, 13), dict(mode="linear", antialias=1), sizes=[1, 2, 4, 5], opset=18)
    resize("resize_antialias_cubic_down", (1, 2, 11, 13), dict(mode="cubic", antialias=1), scales=[1, 1, 0.4, 0.6], opset=18)
    resize("resize_antialias_cubic_exclude_outside", (1, 2, 10, 9),
           dict(mode="cubic", antialias=1, exclude_outside=1, cubic_coeff_a=-0.5), sizes=[1, 2, 3, 4], opset=18)
    resize("resize_antialias_linear_up", (1, 2, 4, 5), dict(mode="linear", antialias=1), scales=[1, 1, 2, 1.5], opset=18)
    resize("resize_keep_aspect_not_larger", (1, 2, 6, 8), dict(mode="linear", keep_aspect_ratio_policy="not_larger", axes=[2, 3]),
           sizes=[9, 9], opset=18, what="scale min(9/6, 9/8)")
    resize("resize_keep_aspect_not_smaller", (1, 2, 6, 8), dict(mode="nearest", keep_aspect_ratio_policy="not_smaller", axes=[2, 3]),
           sizes=[4, 3], opset=18)
    resize("resize_half_pixel_symmetric", (1, 2, 5, 7), dict(mode="linear", coordinate_transformation_mode="half_pixel_symmetric"),
           sizes=[1, 2, 8, 10], opset=19)
    resize("resize_tf_crop_and_resize_linear", (1, 2, 6, 7),
           dict(mode="linear", coordinate_transformation_mode="tf_crop_and_resize", extrapolation_value=10.0),
           roi=[0, 0, 0.2, -0.1, 1, 1, 0.8, 1.2], sizes=[1, 2, 5, 6], what="a roi past the right edge extrapolates")
    resize("resize_tf_crop_and_resize_nearest", (1, 2, 6, 7),
           dict(mode="nearest", coordinate_transformation_mode="tf_crop_and_resize", extrapolation_value=-3.0),
           roi=[0, 0, -0.15, 0.1, 1, 1, 0.85, 0.7], sizes=[1, 2, 4, 6])
    resize("resize_tf_crop_and_resize_cubic_axes", (1, 2, 6, 7),
           dict(mode="cubic", coordinate_transformation_mode="tf_crop_and_resize", axes=[3, 2]),
           roi=[0.1, 0.2, 0.9, 0.7], sizes=[6, 5], opset=18, what="roi and sizes in axes order")
    resize("resize_axes_reversed", (1, 2, 5, 6), dict(mode="linear", axes=[-1, 2]), scales=[1.5, 2.0], opset=18)
    resize("resize_nearest_batch_channels", (2, 3, 4, 5), dict(mode="nearest"), scales=[1.5, 0.7, 1, 2],
           what="nearest resizes N and C too")
    resize("resize_nearest_int32", (1, 2, 3, 4), dict(mode="nearest", nearest_mode="ceil"), scales=[1, 1, 2.5, 1.5],
           dtype=np.int32)
    resize("resize_nearest_uint8_3d", (2, 5, 3), dict(mode="nearest", coordinate_transformation_mode="asymmetric"),
           sizes=[2, 3, 7], dtype=np.uint8)
    resize("resize_linear_2d", (5, 6), dict(mode="linear"), scales=[1.3, 0.7])
    resize("resize_linear_nhwc", (1, 5, 6, 3), dict(mode="linear", coordinate_transformation_mode="align_corners"),
           sizes=[1, 8, 4, 3], what="resizing axes 1 and 2 of a 4-D tensor")
    resize("resize_trilinear", (1, 2, 3, 4, 5), dict(mode="linear"), scales=[1, 1, 2, 1.5, 0.8])
    conv("convtranspose_output_shape_longer", "ConvTranspose", (1, 2, 3, 4), (2, 3, 3, 3), strides=[2, 3], output_shape=[8, 14],
         what="one and two positions past the natural size: the bias only")
    cases.append(Case("maxpool_uint8", "MaxPool", [data("X", rng.integers(0, 255, size=(1, 2, 5, 6)).astype(np.uint8))],
                      {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}, output_type=TensorProto.UINT8))
    cases.append(Case("maxpool_int8_indices", "MaxPool", [data("X", rng.integers(-128, 127, size=(1, 2, 5, 6)).astype(np.int8))],
                      {"kernel_shape": [2, 2], "strides": [1, 2]}, n_outputs=2, output_type=[TensorProto.INT8, TensorProto.INT64]))
    conv("conv_3d", "Conv", (1, 4, 5, 6, 7), (4, 2, 3, 2, 3), strides=[2, 1, 2], pads=[1, 0, 1, 1, 1, 0], group=2)
    conv("conv_3d_dilated", "Conv", (2, 2, 4, 5, 6), (3, 2, 2, 3, 2), dilations=[2, 1, 2], pads=[1, 1, 0, 0, 1, 1], bias=False)
    conv("conv_3d_same_lower", "Conv", (1, 2, 4, 5, 6), (3, 2, 2, 3, 2), strides=[2, 2, 1], auto_pad="SAME_LOWER")
    conv("conv_3d_pointwise", "Conv", (1, 3, 3, 4, 5), (4, 3, 1, 1, 1), what="kernel 1: not the fast path's 2-D pointwise kernel")
    conv("convtranspose_3d", "ConvTranspose", (1, 2, 3, 4, 3), (2, 3, 2, 3, 3), strides=[2, 1, 2], pads=[0, 1, 1, 1, 0, 0],
         output_padding=[1, 0, 1])
    conv("convtranspose_3d_output_shape_group", "ConvTranspose", (1, 4, 2, 3, 3), (4, 1, 2, 2, 3), strides=[1, 2, 2], group=2,
         output_shape=[3, 5, 7])
    cases.append(Case("spacetodepth_crd", "SpaceToDepth", [data("X", x(1, 3, 4, 6))], {"blocksize": 2, "mode": "CRD"}, opset=28,
                      what="SpaceToDepth-28's mode"))
    cases.append(Case("spacetodepth_dcr_opset28_uint8", "SpaceToDepth",
                      [data("X", rng.integers(0, 255, size=(1, 2, 6, 3)).astype(np.uint8))], {"blocksize": 3, "mode": "DCR"},
                      opset=28, output_type=TensorProto.UINT8))

    # Col2Im (opset 18): overlapping 2-D blocks, strides with dilations and asymmetric pads, 3-D.
    def col2im(name, n, c, image, block, what="", **attrs):
        d = len(image)
        dil, st = attrs.get("dilations", [1] * d), attrs.get("strides", [1] * d)
        pads = attrs.get("pads", [0] * (2 * d))
        windows = int(np.prod([(image[a] + pads[a] + pads[d + a] - dil[a] * (block[a] - 1) - 1) // st[a] + 1
                               for a in range(d)]))
        cases.append(Case(name, "Col2Im", [data("input", x(n, c * int(np.prod(block)), windows)),
                                           param("image_shape", i64(*image)), param("block_shape", i64(*block))],
                          attrs, opset=18, what=what))
    col2im("col2im_overlapping", 1, 2, [5, 6], [2, 3], "stride 1: every pixel in several blocks")
    col2im("col2im_strides_dilations_pads", 2, 3, [7, 8], [3, 2], "strides, dilations, pads 1/0/2/1",
           strides=[2, 3], dilations=[2, 1], pads=[1, 0, 2, 1])
    col2im("col2im_3d", 1, 1, [3, 4, 5], [2, 2, 3], "3-D image")

    # MaxUnpool (opset 11): indices as MaxPool makes them (one position in each 2x2 window, flat over
    # the whole [N, C, H, W] tensor), into the inferred shape. Not with a larger output_shape: there
    # onnxruntime counts the indices in the output's layout, where onnx.reference and onnx's own node
    # test place the unpooled tensor in the output's corner (MaxUnpoolTests checks that case).
    def unpool_indices(n, c, h, w, k, s):
        oh, ow = (h - 1) * s + k, (w - 1) * s + k
        index = np.zeros((n, c, h, w), dtype=np.int64)
        for a in range(n):
            for b in range(c):
                for i in range(h):
                    for j in range(w):
                        dy, dx = rng.integers(0, k, 2)
                        index[a, b, i, j] = ((a * c + b) * oh + i * s + dy) * ow + j * s + dx
        return index
    cases.append(Case("maxunpool_2x2", "MaxUnpool", [data("X", x(2, 3, 2, 3)), data("I", unpool_indices(2, 3, 2, 3, 2, 2))],
                      {"kernel_shape": [2, 2], "strides": [2, 2]}, opset=11))
    return cases
