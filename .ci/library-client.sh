#!/usr/bin/env bash
# A program that depends on this package by path and imports only ONNXInference
# (Examples/LibraryClient): it must compile against the library's core calls, and run a
# third-party model with both paths agreeing.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo/Examples/LibraryClient"
swift build -c release --scratch-path "$repo/.build/library-client"
client="$repo/.build/library-client/release/LibraryClient"
output="$("$client" "$repo/Fixtures/thirdparty/sinet/model.onnx")"
echo "$output"
grep -Eq '^input  .*FLOAT \[1, 3, ' <<<"$output"
grep -Eq 'all [0-9]+ elements within' <<<"$output"
