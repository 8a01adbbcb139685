"""Copies a small subset of onnx's model suites into Fixtures/modelsuites/<kind>/, as .npy files.

The suites are `pytorch-converted`, `pytorch-operator` and `simple` (shipped as data files with
the onnx package; `onnx.backend.test.loader.load_model_tests(kind=...)`). For each: the tests in
`CHOSEN` (ones that use the definitions of opsets 1-6 that changed at 7: old broadcasting, Gemm's
`broadcast`, per-channel PRelu, BatchNormalization's `is_test`, Split, Tile-1's form...), then up to
`--per-suite` (6) more whose types .npy can carry and no larger than `--max-test-kb` (40): first
those onnxruntime passes, then the smaller, then by name. The layout and manifest are those of
Fixtures/nodetests (see Tools/make_node_test_fixtures.py), plus "folder" per test; the "op" of a
test is its suite.

    venv/bin/python Tools/make_model_suite_fixtures.py
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
from pathlib import Path

import onnx

sys.path.insert(0, str(Path(__file__).resolve().parent))
import make_node_test_fixtures as fixtures  # noqa: E402
import onnx_node_tests as suite  # noqa: E402

DESTINATION = suite.REPO / "Fixtures" / "modelsuites"
CHOSEN = {
    "pytorch-converted": ["test_PReLU_2d_multiparam", "test_Linear", "test_BatchNorm2d_eval", "test_ConstantPad2d", "test_GLU",
                          "test_PixelShuffle", "test_Softsign"],
    "pytorch-operator": ["test_operator_chunk", "test_operator_repeat", "test_operator_addmm", "test_operator_params",
                         "test_operator_pow", "test_operator_concat2"],
    "simple": ["test_sequence_model1"],
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-suite", type=int, default=6, help="tests per suite besides CHOSEN (default 6)")
    parser.add_argument("--max-test-kb", type=int, default=40, help="largest test taken, in KB (default 40)")
    arguments = parser.parse_args()
    shutil.rmtree(DESTINATION, ignore_errors=True)
    DESTINATION.mkdir(parents=True)
    manifest = []
    with tempfile.TemporaryDirectory(prefix="vbg-model-suites-") as temporary:
        work = Path(temporary)
        for kind in suite.MODEL_KINDS:
            found = []
            for name in suite.materialise_models(work, kind, re.compile("")):
                test = suite.load_test(work / kind / name)
                size = fixtures.test_bytes(test)
                if suite.type_refusal(test.model) is None and size <= arguments.max_test_kb * 1024:
                    found.append((suite.run_onnxruntime(test).status != "pass", size, name, test))
            chosen = [item for item in found if item[2] in CHOSEN[kind]]
            others = sorted((item for item in found if item[2] not in CHOSEN[kind]), key=lambda item: item[:3])
            for _, _, name, test in chosen + others[: arguments.per_suite]:
                entry = fixtures.write_fixture(name, kind, test, suite.run_onnxruntime(test), DESTINATION / kind)
                manifest.append({"name": name, "folder": f"modelsuites/{kind}", **{k: v for k, v in entry.items() if k != "name"}})
    header = {"source": f"onnx {onnx.__version__} backend model suites ({', '.join(suite.MODEL_KINDS)}), Apache-2.0; "
                        "made by Tools/make_model_suite_fixtures.py",
              "onnx": onnx.__version__, "tests": manifest}
    (DESTINATION / "manifest.json").write_text(fixtures.manifest_text(header))
    print(f"{len(manifest)} tests, {fixtures.folder_bytes(DESTINATION) / 1e3:.0f} KB in {DESTINATION}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
