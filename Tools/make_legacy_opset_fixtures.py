"""Writes Fixtures/legacyopsets/: one-node models at opsets 1-6, with expected outputs.

onnxruntime does not run most definitions older than opset 7, and onnx.reference implements the
newest ones only, so each case pairs the old node with a graph of newer definitions that the old
one is specified to compute (from onnx's docs/Changelog.md), and the expected outputs are
onnxruntime's results on that newer graph for the same inputs. Cases (the old definition, then its
newer equivalent):

- Add/Sub/Mul/Div/Pow/Greater/And with `broadcast` = 1 and `axis` (B aligned with A's dims from
  `axis`, suffix-aligned without it): numpy broadcasting of B reshaped with trailing 1s.
- Gemm-6 `broadcast` = 1: Gemm-13. PRelu-6 with a slope of one per channel: PRelu-16 with the
  slope reshaped to [C, 1, 1]. BatchNormalization-1/6 `is_test` = 1 (and -1's `consumed_inputs`):
  BatchNormalization-9. Dropout-6 `is_test` = 1: Identity.
- Reshape-1's `shape` attribute, Concat-1's default axis 1, Cast-1's `to` as a string, Pad-1's
  `paddings`, Split-1's second input, Tile-1's `tiles` / `axis` inputs, Upsample-1's
  `height_scale` / `width_scale` (nearest, bilinear), Selu-1's defaults, GlobalLpPool-1's float `p`,
  and `consumed_inputs` on Relu-1, Abs-1, Sum-1, Clip-1: their opset-13 (or opset-7) forms.

Inputs are drawn from numpy's generator seeded with 0 per case. Output layout and manifest are
those of Fixtures/nodetests (see Tools/make_node_test_fixtures.py), plus "folder" per test.

    venv/bin/python Tools/make_legacy_opset_fixtures.py
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper

sys.path.insert(0, str(Path(__file__).resolve().parent))
import make_node_test_fixtures as fixtures  # noqa: E402
import onnx_node_tests as suite  # noqa: E402

DESTINATION = suite.REPO / "Fixtures" / "legacyopsets"
FOLDER = "legacyopsets"
DTYPES = {np.dtype(np.float32): T.FLOAT, np.dtype(np.bool_): T.BOOL, np.dtype(np.int64): T.INT64, np.dtype(np.int32): T.INT32}


def ints(values) -> onnx.TensorProto:
    return numpy_helper.from_array(np.asarray(values, dtype=np.int64))


def model(nodes, inputs: dict, outputs: list[str], opset: int, initializers=()) -> onnx.ModelProto:
    graph = h.make_graph(nodes, "legacy", [h.make_tensor_value_info(n, DTYPES[v.dtype], v.shape) for n, v in inputs.items()],
                         [h.make_empty_tensor_value_info(n) for n in outputs], list(initializers))
    return h.make_model(graph, opset_imports=[h.make_opsetid("", opset)], ir_version=3 if opset < 7 else 7)


def constant(name: str, values) -> onnx.NodeProto:
    return h.make_node("Constant", [], [name], value=ints(values))


def cases(rng_for):
    """(name, old model, newer equivalent, inputs) per case."""
    def floats(case, *shape, low=-2.0, high=2.0):
        return rng_for(case).uniform(low, high, shape).astype(np.float32)

    def binary(name, op, opset, a_shape, b_shape, reshape=None, positive=False, **attributes):
        rng = rng_for(name)
        low = 0.5 if positive else -2.0
        a = rng.uniform(low, 2.0, a_shape).astype(np.float32)
        b = rng.uniform(low if not positive else 0.5, 2.0, b_shape).astype(np.float32)
        old = model([h.make_node(op, ["a", "b"], ["y"], **attributes)], {"a": a, "b": b}, ["y"], opset)
        if reshape is None:
            new = model([h.make_node(op, ["a", "b"], ["y"])], {"a": a, "b": b}, ["y"], 13)
        else:
            new = model([constant("s", reshape), h.make_node("Reshape", ["b", "s"], ["b2"]), h.make_node(op, ["a", "b2"], ["y"])],
                        {"a": a, "b": b}, ["y"], 13)
        return name, old, new, {"a": a, "b": b}

    yield binary("add_broadcast_axis_opset6", "Add", 6, [2, 3, 4, 5], [3, 4], reshape=[3, 4, 1], broadcast=1, axis=1)
    yield binary("add_broadcast_suffix_consumed_inputs_opset1", "Add", 1, [2, 3, 4], [4], broadcast=1, consumed_inputs=[0, 0])
    yield binary("sub_same_shape_opset6", "Sub", 6, [2, 3], [2, 3])
    yield binary("mul_broadcast_size1_axis0_opset6", "Mul", 6, [2, 3], [2, 1], broadcast=1, axis=0)
    yield binary("div_broadcast_scalar_opset6", "Div", 6, [2, 3], [], broadcast=1)
    yield binary("pow_broadcast_axis_opset1", "Pow", 1, [2, 3, 4], [3], reshape=[3, 1], positive=True, broadcast=1, axis=1)
    yield binary("greater_broadcast_opset1", "Greater", 1, [2, 3], [3], broadcast=1)

    rng = rng_for("and_broadcast_axis_opset1")
    a, b = rng.integers(0, 2, [2, 3, 4]).astype(bool), rng.integers(0, 2, [3]).astype(bool)
    yield ("and_broadcast_axis_opset1", model([h.make_node("And", ["a", "b"], ["y"], broadcast=1, axis=1)], {"a": a, "b": b}, ["y"], 1),
           model([constant("s", [3, 1]), h.make_node("Reshape", ["b", "s"], ["b2"]), h.make_node("And", ["a", "b2"], ["y"])],
                 {"a": a, "b": b}, ["y"], 13), {"a": a, "b": b})

    rng = rng_for("gemm_broadcast_opset6")
    a, b, c = (rng.uniform(-1, 1, s).astype(np.float32) for s in ([2, 3], [4, 3], [4]))
    feeds = {"a": a, "b": b, "c": c}
    yield ("gemm_broadcast_opset6",
           model([h.make_node("Gemm", ["a", "b", "c"], ["y"], broadcast=1, transB=1, alpha=0.5, beta=2.0)], feeds, ["y"], 6),
           model([h.make_node("Gemm", ["a", "b", "c"], ["y"], transB=1, alpha=0.5, beta=2.0)], feeds, ["y"], 13), feeds)

    x, slope = floats("prelu_per_channel_opset6", 2, 3, 4, 5), floats("prelu_slope", 3)
    yield ("prelu_per_channel_opset6", model([h.make_node("PRelu", ["x", "slope"], ["y"])], {"x": x, "slope": slope}, ["y"], 6),
           model([constant("s", [3, 1, 1]), h.make_node("Reshape", ["slope", "s"], ["s2"]), h.make_node("PRelu", ["x", "s2"], ["y"])],
                 {"x": x, "slope": slope}, ["y"], 16), {"x": x, "slope": slope})
    x, slope = floats("prelu_one_slope_consumed_inputs_opset1", 2, 3, 4), floats("prelu_slope1", 1)
    yield ("prelu_one_slope_consumed_inputs_opset1",
           model([h.make_node("PRelu", ["x", "slope"], ["y"], consumed_inputs=[0, 0])], {"x": x, "slope": slope}, ["y"], 1),
           model([h.make_node("PRelu", ["x", "slope"], ["y"])], {"x": x, "slope": slope}, ["y"], 16), {"x": x, "slope": slope})

    for opset, extra in ((6, {}), (1, {"consumed_inputs": [0, 0, 0, 1, 1]})):
        name = f"batchnormalization_is_test_opset{opset}"
        x = floats(name, 2, 3, 4, 5)
        scale, bias, mean = floats(name + "s", 3), floats(name + "b", 3), floats(name + "m", 3)
        var = floats(name + "v", 3, low=0.5, high=2)
        feeds = {"x": x, "scale": scale, "bias": bias, "mean": mean, "var": var}
        names = list(feeds)
        yield (name, model([h.make_node("BatchNormalization", names, ["y"], is_test=1, epsilon=1e-3, **extra)], feeds, ["y"], opset),
               model([h.make_node("BatchNormalization", names, ["y"], epsilon=1e-3)], feeds, ["y"], 9), feeds)

    x = floats("dropout_is_test_opset6", 2, 3)
    yield ("dropout_is_test_opset6", model([h.make_node("Dropout", ["x"], ["y"], is_test=1, ratio=0.3)], {"x": x}, ["y"], 6),
           model([h.make_node("Identity", ["x"], ["y"])], {"x": x}, ["y"], 13), {"x": x})

    x = floats("reshape_shape_attribute_opset1", 2, 3, 4)
    yield ("reshape_shape_attribute_opset1",
           model([h.make_node("Reshape", ["x"], ["y"], shape=[0, -1], consumed_inputs=[0])], {"x": x}, ["y"], 1),
           model([constant("s", [0, -1]), h.make_node("Reshape", ["x", "s"], ["y"])], {"x": x}, ["y"], 13), {"x": x})

    a, b = floats("concat_default_axis_opset1", 2, 3), floats("concat_b", 2, 2)
    yield ("concat_default_axis_opset1", model([h.make_node("Concat", ["a", "b"], ["y"])], {"a": a, "b": b}, ["y"], 1),
           model([h.make_node("Concat", ["a", "b"], ["y"], axis=1)], {"a": a, "b": b}, ["y"], 13), {"a": a, "b": b})

    x = floats("cast_to_string_name_opset1", 2, 3, low=-5, high=5)
    yield ("cast_to_string_name_opset1", model([h.make_node("Cast", ["x"], ["y"], to="INT32")], {"x": x}, ["y"], 1),
           model([h.make_node("Cast", ["x"], ["y"], to=T.INT32)], {"x": x}, ["y"], 13), {"x": x})

    x = floats("pad_paddings_opset1", 1, 2, 3, 4)
    pads = [0, 0, 1, 2, 0, 0, 2, 1]
    yield ("pad_paddings_opset1", model([h.make_node("Pad", ["x"], ["y"], paddings=pads, mode="constant", value=1.5)], {"x": x}, ["y"], 1),
           model([h.make_node("Pad", ["x"], ["y"], pads=pads, mode="constant", value=1.5)], {"x": x}, ["y"], 2), {"x": x})

    x = floats("split_second_input_opset1", 2, 3)
    yield ("split_second_input_opset1",
           model([constant("split", [1, 2]), h.make_node("Split", ["x", "split"], ["y", "z"], axis=1)], {"x": x}, ["y", "z"], 1),
           model([h.make_node("Split", ["x"], ["y", "z"], axis=1, split=[1, 2])], {"x": x}, ["y", "z"], 2), {"x": x})

    x = floats("tile_tiles_axis_opset1", 2, 3, 2)
    yield ("tile_tiles_axis_opset1",
           model([constant("tiles", 3), constant("axis", 1), h.make_node("Tile", ["x", "tiles", "axis"], ["y"])], {"x": x}, ["y"], 1),
           model([constant("repeats", [1, 3, 1]), h.make_node("Tile", ["x", "repeats"], ["y"])], {"x": x}, ["y"], 13), {"x": x})

    for mode, newer in (("nearest", "nearest"), ("bilinear", "linear")):
        name = f"upsample_{mode}_opset1"
        x = floats(name, 1, 2, 3, 4)
        yield (name, model([h.make_node("Upsample", ["x"], ["y"], height_scale=2.0, width_scale=3.0, mode=mode)], {"x": x}, ["y"], 1),
               model([h.make_node("Upsample", ["x"], ["y"], scales=[1.0, 1.0, 2.0, 3.0], mode=newer)], {"x": x}, ["y"], 7), {"x": x})

    x = floats("selu_defaults_opset1", 2, 3)
    yield ("selu_defaults_opset1", model([h.make_node("Selu", ["x"], ["y"], consumed_inputs=[0])], {"x": x}, ["y"], 1),
           model([h.make_node("Selu", ["x"], ["y"], alpha=1.6732, gamma=1.0507)], {"x": x}, ["y"], 13), {"x": x})

    x = floats("globallppool_float_p_opset1", 1, 2, 3, 4)
    yield ("globallppool_float_p_opset1", model([h.make_node("GlobalLpPool", ["x"], ["y"], p=3.0)], {"x": x}, ["y"], 1),
           model([h.make_node("GlobalLpPool", ["x"], ["y"], p=3)], {"x": x}, ["y"], 13), {"x": x})

    for op in ("Relu", "Abs", "Sum"):
        name = f"{op.lower()}_consumed_inputs_opset1"
        x = floats(name, 2, 3)
        yield (name, model([h.make_node(op, ["x"], ["y"], consumed_inputs=[0])], {"x": x}, ["y"], 1),
               model([h.make_node(op, ["x"], ["y"])], {"x": x}, ["y"], 13), {"x": x})
    x = floats("clip_consumed_inputs_opset1", 2, 3)
    yield ("clip_consumed_inputs_opset1", model([h.make_node("Clip", ["x"], ["y"], min=-0.5, consumed_inputs=[0])], {"x": x}, ["y"], 1),
           model([h.make_node("Clip", ["x"], ["y"], min=-0.5)], {"x": x}, ["y"], 6), {"x": x})


def main() -> int:
    shutil.rmtree(DESTINATION, ignore_errors=True)
    DESTINATION.mkdir(parents=True)
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    manifest = []
    for name, old, new, feeds in cases(lambda case: np.random.default_rng(list(case.encode()))):
        session = onnxruntime.InferenceSession(new.SerializeToString(), options, providers=["CPUExecutionProvider"])
        output_names = [o.name for o in old.graph.output]
        expected = session.run(output_names, feeds)
        folder = DESTINATION / name
        folder.mkdir()
        (folder / "model.onnx").write_bytes(old.SerializeToString())
        inputs = fixtures.value_entries(list(feeds), list(feeds.values()), "input")
        outputs = fixtures.value_entries(output_names, expected, "output")
        for entry, value in zip(inputs + outputs, list(feeds.values()) + expected):
            np.save(folder / entry["file"], np.asarray(value, order="C"), allow_pickle=False)
        node = old.graph.node[-1]
        manifest.append({"name": name, "folder": FOLDER, "op": node.op_type, "opset_import": {"ai.onnx": old.opset_import[0].version},
                         "rtol": suite.RTOL, "atol": suite.ATOL, "onnxruntime": "pass (the newer equivalent)",
                         "inputs": inputs, "outputs": outputs})
    header = {"source": "made by Tools/make_legacy_opset_fixtures.py: old-opset nodes, expected outputs from onnxruntime "
                        f"{onnxruntime.__version__} on each one's newer equivalent (onnx {onnx.__version__})",
              "tests": manifest}
    (DESTINATION / "manifest.json").write_text(fixtures.manifest_text(header))
    print(f"{len(manifest)} cases, {fixtures.folder_bytes(DESTINATION) / 1e3:.0f} KB in {DESTINATION}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
