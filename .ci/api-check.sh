#!/usr/bin/env bash
# The public API against Docs/API.md: regenerates the list from the compiler's symbol graphs and
# fails on a difference. `--write` rewrites Docs/API.md instead (after a deliberate API change).
# Reuses the debug build of the same VBG_ARCH when there is one (CI runs it after `swift test`).
set -euo pipefail
cd "$(dirname "$0")/.."

swift package dump-symbol-graph --skip-synthesized-members >/dev/null
graphs="$(swift build --show-bin-path)/../symbolgraph"
generated="$(mktemp)"
trap 'rm -f "$generated"' EXIT
swift .ci/api-list.swift "$graphs" >"$generated"

if [[ "${1:-}" == "--write" ]]; then
    cp "$generated" Docs/API.md
    echo "Docs/API.md written"
elif ! diff -u Docs/API.md "$generated"; then
    echo "The public API differs from Docs/API.md (above). If the change is meant, run .ci/api-check.sh --write and commit the file." >&2
    exit 1
fi
