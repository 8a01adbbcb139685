#!/usr/bin/env python3
"""int8 and float16 models end to end: real architectures quantized by onnxruntime's own quantizer or
converted to float16 by onnxconverter-common, run by `vbg infer` on both paths and by onnxruntime, outputs
compared; optionally timed against onnxruntime (`--bench`).

Models: the built-in general model (`Weights/selfie_segmentation.onnx`, real weights) and architectures of
`Fixtures/corpus` (random weights, refilled as `make_architecture_corpus.py` does; `CORPUS` below by
default, any corpus name with `--only`). Each is converted five ways:
- `qdq`: `quantize_static(..., quant_format=QuantFormat.QDQ)` (uint8 activations, int8 weights, per tensor);
- `qoperator`: `quantize_static(..., quant_format=QuantFormat.QOperator)` (QLinearConv, QLinearMatMul and the
  com.microsoft QLinear ops);
- `dynamic`: `quantize_dynamic(..., op_types_to_quantize=["Conv", "MatMul"])` (DynamicQuantizeLinear,
  ConvInteger, MatMulInteger);
- `float16`: `onnxconverter_common.float16.convert_float_to_float16(model)` (float16 inputs and outputs,
  Casts only where an op has no float16 kernel in onnxruntime);
- `float16_io`: the same with `keep_io_types=True` (float32 inputs and outputs, a Cast after each input
  and before each output).
Calibration: 4 inputs drawn uniformly from the model's input range by `numpy.random.default_rng(2026)`
(MinMax). The compared input is another draw. Where the quantizer fails on the exported graph (it needs
the shapes of the values; torchvision's exports have none), the model is first put through
`onnxruntime.quantization.shape_inference.quant_pre_process(skip_symbolic_shape=True)` (onnx shape
inference and onnxruntime's basic graph optimisations) and the row says `"preprocessed": true`.

onnxruntime runs each model at ORT_DISABLE_ALL (the graph as written, the reference vbg is held to)
and ORT_ENABLE_ALL (which fuses QDQ groups into integer kernels); 1 thread. For each output: vbg's largest
difference from the DISABLE_ALL run, how many elements differ at all, and onnxruntime's own spread (ENABLE_ALL
against DISABLE_ALL). Where onnx fixes the arithmetic (QuantizeLinear, the integer sums, requantization) the
outputs should be equal but where a float operator between a DequantizeLinear and a QuantizeLinear sums in
another order and a value lands on the other side of a rounding boundary (one quantum). `tolerance` is the
issue's bar for float outputs, max(1e-4, 10 x onnxruntime's spread), and `within` says whether a path's
largest difference from either onnxruntime run is inside it.

Each path is also compared with the ENABLE_ALL run (`max_abs_vs_enable_all`, `differing_vs_enable_all`):
vbg's fast path rewrites QDQ groups into QLinearConv / QLinearMatMul as onnxruntime's optimiser does
(`Sources/Inference/Graph/QuantizedGroupRewrite.swift`), so that is the run its QDQ results should equal;
the reference path runs the graph as written, like DISABLE_ALL.

`--bench ROUNDS` then times each converted model that loads with `Tools/bench_vs_ort.py --model`
(fast path against onnxruntime ORT_ENABLE_ALL, 1 thread, interleaved round after round, `--iterations`
runs per round) and adds the median per-round ratio vbg / onnxruntime, its quartiles and both medians.

`--model FILE` (repeatable) adds a float32 model from a file, e.g. a `Tools/export_torchvision.py` export
at 224x224, with its input drawn from [-2, 2] (roughly an ImageNet-normalised image; `--range LOW,HIGH`);
with `--model` and no `--only` the general model and the corpus are left out. `--paths fast` skips the
reference path (its scalar kernels take minutes on a 224x224 model); `--reuse` takes the conversions already
in `--keep DIR` as they are.

    python Tools/check_quantized_models.py --vbg .build/release/vbg [--only NAME,...] [--model FILE ...]
        [--forms F,...] [--paths reference,fast] [--keep DIR] [--bench ROUNDS [--iterations N]] [--json FILE]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime as ort

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from make_architecture_corpus import regenerate  # noqa: E402
from make_fixtures import save  # noqa: E402

CORPUS = ["torch_mobilenet_v3_small", "torch_resnet18", "torch_shufflenet_v2_x0_5", "keras_mobilenet_v2"]
FORMS = ["qdq", "qoperator", "dynamic", "float16", "float16_io"]


def session(path, optimised):
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.graph_optimization_level = (ort.GraphOptimizationLevel.ORT_ENABLE_ALL if optimised
                                        else ort.GraphOptimizationLevel.ORT_DISABLE_ALL)
    return ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])


def load_models(only, keep=None, files=(), value_range=(-2.0, 2.0)):
    """(name, float model path, low, high) for each model, written into `keep` or a temp folder."""
    if keep:
        os.makedirs(keep, exist_ok=True)
    work = keep or tempfile.mkdtemp(prefix="vbg-quant-")
    models = [(os.path.splitext(os.path.basename(f))[0], f, *value_range) for f in files]
    if files and only is None:
        return work, models
    if only is None or "general" in only:
        models.append(("general", os.path.join(ROOT, "Weights", "selfie_segmentation.onnx"), 0.0, 1.0))
    for name in (CORPUS if only is None else sorted(only - {"general"})):
        with open(os.path.join(ROOT, "Fixtures", "corpus", name, "manifest.json")) as f:
            entry = json.load(f)
        model, feeds = regenerate(onnx.load(os.path.join(ROOT, "Fixtures", "corpus", name, "model.onnx")), entry)
        path = os.path.join(work, f"{name}.onnx")
        onnx.save(model, path)
        values = next(iter(feeds.values()))
        models.append((name, path, float(values.min()), float(values.max())))
    return work, models


def quantize(form, source, target, input_name, shape, low, high):
    """Writes the `form` conversion of `source` to `target`; True when it took quant_pre_process first."""
    from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType, quantize_dynamic,
                                          quantize_static)

    if form.startswith("float16"):
        from onnxconverter_common import float16
        onnx.save(float16.convert_float_to_float16(onnx.load(source), keep_io_types=form == "float16_io"), target)
        return False

    class Reader(CalibrationDataReader):
        def __init__(self):
            rng = np.random.default_rng(2026)
            self.samples = iter([{input_name: rng.uniform(low, high, shape).astype(np.float32)} for _ in range(4)])

        def get_next(self):
            return next(self.samples, None)

    def run(model):
        if form == "dynamic":
            quantize_dynamic(model, target, op_types_to_quantize=["Conv", "MatMul"], weight_type=QuantType.QInt8)
        else:
            quantize_static(model, target, Reader(), quant_format=QuantFormat.QDQ if form == "qdq" else QuantFormat.QOperator,
                            activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)
    try:
        run(source)
        return False
    except Exception:  # noqa: BLE001 - retried on the pre-processed graph, whose failure is reported
        from onnxruntime.quantization.shape_inference import quant_pre_process
        prepared = target[:-len(".onnx")] + "_preprocessed.onnx"
        quant_pre_process(source, prepared, skip_symbolic_shape=True)
        run(prepared)
        return True


def bench(vbg, model, rounds, iterations):
    """Tools/bench_vs_ort.py on one model at 1 thread: the median per-round ratio, its quartiles and the medians."""
    result = subprocess.run([sys.executable, os.path.join(HERE, "bench_vs_ort.py"), "--vbg", vbg, "--models", "", "--model", model,
                             "--threads", "1", "--rounds", str(rounds), "--iterations", str(iterations)],
                            capture_output=True, text=True, timeout=3600)
    lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
    if result.returncode != 0 or not lines:
        return {"failed": (result.stderr.strip().splitlines() or ["exit %d" % result.returncode])[-1]}
    line = json.loads(lines[0])
    return {"vbg_ms": line["vbg_median_ms"], "ort_ms": line["ort_median_ms"], "ratio": line["vbg_over_ort_per_round"]["median"],
            "quartiles": line["vbg_over_ort_per_round"]["quartiles"],
            "cpu_ratio": line.get("vbg_over_ort_cpu"), "load": round(os.getloadavg()[0], 2)}


def run_vbg(vbg, model, feeds, outputs, work, tag, path):
    args = [vbg, "infer", "--model", model, "--path", path]
    for k, (name, value) in enumerate(feeds.items()):
        file = os.path.join(work, f"{tag}_in{k}.npy")
        save(file, value)
        args += ["--input", f"{name}={file}"]
    files = []
    for k, name in enumerate(outputs):
        files.append(os.path.join(work, f"{tag}_{path}_out{k}.npy"))
        args += ["--output", f"{name}={files[-1]}"]
    result = subprocess.run(args, capture_output=True, text=True, timeout=1800)
    if result.returncode != 0:
        return None, (result.stderr.strip().splitlines() or ["exit %d" % result.returncode])[0]
    return [np.load(f) for f in files], None


def compare(actual, expected):
    a, e = np.asarray(actual, dtype=np.float64), np.asarray(expected, dtype=np.float64)
    if a.shape != e.shape:
        return {"shape": f"{a.shape} != {e.shape}"}
    difference = np.abs(a - e)
    return {"max_abs": float(difference.max(initial=0)), "differing": int(np.count_nonzero(difference)), "elements": int(a.size)}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--vbg", default=os.path.join(ROOT, ".build", "release", "vbg"))
    parser.add_argument("--only", type=lambda s: set(s.split(",")), default=None, help="model names (general, corpus names)")
    parser.add_argument("--model", action="append", default=[], metavar="FILE", help="a float32 model file to convert")
    parser.add_argument("--range", type=lambda s: tuple(float(v) for v in s.split(",")), default=(-2.0, 2.0),
                        help="LOW,HIGH of the inputs drawn for --model files (default -2,2)")
    parser.add_argument("--forms", type=lambda s: s.split(","), default=FORMS)
    parser.add_argument("--paths", type=lambda s: s.split(","), default=["reference", "fast"], help="vbg paths to check")
    parser.add_argument("--keep", help="write the models here (default: a temporary folder)")
    parser.add_argument("--reuse", action="store_true", help="keep conversions already in --keep DIR instead of converting again")
    parser.add_argument("--bench", type=int, default=0, metavar="ROUNDS", help="time each model that loads (bench_vs_ort.py)")
    parser.add_argument("--iterations", type=int, default=30, help="runs per round with --bench")
    parser.add_argument("--json", help="write the rows here")
    args = parser.parse_args()
    work, models = load_models(args.only, args.keep, args.model, args.range)
    rows = []
    for name, source, low, high in models:
        model = onnx.load(source)
        initializers = {t.name for t in model.graph.initializer}
        graph_input = next(i for i in model.graph.input if i.name not in initializers)
        shape = [d.dim_value or 1 for d in graph_input.type.tensor_type.shape.dim]
        values = np.random.default_rng(7).uniform(low, high, shape).astype(np.float32)
        for form in args.forms:
            target = os.path.join(work, f"{name}_{form}.onnx")
            row = {"model": name, "form": form}
            try:
                if args.reuse and os.path.exists(target):
                    row["reused"] = True
                elif quantize(form, source, target, graph_input.name, shape, low, high):
                    row["preprocessed"] = True
            except Exception as error:  # noqa: BLE001 - a model the quantizer cannot take is reported, not fatal
                row["quantizer"] = f"{type(error).__name__}: {error}".splitlines()[0]
                rows.append(row)
                print(json.dumps(row), flush=True)
                continue
            quantized = onnx.load(target)
            row["ops"] = sorted({(n.domain + "." if n.domain else "") + n.op_type for n in quantized.graph.node})
            plain, fused = session(target, False), session(target, True)
            feeds = {graph_input.name: values.astype(np.float16) if plain.get_inputs()[0].type == "tensor(float16)" else values}
            outputs = [o.name for o in plain.get_outputs()]
            expected = plain.run(outputs, feeds)
            optimised = fused.run(outputs, feeds)
            row["ort_spread"] = max(compare(o, e)["max_abs"] for o, e in zip(optimised, expected))
            row["ort_spread_differing"] = sum(compare(o, e)["differing"] for o, e in zip(optimised, expected))
            row["tolerance"] = max(1e-4, 10 * row["ort_spread"])
            for path in args.paths:
                results, failure = run_vbg(args.vbg, target, feeds, outputs, work, f"{name}_{form}", path)
                if failure:
                    row[path] = {"refused": failure}
                    continue
                comparisons = [compare(r, e) for r, e in zip(results, expected)]
                against_optimised = [compare(r, o) for r, o in zip(results, optimised)]
                row[path] = {"max_abs": max(c.get("max_abs", float("inf")) for c in comparisons),
                             "differing": sum(c.get("differing", 0) for c in comparisons),
                             "elements": sum(c.get("elements", 0) for c in comparisons),
                             "max_abs_vs_enable_all": max(c.get("max_abs", float("inf")) for c in against_optimised),
                             "differing_vs_enable_all": sum(c.get("differing", 0) for c in against_optimised)}
                row[path]["within"] = min(row[path]["max_abs"], row[path]["max_abs_vs_enable_all"]) <= row["tolerance"]
            if args.bench and "refused" not in row.get("fast", {}):
                row["bench"] = bench(args.vbg, target, args.bench, args.iterations)
            rows.append(row)
            print(json.dumps(row), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
