"""Copies a chosen subset of onnx's backend node tests into Fixtures/nodetests/, as .npy files.

The tests are materialised exactly as `Tools/onnx_node_tests.py` does it (regenerated from the
installed onnx package; onnx seeds numpy before each generator, so every run writes the same
bytes). For each chosen test:

    Fixtures/nodetests/<test_name>/model.onnx                       (onnx's model, as generated)
    Fixtures/nodetests/<test_name>/input_<k>_<name>.npy             (graph input k, in graph order)
    Fixtures/nodetests/<test_name>/output_<k>_<name>.npy            (onnx's expected output k)

where <name> is the graph value's name with every character outside [A-Za-z0-9._-] replaced by
'_'. `Fixtures/nodetests/manifest.json` lists per test its op, opset, tolerances, and its graph
inputs and outputs in order (name, file, dtype, shape).

Choice: for each op in `--ops` (default: every op the node suite covers), up to `--per-op` (2)
tests among the op's own tests (not the `_expanded` function-body variants) whose types .npy can
carry and no larger than `--max-test-kb`: first those whose expected outputs onnxruntime
reproduces (the expected outputs are onnx's own either way; the manifest records onnxruntime's
result), then those whose floating-point tensors are all float32, then those with no
floating-point tensor, then the smaller. For the
shape-like ops in `INTEGER_OPS` the second test is the smallest whose first output is an integer
or bool tensor when the first is not, so integer paths are covered too. Bernoulli is left out:
its expected outputs are one draw of numpy's generator.

Run (the folder is replaced):

    venv/bin/python Tools/make_node_test_fixtures.py
    venv/bin/python Tools/make_node_test_fixtures.py --ops Relu,Add,Gather --per-op 3
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx

sys.path.insert(0, str(Path(__file__).resolve().parent))
import onnx_node_tests as suite  # noqa: E402

REPO = suite.REPO
DESTINATION = REPO / "Fixtures" / "nodetests"
# Ops whose expected outputs are one draw of numpy's generator: no implementation can match them.
NONDETERMINISTIC_OPS = {"Bernoulli"}
INTEGER_OPS = ["Shape", "Gather", "Unsqueeze", "Concat", "Reshape", "Cast", "Equal", "Where",
               "Range", "Expand", "Tile", "ConstantOfShape"]


def sanitised(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)


def test_bytes(test: suite.TestData) -> int:
    """The fixture's size on disk, near enough: the model and every array's data plus header."""
    arrays = [np.asarray(v) for v in test.inputs + test.expected]
    return len(test.model.SerializeToString()) + sum(a.nbytes + 128 for a in arrays)


def float_rank(test: suite.TestData) -> int:
    """0 when the test's floating-point tensors are all float32, 1 when it has none, 2 otherwise."""
    floats = {np.asarray(v).dtype for v in test.inputs + test.expected if np.asarray(v).dtype.kind == "f"}
    return 0 if floats == {np.dtype(np.float32)} else 1 if not floats else 2


def integer_output(test: suite.TestData) -> bool:
    return bool(test.expected) and np.asarray(test.expected[0]).dtype.kind in "biu"


def candidates(names: list[str], work: Path, max_bytes: int) -> list[tuple]:
    """The usable tests among `names`, as (name, data, size, onnxruntime's outcome), in order of
    preference (see the module docstring)."""
    found = []
    for name in names:
        if name.endswith("_expanded") or "_expanded_ver" in name:
            continue
        test = suite.load_test(work / "node" / name)
        if suite.type_refusal(test.model) is not None:
            continue
        size = test_bytes(test)
        if size > max_bytes:
            continue
        found.append((name, test, size, suite.run_onnxruntime(test)))
    return sorted(found, key=lambda item: (item[3].status != "pass", float_rank(item[1]), item[2], item[0]))


def choose(op: str, names: list[str], work: Path, per_op: int, max_bytes: int) -> list[tuple]:
    """Up to `per_op` of the op's tests, as (name, data, size, onnxruntime's outcome)."""
    usable = candidates(names, work, max_bytes) if op not in NONDETERMINISTIC_OPS else []
    if not usable:
        return []
    chosen = [usable[0]]
    if op in INTEGER_OPS and per_op > 1 and not integer_output(usable[0][1]):
        integer = [item for item in usable[1:] if integer_output(item[1])]
        if integer:
            chosen.append(min(integer, key=lambda item: (item[3].status != "pass", item[2], item[0])))
    for item in usable[1:]:
        if len(chosen) >= per_op:
            break
        if item[0] not in [c[0] for c in chosen]:
            chosen.append(item)
    return chosen


def value_entries(names: list[str], values: list, role: str) -> list[dict]:
    return [{"name": name, "file": f"{role}_{k}_{sanitised(name)}.npy",
             "dtype": str(np.asarray(value).dtype), "shape": list(np.asarray(value).shape)}
            for k, (name, value) in enumerate(zip(names, values))]


def write_fixture(name: str, op: str, test: suite.TestData, onnxruntime: suite.Outcome, destination: Path) -> dict:
    folder = destination / name
    folder.mkdir(parents=True)
    shutil.copyfile(test.folder / "model.onnx", folder / "model.onnx")
    inputs = value_entries(test.input_names, test.inputs, "input")
    outputs = value_entries(test.output_names, test.expected, "output")
    for entry, value in zip(inputs + outputs, test.inputs + test.expected):
        np.save(folder / entry["file"], np.asarray(value, order="C"), allow_pickle=False)
    opsets = {o.domain or "ai.onnx": o.version for o in test.model.opset_import}
    return {"name": name, "op": op, "opset_import": opsets, "rtol": suite.RTOL, "atol": suite.ATOL,
            "onnxruntime": onnxruntime.status if onnxruntime.status == "pass" else f"{onnxruntime.status}: {onnxruntime.reason}",
            "inputs": inputs, "outputs": outputs}


def manifest_text(header: dict) -> str:
    """JSON with one test per line: small, and a regenerated manifest diffs test by test."""
    fields = [f" {json.dumps(key)}: {json.dumps(value)}" for key, value in header.items() if key != "tests"]
    tests = ",\n".join(f"  {json.dumps(test)}" for test in header["tests"])
    return "{\n" + ",\n".join(fields) + ',\n "tests": [\n' + tests + "\n ]\n}\n"


def folder_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ops", default="all",
                        help="comma-separated op types (as in Docs/ONNX.md's node-test table, e.g. "
                             "Relu,ai.onnx.ml.Binarizer), or 'all' (default)")
    parser.add_argument("--per-op", type=int, default=2, help="tests per op (default 2)")
    parser.add_argument("--max-test-kb", type=int, default=100, help="largest test taken, in KB (default 100)")
    parser.add_argument("--destination", type=Path, default=DESTINATION, help="output folder (replaced)")
    parser.add_argument("--work", type=Path, help="materialised suite to use or make (default: a temporary folder)")
    return parser.parse_args()


def main() -> int:
    arguments = parse_arguments()
    temporary = None if arguments.work else tempfile.TemporaryDirectory(prefix="vbg-node-tests-")
    work = (arguments.work or Path(temporary.name)).resolve()
    try:
        ops = suite.materialise(work, re.compile(""))
        by_op: dict[str, list[str]] = {}
        for name, op in sorted(ops.items()):
            by_op.setdefault(op, []).append(name)
        wanted = sorted(by_op) if arguments.ops == "all" else [op.strip() for op in arguments.ops.split(",")]
        unknown = [op for op in wanted if op not in by_op]
        if unknown:
            sys.exit(f"ops not in onnx's node test suite: {', '.join(unknown)}")
        destination = arguments.destination.resolve()
        shutil.rmtree(destination, ignore_errors=True)
        destination.mkdir(parents=True)
        manifest, missing = [], []
        for op in wanted:
            chosen = choose(op, by_op[op], work, arguments.per_op, arguments.max_test_kb * 1024)
            if not chosen:
                missing.append(op)
            for name, test, _, onnxruntime in chosen:
                manifest.append(write_fixture(name, op, test, onnxruntime, destination))
        header = {
            "source": f"onnx {onnx.__version__} backend node test suite (onnx.backend.test.case.node), "
                      "Apache-2.0; made by Tools/make_node_test_fixtures.py",
            "onnx": onnx.__version__,
            "ops_without_fixture": missing,
            "tests": manifest,
        }
        (destination / "manifest.json").write_text(manifest_text(header))
        print(f"{len(manifest)} tests of {len(wanted) - len(missing)} ops, {folder_bytes(destination) / 1e6:.2f} MB "
              f"in {destination}; no usable test for {len(missing)} ops: {', '.join(missing)}")
    finally:
        if temporary is not None:
            temporary.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
