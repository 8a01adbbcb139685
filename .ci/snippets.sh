#!/usr/bin/env bash
# Runs every snippet in Snippets/ and checks what it prints on standard output against
# .ci/snippets/<name>.txt: the same number of lines, each matching its line there as a whole
# (an extended regular expression; plain text matches itself). A snippet without such a file fails.
# Takes the build configuration's environment (VBG_ARCH) from the caller.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build
bin="$(swift build --show-bin-path)"
status=0
for source in Snippets/*.swift; do
    name="$(basename "$source" .swift)"
    expected=".ci/snippets/$name.txt"
    if [ ! -f "$expected" ]; then
        echo "snippet $name: no $expected with its expected output"; status=1; continue
    fi
    actual="$("$bin/$name")" || { echo "snippet $name: exit status $?"; status=1; continue; }
    if [ "$(printf '%s\n' "$actual" | wc -l)" -ne "$(wc -l <"$expected")" ] \
        || ! paste -d '\n' "$expected" <(printf '%s\n' "$actual") | while IFS= read -r pattern && IFS= read -r line; do
               grep -Eqx -- "$pattern" <<<"$line" || { echo "snippet $name: '$line' does not match '$pattern'"; exit 1; }
           done; then
        echo "snippet $name printed:"; printf '%s\n' "$actual"; echo "expected (patterns):"; cat "$expected"; status=1
    else
        echo "snippet $name: output as expected ($(wc -l <"$expected") lines)"
    fi
done
exit $status
