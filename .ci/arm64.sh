#!/usr/bin/env bash
# arm64 (issue 29): compiles the Foundation-free core (Kernels, Imaging, HalfPrecision,
# ONNXFormat, Inference) in Embedded Swift for arm64-apple-ios18.0 (Mach-O objects: the Apple-only
# conditions Linux never takes) and for aarch64-none-none-elf, links the arm64 test runner
# (Tests/Arm64Runner) statically against Debian's aarch64 glibc with lld, and runs it under
# qemu-aarch64-static. Fails if any compile fails or any runner case fails.
#
# For aarch64-none-none-elf the modules are compiled to .swiftmodule only: in Embedded Swift's
# linkage model a program re-emits every function it uses from the modules it imports, so the
# runner's object holds all the ELF code it runs and the modules' own objects would go unlinked.
# The Mach-O objects compile in the background while the ELF modules and the runner build (two
# cores: the step's wall time is the ELF Kernels module and the runner). The two Kernels compiles
# never overlap: each peaks at about 12 GB (measured: 12.1 GB, ELF module 217 s, Mach-O object
# 339 s), two together came within 0.3 GB of a 23.5 GB machine. The Mach-O job compiles the modules
# that do not import Kernels first and starts its Kernels object when the ELF Kernels module is
# done; the rest peak at about 2 GB (Inference) and 1.6 GB (the runner).
#
# Usage: .ci/arm64.sh [build directory, default .build/arm64]. SWIFT_BIN overrides the toolchain's
# bin directory (default: the one `swiftc` on PATH lives in).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v qemu-aarch64-static >/dev/null || ! command -v aarch64-linux-gnu-gcc >/dev/null \
        || [ ! -e /usr/aarch64-linux-gnu/lib/libc.a ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq qemu-user-static gcc-aarch64-linux-gnu libc6-dev-arm64-cross >/dev/null
fi

bin="${SWIFT_BIN:-$(dirname "$(readlink -f "$(command -v swiftc)")")}"
out="${1:-.build/arm64}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

# TargetFeatures and CMath are C headers; SwiftPM makes their module maps, here we write one.
cat > "$out/module.modulemap" <<MAP
module TargetFeatures { header "$PWD/Sources/TargetFeatures/include/TargetFeatures.h" export * }
module CMath { header "$PWD/Sources/CMath/include/CMath.h" export * }
MAP

embedded=(-enable-experimental-feature Embedded -wmo -O -package-name swift_virtual_background
          -I "$out")

# compile TARGET MODULE [object]: Sources/MODULE as a module (and, with `object`, an object) in
# $out/TARGET/.
compile() {
    local target=$1 module=$2 what=${3:-}
    mkdir -p "$out/$target"
    "$bin/swiftc" ${what:+-c} -target "$target" "${embedded[@]}" -parse-as-library -module-name "$module" \
        -I "$out/$target" -emit-module -emit-module-path "$out/$target/$module.swiftmodule" \
        $(find Sources/"$module" -name '*.swift' | sort) ${what:+-o "$out/$target/$module.o"}
}

modules=(Kernels Imaging HalfPrecision ONNXFormat Inference)
apple=arm64-apple-ios18.0
elf=aarch64-none-none-elf
elf_kernels_done="$out/$elf.kernels-done"
rm -f "$elf_kernels_done"
( for module in Imaging HalfPrecision ONNXFormat Kernels Inference; do
      if [ "$module" = Kernels ]; then
          while [ ! -e "$elf_kernels_done" ]; do sleep 1; done
      fi
      echo "arm64: $module for $apple (object)"
      compile "$apple" "$module" object
  done ) > "$out/$apple.log" 2>&1 &
apple_job=$!
trap 'kill "$apple_job" 2>/dev/null || true' EXIT
for module in "${modules[@]}"; do
    echo "arm64: $module for $elf (module)"
    compile "$elf" "$module"
    if [ "$module" = Kernels ]; then touch "$elf_kernels_done"; fi
done

# The runner: the shared references, the model and whole-frame cases (and FramePipeline's
# MaskSmoother, which they use: FramePipeline itself needs Foundation) compiled into one module
# with its main.swift.
echo "arm64: the test runner"
"$bin/swiftc" -c -target "$elf" "${embedded[@]}" -enable-experimental-feature Extern \
    -module-name Arm64Runner -I "$out/$elf" \
    Tests/Arm64Runner/main.swift Tests/KernelsTests/ScalarReference.swift Tests/ImagingTests/ImagingReference.swift \
    Tests/Arm64FixtureTests/Arm64Cases.swift Sources/FramePipeline/MaskSmoother.swift \
    -o "$out/$elf/Arm64Runner.o"
# GNU ld refuses the Embedded objects ("copy relocation against non-copyable protected symbol"): lld.
aarch64-linux-gnu-gcc -static -fuse-ld=lld -B"$bin" -o "$out/arm64-runner" \
    "$out/$elf/Arm64Runner.o" \
    "$(dirname "$bin")/lib/swift/embedded/aarch64-none-none-elf/libswiftUnicodeDataTables.a" -lm

# The Mach-O objects (their log: each module as it starts, any diagnostics).
apple_status=0
wait "$apple_job" || apple_status=$?
cat "$out/$apple.log"
if [ "$apple_status" -ne 0 ]; then echo "arm64: the $apple compile failed"; exit 1; fi

# The arm64 performance evidence Docs/Performance.md quotes (timings under qemu mean nothing): NEON
# fused multiply-adds (`fmla`) per kernel in the Mach-O object, summed over a kernel's
# specialisations (one per activation).
echo "arm64: fmla per kernel in Kernels.o (arm64-apple-ios18.0): count, specialisations, kernel"
"$bin/llvm-objdump" -d "$out/$apple/Kernels.o" \
    | awk '/^[0-9a-f]+ <.*>:$/ { name = substr($2, 3, length($2) - 4) } /\tfmla/ { count[name]++ }
           END { for (n in count) print count[n], n }' \
    | "$bin/swift-demangle" --simplified | sed -E 's/ specialized / /; s/[<(].*//' \
    | awk '{ total[$2] += $1; variants[$2]++; all += $1 }
           END { for (k in total) printf "%6d %3d  %s\n", total[k], variants[k], k; printf "%6d      all of Kernels.o\n", all }' \
    | sort -rn

# Run from the repository root: the runner reads Weights/ and Fixtures/arm64/.
time qemu-aarch64-static "$out/arm64-runner"
