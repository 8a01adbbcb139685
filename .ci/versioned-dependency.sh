#!/usr/bin/env bash
# An app depending on this package by version (Examples/VersionedDependency) against a tagged clone
# of this commit over file://: built with the documented switch, its frame must run the fast
# kernels; built without, it must run too (the portable code, in a debug build).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

git clone --quiet --no-hardlinks "$repo" "$work/swift-virtual-background"
git -C "$work/swift-virtual-background" tag 1.0.0
cp -R "$repo/Examples/VersionedDependency" "$work/app"
export VBG_PACKAGE_URL="file://$work/swift-virtual-background"
cd "$work/app"

expect() {  # expect OUTPUT PATTERN: fail with the output unless PATTERN matches a line of it
    if ! grep -Eq "$2" <<<"$1"; then
        echo "versioned dependency: expected /$2/ in:"; echo "$1"; exit 1
    fi
}

# With the switch: x86-64-v3, so FMA and AVX2 kernels, checked in what the SDK reports and in the
# machine code (vfmadd instructions on ymm registers in the linked app).
swift build -c release -Xswiftc -Xcc -Xswiftc -march=x86-64-v3 --scratch-path .build/v3
if grep -qw fma /proc/cpuinfo && grep -qw avx2 /proc/cpuinfo; then
    output="$(.build/v3/release/VirtualBackgroundApp 1280 720 "$repo/Fixtures/onnxtestdata/test_conv_with_strides_and_asymmetric_padding")"
    echo "$output"
    expect "$output" '^onnx test data: 1 of 1 passed$'
    expect "$output" '^frame: 1280x720, composited: 3, inferences: 3, dropped: 0$'
    expect "$output" '^simd features: AVX AVX2 FMA F16C BMI2$'
else
    echo "versioned dependency: this CPU lacks AVX2/FMA; the x86-64-v3 app is built but not run"
fi
fused="$("$(dirname "$(command -v swift)")/llvm-objdump" -d --no-show-raw-insn .build/v3/release/VirtualBackgroundApp | grep -Ec 'vfmadd[0-9a-z]*[[:space:]].*%ymm' || true)"
echo "vfmadd on ymm in the x86-64-v3 app: $fused"
[ "$fused" -gt 100 ]

# Without the switch: the portable baseline, in a debug build (what an app gets by default). The
# SDK says once on stderr that it is a debug build.
swift build --scratch-path .build/debug-portable
output="$(.build/debug-portable/debug/VirtualBackgroundApp 320 180 2>"$work/stderr")"
echo "$output"; cat "$work/stderr"
expect "$output" '^frame: 320x180, composited: 3, inferences: 3, dropped: 0$'
expect "$output" '^simd features: none$'
expect "$(cat "$work/stderr")" '^SRTC: the virtual background was compiled without optimisation'
[ "$(grep -c '^SRTC:' "$work/stderr")" -eq 1 ]
