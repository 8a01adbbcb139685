"""Seed corpora for the libFuzzer targets in Fuzz/ (Fuzz/corpus/<target>/).

    venv/bin/python Tools/make_fuzz_seeds.py [onnx] [numpy] [png] [y4m]   (all by default)

Seeds are small valid inputs that reach deep into each reader; libFuzzer mutates them. Every file
is deterministic (fixed seeds, no timestamps), so rerunning reproduces the corpora byte for byte.

- onnx:  the one-node op models of Fixtures/ops/*/model.onnx under 4 KB (every op type and
         attribute variant we implement), copied as <case>.onnx. The full models are left out:
         at 447 KB each they would cut the executions per second a hundredfold.
- numpy: np.save of tiny arrays, every dtype the reader accepts plus a few it rejects, formats
         1.0, 2.0 and 3.0, 0-d, empty and 4-d shapes, and Fortran order.
- png:   tiny PNGs written by OpenCV and Pillow: grey, grey+alpha, RGB, RGBA, palette, 16-bit,
         Adam7-interlaced.
- y4m:   tiny YUV4MPEG2 streams: C420jpeg/C420/C420paldv/C444/C422/mono, interlace and aspect
         tags, frame headers with parameters, zero, one and two frames.
"""
import io
import pathlib
import shutil
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT / "Fuzz" / "corpus"


def fresh(name):
    folder = CORPUS / name
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    return folder


def onnx_seeds():
    folder = fresh("onnx")
    for model in sorted((ROOT / "Fixtures" / "ops").glob("*/model.onnx")):
        if model.stat().st_size < 4096:
            shutil.copyfile(model, folder / f"{model.parent.name}.onnx")


def numpy_seeds():
    folder = fresh("numpy")
    rng = np.random.default_rng(7)
    arrays = {
        "f32_1x2x2x3": rng.random((1, 2, 2, 3), dtype=np.float32),
        "f32_scalar": np.float32(0.5),
        "f32_empty": np.zeros((0, 3), dtype=np.float32),
        "f16_4": np.arange(4, dtype=np.float16),
        "f64_2x2": np.eye(2),
        "u8_2x3": np.arange(6, dtype=np.uint8).reshape(2, 3),
        "i8_3": np.array([-1, 0, 1], dtype=np.int8),
        "i32_3": np.array([-7, 0, 7], dtype=np.int32),
        "i64_2": np.array([-(2**40), 2**40], dtype=np.int64),
        "i16_3": np.array([-300, 0, 300], dtype=np.int16),
        "u16_2": np.array([0, 65535], dtype=np.uint16),
        "u32_2": np.array([1, 2**32 - 1], dtype=np.uint32),
        "u64_2": np.array([2**63 - 1, 2**64 - 1], dtype=np.uint64),
        "bool_2": np.array([True, False]),
        "f32_big_endian": np.arange(3, dtype=">f4"),
        "f32_fortran": np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)),
    }
    for name, array in arrays.items():
        buffer = io.BytesIO()
        np.lib.format.write_array(buffer, np.asanyarray(array), version=None, allow_pickle=False)
        (folder / f"{name}.npy").write_bytes(buffer.getvalue())
    for version in [(2, 0), (3, 0)]:
        buffer = io.BytesIO()
        np.lib.format.write_array(buffer, arrays["f32_1x2x2x3"], version=version)
        (folder / f"f32_v{version[0]}.npy").write_bytes(buffer.getvalue())


def png_seeds():
    import cv2
    from PIL import Image

    folder = fresh("png")
    rng = np.random.default_rng(11)
    rgb = rng.integers(0, 256, (5, 7, 3), dtype=np.uint8)
    cv2.imwrite(str(folder / "rgb_7x5.png"), rgb[:, :, ::-1])
    cv2.imwrite(str(folder / "gray_7x5.png"), rgb[:, :, 0])
    cv2.imwrite(str(folder / "rgb16_3x2.png"), (rng.integers(0, 65536, (2, 3, 3))).astype(np.uint16))
    cv2.imwrite(str(folder / "rgba_4x4.png"), rng.integers(0, 256, (4, 4, 4), dtype=np.uint8))
    cv2.imwrite(str(folder / "gray_1x1.png"), np.zeros((1, 1), dtype=np.uint8))
    Image.fromarray(rgb[:, :, :2].copy(), "LA").save(folder / "gray_alpha_7x5.png")
    Image.fromarray(rgb).convert("P", palette=Image.ADAPTIVE, colors=4).save(folder / "palette_7x5.png")
    Image.fromarray(rgb[:, :, 0] > 127).save(folder / "bits_7x5.png")
    Image.fromarray(rgb).save(folder / "rgb_interlaced_7x5.png", interlace=1)


def y4m_seeds():
    folder = fresh("y4m")

    def stream(header, width, height, chroma, frames, frame_header=b"FRAME\n"):
        luma = width * height
        cw, ch = chroma
        size = luma + 2 * cw * ch
        body = b"".join(frame_header + bytes((i * 37 + k) % 256 for k in range(size)) for i in range(frames))
        return header + b"\n" + body

    q = lambda w, h: ((w + 1) // 2, (h + 1) // 2)
    seeds = {
        "420jpeg_4x2_2f": stream(b"YUV4MPEG2 W4 H2 F30:1 Ip A1:1 C420jpeg", 4, 2, q(4, 2), 2),
        "420_3x3_1f": stream(b"YUV4MPEG2 W3 H3 F25:1 C420", 3, 3, q(3, 3), 1),
        "420paldv_2x2_1f": stream(b"YUV4MPEG2 C420paldv W2 H2 F30000:1001 It A0:0", 2, 2, q(2, 2), 1),
        "420mpeg2_2x2_1f": stream(b"YUV4MPEG2 W2 H2 F30:1 C420mpeg2 XYSCSS=420MPEG2", 2, 2, q(2, 2), 1),
        "no_colour_tag_2x2_1f": stream(b"YUV4MPEG2 W2 H2 F30:1", 2, 2, q(2, 2), 1),
        "frame_params_2x2_2f": stream(b"YUV4MPEG2 W2 H2 F30:1 C420jpeg", 2, 2, q(2, 2), 2, b"FRAME Ip Xfoo\n"),
        "header_only": b"YUV4MPEG2 W8 H8 F30:1 C420jpeg\n",
        "444_2x2_1f": stream(b"YUV4MPEG2 W2 H2 F30:1 C444", 2, 2, (2, 2), 1),
        "422_2x2_1f": stream(b"YUV4MPEG2 W2 H2 F30:1 C422", 2, 2, (1, 2), 1),
        "mono_2x2_1f": stream(b"YUV4MPEG2 W2 H2 F30:1 Cmono", 2, 2, (0, 0), 1),
    }
    for name, data in seeds.items():
        (folder / f"{name}.y4m").write_bytes(data)


PARTS = {"onnx": onnx_seeds, "numpy": numpy_seeds, "png": png_seeds, "y4m": y4m_seeds}

if __name__ == "__main__":
    for part in sys.argv[1:] or PARTS:
        PARTS[part]()
        print(part, len(list((CORPUS / part).iterdir())), "files")
