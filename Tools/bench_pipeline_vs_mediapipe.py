#!/usr/bin/env python3
"""Whole-frame latency: our pipeline (`vbg bench --pipeline --json`) against MediaPipe's Python
solution plus OpenCV, interleaved in the same run, and the ratio.

  venv-mp/bin/python Tools/bench_pipeline_vs_mediapipe.py [--vbg .build/release/vbg]
      [--sizes 1280x720,1920x1080] [--effects blur,replace] [--frames 30] [--rounds 3] [--cpu 0 | --no-pin]

The anchor, per frame (what an app built on MediaPipe's legacy Python solution does):
  * mask: `mp.solutions.selfie_segmentation.SelfieSegmentation(model_selection=0)` (the general
    256x256 model, the same one `vbg` uses by default) `.process(rgb).segmentation_mask`: float32
    at the frame's size (MediaPipe's own preprocessing, TFLite + XNNPACK, upsampling);
  * blur: three `cv2.blur` box passes (BORDER_REPLICATE) with the radii our level 5 uses at that
    size (Kovesi widths for sigma = 5 * 0.0045 * shorter side, `Sources/Imaging/BlurStrength.swift`;
    checked against `vbg bench --imaging --json`), on the whole frame. This is less work than ours:
    our blur is mask-weighted (person pixels do not bleed into the background), which needs a
    second set of passes over the mask;
  * replace: the background picture cover-cropped once (cached, as ours is) with cv2.resize;
  * blend: `cv2.blendLinear(frame, background, mask, 1 - mask)`.
  Ours also smooths the mask over time and applies an edge ramp; the anchor does neither.

Both sides get the same frames: `Fixtures/images/astronaut_on_coffee_1280x720.png`, resized to
1920x1080 with cv2 INTER_LINEAR here and cover-fitted (bilinear) by `vbg bench` (same content; the
pixels differ slightly, which does not matter for timing). Both sides time each frame after warm-up
with a wall clock and with the process's CPU time (every thread: `time.process_time()` here,
CLOCK_PROCESS_CPUTIME_ID in vbg); the CPU time leaves out waits for a core, so on a loaded machine
the CPU ratio is the steadier figure. Both report the median per frame (wall also p10/p90).

One thread: by default both processes are pinned to the same CPU (`--cpu 0`; sched_setaffinity for
this process, `taskset`-style affinity for vbg through preexec_fn), and vbg runs with --threads 1,
so neither can use a second core (MediaPipe's XNNPACK would otherwise start its own threads).
The rounds alternate anchor and vbg per size so load changes hit both alike. The script prints
`uptime` first: on a shared machine the absolute numbers are noisy, the ratio less so.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import cv2
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, ".."))


def kovesi_radii(sigma: float, passes: int = 3, maximum: int = 127):
    """BlurStrength.kovesiRadii, line for line."""
    ideal = (12 * sigma * sigma / passes + 1) ** 0.5
    lower = int(np.floor(ideal))
    if lower % 2 == 0:
        lower -= 1
    lower = max(lower, 1)
    upper = lower + 2
    m = round((12 * sigma * sigma - passes * lower * lower - 4 * passes * lower - 3 * passes) / (-4 * lower - 4))
    count = min(max(m, 0), passes)
    widths = [lower] * count + [upper] * (passes - count)
    return [min((w - 1) // 2, maximum) for w in widths]


def level_radii(level: int, width: int, height: int):
    return kovesi_radii(level * 0.0045 * min(width, height))


def percentile(sorted_values, fraction):
    return sorted_values[min(len(sorted_values) - 1, int(len(sorted_values) * fraction))]


def summary(times_ms):
    s = sorted(times_ms)
    return {"median_ms": s[len(s) // 2], "p10_ms": percentile(s, 0.1), "p90_ms": percentile(s, 0.9),
            "mean_ms": sum(s) / len(s)}


def cover(picture, width, height):
    """Scale to cover width x height, centre-crop (never stretch)."""
    ph, pw = picture.shape[:2]
    scale = max(width / pw, height / ph)
    w, h = max(width, round(pw * scale)), max(height, round(ph * scale))
    resized = cv2.resize(picture, (w, h), interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    x, y = (w - width) // 2, (h - height) // 2
    return np.ascontiguousarray(resized[y:y + height, x:x + width])


class MediaPipeAnchor:
    def __init__(self):
        import mediapipe as mp
        self.segmenter = mp.solutions.selfie_segmentation.SelfieSegmentation(model_selection=0)

    def run(self, frame_rgb, effect, radii, background, frames, warmup):
        times, cpu_times = [], []
        for index in range(warmup + frames):
            cpu_start = time.process_time()
            start = time.perf_counter()
            mask = self.segmenter.process(frame_rgb).segmentation_mask
            if effect == "blur":
                back = frame_rgb
                for r in radii:
                    back = cv2.blur(back, (2 * r + 1, 2 * r + 1), borderType=cv2.BORDER_REPLICATE)
            else:
                back = background
            mask = np.ascontiguousarray(mask, dtype=np.float32)
            out = cv2.blendLinear(frame_rgb, back, mask, 1.0 - mask)
            elapsed = (time.perf_counter() - start) * 1000
            cpu_elapsed = (time.process_time() - cpu_start) * 1000
            assert out.shape == frame_rgb.shape
            if index >= warmup:
                times.append(elapsed)
                cpu_times.append(cpu_elapsed)
        return times, cpu_times


def run_vbg(vbg, width, height, effect, frames, warmup, threads, cpu, background):
    command = [vbg, "bench", "--pipeline", "--json", "--sizes", f"{width}x{height}", "--effects", effect,
               "--intervals", "1", "--threads", str(threads), "--frames", str(frames), "--warmup", str(warmup),
               "--image", os.path.join(ROOT, "Fixtures/images/astronaut_on_coffee_1280x720.png"),
               "--background", background]
    preexec = (lambda: os.sched_setaffinity(0, {cpu})) if cpu is not None else None
    result = subprocess.run(command, capture_output=True, text=True, preexec_fn=preexec, cwd=ROOT)
    if result.returncode != 0:
        sys.exit(f"vbg failed ({result.returncode}): {' '.join(command)}\n{result.stderr}")
    rows = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    assert len(rows) == 1, result.stdout
    return rows[0]


def check_radii(vbg, width, height, level=5):
    """Our blur's radii for the size, as vbg reports them, must be the ones the anchor uses."""
    result = subprocess.run([vbg, "bench", "--imaging", "--json", "--sizes", f"{width}x{height}", "--ops", "blur",
                             "--repeat", "3"], capture_output=True, text=True, cwd=ROOT)
    for line in result.stdout.splitlines():
        if line.startswith("{"):
            row = json.loads(line)
            if row.get("op") == "blur" and row.get("level") == level:
                assert row["radii"] == level_radii(level, width, height), (row, level_radii(level, width, height))
                return


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--vbg", default=os.path.join(ROOT, ".build/release/vbg"))
    parser.add_argument("--sizes", default="1280x720,1920x1080")
    parser.add_argument("--effects", default="blur,replace")
    parser.add_argument("--frames", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1, help="vbg --threads (the anchor is pinned anyway)")
    parser.add_argument("--cpu", type=int, default=0, help="pin both sides to this CPU")
    parser.add_argument("--no-pin", action="store_true", help="do not pin (the anchor may use several threads)")
    parser.add_argument("--background", default=os.path.join(ROOT, "Fixtures/backgrounds/rocket.png"))
    args = parser.parse_args()
    cpu = None if args.no_pin else args.cpu
    if cpu is not None:
        os.sched_setaffinity(0, {cpu})

    print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    print(f"pinned to CPU {cpu}" if cpu is not None else "not pinned", f"; vbg --threads {args.threads}; "
          f"{args.frames} frames after {args.warmup} warm-up, {args.rounds} interleaved rounds; ms per frame (median)")
    source = cv2.cvtColor(cv2.imread(os.path.join(ROOT, "Fixtures/images/astronaut_on_coffee_1280x720.png")),
                          cv2.COLOR_BGR2RGB)
    picture = cv2.cvtColor(cv2.imread(args.background), cv2.COLOR_BGR2RGB)
    anchor = MediaPipeAnchor()
    sizes = [tuple(int(v) for v in s.split("x")) for s in args.sizes.split(",")]
    effects = args.effects.split(",")
    results = {}
    for width, height in sizes:
        check_radii(args.vbg, width, height)
    for round_index in range(args.rounds):
        for width, height in sizes:
            frame = source if (width, height) == source.shape[1::-1] else \
                cv2.resize(source, (width, height), interpolation=cv2.INTER_LINEAR)
            frame = np.ascontiguousarray(frame)
            background = cover(picture, width, height)
            radii = level_radii(5, width, height)
            for effect in effects:
                key = (width, height, effect)
                entry = results.setdefault(key, {"anchor": [], "vbg": [], "ratio": [], "anchor_cpu": [], "vbg_cpu": [],
                                                 "cpu_ratio": []})
                anchor_times, anchor_cpu = anchor.run(frame, effect, radii, background, args.frames, args.warmup)
                ours = run_vbg(args.vbg, width, height, effect, args.frames, args.warmup, args.threads, cpu,
                               args.background)
                a = summary(anchor_times)
                a_cpu = sorted(anchor_cpu)[len(anchor_cpu) // 2]
                entry["anchor"].append(a["median_ms"])
                entry["vbg"].append(ours["median_ms"])
                entry["ratio"].append(ours["median_ms"] / a["median_ms"])
                entry["anchor_cpu"].append(a_cpu)
                entry["vbg_cpu"].append(ours["cpu_median_ms"])
                entry["cpu_ratio"].append(ours["cpu_median_ms"] / a_cpu)
                print(f"round {round_index + 1}: {width}x{height} {effect:7s} wall: mediapipe+opencv {a['median_ms']:7.2f} "
                      f"(p10 {a['p10_ms']:.2f}, p90 {a['p90_ms']:.2f})  vbg {ours['median_ms']:7.2f} "
                      f"(p10 {ours['p10_ms']:.2f}, p90 {ours['p90_ms']:.2f})  ratio {entry['ratio'][-1]:.2f} | "
                      f"cpu: {a_cpu:7.2f} vs {ours['cpu_median_ms']:7.2f}  ratio {entry['cpu_ratio'][-1]:.2f}",
                      flush=True)
    print()
    print("Per size and effect, the median over rounds of each figure (the ratio is the median of the")
    print("per-round ratios, which follows the load better than a ratio of medians). ms per frame.")
    print("size       effect    wall: anchor     vbg  ratio   cpu: anchor     vbg  ratio")
    for (width, height, effect), entry in results.items():
        m = {k: statistics.median(v) for k, v in entry.items()}
        print(f"{width}x{height:<5} {effect:8s} {m['anchor']:12.2f} {m['vbg']:7.2f} {m['ratio']:6.2f} "
              f"{m['anchor_cpu']:12.2f} {m['vbg_cpu']:7.2f} {m['cpu_ratio']:6.2f}")
        print(json.dumps({"width": width, "height": height, "effect": effect,
                          "anchor_median_ms": round(m["anchor"], 3), "vbg_median_ms": round(m["vbg"], 3),
                          "ratio": round(m["ratio"], 3), "anchor_cpu_ms": round(m["anchor_cpu"], 3),
                          "vbg_cpu_ms": round(m["vbg_cpu"], 3), "cpu_ratio": round(m["cpu_ratio"], 3),
                          "round_ratios": [round(r, 3) for r in entry["ratio"]], "rounds": args.rounds,
                          "frames": args.frames, "cpu": cpu, "threads": args.threads}))
    print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
