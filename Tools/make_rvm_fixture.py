#!/usr/bin/env python3
"""Rebuilds Robust Video Matting's MobileNetV3 network (Lin et al., "Robust High-Resolution Video
Matting with Temporal Guidance", github.com/PeterL1n/RobustVideoMatting, GPL-3.0) in torch with
random weights and exports it as the repository's own `export_onnx.py` does, then records what
onnxruntime computes on two frames. Writes Fixtures/rvm/.

Run with venv/ (torch, torchvision, onnx, onnxruntime, numpy):
    venv/bin/python Tools/make_rvm_fixture.py [--out Fixtures/rvm]

The architecture, written here from the paper and the repository's `model/` folder (its `onnx`
branch, which the released ONNX models come from), none of its code copied:
- the frame is shrunk by `downsample_ratio` with a Resize whose scales are
  `Concat([1, 1], ratio, ratio)` of the `downsample_ratio` graph input (bilinear,
  pytorch_half_pixel), as the repository's custom ONNX op writes it;
- encoder: torchvision's MobileNetV3-Large layout (16 inverted residual blocks, squeeze-excite,
  HardSwish, the last stage dilated), ImageNet mean and std first; features at 1/2, 1/4, 1/8, 1/16;
- LR-ASPP on the last feature: a 1x1 conv + BN + ReLU times a sigmoid gate from the global mean;
- recurrent decoder: the frame pooled to 1/2, 1/4, 1/8 (AvgPool 2x2, ceil, no padding counted);
  a bottleneck block and three upsampling blocks (bilinear x2, cropped to the skip's size by
  Slice ends from Shape, concatenated with the feature and the pooled frame, 3x3 conv + BN + ReLU)
  each with a ConvGRU on half its channels, whose state `h` is first expanded to the input's
  shape (so a [1, 1, 1, 1] zero state works); an output block (x2, crop, two 3x3 conv + BN + ReLU);
- projection 1x1 to 3 foreground residual + 1 alpha channels; a deep guided filter refiner back
  at full resolution (box filter as a depthwise 3x3 conv of 1/9, three 1x1 convs, the A and b
  maps resized to the frame's size by Resize sizes from Shape);
- fgr = clamp(residual + src, 0, 1), pha = clamp(alpha, 0, 1).

The export: opset 12, float32, inputs `src, r1i, r2i, r3i, r4i, downsample_ratio`, outputs
`fgr, pha, r1o, r2o, r3o, r4o`, dynamic axes `{0: batch_size, 2: height, 3: width}` on src, fgr,
pha and r*o and `{0: batch_size, 1: channels, 2: height, 3: width}` on r*i (so the recurrent
inputs reuse src's dim names), exported from zeros [1, 1, 1, 1] for r*i and a 1080x1920 frame
at ratio 0.25 as the repository does (here a smaller frame; the graph does not depend on it).

Reduced width, so the file is small enough to commit: the encoder at width_mult 0.25
(torchvision's channel rounding to multiples of 8) and the decoder at [32, 16, 16, 16] channels
instead of [80, 40, 32, 16] (LR-ASPP 32 instead of 128). Every layer, op and connection of the
full-width model is there; only channel counts shrink (`--full-width` exports the real widths,
about 15 MB, for a manual check).

Files (float32 .npy):
- `model.onnx`, `model.onnx.json` (the description `vbg` and the SDK read: state pairs,
  downsample_ratio 0.25, alpha output, free input size chosen as 96x128, half-pixel sampling);
- `src.npy` [1, 3, 96, 128] (a smooth pattern), `frame1_<out>.npy` for every output with zero
  states [1, 1, 1, 1] at ratio 0.25; `src2.npy` (the pattern shifted) and `frame2_<out>.npy` with
  the first frame's r*o as r*i. onnxruntime 1.32, CPU, ORT_DISABLE_ALL, one thread, memory reuse
  off (its planner equates same-named dims and fails on this export otherwise).
"""
import argparse
import json
import os

import numpy as np
import onnx
import onnxruntime as ort
import torch
from torch import nn
from torch.nn import functional as F

# torchvision's C extension needs CUDA libraries here; its Python models do not. Registering
# fake kernels is what fails without them, so that step is skipped while importing it.
_register_fake = torch.library.register_fake
torch.library.register_fake = lambda *a, **k: (lambda f: f)
import torchvision  # noqa: E402
from torchvision.models.mobilenetv3 import InvertedResidualConfig, MobileNetV3  # noqa: E402
torch.library.register_fake = _register_fake

HERE = os.path.dirname(os.path.abspath(__file__))


class ResizeByRatio(torch.autograd.Function):
    """Bilinear resize by a ratio given at run time: ONNX Resize with scales Concat([1, 1], r, r)."""

    @staticmethod
    def forward(ctx, x, ratio):
        return F.interpolate(x, scale_factor=float(ratio.item()), mode="bilinear", align_corners=False,
                             recompute_scale_factor=False)

    @staticmethod
    def symbolic(g, x, ratio):
        roi = g.op("Constant", value_t=torch.tensor([], dtype=torch.float32))
        scales = g.op("Concat", g.op("Constant", value_t=torch.tensor([1, 1], dtype=torch.float32)), ratio, ratio, axis_i=0)
        return g.op("Resize", x, roi, scales, coordinate_transformation_mode_s="pytorch_half_pixel",
                    cubic_coeff_a_f=-0.75, mode_s="linear", nearest_mode_s="floor")


class ResizeLike(torch.autograd.Function):
    """Bilinear resize of x to y's spatial size: Resize sizes Concat(Shape(x)[0:2], Shape(y)[2:4])."""

    @staticmethod
    def forward(ctx, x, y):
        return F.interpolate(x, y.shape[2:], mode="bilinear", align_corners=False)

    @staticmethod
    def symbolic(g, x, y):
        empty = g.op("Constant", value_t=torch.tensor([], dtype=torch.float32))
        def part(value, start, end):
            return g.op("Slice", g.op("Shape", value), g.op("Constant", value_t=torch.tensor([start])),
                        g.op("Constant", value_t=torch.tensor([end])), g.op("Constant", value_t=torch.tensor([0])))
        sizes = g.op("Concat", part(x, 0, 2), part(y, 2, 4), axis_i=0)
        return g.op("Resize", x, empty, empty, sizes, coordinate_transformation_mode_s="pytorch_half_pixel",
                    cubic_coeff_a_f=-0.75, mode_s="linear", nearest_mode_s="floor")


class CropLike(torch.autograd.Function):
    """x[:, :, :H, :W] for y's H and W: Slice with ends from Shape(y)[2:4]."""

    @staticmethod
    def forward(ctx, x, y):
        return x[:, :, :y.size(2), :y.size(3)]

    @staticmethod
    def symbolic(g, x, y):
        ends = g.op("Slice", g.op("Shape", y), g.op("Constant", value_t=torch.tensor([2])),
                    g.op("Constant", value_t=torch.tensor([4])), g.op("Constant", value_t=torch.tensor([0])))
        return g.op("Slice", x, g.op("Constant", value_t=torch.tensor([0, 0])), ends,
                    g.op("Constant", value_t=torch.tensor([2, 3])))


def crop_like(x, y):
    return CropLike.apply(x, y) if torch.onnx.is_in_onnx_export() else x[:, :, :y.size(2), :y.size(3)]


class Encoder(MobileNetV3):
    """MobileNetV3-Large's blocks as RVM configures them; returns the 1/2, 1/4, 1/8, 1/16 features."""

    def __init__(self, width):
        settings = [
            # input, kernel, expanded, output, squeeze-excite, activation, stride, dilation
            (16, 3, 16, 16, False, "RE", 1, 1), (16, 3, 64, 24, False, "RE", 2, 1), (24, 3, 72, 24, False, "RE", 1, 1),
            (24, 5, 72, 40, True, "RE", 2, 1), (40, 5, 120, 40, True, "RE", 1, 1), (40, 5, 120, 40, True, "RE", 1, 1),
            (40, 3, 240, 80, False, "HS", 2, 1), (80, 3, 200, 80, False, "HS", 1, 1), (80, 3, 184, 80, False, "HS", 1, 1),
            (80, 3, 184, 80, False, "HS", 1, 1), (80, 3, 480, 112, True, "HS", 1, 1), (112, 3, 672, 112, True, "HS", 1, 1),
            (112, 5, 672, 160, True, "HS", 2, 2), (160, 5, 960, 160, True, "HS", 1, 2), (160, 5, 960, 160, True, "HS", 1, 2),
        ]
        super().__init__([InvertedResidualConfig(*s, width) for s in settings], last_channel=1280)
        del self.avgpool
        del self.classifier
        self.register_buffer("mean", torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1))

    @property
    def channels(self):
        blocks = self.features
        return [blocks[1].out_channels, blocks[3].out_channels, blocks[6].out_channels, blocks[16].out_channels]

    def forward(self, x):
        x = (x - self.mean) / self.std
        taps = {1: None, 3: None, 6: None, 16: None}
        for index, block in enumerate(self.features):
            x = block(x)
            if index in taps:
                taps[index] = x
        return [taps[1], taps[3], taps[6], taps[16]]


def conv_bn_relu(cin, cout, kernel):
    return nn.Sequential(nn.Conv2d(cin, cout, kernel, padding=kernel // 2, bias=False), nn.BatchNorm2d(cout), nn.ReLU(True))


class LRASPP(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.value = conv_bn_relu(cin, cout, 1)
        self.gate = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(cin, cout, 1, bias=False), nn.Sigmoid())

    def forward(self, x):
        return self.value(x) * self.gate(x)


class ConvGRU(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.channels = channels
        self.gates = nn.Sequential(nn.Conv2d(2 * channels, 2 * channels, 3, padding=1), nn.Sigmoid())
        self.candidate = nn.Sequential(nn.Conv2d(2 * channels, channels, 3, padding=1), nn.Tanh())

    def forward(self, x, h):
        h = h.expand_as(x)
        r, z = self.gates(torch.cat([x, h], dim=1)).split(self.channels, dim=1)
        c = self.candidate(torch.cat([x, r * h], dim=1))
        h = (1 - z) * h + z * c
        return h, h


class Bottleneck(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.half = channels // 2
        self.gru = ConvGRU(self.half)

    def forward(self, x, r):
        a, b = x.split(self.half, dim=1)
        b, r = self.gru(b, r)
        return torch.cat([a, b], dim=1), r


class Upsampling(nn.Module):
    def __init__(self, cin, skip, src, cout):
        super().__init__()
        self.half = cout // 2
        self.up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)
        self.conv = conv_bn_relu(cin + skip + src, cout, 3)
        self.gru = ConvGRU(self.half)

    def forward(self, x, f, s, r):
        x = crop_like(self.up(x), s)
        x = self.conv(torch.cat([x, f, s], dim=1))
        a, b = x.split(self.half, dim=1)
        b, r = self.gru(b, r)
        return torch.cat([a, b], dim=1), r


class Output(nn.Module):
    def __init__(self, cin, src, cout):
        super().__init__()
        self.up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)
        self.conv = nn.Sequential(conv_bn_relu(cin + src, cout, 3), conv_bn_relu(cout, cout, 3))

    def forward(self, x, s):
        x = crop_like(self.up(x), s)
        return self.conv(torch.cat([x, s], dim=1))


class Decoder(nn.Module):
    def __init__(self, features, channels):
        super().__init__()
        self.pool = nn.AvgPool2d(2, 2, count_include_pad=False, ceil_mode=True)
        self.decode4 = Bottleneck(features[3])
        self.decode3 = Upsampling(features[3], features[2], 3, channels[0])
        self.decode2 = Upsampling(channels[0], features[1], 3, channels[1])
        self.decode1 = Upsampling(channels[1], features[0], 3, channels[2])
        self.decode0 = Output(channels[2], 3, channels[3])

    def forward(self, s0, f1, f2, f3, f4, r1, r2, r3, r4):
        s1 = self.pool(s0)
        s2 = self.pool(s1)
        s3 = self.pool(s2)
        x4, r4 = self.decode4(f4, r4)
        x3, r3 = self.decode3(x4, f3, s3, r3)
        x2, r2 = self.decode2(x3, f2, s2, r2)
        x1, r1 = self.decode1(x2, f1, s1, r1)
        return self.decode0(x1, s0), r1, r2, r3, r4


class GuidedFilter(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.box = nn.Conv2d(4, 4, 3, padding=1, bias=False, groups=4)
        self.box.weight.data[...] = 1 / 9
        self.conv = nn.Sequential(conv_bn_relu(4 * 2 + hidden, hidden, 1), conv_bn_relu(hidden, hidden, 1),
                                  nn.Conv2d(hidden, 4, 1, bias=True))

    def forward(self, fine_src, base_src, base_fgr, base_pha, base_hid):
        fine_x = torch.cat([fine_src, fine_src.mean(1, keepdim=True)], dim=1)
        base_x = torch.cat([base_src, base_src.mean(1, keepdim=True)], dim=1)
        base_y = torch.cat([base_fgr, base_pha], dim=1)
        mean_x, mean_y = self.box(base_x), self.box(base_y)
        cov_xy = self.box(base_x * base_y) - mean_x * mean_y
        var_x = self.box(base_x * base_x) - mean_x * mean_x
        a = self.conv(torch.cat([cov_xy, var_x, base_hid], dim=1))
        b = mean_y - a * mean_x
        if torch.onnx.is_in_onnx_export():
            a, b = ResizeLike.apply(a, fine_src), ResizeLike.apply(b, fine_src)
        else:
            size = fine_src.shape[2:]
            a = F.interpolate(a, size, mode="bilinear", align_corners=False)
            b = F.interpolate(b, size, mode="bilinear", align_corners=False)
        return (a * fine_x + b).split([3, 1], dim=1)


class MattingNetwork(nn.Module):
    def __init__(self, full_width):
        super().__init__()
        self.encoder = Encoder(1.0 if full_width else 0.25)
        features = self.encoder.channels
        aspp, decoder = (128, [80, 40, 32, 16]) if full_width else (32, [32, 16, 16, 16])
        self.aspp = LRASPP(features[3], aspp)
        self.decoder = Decoder(features[:3] + [aspp], decoder)
        self.project = nn.Conv2d(decoder[3], 4, 1)
        self.refiner = GuidedFilter(decoder[3])

    def forward(self, src, r1, r2, r3, r4, downsample_ratio):
        if torch.onnx.is_in_onnx_export():
            small = ResizeByRatio.apply(src, downsample_ratio)
        else:
            small = F.interpolate(src, scale_factor=float(downsample_ratio.item()), mode="bilinear",
                                  align_corners=False, recompute_scale_factor=False)
        f1, f2, f3, f4 = self.encoder(small)
        f4 = self.aspp(f4)
        hidden, r1, r2, r3, r4 = self.decoder(small, f1, f2, f3, f4, r1, r2, r3, r4)
        residual, alpha = self.project(hidden).split([3, 1], dim=1)
        residual, alpha = self.refiner(src, small, residual, alpha, hidden)
        return (residual + src).clamp(0., 1.), alpha.clamp(0., 1.), r1, r2, r3, r4


def randomise(model, generator):
    """Random weights, and batch-norm statistics that are not the identity."""
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, nn.Conv2d) and module is not model.refiner.box:
                fan_in = module.in_channels // module.groups * module.kernel_size[0] * module.kernel_size[1]
                module.weight.normal_(0, (2.0 / fan_in) ** 0.5, generator=generator)
                if module.bias is not None:
                    module.bias.uniform_(-0.1, 0.1, generator=generator)
            elif isinstance(module, nn.BatchNorm2d):
                module.weight.uniform_(0.5, 1.5, generator=generator)
                module.bias.uniform_(-0.2, 0.2, generator=generator)
                module.running_mean.uniform_(-0.2, 0.2, generator=generator)
                module.running_var.uniform_(0.5, 1.5, generator=generator)


def pattern(height, width, shift):
    y, x = np.mgrid[0:height, 0:width].astype(np.float32)
    channels = [0.5 + 0.5 * np.sin((x + shift) / 9 + c) * np.cos(y / 7 - c) for c in range(3)]
    return np.stack(channels)[None].astype(np.float32)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(HERE, "..", "Fixtures", "rvm"))
    ap.add_argument("--full-width", action="store_true", help="the real channel counts (about 15 MB; not committed)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(20260302)
    generator = torch.Generator().manual_seed(20260302)
    model = MattingNetwork(args.full_width).eval()
    randomise(model, generator)

    path = os.path.join(args.out, "model.onnx")
    zeros = (torch.zeros([1, 1, 1, 1]),) * 4
    spatial = {0: "batch_size", 2: "height", 3: "width"}
    everything = {0: "batch_size", 1: "channels", 2: "height", 3: "width"}
    torch.onnx.export(model, (torch.randn(1, 3, 144, 256), *zeros, torch.tensor([0.25])), path, dynamo=False,
                      export_params=True, opset_version=12, do_constant_folding=True,
                      input_names=["src", "r1i", "r2i", "r3i", "r4i", "downsample_ratio"],
                      output_names=["fgr", "pha", "r1o", "r2o", "r3o", "r4o"],
                      dynamic_axes={"src": spatial, "fgr": spatial, "pha": spatial, "r1i": everything, "r2i": everything,
                                    "r3i": everything, "r4i": everything, "r1o": spatial, "r2o": spatial, "r3o": spatial,
                                    "r4o": spatial})
    onnx.checker.check_model(onnx.load(path))
    description = {"input": {"name": "src", "size": [96, 128], "sampling": "half_pixel"},
                   "output": {"name": "pha", "activation": "none", "kind": "alpha"},
                   "state": [{"input": f"r{k}i", "output": f"r{k}o"} for k in range(1, 5)],
                   "constants": {"downsample_ratio": [0.25]}}
    with open(path + ".json", "w") as f:
        json.dump(description, f)
        f.write("\n")

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    # onnxruntime's memory planner takes outputs with the same dim names for the same size, so with
    # r*i named like src ([batch_size, channels, height, width]) it reuses a buffer of the wrong
    # size and stops ("Shape mismatch attempting to re-use buffer"); without reuse it runs.
    options.enable_mem_reuse = False
    session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    ratio = np.array([0.25], np.float32)
    src, src2 = pattern(96, 128, 0), pattern(96, 128, 5)
    zero = np.zeros([1, 1, 1, 1], np.float32)
    first = dict(zip(names, session.run(None, {"src": src, "r1i": zero, "r2i": zero, "r3i": zero, "r4i": zero,
                                               "downsample_ratio": ratio})))
    second = dict(zip(names, session.run(None, {"src": src2, **{f"r{k}i": first[f"r{k}o"] for k in range(1, 5)},
                                                "downsample_ratio": ratio})))
    with torch.no_grad():
        check = model(torch.from_numpy(src), *[torch.from_numpy(zero)] * 4, torch.from_numpy(ratio))
    print("torch vs onnxruntime, frame 1 pha: max |diff|", float(np.abs(check[1].numpy() - first["pha"]).max()))
    if args.full_width:
        print(f"{path}: {os.path.getsize(path)} bytes (full width; not for committing)")
        return
    np.save(os.path.join(args.out, "src.npy"), src)
    np.save(os.path.join(args.out, "src2.npy"), src2)
    for frame, outputs in (("frame1", first), ("frame2", second)):
        for name, value in outputs.items():
            np.save(os.path.join(args.out, f"{frame}_{name}.npy"), value.astype(np.float32))
    for name in sorted(os.listdir(args.out)):
        print(f"{name}: {os.path.getsize(os.path.join(args.out, name))} bytes"
              + (f" {list(first[name[7:-4]].shape)}" if name.startswith("frame1_") else ""))


if __name__ == "__main__":
    main()
