"""Two vbg binaries side by side: the forward pass, the imaging operations and the pipeline.

Round after round, alternating which binary goes first, runs each binary's
`vbg bench --model M --threads T --json` (built-in models, 1 and 2 threads),
`vbg bench --imaging --json` (720p and 1080p) and `vbg bench --pipeline --json` (720p), and
prints per benchmark both medians and the median of the per-round ratios new / base with their
range. Use it to check that a change makes nothing slower: build the base commit into its own
scratch path, then

    VBG_ARCH=native swift build -c release --scratch-path .build/base --product vbg   # at the base commit
    VBG_ARCH=native swift build -c release --scratch-path .build/native --product vbg # at the new one
    python3 Tools/bench_ab.py .build/base/release/vbg .build/native/release/vbg --rounds 6

`--bench "ARGS"` (repeatable) runs those `vbg bench` arguments instead of the default set, and
`--cpu` compares thread CPU time where the bench reports it (the pipeline's `cpu_median_ms`), which
a busy machine disturbs less than wall time:

    python3 Tools/bench_ab.py BASE NEW --rounds 12 --cpu \
        --bench "--pipeline --json --frames 60 --warmup 5 --sizes 1920x1080 --intervals 3 --threads 1 --effects blur"
"""
import argparse
import json
import statistics
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

BENCHES = [
    ["--imaging", "--json", "--repeat", "5", "--sizes", "1280x720,1920x1080"],
    ["--pipeline", "--json", "--frames", "30", "--warmup", "3", "--sizes", "1280x720", "--intervals", "1"],
] + [["--model", m, "--threads", str(t), "--iterations", "300", "--json"]
     for m in ("general", "landscape") for t in (1, 2)]


def key(d):
    if "op" in d:
        return f'{d["op"]} {d["width"]}x{d["height"]}'
    if d.get("bench") == "pipeline":
        return (f'pipeline {d["effect"]} level {d.get("level")} {d["width"]}x{d["height"]} interval {d["interval"]}, '
                f'{d["threads"]} thread(s)')
    return f'forward pass {d["model"]}, {d["threads"]} thread(s)'


def run(binary, args, cpu=False):
    # From the repository's root, so `--pipeline` of either binary times the same picture
    # (Fixtures/images/astronaut_on_coffee_1280x720.png) wherever this script is started.
    out = subprocess.run([binary, "bench"] + args, capture_output=True, text=True, check=True, cwd=ROOT).stdout
    for line in out.splitlines():
        line = line.strip()
        if line.startswith("{"):
            d = json.loads(line)
            if cpu and "cpu_median_ms" in d:
                yield key(d) + " (CPU)", d["cpu_median_ms"]
            elif "median_ms" in d:
                yield key(d), d["median_ms"]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("base")
    parser.add_argument("new")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--bench", action="append", metavar="ARGS",
                        help="`vbg bench` arguments to run instead of the default set (repeatable)")
    parser.add_argument("--cpu", action="store_true", help="thread CPU time where the bench reports it")
    a = parser.parse_args()
    benches = [b.split() for b in a.bench] if a.bench else BENCHES
    a.base, a.new = (str(Path(b).resolve()) for b in (a.base, a.new))  # they run from ROOT
    times = {}
    for r in range(a.rounds):
        for args in benches:
            order = [("base", a.base), ("new", a.new)] if r % 2 == 0 else [("new", a.new), ("base", a.base)]
            for tag, binary in order:
                for name, ms in run(binary, args, a.cpu):
                    times.setdefault(name, {"base": [], "new": []})[tag].append(ms)
    for name, t in times.items():
        ratios = [n / b for n, b in zip(t["new"], t["base"])]
        print(f'{name:65s} base {statistics.median(t["base"]):8.3f} ms  new {statistics.median(t["new"]):8.3f} ms  '
              f'new/base {statistics.median(ratios):.3f} ({min(ratios):.2f}-{max(ratios):.2f})')


if __name__ == "__main__":
    main()
