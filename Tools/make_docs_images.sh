#!/bin/sh
# Regenerates the README's before/after pictures in Docs/images/ with vbg itself:
#   before.png   Fixtures/images/astronaut.png
#   blur.png     vbg blur    (built-in general model, level 5)
#   replace.png  vbg replace (general model, background Fixtures/backgrounds/rocket.png)
# vbg works on the full 512x512 fixture; the pictures are then scaled to 384x384 (cv2 INTER_AREA,
# venv/) so the README stays light. Run from anywhere:
#   sh Tools/make_docs_images.sh
# Needs a release build of vbg (made here with VBG_ARCH=native unless VBG_ARCH is set).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
python=${PYTHON:-venv/bin/python}
export VBG_ARCH=${VBG_ARCH:-native}
swift build -c release --product vbg
vbg="$(swift build -c release --product vbg --show-bin-path)/vbg"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$vbg" blur Fixtures/images/astronaut.png "$work/blur.png" --level 5
"$vbg" replace Fixtures/images/astronaut.png "$work/replace.png" --background Fixtures/backgrounds/rocket.png

mkdir -p Docs/images
"$python" - "$work" <<'PY'
import sys
import cv2
work = sys.argv[1]
for name, path in [("before", "Fixtures/images/astronaut.png"), ("blur", f"{work}/blur.png"),
                   ("replace", f"{work}/replace.png")]:
    image = cv2.imread(path, cv2.IMREAD_COLOR)
    small = cv2.resize(image, (384, 384), interpolation=cv2.INTER_AREA)
    cv2.imwrite(f"Docs/images/{name}.png", small, [cv2.IMWRITE_PNG_COMPRESSION, 9])
    print(f"Docs/images/{name}.png")
PY
