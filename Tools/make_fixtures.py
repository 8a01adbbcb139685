#!/usr/bin/env python3
"""Write the test fixtures in Fixtures/ (see Fixtures/README.md for what each file is).

  python Tools/make_fixtures.py [--out Fixtures] [--weights Weights] [images] [model] [ops]

With no part named, all three are written. `model` reads Fixtures/images/astronaut.png and
Weights/*.onnx (run Tools/export_model.py first). Every array is a .npy (format 1.0, little-endian,
C order). The output is byte-identical on every run with the versions in Tools/requirements.txt.
"""

import argparse
import json
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from mp_preprocess import mp_preprocess_exact  # noqa: E402

OPSET = 17
IR_VERSION = 8
RANDOM_INPUT_SEED = 20260101
OPS_SEED = 17


def save(path: str, array: np.ndarray):
    """np.save writes format 1.0 for these shapes; dtype is forced little-endian, order C; strings are <U."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    array = np.array(array, order="C", copy=True)  # (np.ascontiguousarray would turn rank 0 into rank 1)
    if array.dtype == object:  # onnxruntime's strings: numpy's <U dtype needs no pickle
        array = array.astype(str)
    if array.dtype.byteorder == ">":
        array = array.astype(array.dtype.newbyteorder("<"))
    with open(path, "wb") as f:
        np.lib.format.write_array(f, array, version=(1, 0), allow_pickle=False)


def session(model_bytes: bytes) -> ort.InferenceSession:
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return ort.InferenceSession(model_bytes, so, providers=["CPUExecutionProvider"])


# MARK: - Images

def resized(img: np.ndarray, width: int, height: int) -> np.ndarray:
    import cv2
    shrink = width < img.shape[1] or height < img.shape[0]
    return cv2.resize(img, (width, height), interpolation=cv2.INTER_AREA if shrink else cv2.INTER_LINEAR)


def composite(width: int, height: int, size: int, x: int, y: int) -> np.ndarray:
    """skimage coffee stretched to width x height, the astronaut scaled to size x size pasted at (x, y)."""
    from skimage import data
    frame = resized(data.coffee(), width, height).copy()
    frame[y:y + size, x:x + size] = resized(data.astronaut(), size, size)
    return frame


# name: (width, height, astronaut size, x, y)
FRAMES = {
    "astronaut_on_coffee_1280x720": (1280, 720, 720, 280, 0),
    "astronaut_on_coffee_320x240": (320, 240, 200, 60, 40),
    "astronaut_on_coffee_portrait_270x480": (270, 480, 250, 10, 230),
}


def make_images(out: str):
    import imageio.v3 as iio
    from skimage import data
    d = os.path.join(out, "images")
    os.makedirs(d, exist_ok=True)
    iio.imwrite(os.path.join(d, "astronaut.png"), data.astronaut())
    for name, (w, h, s, x, y) in FRAMES.items():
        iio.imwrite(os.path.join(d, name + ".png"), composite(w, h, s, x, y))
    print(f"images -> {d}")


# MARK: - Model

MODELS = {"general": "selfie_segmentation.onnx", "landscape": "selfie_segmentation_landscape.onnx"}

# Intermediate tensors saved per model, with what each one covers. Chosen small where a smaller tensor
# covers the same op variant. Names are TFLite tensor names = ONNX value names, identical in both models.
INTERMEDIATES = [
    ("conv2d", "Conv 3x3 s2 pads [0,0,1,1], dense 3->16 (stem)"),
    ("h_swish_2", "HardSwish"),
    ("depthwise_conv2d", "Conv depthwise 3x3 s2 pads [0,0,1,1] (group 16)"),
    ("depthwise_conv2d_8", "Conv depthwise 3x3 s1 pads [1,1,1,1] (group 24)"),
    ("depthwise_conv2d_3", "Conv depthwise 5x5 s2 pads [1,1,2,2] (group 96)"),
    ("depthwise_conv2d_4", "Conv depthwise 5x5 s1 pads [2,2,2,2] (group 128)"),
    ("conv2d_12", "Conv 1x1 96->32 on a 16x16 map"),
    ("average_pooling2d_1", "GlobalAveragePool (general: AVERAGE_POOL_2D; landscape: MEAN)"),
    ("conv2d_10", "Conv 1x1 96->24 on a 1x1 map (SE squeeze)"),
    ("re_lu_7", "Relu on a 1x1 map"),
    ("conv2d_11", "Conv 1x1 24->96 on a 1x1 map (SE excite)"),
    ("activation_1", "Sigmoid (SE gate)"),
    ("multiply_1", "Mul [1,96,16,16] x [1,96,1,1] (SE broadcast)"),
    ("add_1__xeno_compat__1", "Add (residual)"),
    ("re_lu_15", "Relu on a 32x32 map"),
    ("up_sampling2d_1", "Resize linear half_pixel x2 (sizes)"),
    ("LOGITS", "ConvTranspose 2x2 s2 16->1 with bias (the logits)"),
]
# The larger tensors of the list (> 40 kB in the general model) are saved for the landscape model only:
# same graph, same attributes, and the general model's tensors are 1.78x larger. This keeps Fixtures/
# under 15 MB. The general model still has its 1x1-map tensors, a 1x1 conv, an add and the logits.
LANDSCAPE_ONLY = {"conv2d", "h_swish_2", "depthwise_conv2d", "depthwise_conv2d_8", "depthwise_conv2d_3",
                  "depthwise_conv2d_4", "multiply_1", "re_lu_15", "up_sampling2d_1"}
# TFLite (and so ONNX) names that differ between the two models.
NAME_MAP = {
    "general": {"LOGITS": "segment"},
    "landscape": {"LOGITS": "conv2d_transpose", "average_pooling2d_1": "global_average_pooling2d_1"},
}


def make_model(out: str, weights: str, n_random: int = 3):
    import imageio.v3 as iio
    astronaut = iio.imread(os.path.join(out, "images", "astronaut.png"))
    for key, fname in MODELS.items():
        model = onnx.load(os.path.join(weights, fname))
        names = {n.output[0]: n for n in model.graph.node}
        in_name = model.graph.input[0].name
        out_name = model.graph.output[0].name
        _, h, w, _ = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
        final = model.graph.node[-1]
        logits = names[final.input[0]].input[0]
        selected = []
        for name, what in INTERMEDIATES:
            if key == "general" and name in LANDSCAPE_ONLY:
                continue  # the same op variant is saved for landscape, at 56 % of the size
            real = NAME_MAP[key].get(name, name)
            if real not in names:
                raise SystemExit(f"{key}: no value {real}")
            selected.append((real, what))
        probe = onnx.ModelProto()
        probe.CopyFrom(model)
        for real, _ in selected:
            if real != logits:
                probe.graph.output.append(helper.make_tensor_value_info(real, TensorProto.FLOAT, None))
        probe.graph.output.append(helper.make_tensor_value_info(logits, TensorProto.FLOAT, None))
        sess = session(probe.SerializeToString())
        fetch = [o.name for o in probe.graph.output]

        d = os.path.join(out, "model", key)
        x = mp_preprocess_exact(astronaut, w, h)
        results = dict(zip(fetch, sess.run(fetch, {in_name: x})))
        save(os.path.join(d, "input.npy"), x)
        save(os.path.join(d, "mask.npy"), results[out_name])
        save(os.path.join(d, "logits.npy"), results[logits].reshape(results[out_name].shape))
        index = []
        for real, what in selected:
            t = results[real]
            node = names[real]
            entry = {"name": real, "op": node.op_type, "shape": list(t.shape), "covers": what,
                     "max_abs": float(np.max(np.abs(t)))}
            if real == logits:
                entry["file"] = "../logits.npy"
                entry["note"] = "stored once as ../logits.npy, shape [1,H,W,1]: the same bytes as NCHW [1,1,H,W]"
            else:
                entry["file"] = real.replace("/", "_") + ".npy"
                save(os.path.join(d, "intermediates", entry["file"]), t)
            index.append(entry)
        with open(os.path.join(d, "intermediates", "index.json"), "w") as f:
            json.dump(index, f, indent=1)
            f.write("\n")

        # Random inputs: uniform over the 256 levels k/255 (what an 8-bit frame can give), stored as the
        # uint8 k (a quarter of the size of float32); the model input is float32(k) / 255.
        rng = np.random.default_rng(RANDOM_INPUT_SEED + (0 if key == "general" else 1))
        for k in range(n_random):
            xu = rng.integers(0, 256, size=(1, h, w, 3), dtype=np.uint8)
            xr = xu.astype(np.float32) / np.float32(255.0)
            r = dict(zip(fetch, sess.run(fetch, {in_name: xr})))
            save(os.path.join(d, f"random_{k}_input.npy"), xu)
            save(os.path.join(d, f"random_{k}_logits.npy"), r[logits].reshape(r[out_name].shape))
        m = results[out_name]
        print(f"model/{key}: mask mean {m.mean():.4f}, >0.5 {np.mean(m > 0.5):.4f}, logits '{logits}' "
              f"[{results[logits].min():.1f}, {results[logits].max():.1f}], {len(index)} intermediates")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("parts", nargs="*", default=[], help="images, model, ops (default: all)")
    ap.add_argument("--out", default=os.path.join(HERE, "..", "Fixtures"))
    ap.add_argument("--weights", default=os.path.join(HERE, "..", "Weights"))
    args = ap.parse_args()
    parts = args.parts or ["images", "model", "ops"]
    if "images" in parts:
        make_images(args.out)
    if "model" in parts:
        make_model(args.out, args.weights)
    if "ops" in parts:
        from make_op_fixtures import make_ops
        make_ops(args.out)


if __name__ == "__main__":
    main()
