#!/usr/bin/env python3
"""Times OpenCV (one thread) doing the imaging work `vbg bench --imaging` does, interleaved with
runs of vbg in the same session, and prints ratios (ours / OpenCV; < 1 means we are faster).

    VBG_ARCH=native swift build -c release --product vbg
    venv/bin/python Tools/bench_imaging_vs_opencv.py [--vbg .build/release/vbg] [--rounds 5]

OpenCV counterparts (same sizes, preallocated dst, cv2.setNumThreads(1)):
  blur        three cv2.blur with the radii vbg reports, BORDER_REPLICATE (vbg: plain 3-pass blur)
  blur_masked the same three cv2.blur (OpenCV has no mask-weighted blur; ours does more work)
  upsample    cv2.resize(256x256 float32 mask → frame, INTER_LINEAR)
  preprocess  cv2.warpPerspective(frame → 256x256, INTER_LINEAR, BORDER_CONSTANT)
  composite   (and composite_coverage, our blend from a byte coverage plane, converted beforehand
              and timed separately as `coverage`)
              fastest of cv2.blendLinear (float weights) and multiply+multiply+add (u8 mask expanded
              to 4 channels beforehand, not timed); also compared with np.copyto of the frame (memcpy)
  cover_crop  crop view + cv2.resize INTER_AREA 1600x1200 → frame (first-time cost)

Both sides measure the calling thread's CPU time (vbg: CLOCK_THREAD_CPUTIME_ID; here
time.thread_time_ns), so time spent preempted by other processes on a shared machine is excluded.
"""
import argparse
import json
import os
import statistics
import subprocess
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
import cv2  # noqa: E402
import numpy as np  # noqa: E402

cv2.setNumThreads(1)


def timed(fn, runs):
    for _ in range(3):
        fn()
    out = []
    for _ in range(runs):
        t = time.thread_time_ns()
        fn()
        out.append((time.thread_time_ns() - t) / 1e6)
    return statistics.median(out)


def opencv_times(w, h, radii_by_level, runs):
    rng = np.random.default_rng(1)
    frame = rng.integers(0, 256, (h, w, 4), dtype=np.uint8)
    other = rng.integers(0, 256, (h, w, 4), dtype=np.uint8)
    t1, t2, out = np.empty_like(frame), np.empty_like(frame), np.empty_like(frame)
    res = {}
    for level, radii in radii_by_level.items():
        def blur3():
            cv2.blur(frame, (2 * radii[0] + 1,) * 2, dst=t1, borderType=cv2.BORDER_REPLICATE)
            cv2.blur(t1, (2 * radii[1] + 1,) * 2, dst=t2, borderType=cv2.BORDER_REPLICATE)
            cv2.blur(t2, (2 * radii[2] + 1,) * 2, dst=out, borderType=cv2.BORDER_REPLICATE)
        res[("blur", level)] = timed(blur3, runs)
        res[("blur_masked", level)] = res[("blur", level)]
    small = rng.random((256, 256), dtype=np.float32)
    big = np.empty((h, w), np.float32)
    res[("upsample", None)] = timed(lambda: cv2.resize(small, (w, h), dst=big, interpolation=cv2.INTER_LINEAR), runs)
    src = np.float32([[0, h], [0, 0], [w, 0], [w, h]])
    dst = np.float32([[0, 256], [0, 0], [256, 0], [256, 256]])
    M = cv2.getPerspectiveTransform(src, dst)
    tensor = np.empty((256, 256, 4), np.uint8)
    res[("preprocess", None)] = timed(lambda: cv2.warpPerspective(frame, M, (256, 256), dst=tensor, flags=cv2.INTER_LINEAR,
                                                                   borderMode=cv2.BORDER_CONSTANT), runs)
    mask = rng.random((h, w), dtype=np.float32)
    inv = 1 - mask
    m4 = cv2.merge([(mask * 255).astype(np.uint8)] * 4)
    i4 = 255 - m4
    blend = timed(lambda: cv2.blendLinear(frame, other, mask, inv, dst=out), runs)

    def muladd():
        cv2.multiply(frame, m4, dst=t1, scale=1 / 255)
        cv2.multiply(other, i4, dst=t2, scale=1 / 255)
        cv2.add(t1, t2, dst=out)
    res[("composite", None)] = min(blend, timed(muladd, runs))
    res[("memcpy", None)] = timed(lambda: np.copyto(out, frame), runs)
    picture = rng.integers(0, 256, (1200, 1600, 4), dtype=np.uint8)
    scale = max(w / 1600, h / 1200)
    cw, ch = round(w / scale), round(h / scale)
    x0, y0 = (1600 - cw) // 2, (1200 - ch) // 2
    res[("cover_crop", None)] = timed(lambda: cv2.resize(picture[y0:y0 + ch, x0:x0 + cw], (w, h), dst=out,
                                                         interpolation=cv2.INTER_AREA), max(runs // 4, 3))
    return res


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--vbg", default=os.path.join(os.path.dirname(__file__), "..", ".build", "release", "vbg"))
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--runs", type=int, default=21)
    p.add_argument("--sizes", default="640x480,1280x720,1920x1080")
    args = p.parse_args()
    sizes = [tuple(int(v) for v in s.split("x")) for s in args.sizes.split(",")]
    ours, theirs = {}, {}
    for r in range(args.rounds):
        for (w, h) in sizes:
            lines = subprocess.run([args.vbg, "bench", "--imaging", "--json", "--repeat", str(args.runs),
                                    "--sizes", f"{w}x{h}"], check=True, capture_output=True, text=True).stdout
            radii = {}
            for line in lines.splitlines():
                o = json.loads(line)
                if o["op"] == "cover_crop" and o.get("cached"):
                    key = ("cover_crop_cached", None)
                else:
                    key = (o["op"], o.get("level"))
                if o["op"] == "composite_coverage":
                    key = ("composite_coverage", None)
                ours.setdefault((w, h, key), []).append(o["median_ms"])
                if o["op"] == "blur":
                    radii[o["level"]] = o["radii"]
            for key, v in opencv_times(w, h, radii, args.runs).items():
                theirs.setdefault((w, h, key), []).append(v)
    print(f"rounds {args.rounds}, runs {args.runs}; load: {open('/proc/loadavg').read().split()[:3]}")
    print("times: median over rounds of each round's median; ratio: median over rounds of the per-round ratio")
    print("(ours and OpenCV a few seconds apart in each round, so drift in the machine's speed cancels)")
    print(f"{'op':<14}{'size':>11}{'level':>6}{'vbg ms':>10}{'OpenCV ms':>11}{'ratio':>8}{'range':>14}")

    def row(name, w, h, level, mine, ref):
        ratios = [a / b for a, b in zip(mine, ref)]
        lo, hi = min(ratios), max(ratios)
        print(f"{name:<14}{w:>6}x{h:<5}{level:>5}{statistics.median(mine):>10.3f}{statistics.median(ref):>11.3f}"
              f"{statistics.median(ratios):>8.2f}{f'{lo:.2f}-{hi:.2f}':>14}")

    for (w, h, key), v in sorted(ours.items(), key=lambda kv: (kv[0][0], str(kv[0][2]))):
        ref = theirs.get((w, h, ("composite", None) if key[0] == "composite_coverage" else key))
        level = "" if key[1] is None else str(key[1])
        if ref is None:
            print(f"{key[0]:<14}{w:>6}x{h:<5}{level:>5}{statistics.median(v):>10.3f}{'':>11}{'':>8}")
            continue
        row(key[0], w, h, level, v, ref)
        if key[0] in ("composite", "composite_coverage"):
            row("  vs memcpy", w, h, "", v, theirs[(w, h, ("memcpy", None))])

if __name__ == "__main__":
    main()
