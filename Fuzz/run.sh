#!/usr/bin/env bash
# Builds one libFuzzer target and runs it for a number of seconds on its committed seed corpus.
#
#   Fuzz/run.sh <target> <seconds> [extra libFuzzer flags...]
#   FUZZ_CPU=1 Fuzz/run.sh <target> <cpu-seconds> [...]    (budget in CPU time, for loaded machines)
#   targets: onnx, numpy, png, y4m
#
# New inputs libFuzzer finds go to a scratch corpus (.build/fuzz-corpus/<target>), never into the
# committed seeds. Crashing inputs are written to Fuzz/findings/<target>/ and the script exits
# non-zero. Build: `swift build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library`
# in this package (see Package.swift for why it is a separate package).
set -euo pipefail
cd "$(dirname "$0")"

target=${1:?usage: Fuzz/run.sh <onnx|numpy|png|y4m> <seconds> [libFuzzer flags]}
seconds=${2:?usage: Fuzz/run.sh <onnx|numpy|png|y4m> <seconds> [libFuzzer flags]}
shift 2
case "$target" in
    onnx) product=FuzzONNX; max_len=65536 ;;
    numpy) product=FuzzNumpy; max_len=4096 ;;
    png) product=FuzzPNG; max_len=16384 ;;
    y4m) product=FuzzY4M; max_len=16384 ;;
    *) echo "unknown fuzz target '$target' (onnx, numpy, png, y4m)" >&2; exit 2 ;;
esac

swift build -c release --product "$product" \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library >&2
binary="$(swift build -c release --show-bin-path)/$product"

scratch=".build/fuzz-corpus/$target"
findings="findings/$target"
mkdir -p "$scratch" "$findings"
# rss_limit: any single input that makes the reader allocate past 2 GB is a finding
# (unbounded allocation from a size field). timeout: 10 s for one input is a hang.
flags=(-max_len="$max_len" -rss_limit_mb=2048 -timeout=10 -artifact_prefix="$findings/" -print_final_stats=1)

if [[ "${FUZZ_CPU:-0}" != 1 ]]; then
    exec "$binary" "$scratch" "corpus/$target" -max_total_time="$seconds" "${flags[@]}" "$@"
fi

# FUZZ_CPU=1: <seconds> is CPU time of the fuzzing process (user + system), not wall time, so a
# run on a loaded machine still does the work asked for. The process is stopped with SIGINT
# (libFuzzer prints its final stats and exits 72) once it has used that much CPU.
"$binary" "$scratch" "corpus/$target" -max_total_time=$((seconds * 20)) "${flags[@]}" "$@" &
pid=$!
ticks=$(getconf CLK_TCK)
cpu=0
while kill -0 "$pid" 2>/dev/null; do
    if stat=$(cat "/proc/$pid/stat" 2>/dev/null); then
        set -- ${stat##*) }   # fields after the command name: state is $1, utime $12, stime $13
        cpu=$(( (${12} + ${13}) / ticks ))
        if (( cpu >= seconds )); then kill -INT "$pid"; break; fi
    fi
    sleep 2
done
status=0
wait "$pid" || status=$?
echo "run.sh: $target used ${cpu} CPU seconds" >&2
# 72 is libFuzzer's exit status when interrupted: the budget ran out with no finding.
if (( status == 72 )); then exit 0; fi
exit "$status"
