#!/usr/bin/env python3
"""Layer by layer against onnxruntime: `vbg bench --per-layer` beside onnxruntime's own profile.

onnxruntime (CPUExecutionProvider, ORT_ENABLE_ALL, 1 thread, `enable_profiling`) runs the model
`--runs` times after 5 warm-up runs on uniform [0, 1) inputs (dynamic dims 1); each node's time is
the median of its `kernel_time` events. vbg runs `vbg bench --model M --threads 1 --iterations
RUNS --per-layer`. A vbg layer (a fused step and the ONNX nodes it covers) is matched with the
onnxruntime nodes named like its nodes or their outputs (onnxruntime names a fused or NCHWc node
after its output, `<node>_output_0[_nchwc]`, or `<node>/MatMulAddFusion`). Prints both sums, then the layers by vbg's time
minus onnxruntime's, largest first, and the onnxruntime nodes no layer matched.

    venv/bin/python Tools/profile_layers_vs_ort.py --vbg .build/release/vbg MODEL [--runs 30] [--top 25]

Both sides measure in the same process order, not interleaved: read the differences, not single
cells, and rerun when the host is busy."""
import argparse
import json
import re
import statistics
import subprocess
import tempfile

import numpy as np
import onnx
import onnxruntime as ort


def ort_profile(model, runs):
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.enable_profiling = True
    options.profile_file_prefix = tempfile.mkdtemp() + "/profile"
    session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(0)
    feeds = {i.name: rng.random([d if isinstance(d, int) else 1 for d in i.shape]).astype(np.float32)
             for i in session.get_inputs()}
    for _ in range(5 + runs):
        session.run(None, feeds)
    with open(session.end_profiling()) as f:
        events = json.load(f)
    times = {}
    for event in events:
        if event.get("cat") == "Node" and event["name"].endswith("_kernel_time"):
            times.setdefault(event["name"][:-len("_kernel_time")], []).append(event["dur"])
    # A node named after an output (tf2onnx's `name:0`, fused or not) stands for the node writing it.
    producer = {output: node.name for node in onnx.load(model, load_external_data=False).graph.node for output in node.output}
    medians = {}
    for name, d in times.items():
        name = re.sub(r"(/\w+Fusion)?(_output_0)?(_nchwc)?(_token_\d+)?$", "", name)
        name = producer.get(name, name)
        medians[name] = medians.get(name, 0) + statistics.median(d[-runs:])
    return medians


def vbg_layers(vbg, model, runs):
    out = subprocess.run([vbg, "bench", "--model", model, "--threads", "1", "--iterations", str(runs), "--per-layer"],
                         capture_output=True, text=True, check=True).stdout
    layers = []
    for line in out.splitlines():
        m = re.match(r"\s+\d+\s+([\d.]+)\s+[\d.]+\s+[\d.]+%\s+(\S+)\s+(.*)", line)
        if m:
            layers.append((float(m.group(1)), m.group(2), [n.strip() for n in m.group(3).split(",")]))
    return layers


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model")
    parser.add_argument("--vbg", default=".build/release/vbg")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    layers = vbg_layers(args.vbg, args.model, args.runs)
    onnxruntime = ort_profile(args.model, args.runs)
    matched, rows = set(), []
    for micros, operators, nodes in layers:
        theirs = [n for n in nodes if n in onnxruntime and n not in matched]
        matched.update(theirs)
        ort_micros = sum(onnxruntime[n] for n in theirs)
        rows.append((micros - ort_micros, micros, ort_micros, operators, nodes[-1]))
    rows.sort(reverse=True)
    print(f"vbg sum {sum(l[0] for l in layers):.0f} us, onnxruntime sum {sum(onnxruntime.values()):.0f} us")
    print(f"{'vbg - ort':>9} {'vbg us':>8} {'ort us':>8}  layer")
    for difference, micros, ort_micros, operators, last in rows[:args.top]:
        print(f"{difference:9.1f} {micros:8.1f} {ort_micros:8.1f}  {operators} {last}")
    unmatched = sorted(((t, n) for n, t in onnxruntime.items() if n not in matched), reverse=True)
    print("onnxruntime nodes no layer matched:", ", ".join(f"{n} {t:.1f}" for t, n in unmatched[:8]) or "none")


if __name__ == "__main__":
    main()
