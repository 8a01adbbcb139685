#!/usr/bin/env python3
"""onnxruntime session-creation time for the built-in models (the load-time anchor).

For each Weights/*.onnx: create `onnxruntime.InferenceSession` from the file path N times
(CPUExecutionProvider, intra/inter-op threads 1, ORT_ENABLE_ALL), timing each creation with
time.perf_counter_ns, after `--warmup` untimed creations (the first pays for loading the provider
library). Prints one JSON line per model:

  {"runtime":"onnxruntime","version":...,"model":"general","file":...,"runs":N,"load_median_ms":...,
   "load_p10_ms":...,"load_p90_ms":...,"loadavg_1min":...}

    python Tools/bench_load_ort.py [--runs 50] [--warmup 3] [--weights Weights]

The file is read from disk inside each timed creation (the OS page cache keeps it warm after the first).
"""

import argparse
import json
import os
import time

import numpy as np
import onnxruntime as ort

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = {"general": "selfie_segmentation.onnx", "landscape": "selfie_segmentation_landscape.onnx"}


def create(path: str) -> ort.InferenceSession:
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--weights", default=os.path.join(HERE, "..", "Weights"))
    ap.add_argument("--models", nargs="*", default=list(MODELS))
    args = ap.parse_args()
    paths = {m: os.path.abspath(os.path.join(args.weights, MODELS[m])) for m in args.models}
    for path in paths.values():
        for _ in range(args.warmup):
            create(path)
    # Interleave the models run by run, so a burst of load on the shared machine hits both alike.
    times = {m: [] for m in paths}
    for _ in range(args.runs):
        for m, path in paths.items():
            t0 = time.perf_counter_ns()
            s = create(path)
            t1 = time.perf_counter_ns()
            del s
            times[m].append((t1 - t0) / 1e6)
    for m, t in times.items():
        t = np.array(t)
        print(json.dumps({"runtime": "onnxruntime", "version": ort.__version__, "model": m,
                          "file": os.path.relpath(paths[m], os.path.join(HERE, "..")), "runs": len(t),
                          "load_median_ms": round(float(np.median(t)), 3),
                          "load_p10_ms": round(float(np.percentile(t, 10)), 3),
                          "load_p90_ms": round(float(np.percentile(t, 90)), 3),
                          "loadavg_1min": round(os.getloadavg()[0], 2)}))


if __name__ == "__main__":
    main()
