#!/usr/bin/env python3
"""Fixtures/onnxtestdata/: a few of onnx's backend node tests in onnx's own layout.

Each test is `model.onnx` beside `test_data_set_0/input_K.pb` and `output_K.pb`, written by the
same code as Tools/onnx_node_tests.py (onnx's test cases regenerated from the installed onnx,
serialised with onnx.numpy_helper), so `vbg test` and `ModelTestDirectory` are tested on the
files onnx itself writes: raw_data floats, float16 and double outputs, int64 indices.

    venv/bin/python Tools/make_onnx_test_data_fixtures.py
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import onnx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from onnx_node_tests import collect_node_cases, write_case  # noqa: E402

TESTS = [
    "test_abs",                          # float32 in and out
    "test_add_bcast",                    # two inputs, broadcasting
    "test_cast_FLOAT_to_DOUBLE",         # a double output
    "test_cast_FLOAT_to_FLOAT16",        # a float16 output
    "test_gather_0",                     # int64 indices
    "test_conv_with_strides_and_asymmetric_padding",
    "test_argmax_default_axis_example",  # an int64 output
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent.parent / "Fixtures" / "onnxtestdata")
    args = parser.parse_args()
    cases, ops = collect_node_cases()
    by_name = {case.name: case for case in cases}
    missing = [name for name in TESTS if name not in by_name]
    if missing:
        sys.exit(f"onnx {onnx.__version__} has no node tests {missing}")
    args.out.mkdir(parents=True, exist_ok=True)
    for name in TESTS:
        write_case(by_name[name], args.out / name)
    manifest = {"onnx": onnx.__version__, "tests": {name: ops[name] for name in TESTS}}
    (args.out / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(TESTS)} tests to {args.out}")


if __name__ == "__main__":
    main()
