#!/usr/bin/env python3
"""Fixtures/thirdparty/: two person-segmentation models other people exported, with an input and
onnxruntime's outputs, for the tests that check the engine runs what exporters write.

    venv/bin/python Tools/make_third_party_fixtures.py --models DIR [--out Fixtures]

DIR holds the two upstream files under the names below (`sinet_softmax_320.onnx`,
`deeplabv3_mobilenetv2_513.onnx`); their sha256 are recorded in manifest.json.

Both models come from github.com/anilsathyan7/Portrait-Segmentation (MIT licence, "Copyright (c)
2021 anilsathyan", commit dbf69b043cf70d3362bc500ee620f20807e622d2), copied byte for byte:
- sinet/model.onnx: SINet/SINet_Softmax.onnx, PyTorch 1.6, opset 12, input `data` [1,3,320,320]
  NCHW BGR, (pixel - mean) / std; output `Softmax/1` [1,2,320,320], channel 1 the person;
- deeplab/model.onnx: deepstream_multiseg/deeplab_nchw.onnx, tf2onnx 1.5.6, opset 8, input
  `MobilenetV2/MobilenetV2/input:0` [1,3,513,513] NCHW RGB in [-1, 1]; output `transpose:0`
  [1,2,513,513] two-class logits.

For each: image.npy is Fixtures/images/astronaut.png resized to the model's input size
(cv2.INTER_AREA), uint8 [H,W,3] RGB; the model input is made from it in float32 by the model's
own convention (the formula is in manifest.json, and the Swift tests compute it the same way, in
the same order of float32 operations); output.npy is onnxruntime 1.32's output for that input
(CPUExecutionProvider, ORT_DISABLE_ALL, 1 thread), float32; model.onnx.json is the model's
description for vbg and the SDK (Docs/Models.md), from the upstream project's own preprocessing.
"""

import argparse
import hashlib
import json
import os
import shutil
import sys

import cv2
import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_fixtures import save, session  # noqa: E402

MODELS = {
    "sinet": {
        "file": "sinet_softmax_320.onnx", "input": "data", "output": "Softmax/1", "size": 320,
        "channels": "BGR", "mean": [102.890434, 111.25247, 126.91212], "std": [62.93292, 62.82138, 66.355705],
        # The upstream demos resize the frame with cv2.resize (INTER_LINEAR): half-pixel centres.
        "description": {"input": {"channels": "BGR", "range": [0, 255],
                                  "mean": [102.890434, 111.25247, 126.91212], "std": [62.93292, 62.82138, 66.355705],
                                  "sampling": "half_pixel"},
                        "output": {"activation": "none", "personChannel": 1}},
    },
    "deeplab": {
        "file": "deeplabv3_mobilenetv2_513.onnx", "input": "MobilenetV2/MobilenetV2/input:0", "output": "transpose:0",
        "size": 513, "channels": "RGB", "mean": [127.5, 127.5, 127.5], "std": [127.5, 127.5, 127.5],
        "description": {"input": {"layout": "NCHW", "channels": "RGB", "range": [-1, 1]},
                        "output": {"activation": "softmax", "personChannel": 1}},
    },
}

LICENCE = """MIT License

Copyright (c) 2021 anilsathyan

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
"""


def model_input(image: np.ndarray, spec: dict) -> np.ndarray:
    """[1,3,H,W] float32: (float32(pixel) - mean[c]) / std[c], channels in the model's order."""
    pixels = image[:, :, ::-1] if spec["channels"] == "BGR" else image
    planes = pixels.transpose(2, 0, 1).astype(np.float32)
    mean = np.array(spec["mean"], dtype=np.float32)[:, None, None]
    std = np.array(spec["std"], dtype=np.float32)[:, None, None]
    return ((planes - mean) / std)[None]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", required=True, help="the folder holding the two upstream .onnx files")
    ap.add_argument("--out", default=os.path.join(HERE, "..", "Fixtures"))
    args = ap.parse_args()
    root = os.path.join(args.out, "thirdparty")
    if os.path.isdir(root):
        shutil.rmtree(root)
    os.makedirs(root)
    with open(os.path.join(root, "LICENSE"), "w") as f:
        f.write(LICENCE)
    astronaut = cv2.cvtColor(cv2.imread(os.path.join(args.out, "images", "astronaut.png")), cv2.COLOR_BGR2RGB)
    manifest = {}
    for name, spec in MODELS.items():
        folder = os.path.join(root, name)
        os.makedirs(folder)
        source = os.path.join(args.models, spec["file"])
        shutil.copyfile(source, os.path.join(folder, "model.onnx"))
        blob = open(source, "rb").read()
        onnx.checker.check_model(onnx.load_from_string(blob))
        image = cv2.resize(astronaut, (spec["size"], spec["size"]), interpolation=cv2.INTER_AREA)
        save(os.path.join(folder, "image.npy"), image)
        x = model_input(image, spec)
        (output,) = session(blob).run([spec["output"]], {spec["input"]: x})
        save(os.path.join(folder, "output.npy"), output)
        with open(os.path.join(folder, "model.onnx.json"), "w") as f:  # the model's description for vbg and the SDK
            f.write(json.dumps(spec["description"]) + "\n")
        manifest[name] = {**{k: v for k, v in spec.items() if k != "description"}, "sha256": hashlib.sha256(blob).hexdigest(), "output_shape": list(output.shape),
                          "input_formula": "(float32(pixel[c]) - mean[c]) / std[c], pixel channels in `channels` order, NCHW"}
        print(f"{name}: {spec['file']} -> {folder} (output {output.shape})")
    with open(os.path.join(root, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
