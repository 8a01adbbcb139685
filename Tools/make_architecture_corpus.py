#!/usr/bin/env python3
"""Fixtures/corpus/: real architectures (torchvision and Keras applications) with random weights at
small inputs, their large tensors stripped and regenerated from a seed, and onnxruntime's outputs.

    venv/bin/python Tools/make_architecture_corpus.py [--only NAME,...] [--out DIR]
    venv/bin/python Tools/make_architecture_corpus.py --check VBG [--only NAME,...]

Making the corpus, per model NAME (list: `MODELS` below):
1. export: torchvision's constructor (weights=None, torch.manual_seed(seed)) through torch.onnx.export
   (the TorchScript exporter, `dynamo=False`, opset 17, eval mode: the exporter folds Conv +
   BatchNormalization), or a Keras application (weights=None, keras.utils.set_random_seed(seed))
   through tf2onnx.convert.from_keras (opset 17). BatchNormalization statistics and affine
   parameters are randomised first, so the folded biases are not all zero. torch and tensorflow
   each bundle an LLVM that cannot share a process with the other's, so each family is exported in
   a child process of its own.
2. strip: every FLOAT initializer with at least `STRIP_MIN_ELEMENTS` elements loses its data; the
   manifest keeps its name, element count and a fill range [mean - h, mean + h] with h = std·√3 (the
   exported tensor's mean and standard deviation, so a uniform fill keeps each tensor's variance
   and the activations stay O(1)); a tensor whose values are all >= 0 whose range would reach below
   0 is filled on its own [min, max] instead. Smaller tensors and every other type stay as they are.
3. regenerate: each stripped tensor is refilled by `fill` (below; `Tests/TestSupport/
   ArchitectureCorpus.swift` implements the same stream) from a stream seeded by the exported
   tensor's own dims and values (so the same tensor gets the same stream whatever a converter
   names it), and so is the input, from a stream seeded by the model's seed and the input's name
   (mean 0, h = √3: standard deviation 1, like a normalised image; Keras models that rescale
   pixels themselves get [0, 255]). The manifest keeps each stream seed and a checksum of each
   regenerated tensor (`checksum` below), so the Swift test knows its bytes are these.
4. run onnxruntime 1.32 (CPUExecutionProvider, 1 thread) on the regenerated model twice:
   ORT_DISABLE_ALL (the expected outputs, `output_<k>.npy`) and ORT_ENABLE_ALL; onnxruntime's own
   spread is max|enabled − disabled| / max|disabled| per output, and the tolerance of the test is
   max(1e-4, 10 × spread).

The fill stream, exactly: a stream seed is the first 8 bytes (big-endian) of SHA-256 over
`str(dims)` followed by the exported float32 values (little-endian) for a tensor, of
"<model seed>:<input name>" for an input (the manifest writes it as 16 hex digits). Element i (0-based) of the stream of seed s draws
z = SplitMix64's mix(s + (i + 1) × 0x9E3779B97F4A7C15 mod 2^64) (the (i+1)-th output of SplitMix64
seeded with s, `SeededGenerator` in Tests/TestSupport), k = z >> 40 (24 bits), t = 2k + 1 − 2^24
(odd, |t| < 2^24), and is float32(double(mean) + double(h) × double(t) × 2^-24) (the product is
exact in double; one rounding in the sum, one to float32). The checksum of a float32 array is
Σ mix(bits_i + (i + 1) × 0x9E3779B97F4A7C15) mod 2^64, with bits_i the element's IEEE bit pattern
(mix is a bijection, so a change in any one element changes it), written as 16 hex digits.

Determinism: a rerun writes the torch models byte for byte. tf2onnx numbers the tensors it makes
from a counter and orders some nodes differently from run to run, so a Keras model's file may
differ in names and order, never in its weights (their streams follow their values), input or
outputs.

Writes `Fixtures/corpus/<NAME>/model.onnx` (stripped), `output_<k>.npy`, `manifest.json` (this
model's entry, with its `filled` tensors), and `Fixtures/corpus/index.json` (every model's name,
node count and whether the debug-build quick subset runs it, and the versions used).

--check VBG: regenerates every committed model from its stripped file with this script's `fill`
(checking each checksum), runs `VBG infer --path fast` and `--path reference` on it and compares
every output with the committed one; then times `VBG bench --model` (1 thread, median of
--iterations) against onnxruntime ORT_ENABLE_ALL with 1 thread (median of as many runs), one
measurement each (not interleaved: `Tools/bench_vs_ort.py --model` is the benchmark), wall-clock
and the thread's CPU time. Prints a table; `--json FILE` writes the rows.

--regenerate DIR: writes every committed model regenerated (as --check does) to `DIR/<NAME>.onnx`,
for `Tools/bench_vs_ort.py --model DIR/<NAME>.onnx ...`, the interleaved benchmark.
"""

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from make_fixtures import save  # noqa: E402

STRIP_MIN_ELEMENTS = 256
OPSET = 17

# MARK: - The fill stream (mirrored in Tests/TestSupport/ArchitectureCorpus.swift)

GAMMA = 0x9E3779B97F4A7C15
MASK64 = (1 << 64) - 1


def mix(z: np.ndarray) -> np.ndarray:
    """SplitMix64's output function on uint64 arrays (wrapping arithmetic)."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def stream_of(*parts) -> int:
    """A stream seed: the first 8 bytes (big-endian) of the SHA-256 of the parts' bytes."""
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part if isinstance(part, bytes) else str(part).encode("utf-8"))
    return int.from_bytes(digest.digest()[:8], "big")


def fill(stream: int, count: int, mean: float, half_width: float) -> np.ndarray:
    """`count` float32 values, uniform on [mean − half_width, mean + half_width], from SplitMix64
    seeded with `stream`. `mean` and `half_width` must be float32 values."""
    with np.errstate(over="ignore"):
        index = np.arange(1, count + 1, dtype=np.uint64)
        z = mix(np.uint64(stream) + index * np.uint64(GAMMA))
    k = (z >> np.uint64(40)).astype(np.int64)
    t = (2 * k + 1 - (1 << 24)).astype(np.float64)
    values = np.float64(mean) + np.float64(half_width) * t * 2.0 ** -24
    return values.astype(np.float32)


def checksum(values: np.ndarray) -> str:
    bits = np.ascontiguousarray(values, dtype="<f4").reshape(-1).view("<u4").astype(np.uint64)
    with np.errstate(over="ignore"):
        index = np.arange(1, bits.size + 1, dtype=np.uint64)
        total = int(np.sum(mix(bits + index * np.uint64(GAMMA)), dtype=np.uint64))
    return f"{total & MASK64:016x}"


def f32(x) -> float:
    return float(np.float32(x))


def fill_range(values: np.ndarray):
    """(mean, half_width) as float32 values: the tensor's mean and std·√3, or its own [min, max]
    when it is non-negative and the first range would reach below 0 (variances stay positive)."""
    v = values.astype(np.float64).reshape(-1)
    mean, half = f32(v.mean()), f32(v.std() * np.sqrt(3.0))
    if v.min() >= 0 and mean - half < 0:
        mean, half = f32((v.min() + v.max()) / 2), f32((v.max() - v.min()) / 2)
    return mean, half


# MARK: - The models

# name: (family, constructor, input (H, W), quick). Classification heads keep 1000 classes;
# segmentation models have 2 classes (background, person) and return their "out" only.
# Sizes vary (square, landscape, odd) so strided convolutions see odd maps and padding.
MODELS = {
    "torch_mobilenet_v2": ("torch", "mobilenet_v2", (96, 96), False),
    "torch_mobilenet_v3_small": ("torch", "mobilenet_v3_small", (64, 64), True),
    "torch_mobilenet_v3_large": ("torch", "mobilenet_v3_large", (80, 96), False),
    "torch_efficientnet_b0": ("torch", "efficientnet_b0", (96, 96), False),
    "torch_efficientnet_v2_s": ("torch", "efficientnet_v2_s", (64, 64), False),
    "torch_regnet_x_400mf": ("torch", "regnet_x_400mf", (80, 80), False),
    "torch_regnet_y_400mf": ("torch", "regnet_y_400mf", (64, 96), False),
    "torch_shufflenet_v2_x0_5": ("torch", "shufflenet_v2_x0_5", (64, 64), True),
    "torch_mnasnet0_5": ("torch", "mnasnet0_5", (96, 96), False),
    "torch_squeezenet1_1": ("torch", "squeezenet1_1", (72, 72), True),
    "torch_resnet18": ("torch", "resnet18", (80, 80), False),
    "torch_resnet50": ("torch", "resnet50", (64, 64), False),
    "torch_googlenet": ("torch", "googlenet", (64, 64), False),
    "torch_densenet121": ("torch", "densenet121", (64, 64), False),
    "torch_convnext_tiny": ("torch", "convnext_tiny", (64, 64), False),
    "torch_swin_t": ("torch", "swin_t", (64, 64), False),
    "torch_lraspp_mobilenet_v3_large": ("torch", "lraspp_mobilenet_v3_large", (72, 128), False),
    "torch_deeplabv3_mobilenet_v3_large": ("torch", "deeplabv3_mobilenet_v3_large", (96, 96), False),
    "torch_deeplabv3_resnet50": ("torch", "deeplabv3_resnet50", (64, 64), False),
    "torch_fcn_resnet50": ("torch", "fcn_resnet50", (64, 64), False),
    "keras_mobilenet": ("keras", "MobileNet", (96, 96), False),
    "keras_mobilenet_v2": ("keras", "MobileNetV2", (96, 96), False),
    "keras_mobilenet_v3_small": ("keras", "MobileNetV3Small", (96, 96), False),
    "keras_efficientnet_b0": ("keras", "EfficientNetB0", (96, 96), False),
    "keras_resnet50": ("keras", "ResNet50", (64, 64), False),
    "keras_densenet121": ("keras", "DenseNet121", (64, 64), False),
    "keras_nasnet_mobile": ("keras", "NASNetMobile", (96, 96), False),
}

# Keras applications that take pixels in [0, 255] and rescale them in the graph.
PIXEL_INPUT = {"keras_mobilenet_v3_small", "keras_efficientnet_b0"}

SEGMENTATION = {"lraspp_mobilenet_v3_large", "deeplabv3_mobilenet_v3_large", "deeplabv3_resnet50", "fcn_resnet50"}


def model_seed(name: str) -> int:
    return int(hashlib.sha256(name.encode()).hexdigest()[:8], 16)


def export_torch(name, constructor, size, path):
    import io
    import warnings
    import torch
    # torchvision's C extension registers fake kernels that need CUDA libraries this CPU-only torch
    # lacks; with register_fake a no-op the Python models import and export normally.
    original = torch.library.register_fake
    torch.library.register_fake = lambda *a, **k: (lambda f: f)
    import torchvision  # noqa: F401
    from torchvision import models
    from torchvision.models import segmentation
    torch.library.register_fake = original

    seed = model_seed(name)
    torch.manual_seed(seed)
    if constructor in SEGMENTATION:
        net = getattr(segmentation, constructor)(weights=None, weights_backbone=None, num_classes=2)
    else:
        net = getattr(models, constructor)(weights=None)
    generator = torch.Generator().manual_seed(seed)
    for layer in net.modules():
        if isinstance(layer, torch.nn.BatchNorm2d):
            n = layer.num_features
            with torch.no_grad():
                layer.weight.copy_(torch.rand(n, generator=generator) + 0.5)
                layer.bias.copy_(torch.randn(n, generator=generator) * 0.1)
                layer.running_mean.copy_(torch.randn(n, generator=generator) * 0.1)
                layer.running_var.copy_(torch.rand(n, generator=generator) * 1.5 + 0.5)

    class Out(torch.nn.Module):
        """The segmentation models' "out" (they return a dict); the classifiers as they are."""
        def __init__(self, net):
            super().__init__()
            self.net = net

        def forward(self, x):
            y = self.net(x)
            return y["out"] if isinstance(y, dict) else y

    module = Out(net).eval()
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(module, torch.rand(1, 3, *size), buffer, dynamo=False, opset_version=OPSET,
                          input_names=["input"], output_names=["output"])
    proto = onnx.load_from_string(buffer.getvalue())
    proto.producer_version = f"{torch.__version__} (torchvision {torchvision.__version__})"
    onnx.save(proto, path)
    return f"torchvision.models{'.segmentation' if constructor in SEGMENTATION else ''}.{constructor}(weights=None" + \
        (", weights_backbone=None, num_classes=2)" if constructor in SEGMENTATION else ")")


def export_keras(name, constructor, size, path):
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
    import keras
    import tensorflow as tf
    import tf2onnx
    seed = model_seed(name)
    keras.utils.set_random_seed(seed)
    net = getattr(keras.applications, constructor)(weights=None, input_shape=(*size, 3))
    rng = np.random.default_rng(seed)
    for layer in net.layers:
        if isinstance(layer, keras.layers.BatchNormalization):
            weights = layer.get_weights()  # gamma, beta, moving_mean, moving_variance (when scale/center)
            n = weights[-1].shape[0]
            randomised = []
            if layer.scale:
                randomised.append((rng.random(n) + 0.5).astype(np.float32))
            if layer.center:
                randomised.append((rng.standard_normal(n) * 0.1).astype(np.float32))
            randomised += [(rng.standard_normal(n) * 0.1).astype(np.float32), (rng.random(n) * 1.5 + 0.5).astype(np.float32)]
            layer.set_weights(randomised)
    spec = [tf.TensorSpec((1, *size, 3), tf.float32, name="input")]
    proto, _ = tf2onnx.convert.from_keras(net, input_signature=spec, opset=OPSET)
    proto.producer_version = f"{tf2onnx.__version__} (tensorflow {tf.__version__}, keras {keras.__version__})"
    onnx.save(proto, path)
    return f"keras.applications.{constructor}(weights=None, input_shape=({size[0]}, {size[1]}, 3))"


def export_family(family, names, work):
    """Child process: exports `names` of one family into `work`, writes `work/<family>.json`."""
    results = {}
    for name in names:
        _, constructor, size, _ = MODELS[name]
        path = os.path.join(work, f"{name}.onnx")
        try:
            exporter = export_torch if family == "torch" else export_keras
            results[name] = {"source": exporter(name, constructor, size, path)}
            print(f"{name}: exported", flush=True)
        except Exception as error:  # a model the converter cannot export is reported, not fatal
            results[name] = {"error": f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"}
            print(f"{name}: export failed: {results[name]['error']}", flush=True)
    versions = {}
    if family == "torch":
        import torch
        import torchvision
        versions = {"torch": torch.__version__, "torchvision": torchvision.__version__}
    else:
        import keras
        import tensorflow as tf
        import tf2onnx
        versions = {"tensorflow": tf.__version__, "keras": keras.__version__, "tf2onnx": tf2onnx.__version__}
    with open(os.path.join(work, f"{family}.json"), "w") as f:
        json.dump({"results": results, "versions": versions}, f)


# MARK: - Stripping, regenerating, onnxruntime


def ort_session(model_bytes, optimised):
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.graph_optimization_level = (ort.GraphOptimizationLevel.ORT_ENABLE_ALL if optimised
                                        else ort.GraphOptimizationLevel.ORT_DISABLE_ALL)
    return ort.InferenceSession(model_bytes, options, providers=["CPUExecutionProvider"])


def graph_inputs(model):
    initializers = {t.name for t in model.graph.initializer}
    return [i for i in model.graph.input if i.name not in initializers]


def input_shape(value_info):
    return [d.dim_value if d.HasField("dim_value") else 1 for d in value_info.type.tensor_type.shape.dim]


def regenerate(stripped, entry):
    """A copy of the stripped model with every `filled` tensor refilled, and the feeds; checks every
    checksum against the entry."""
    model = onnx.ModelProto()
    model.CopyFrom(stripped)
    filled = {f["name"]: f for f in entry["filled"]}
    seen = 0
    for tensor in model.graph.initializer:
        spec = filled.get(tensor.name)
        if spec is None:
            continue
        values = fill(int(spec["stream"], 16), spec["count"], spec["mean"], spec["half_width"])
        if checksum(values) != spec["checksum"]:
            raise SystemExit(f"{entry['name']}: {tensor.name}: checksum {checksum(values)} != {spec['checksum']}")
        tensor.raw_data = values.tobytes()
        seen += 1
    if seen != len(filled):
        raise SystemExit(f"{entry['name']}: {len(filled) - seen} filled tensors are not initializers")
    feeds = {}
    for spec in entry["inputs"]:
        values = fill(int(spec["stream"], 16), int(np.prod(spec["shape"])), spec["mean"], spec["half_width"])
        if checksum(values) != spec["checksum"]:
            raise SystemExit(f"{entry['name']}: input {spec['name']}: checksum mismatch")
        feeds[spec["name"]] = values.reshape(spec["shape"])
    return model, feeds


def make_entry(name, original, source, out):
    family, _, size, quick = MODELS[name]
    seed = model_seed(name)
    stripped = onnx.ModelProto()
    stripped.CopyFrom(original)
    filled = []
    for tensor in stripped.graph.initializer:
        if tensor.data_type != TensorProto.FLOAT or tensor.data_location == TensorProto.EXTERNAL:
            continue
        count = int(np.prod(tensor.dims)) if tensor.dims else 1
        if count < STRIP_MIN_ELEMENTS:
            continue
        exported = numpy_helper.to_array(tensor)
        mean, half = fill_range(exported)
        stream = stream_of(str(list(tensor.dims)).encode(), np.ascontiguousarray(exported, dtype="<f4").tobytes())
        values = fill(stream, count, mean, half)
        filled.append({"name": tensor.name, "count": count, "stream": f"{stream:016x}", "mean": mean, "half_width": half,
                       "checksum": checksum(values)})
        tensor.ClearField("raw_data")
        tensor.ClearField("float_data")
    inputs = []
    for value_info in graph_inputs(stripped):
        shape = input_shape(value_info)
        mean, half = (127.5, 127.5) if name in PIXEL_INPUT else (0.0, f32(np.sqrt(3.0)))
        stream = stream_of(f"{seed}:{value_info.name}")
        values = fill(stream, int(np.prod(shape)), mean, half)
        inputs.append({"name": value_info.name, "shape": shape, "stream": f"{stream:016x}", "mean": mean, "half_width": half,
                       "checksum": checksum(values)})
    entry = {"name": name, "source": source, "seed": seed, "inputs": inputs, "filled": filled}
    model, feeds = regenerate(stripped, entry)
    data = model.SerializeToString()
    expected = ort_session(data, optimised=False).run(None, feeds)
    optimised = ort_session(data, optimised=True).run(None, feeds)
    directory = os.path.join(out, name)
    os.makedirs(directory, exist_ok=True)
    for stale in os.listdir(directory):
        os.remove(os.path.join(directory, stale))
    outputs = []
    for k, (meta, value, other) in enumerate(zip(model.graph.output, expected, optimised)):
        value = value.astype(np.float32)
        scale = float(np.abs(value).max())
        spread = float(np.abs(other.astype(np.float32) - value).max()) / scale if scale > 0 else float(np.abs(other).max())
        save(os.path.join(directory, f"output_{k}.npy"), value)
        outputs.append({"name": meta.name, "shape": list(value.shape), "file": f"output_{k}.npy", "max_abs": scale,
                        "ort_spread": spread, "tolerance": max(1e-4, 10 * spread)})
    stripped_bytes = stripped.SerializeToString()
    with open(os.path.join(directory, "model.onnx"), "wb") as f:
        f.write(stripped_bytes)
    ops = {}
    for node in stripped.graph.node:
        ops[node.op_type] = ops.get(node.op_type, 0) + 1
    entry.update({
        "family": family,
        "producer": f"{stripped.producer_name} {stripped.producer_version}",
        "opset": next(o.version for o in stripped.opset_import if o.domain in ("", "ai.onnx")),
        "input_size": list(size),
        "quick": quick,
        "nodes": len(stripped.graph.node),
        "ops": dict(sorted(ops.items())),
        "parameters": sum(int(np.prod(t.dims)) for t in stripped.graph.initializer if t.data_type == TensorProto.FLOAT),
        "bytes": len(stripped_bytes),
        "outputs": outputs,
    })
    order = ["name", "family", "source", "producer", "opset", "input_size", "quick", "nodes", "parameters", "bytes", "seed",
             "ops", "inputs", "outputs", "filled"]
    entry = {key: entry[key] for key in order}
    with open(os.path.join(directory, "manifest.json"), "w") as f:
        json.dump(entry, f, indent=1)
        f.write("\n")
    return entry


def make(args):
    names = [n for n in MODELS if args.only is None or n in args.only]
    index_path = os.path.join(args.out, "index.json")
    index = {"models": [], "failed": {}, "versions": {}}
    if os.path.exists(index_path) and args.only is not None:
        with open(index_path) as f:
            index = json.load(f)
    listed = {m["name"]: m for m in index["models"]}
    with tempfile.TemporaryDirectory() as work:
        exported = {}
        for family in ("torch", "keras"):
            members = [n for n in names if MODELS[n][0] == family]
            if not members:
                continue
            subprocess.run([sys.executable, os.path.abspath(__file__), "--export-family", family, "--work", work,
                            "--only", ",".join(members)], check=True)
            with open(os.path.join(work, f"{family}.json")) as f:
                made = json.load(f)
            exported.update(made["results"])
            index["versions"].update(made["versions"])
        index["versions"].update({"numpy": np.__version__, "onnx": onnx.__version__, "onnxruntime": ort.__version__})
        for name in names:
            result = exported[name]
            if "error" in result:
                index["failed"][name] = result["error"]
                listed.pop(name, None)
                continue
            index["failed"].pop(name, None)
            entry = make_entry(name, onnx.load(os.path.join(work, f"{name}.onnx")), result["source"], args.out)
            listed[name] = {"name": name, "nodes": entry["nodes"], "quick": entry["quick"]}
            spreads = ", ".join(f"{o['ort_spread']:.2e}" for o in entry["outputs"])
            print(f"{name}: {entry['nodes']} nodes, {entry['parameters']} parameters, {len(entry['filled'])} filled, "
                  f"{entry['bytes']} bytes, outputs {[o['shape'] for o in entry['outputs']]}, spread {spreads}", flush=True)
    index["models"] = [listed[n] for n in MODELS if n in listed]
    index["versions"] = dict(sorted(index["versions"].items()))
    with open(index_path, "w") as f:
        json.dump(index, f, indent=1)
        f.write("\n")


# MARK: - --regenerate DIR


def write_regenerated(args):
    os.makedirs(args.regenerate, exist_ok=True)
    with open(os.path.join(args.out, "index.json")) as f:
        index = json.load(f)
    for listed in index["models"]:
        name = listed["name"]
        if args.only is not None and name not in args.only:
            continue
        with open(os.path.join(args.out, name, "manifest.json")) as f:
            entry = json.load(f)
        model, _ = regenerate(onnx.load(os.path.join(args.out, name, "model.onnx")), entry)
        path = os.path.join(args.regenerate, f"{name}.onnx")
        onnx.save(model, path)
        print(path, flush=True)


# MARK: - --check VBG


def relative(actual, expected):
    scale = float(np.abs(expected).max())
    diff = float(np.abs(actual.astype(np.float64) - expected).max())
    return diff / scale if scale > 0 else diff


def check(args):
    with open(os.path.join(args.out, "index.json")) as f:
        index = json.load(f)
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for listed in index["models"]:
            name = listed["name"]
            if args.only is not None and name not in args.only:
                continue
            with open(os.path.join(args.out, name, "manifest.json")) as f:
                entry = json.load(f)
            model, feeds = regenerate(onnx.load(os.path.join(args.out, name, "model.onnx")), entry)
            model_path = os.path.join(work, f"{name}.onnx")
            onnx.save(model, model_path)
            input_args = []
            for k, (input_name, value) in enumerate(feeds.items()):
                save(os.path.join(work, f"{name}_in{k}.npy"), value)
                input_args += ["--input", f"{input_name}={os.path.join(work, f'{name}_in{k}.npy')}"]
            row = {"name": name, "nodes": entry["nodes"], "spread": max(o["ort_spread"] for o in entry["outputs"]),
                   "tolerance": min(o["tolerance"] for o in entry["outputs"])}
            for path in ("fast", "reference"):
                output_args = []
                for k, output in enumerate(entry["outputs"]):
                    output_args += ["--output", f"{output['name']}={os.path.join(work, f'{name}_{path}_out{k}.npy')}"]
                run = subprocess.run([args.check, "infer", "--model", model_path, "--path", path] + input_args + output_args,
                                     capture_output=True, text=True, timeout=args.timeout)
                if run.returncode != 0:
                    row[path] = f"exit {run.returncode}: {(run.stderr.strip().splitlines() or ['?'])[-1][:120]}"
                    continue
                errors = []
                for k, output in enumerate(entry["outputs"]):
                    expected = np.load(os.path.join(args.out, name, output["file"]))
                    actual = np.load(os.path.join(work, f"{name}_{path}_out{k}.npy"))
                    errors.append(relative(actual, expected) if actual.shape == expected.shape else float("inf"))
                row[path] = max(errors)
            if args.iterations > 0:
                shapes = [w for spec in entry["inputs"] for w in ("--shape", f"{spec['name']}={'x'.join(map(str, spec['shape']))}")]
                run = subprocess.run([args.check, "bench", "--model", model_path, "--threads", "1", "--iterations",
                                      str(args.iterations), "--json"] + shapes, capture_output=True, text=True)
                if run.returncode == 0:
                    bench = json.loads(run.stdout.strip().splitlines()[-1])
                    row["vbg_ms"], row["vbg_cpu_ms"] = bench["median_ms"], bench.get("cpu_median_ms")
                session = ort_session(model.SerializeToString(), optimised=True)
                for _ in range(3):
                    session.run(None, feeds)
                times, cpu_times = [], []
                for _ in range(args.iterations):
                    start, cpu_start = time.perf_counter(), time.thread_time()
                    session.run(None, feeds)
                    times.append((time.perf_counter() - start) * 1000)
                    cpu_times.append((time.thread_time() - cpu_start) * 1000)
                # With one intra-op thread onnxruntime runs in the calling thread, so its thread
                # time is the run's CPU time, as vbg's cpu_median_ms is.
                row["ort_ms"], row["ort_cpu_ms"] = float(np.median(times)), float(np.median(cpu_times))
            rows.append(row)
            print_row(row, flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    bad = [r["name"] for r in rows if not all(isinstance(r[p], float) and r[p] <= r["tolerance"] for p in ("fast", "reference"))]
    print(f"# {len(rows) - len(bad)} of {len(rows)} within tolerance on both paths" + (f"; not: {', '.join(bad)}" if bad else ""))


def print_row(row, flush=False):
    def cell(value):
        return f"{value:.2e}" if isinstance(value, float) else str(value)
    def ratio(a, b):
        return f"{row[a] / row[b]:.2f}" if row.get(a) and row.get(b) else "-"
    timing = (f"{row.get('vbg_ms', float('nan')):8.2f} {row.get('ort_ms', float('nan')):8.2f} {ratio('vbg_ms', 'ort_ms'):>5} "
              f"{ratio('vbg_cpu_ms', 'ort_cpu_ms'):>9}")
    print(f"{row['name']:<36} {row['nodes']:>5} {cell(row['fast']):>10} {cell(row['reference']):>10} "
          f"{row['spread']:.2e} {row['tolerance']:.1e} {timing}", flush=flush)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=os.path.join(ROOT, "Fixtures", "corpus"))
    parser.add_argument("--only", help="comma-separated model names (the index keeps the others)")
    parser.add_argument("--check", metavar="VBG", help="check a release vbg on the committed corpus instead of making it")
    parser.add_argument("--iterations", type=int, default=20, help="--check: timed runs per model and engine (0: no timing)")
    parser.add_argument("--timeout", type=float, default=600, help="--check: seconds per vbg infer")
    parser.add_argument("--json", help="--check: write the rows to this file")
    parser.add_argument("--regenerate", metavar="DIR", help="write the committed models regenerated to DIR/NAME.onnx")
    parser.add_argument("--export-family", choices=["torch", "keras"], help=argparse.SUPPRESS)
    parser.add_argument("--work", help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.only = set(args.only.split(",")) if args.only else None
    if args.export_family:
        export_family(args.export_family, sorted(args.only or []), args.work)
    elif args.regenerate:
        write_regenerated(args)
    elif args.check:
        print(f"{'model':<36} {'nodes':>5} {'fast':>10} {'reference':>10} {'ort spread':<8} {'tol':<7} "
              f"{'vbg ms':>8} {'ort ms':>8} {'ratio':>5} {'CPU ratio':>9}")
        check(args)
    else:
        make(args)


if __name__ == "__main__":
    main()
