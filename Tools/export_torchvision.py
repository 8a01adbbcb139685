#!/usr/bin/env python3
"""Exports torchvision architectures outside the corpus, with random weights, for
timing and checking real architectures beyond `Fixtures/corpus` (`Docs/Performance.md`,
"architectures exported here"): `vbg infer` / `vbg bench --model OUT` beside onnxruntime.

    venv/bin/python Tools/export_torchvision.py --out DIR NAME:H:W ...
    e.g. resnext50_32x4d:64:64 regnet_x_800mf:80:80 lraspp_mobilenet_v3_large:256:256

Each NAME is a `torchvision.models` constructor (weights=None, torch.manual_seed(1)), or a
`torchvision.models.segmentation` one (weights=None, weights_backbone=None, num_classes=2; the
graph's output is the model's "out"); every
BatchNorm2d gets random statistics and affine parameters (mean and bias in ±0.2, variance and
scale in [0.5, 1.5]) so the exporter's folded biases are not zero; exported in eval mode by
torch.onnx.export (the TorchScript exporter, `dynamo=False`, opset 17, constant folding) at input
1×3×H×W named `x`, to DIR/NAME.onnx. Needs torch and torchvision (Tools/requirements-converters.txt)."""
import argparse
import warnings


def main():
    import torch

    class Out(torch.nn.Module):
        """A segmentation model's "out" (they return a dict)."""
        def __init__(self, net):
            super().__init__()
            self.net = net

        def forward(self, x):
            return self.net(x)["out"]

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, help="folder for NAME.onnx")
    parser.add_argument("models", nargs="+", help="NAME:H:W")
    args = parser.parse_args()
    # torchvision's C extension registers fake kernels that need CUDA libraries a CPU-only torch
    # lacks; with register_fake a no-op the Python models import and export normally.
    original = torch.library.register_fake
    torch.library.register_fake = lambda *a, **k: (lambda f: f)
    from torchvision import models
    from torchvision.models import segmentation
    torch.library.register_fake = original
    warnings.filterwarnings("ignore")
    for spec in args.models:
        name, height, width = spec.split(":")
        torch.manual_seed(1)
        if hasattr(segmentation, name) and not hasattr(models, name):
            net = Out(getattr(segmentation, name)(weights=None, weights_backbone=None, num_classes=2)).eval()
        else:
            net = getattr(models, name)(weights=None).eval()
        for m in net.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.2, 0.2)
                m.running_var.uniform_(0.5, 1.5)
                m.weight.data.uniform_(0.5, 1.5)
                m.bias.data.uniform_(-0.2, 0.2)
        x = torch.randn(1, 3, int(height), int(width))
        torch.onnx.export(net, x, f"{args.out}/{name}.onnx", opset_version=17, dynamo=False, input_names=["x"],
                          do_constant_folding=True)
        print(f"{args.out}/{name}.onnx")


if __name__ == "__main__":
    main()
