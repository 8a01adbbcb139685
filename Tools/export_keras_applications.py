#!/usr/bin/env python3
"""Exports Keras applications outside the corpus, with random weights, through tf2onnx, for timing
and checking real architectures beyond `Fixtures/corpus` (`Docs/Performance.md`, "More
architectures exported here"): `vbg bench --model OUT` beside onnxruntime.

    venv/bin/python Tools/export_keras_applications.py --out DIR NAME:CONSTRUCTOR:H:W ...
    e.g. keras_xception:Xception:224:224 keras_resnet50v2:ResNet50V2:224:224

Each CONSTRUCTOR is a `keras.applications` constructor (weights=None), exported exactly as
`make_architecture_corpus.py` exports its Keras models (`export_keras`: the seed from NAME,
randomised BatchNormalization statistics, input 1×H×W×3 named `input`, opset 17) to
DIR/NAME.onnx. Needs tensorflow-cpu, keras and tf2onnx (Tools/requirements-converters.txt)."""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_architecture_corpus as corpus  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, help="folder for NAME.onnx")
    parser.add_argument("models", nargs="+", help="NAME:CONSTRUCTOR:H:W")
    args = parser.parse_args()
    for spec in args.models:
        name, constructor, height, width = spec.split(":")
        path = os.path.join(args.out, f"{name}.onnx")
        corpus.export_keras(name, constructor, (int(height), int(width)), path)
        print(path, flush=True)


if __name__ == "__main__":
    main()
