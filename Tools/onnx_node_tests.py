"""Runs onnx's own backend node test suite (or its model suites) through `vbg infer` and onnxruntime, and reports per op.

`--kind` picks the suite: `node` (the default; the steps below), or one of onnx's model suites
`pytorch-converted`, `pytorch-operator`, `simple` (`onnx.backend.test.loader.load_model_tests(kind=...)`),
which onnx ships as data files (`model.onnx` plus `test_data_set_0/*.pb`): they are copied into
`<work>/<kind>/<test>/` and then run as steps 2-5 say; the "op" of such a test is its name.
`--kind models` runs the three model suites one after the other (one report per suite).

What it does for the node suite, in order:

1. Materialises the node tests from the installed onnx package into a work folder (onnx >= 1.23
   no longer ships the data files): for every test under "node", `<work>/node/<test>/model.onnx`
   and `test_data_set_0/{input,output}_<k>.pb`, written as onnx's own `backend-test-tools
   generate-data` writes them. onnx seeds numpy (`np.random.seed(0)`) before each generator, so
   the data is the same on every run. `<work>/index.json` records each test's op (see below).
2. Converts each test's tensors to `.npy` (`npy/input_<k>.npy`, `npy/output_<k>.npy`; string
   tensors as numpy's unicode dtype `<U<n>`, which needs no pickle). A test with a tensor type
   numpy lacks (bfloat16, float8, float4e2m1, the 4- and 2-bit integers) among its graph inputs
   or outputs is given to vbg as TensorProto files instead: its own `test_data_set_0/input_<k>.pb`,
   and `vbg/output_<k>.pb` for the outputs (a vbg whose `help infer` does not mention `.pb`
   refuses such tests, "type: ..."). A test with a sequence, optional or map, or a type neither
   file carries for vbg (complex, float6, strings beside TensorProto files) is not given to vbg:
   it counts as "refused" with a reason starting "type:".
3. Runs `vbg infer --model model.onnx --input NAME=in.npy ... --output NAME=out.npy ...
   [--path P]` (or the `.pb` files), naming every graph input and output in graph order. vbg splits each value at its
   FIRST '=' (names with '=' do not occur in the suite; the harness refuses such a test with a
   "harness:" reason rather than guess). A binary whose `vbg help infer` does not mention
   `NAME=` is the older single-tensor interface: single-input single-output tests are run as
   `--input X.npy --output Y.npy`, the others count as refused ("harness: ...").
4. Runs onnxruntime (CPUExecutionProvider, one thread) on the same model and inputs, inside this
   process: its exceptions are recorded ("error"), but a crash of onnxruntime itself would end the
   run (`--no-ort` leaves it out).
5. Compares as onnx's backend runner does (`onnx.backend.test.runner`): same number of outputs,
   same shapes, same dtypes, then `numpy.testing.assert_allclose(rtol=1e-3, atol=1e-7)` (NaN
   equals NaN) on float32 copies of the ml_dtypes types (bfloat16 with rtol 2^-6, two bfloat16
   ulps, as the runner allows); integer and bool outputs must be exactly equal (the runner's
   allclose would let 1000 pass for 1001).

Each vbg result is one of: pass; wrong (ran and exited 0, but an output is missing or has the wrong
shape, dtype or values); refused (exited non-zero: the first line of stderr is the reason; also
the "type:" and "harness:" cases above); crash (killed by a signal, or still running after
`--timeout` seconds).

Op of a test: the op of the node onnx's `expect()` was called with (onnx records it per test
name); the `_expanded` tests (the op's function body as several nodes) are counted under that op.
Ops outside the default domain are written `domain.Op`.

Run (from anywhere; the release binary must exist):

    swift build -c release --product vbg
    venv/bin/python Tools/onnx_node_tests.py --write-docs --json .build/node-tests.json
    venv/bin/python Tools/onnx_node_tests.py --filter '^test_(relu|add)' --path reference

`--write-docs` replaces the table between `<!-- node-tests:begin -->` and
`<!-- node-tests:end -->` in Docs/ONNX.md (adding the section at the end if absent); for the model
suites, the table between `<!-- model-suites:begin -->` and `<!-- model-suites:end -->` (one row
per suite, beside the node suite's totals).

    venv/bin/python Tools/onnx_node_tests.py --kind models --write-docs
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "Docs" / "ONNX.md"
BEGIN, END = "<!-- node-tests:begin -->", "<!-- node-tests:end -->"
MODELS_BEGIN, MODELS_END = "<!-- model-suites:begin -->", "<!-- model-suites:end -->"
MODEL_KINDS = ("pytorch-converted", "pytorch-operator", "simple")
RTOL, ATOL = 1e-3, 1e-7

# ONNX tensor element types that have a .npy (and NumpyFormat) counterpart.
NPY_TYPES = {
    onnx.TensorProto.FLOAT, onnx.TensorProto.DOUBLE, onnx.TensorProto.FLOAT16,
    onnx.TensorProto.INT8, onnx.TensorProto.INT16, onnx.TensorProto.INT32, onnx.TensorProto.INT64,
    onnx.TensorProto.UINT8, onnx.TensorProto.UINT16, onnx.TensorProto.UINT32, onnx.TensorProto.UINT64,
    onnx.TensorProto.BOOL, onnx.TensorProto.STRING,  # strings as numpy's <U dtype
}
# The types only a TensorProto (.pb) file carries to vbg: numpy_helper reads them as ml_dtypes arrays.
PB_TYPES = {
    onnx.TensorProto.BFLOAT16, onnx.TensorProto.FLOAT8E4M3FN, onnx.TensorProto.FLOAT8E4M3FNUZ,
    onnx.TensorProto.FLOAT8E5M2, onnx.TensorProto.FLOAT8E5M2FNUZ, onnx.TensorProto.FLOAT8E8M0,
    onnx.TensorProto.FLOAT4E2M1, onnx.TensorProto.INT4, onnx.TensorProto.UINT4,
    onnx.TensorProto.INT2, onnx.TensorProto.UINT2,
}


# ----------------------------------------------------------------------------------------------
# 1. Materialising the suite


def op_label(node: onnx.NodeProto) -> str:
    return node.op_type if node.domain in ("", "ai.onnx") else f"{node.domain}.{node.op_type}"


def collect_node_cases() -> tuple[list, dict[str, str]]:
    """onnx's node test cases, and each test's op (from the node `expect()` recorded)."""
    import warnings

    from onnx.backend.test.case import node as node_cases
    from onnx.backend.test.loader import load_model_tests

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the generators' own overflow / divide-by-zero warnings
        cases = load_model_tests(kind="node")
    ops = {}
    for case in cases:
        base = re.sub(r"_expanded(_ver\d+)?$", "", case.name)
        node = node_cases._existing_names.get(case.name) or node_cases._existing_names.get(base)
        ops[case.name] = op_label(node) if node is not None else op_label(case.model.graph.node[0])
    return cases, ops


def value_proto(value, value_info: onnx.ValueInfoProto) -> bytes:
    """One input or output as the .pb bytes onnx's generate-data writes."""
    kind = value_info.type.WhichOneof("value")
    if kind == "map_type":
        return numpy_helper.from_dict(value, value_info.name).SerializeToString()
    if kind == "sequence_type":
        return numpy_helper.from_list(value, value_info.name).SerializeToString()
    if kind == "optional_type":
        return numpy_helper.from_optional(value, value_info.name).SerializeToString()
    if isinstance(value, onnx.TensorProto):
        return value.SerializeToString()
    return numpy_helper.from_array(value, value_info.name).SerializeToString()


def write_case(case, folder: Path) -> None:
    """model.onnx and test_data_set_0/{input,output}_<k>.pb of one test."""
    if folder.exists():
        shutil.rmtree(folder)
    data = folder / "test_data_set_0"
    data.mkdir(parents=True)
    (folder / "model.onnx").write_bytes(case.model.SerializeToString())
    inputs, outputs = case.data_sets[0]
    for k, value in enumerate(inputs):
        (data / f"input_{k}.pb").write_bytes(value_proto(value, case.model.graph.input[k]))
    for k, value in enumerate(outputs):
        (data / f"output_{k}.pb").write_bytes(value_proto(value, case.model.graph.output[k]))


def materialise_models(work: Path, kind: str, pattern: re.Pattern) -> dict[str, str]:
    """Copies onnx's `kind` model tests matching `pattern` into `work/kind/<test>`; {test: test}."""
    from onnx.backend.test.loader import load_model_tests

    ops = {}
    for case in load_model_tests(kind=kind):
        if not pattern.search(case.name):
            continue
        folder = work / kind / case.name
        if not (folder / "model.onnx").exists():
            shutil.rmtree(folder, ignore_errors=True)
            shutil.copytree(case.model_dir, folder)
        ops[case.name] = case.name
    return ops


def materialise(work: Path, pattern: re.Pattern) -> dict[str, str]:
    """Writes the tests matching `pattern` that are not in `work` yet; returns {test: op} for all.

    `work/index.json` holds the onnx version and every test's op; a work folder made by another
    onnx version is regenerated.
    """
    index_path = work / "index.json"
    index = json.loads(index_path.read_text()) if index_path.exists() else {}
    if index.get("onnx") == onnx.__version__:
        wanted = [name for name in index["ops"] if pattern.search(name)]
        if all((work / "node" / name / "model.onnx").exists() for name in wanted):
            return index["ops"]
    print(f"materialising onnx {onnx.__version__} node tests into {work} ...", file=sys.stderr)
    cases, ops = collect_node_cases()
    for case in cases:
        if pattern.search(case.name):
            write_case(case, work / "node" / case.name)
    work.mkdir(parents=True, exist_ok=True)
    index_path.write_text(json.dumps({"onnx": onnx.__version__, "ops": ops}, indent=1, sort_keys=True))
    return ops


# ----------------------------------------------------------------------------------------------
# 2. Reading a test's data


def read_value(path: Path, value_info: onnx.ValueInfoProto):
    """A .pb input or output as numpy: an array, a list (sequence), None or a value (optional)."""
    kind = value_info.type.WhichOneof("value")
    raw = path.read_bytes()
    if kind == "sequence_type":
        proto = onnx.SequenceProto()
        proto.ParseFromString(raw)
        return numpy_helper.to_list(proto)
    if kind == "optional_type":
        proto = onnx.OptionalProto()
        proto.ParseFromString(raw)
        return numpy_helper.to_optional(proto)
    if kind == "map_type":
        proto = onnx.MapProto()
        proto.ParseFromString(raw)
        return numpy_helper.to_dict(proto)
    proto = onnx.TensorProto()
    proto.ParseFromString(raw)
    return numpy_helper.to_array(proto)


def graph_tensor_types(model: onnx.ModelProto):
    """(role, kind, element type) of every fed input and output."""
    for role, values in (("input", fed_inputs(model)), ("output", model.graph.output)):
        for value in values:
            yield role, value.type.WhichOneof("value"), value.type.tensor_type.elem_type


def needs_pb(model: onnx.ModelProto) -> bool:
    """Whether the test's tensors go to vbg as TensorProto files (a type .npy cannot carry)."""
    return any(kind == "tensor_type" and elem in PB_TYPES for _, kind, elem in graph_tensor_types(model))


def type_refusal(model: onnx.ModelProto, pb_files: bool) -> str | None:
    """Why the test cannot be given to vbg as .npy files (or, with `pb_files`, as .pb files when
    .npy cannot carry it), or None."""
    as_pb = pb_files and needs_pb(model)
    for role, kind, elem in graph_tensor_types(model):
        if kind != "tensor_type":
            return f"type: {kind.removesuffix('_type')} {role}"
        if elem not in (PB_TYPES | NPY_TYPES - {onnx.TensorProto.STRING} if as_pb else NPY_TYPES):
            return f"type: {onnx.TensorProto.DataType.Name(elem).lower()} {role}"
    return None


@dataclass
class TestData:
    folder: Path
    model: onnx.ModelProto
    inputs: list
    expected: list
    input_names: list[str]
    output_names: list[str]


def fed_inputs(model: onnx.ModelProto) -> list[onnx.ValueInfoProto]:
    """The graph inputs a test feeds: all but those with an initializer (which models of IR
    version < 4, as in the model suites, also list as graph inputs)."""
    initialized = {tensor.name for tensor in model.graph.initializer}
    return [v for v in model.graph.input if v.name not in initialized]


def load_test(folder: Path) -> TestData:
    model = onnx.load(str(folder / "model.onnx"))
    data = folder / "test_data_set_0"
    fed = fed_inputs(model)
    inputs = [read_value(data / f"input_{k}.pb", v) for k, v in enumerate(fed)]
    expected = [read_value(data / f"output_{k}.pb", v) for k, v in enumerate(model.graph.output)]
    return TestData(folder, model, inputs, expected, [v.name for v in fed], [v.name for v in model.graph.output])


def write_npy(test: TestData) -> tuple[list[Path], list[Path]]:
    """npy/input_<k>.npy and npy/output_<k>.npy (expected); the paths, in graph order."""
    folder = test.folder / "npy"
    folder.mkdir(exist_ok=True)
    inputs = [folder / f"input_{k}.npy" for k in range(len(test.inputs))]
    outputs = [folder / f"output_{k}.npy" for k in range(len(test.expected))]
    for path, value in zip(inputs + outputs, test.inputs + test.expected):
        # np.asarray(order="C"), not np.ascontiguousarray: that one turns a 0-d array into 1-d.
        array = np.asarray(value, order="C")
        if array.dtype == object:  # onnx's strings; <U needs no pickle
            array = array.astype(str)
        np.save(path, array, allow_pickle=False)
    return inputs, outputs


# ----------------------------------------------------------------------------------------------
# 3. Comparing


def mismatch(expected, actual, where: str = "output") -> str | None:
    """None when `actual` matches `expected` as onnx's backend runner checks it, else why not."""
    if isinstance(expected, (list, tuple)):
        if not isinstance(actual, (list, tuple)) or len(actual) != len(expected):
            return f"{where}: expected a sequence of {len(expected)}, got {type(actual).__name__}"
        for j, (e, a) in enumerate(zip(expected, actual)):
            if (why := mismatch(e, a, f"{where}[{j}]")) is not None:
                return why
        return None
    if expected is None or actual is None:
        return None if expected is None and actual is None else f"{where}: optional presence differs"
    expected, actual = np.asarray(expected), np.asarray(actual)
    if expected.shape != actual.shape:
        return f"{where}: shape {list(actual.shape)}, expected {list(expected.shape)}"
    if expected.dtype == object:
        return None if np.array_equal(expected, actual) else f"{where}: strings differ"
    if expected.dtype != actual.dtype:
        return f"{where}: dtype {actual.dtype}, expected {expected.dtype}"
    if expected.dtype.kind in "biu":
        bad = np.flatnonzero(expected.reshape(-1) != actual.reshape(-1))
        return None if bad.size == 0 else f"{where}: {bad.size} of {expected.size} elements differ (first at {bad[0]})"
    rtol = RTOL
    if expected.dtype.kind not in "fc":  # bfloat16, float8, int4 ... from ml_dtypes
        if expected.dtype.name == "bfloat16":
            rtol = max(RTOL, 2**-6)  # two bfloat16 ulps, as onnx's runner allows
        expected, actual = expected.astype(np.float32), actual.astype(np.float32)
    try:
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=ATOL)
    except AssertionError as error:
        lines = [line.strip() for line in str(error).splitlines() if line.strip().startswith("Max")]
        return f"{where}: values differ ({'; '.join(lines) or 'allclose'})"
    return None


def compare_all(expected: list, actual: list) -> str | None:
    if len(actual) != len(expected):
        return f"{len(actual)} outputs, expected {len(expected)}"
    for k, (e, a) in enumerate(zip(expected, actual)):
        if (why := mismatch(e, a, f"output {k}")) is not None:
            return why
    return None


# ----------------------------------------------------------------------------------------------
# 4. Running vbg and onnxruntime


@dataclass
class Outcome:
    status: str  # pass, wrong, refused, crash (vbg); pass, fail, error (onnxruntime)
    reason: str = ""


@dataclass
class Result:
    name: str
    op: str
    vbg: Outcome
    ort: Outcome
    seconds: float = 0.0


@dataclass
class VbgRunner:
    binary: Path
    path: str | None
    timeout: float
    named_form: bool = field(init=False)
    pb_files: bool = field(init=False)

    def __post_init__(self):
        help_text = subprocess.run([str(self.binary), "help", "infer"], capture_output=True, text=True, timeout=30)
        self.named_form = "NAME=" in help_text.stdout + help_text.stderr
        self.pb_files = self.named_form and ".pb" in help_text.stdout + help_text.stderr

    def command(self, test: TestData, inputs: list[Path], outputs: list[Path]) -> list[str] | str:
        """The vbg command line, or the reason the harness cannot express the test."""
        command = [str(self.binary), "infer", "--model", str(test.folder / "model.onnx")]
        if self.named_form:
            if any("=" in name for name in test.input_names + test.output_names):
                return "harness: a graph input or output name contains '='"
            for name, path in zip(test.input_names, inputs):
                command += ["--input", f"{name}={path}"]
            for name, path in zip(test.output_names, outputs):
                command += ["--output", f"{name}={path}"]
        else:
            if len(inputs) != 1 or len(outputs) != 1:
                return (f"harness: this vbg infer takes one input and one output "
                        f"(the test has {len(inputs)} and {len(outputs)})")
            command += ["--input", str(inputs[0]), "--output", str(outputs[0])]
        if self.path:
            command += ["--path", self.path]
        return command

    def run(self, test: TestData, inputs: list[Path], suffix: str = ".npy") -> Outcome:
        """Runs vbg on `inputs` (.npy files, or with `suffix` ".pb" TensorProto files, as the
        outputs are then written and read)."""
        out_folder = test.folder / "vbg"
        shutil.rmtree(out_folder, ignore_errors=True)
        out_folder.mkdir()
        outputs = [out_folder / f"output_{k}{suffix}" for k in range(len(test.expected))]
        command = self.command(test, inputs, outputs)
        if isinstance(command, str):
            return Outcome("refused", command)
        try:
            process = subprocess.run(command, capture_output=True, text=True, errors="replace", timeout=self.timeout)
        except subprocess.TimeoutExpired:
            return Outcome("crash", f"timeout after {self.timeout:g} s")
        if process.returncode < 0:
            return Outcome("crash", f"signal {-process.returncode}")
        if process.returncode != 0:
            first = next((line for line in process.stderr.splitlines() if line.strip()), "")
            return Outcome("refused", first or f"exit {process.returncode}, no message")
        actual = []
        for path in outputs:
            if not path.exists():
                return Outcome("wrong", f"{path.name} not written")
            try:
                if suffix == ".pb":
                    proto = onnx.TensorProto()
                    proto.ParseFromString(path.read_bytes())
                    actual.append(numpy_helper.to_array(proto))
                else:
                    actual.append(np.load(path, allow_pickle=False))
            except Exception as error:  # noqa: BLE001 - any unreadable output is a wrong result
                return Outcome("wrong", f"{path.name} unreadable: {error}")
        why = compare_all(test.expected, actual)
        return Outcome("pass") if why is None else Outcome("wrong", why)


def run_onnxruntime(test: TestData) -> Outcome:
    import onnxruntime

    onnxruntime.set_default_logger_severity(4)

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 4  # its own refusals are recorded; keep stderr for progress
    try:
        session = onnxruntime.InferenceSession(test.model.SerializeToString(), options,
                                               providers=["CPUExecutionProvider"])
        feeds = dict(zip(test.input_names, test.inputs))
        actual = session.run(test.output_names, feeds)
    except Exception as error:  # noqa: BLE001 - onnxruntime's refusals are results here
        return Outcome("error", first_line(str(error)))
    why = compare_all(test.expected, actual)
    return Outcome("pass") if why is None else Outcome("fail", why)


def first_line(text: str, limit: int = 300) -> str:
    line = next((line for line in text.splitlines() if line.strip()), "")
    return line[:limit]


def run_test(name: str, op: str, work: Path, vbg: VbgRunner, with_ort: bool, kind: str = "node") -> Result:
    started = time.monotonic()
    folder = work / kind / name
    test = load_test(folder)
    ort = run_onnxruntime(test) if with_ort else Outcome("skipped")
    refusal = type_refusal(test.model, vbg.pb_files)
    if refusal is not None:
        outcome = Outcome("refused", refusal)
    elif vbg.pb_files and needs_pb(test.model):
        data = folder / "test_data_set_0"
        outcome = vbg.run(test, [data / f"input_{k}.pb" for k in range(len(test.inputs))], suffix=".pb")
    else:
        inputs, _ = write_npy(test)
        outcome = vbg.run(test, inputs)
    return Result(name, op, outcome, ort, round(time.monotonic() - started, 3))


def run_all(names: list[str], ops: dict[str, str], work: Path, vbg: VbgRunner, jobs: int, with_ort: bool,
            kind: str = "node") -> list[Result]:
    """Every test, `jobs` at a time (threads: vbg runs in a child process, onnxruntime and numpy
    release the GIL)."""
    results: list[Result] = []
    lock = threading.Lock()

    def one(name: str) -> Result:
        try:
            result = run_test(name, ops[name], work, vbg, with_ort, kind)
        except Exception as error:  # noqa: BLE001 - a harness failure on one test must not end the run
            result = Result(name, ops[name], Outcome("refused", f"harness: {type(error).__name__}: {first_line(str(error))}"), Outcome("error", "harness"))
        with lock:
            results.append(result)
            if len(results) % 100 == 0 or len(results) == len(names):
                counts = collections.Counter(r.vbg.status for r in results)
                print(f"{len(results)}/{len(names)} {dict(counts)}", file=sys.stderr)
        return result

    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(one, names))
    return sorted(results, key=lambda r: r.name)


# ----------------------------------------------------------------------------------------------
# 5. Reporting

STATUSES = ("pass", "wrong", "refused", "crash")


def per_op(results: list[Result]) -> dict[str, dict[str, int]]:
    table: dict[str, dict[str, int]] = collections.defaultdict(lambda: collections.Counter())
    for r in results:
        row = table[r.op]
        row["tests"] += 1
        row[r.vbg.status] += 1
        row["ort pass"] += r.ort.status == "pass"
    # Default-domain ops first, then the other domains' (their names contain a dot).
    return dict(sorted(table.items(), key=lambda item: ("." in item[0], item[0].lower())))


def totals(results: list[Result]) -> dict[str, int]:
    counts = collections.Counter(r.vbg.status for r in results)
    ort = collections.Counter(r.ort.status for r in results)
    return {"tests": len(results), **{s: counts[s] for s in STATUSES},
            "ort pass": ort["pass"], "ort fail": ort["fail"], "ort error": ort["error"]}


def general_reason(reason: str, work: Path) -> str:
    """A refusal reason with what is particular to one test (its paths, node and value names,
    input and output counts) taken out, so that equal causes group together."""
    for kind in ("node", *MODEL_KINDS):
        reason = reason.replace(str(work / kind) + "/", "")
    reason = re.sub(r"test_[A-Za-z0-9_]+/(model\.onnx|npy/|vbg/)", r"<test>/\1", reason)
    reason = re.sub(r"\b(node|input|output) '[^']*'", r"\1 '…'", reason)
    reason = re.sub(r" \(the test has \d+ and \d+\)", "", reason)
    return reason if len(reason) <= 160 else reason[:157] + "..."


def refusal_reasons(results: list[Result], work: Path) -> list[tuple[str, int]]:
    reasons = collections.Counter(general_reason(r.vbg.reason, work) for r in results if r.vbg.status == "refused")
    return reasons.most_common()


def markdown(results: list[Result], work: Path, settings: dict) -> str:
    total = totals(results)
    with_ort = any(r.ort.status != "skipped" for r in results)
    ort_total = (f"onnxruntime pass {total['ort pass']} (wrong {total['ort fail']}, refused or failed to run "
                 f"{total['ort error']})" if with_ort else "onnxruntime not run (--no-ort)")
    lines = [
        f"From `{settings['command']}`: onnx {settings['onnx']} "
        f"({total['tests']} node tests), onnxruntime {settings['onnxruntime']}, vbg built from "
        f"{settings['commit']}, path {settings['path'] or 'default'}"
        + (", a vbg whose `infer` takes one `--input X.npy` and one `--output Y.npy` (the harness refuses"
           " tests with more inputs or outputs)." if settings["interface"] == "single" else "."),
        "",
        f"**Totals: vbg pass {total['pass']}, wrong {total['wrong']}, refused {total['refused']}, "
        f"crash {total['crash']} of {total['tests']}; {ort_total}.**",
        "",
        "| op | tests | vbg pass | wrong | refused | crash | onnxruntime pass |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    rows = [*per_op(results).items(), ("**total**", total)]
    for op, row in rows:
        ort = row["ort pass"] if with_ort else "–"
        lines.append(f"| {op} | {row['tests']} | {row['pass']} | {row['wrong']} | {row['refused']} | {row['crash']} | {ort} |")
    reasons = refusal_reasons(results, work)
    shown = 30
    lines += ["", f"Refusal reasons ({len(reasons)} distinct; the first line of vbg's stderr, paths shortened):", ""]
    lines += ["| tests | reason |", "|---:|---|"]
    for reason, count in reasons[:shown]:
        lines.append(f"| {count} | {reason.replace('|', '&#124;')} |")
    if len(reasons) > shown:
        rest = sum(count for _, count in reasons[shown:])
        lines.append(f"| {rest} | ({len(reasons) - shown} other reasons; see the JSON summary) |")
    return "\n".join(lines)


SECTION_INTRO = """
## Conformance: onnx's node test suite

`Tools/onnx_node_tests.py` (see `Tools/README.md`) runs every test of onnx's backend node test
suite through `vbg infer` and through onnxruntime (CPUExecutionProvider), and compares both with
the suite's expected outputs as onnx's backend runner does: rtol 1e-3, atol 1e-7, NaN equal to
NaN, shapes and dtypes equal, integer and bool outputs exactly equal. A test with a type `.npy`
cannot hold (bfloat16, float8, float4e2m1, 4- and 2-bit integers) runs on onnx's own `.pb` files
(`vbg infer` reads and writes TensorProtos). For vbg: *pass*; *wrong* (ran,
but an output is missing or differs in shape, dtype or values); *refused* (vbg exited with an
error, whose first line is the reason; also a test whose types neither a `.npy` file nor a
TensorProto `.pb` file carries to vbg: sequences, optionals, maps, complex...); *crash* (a signal, or 60 s without
finishing). The op of a test is the op onnx generated it for; its `_expanded` variants (the op's
function body, several nodes) count under that op. The block below is rewritten by
`--write-docs`; do not edit it by hand.
"""


MODELS_INTRO = """
## Conformance: onnx's model suites

onnx also ships three suites of whole models in the node tests' layout: `pytorch-converted`
(PyTorch modules exported at opset 6, most of them), `pytorch-operator` (single PyTorch operators)
and `simple` (small graphs, sequences among them). `Tools/onnx_node_tests.py --kind models` runs
them as it runs the node suite (same comparison, same outcomes); the block below is rewritten by
`--kind models --write-docs`; do not edit it by hand.
"""


def models_markdown(runs: list[tuple[str, list[Result]]], work: Path, settings: dict) -> str:
    """One row per model suite, then every test vbg does not pass with vbg's and onnxruntime's outcome."""
    lines = [
        f"From `{settings['command']}`: onnx {settings['onnx']}, onnxruntime {settings['onnxruntime']}, "
        f"vbg built from {settings['commit']}, path {settings['path'] or 'default'}.",
        "",
        "| suite | tests | vbg pass | wrong | refused | crash | onnxruntime pass | vbg wrong where onnxruntime passes |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for kind, results in runs:
        total = totals(results)
        wrong_where_ort = sum(r.vbg.status in ("wrong", "crash") and r.ort.status == "pass" for r in results)
        lines.append(f"| {kind} | {total['tests']} | {total['pass']} | {total['wrong']} | {total['refused']} | "
                     f"{total['crash']} | {total['ort pass']} | {wrong_where_ort} |")
    lines += ["", "Tests vbg does not pass:", "", "| suite | test | vbg | reason | onnxruntime |", "|---|---|---|---|---|"]
    for kind, results in runs:
        for r in results:
            if r.vbg.status != "pass":
                reason = general_reason(r.vbg.reason, work).replace("|", "&#124;")
                lines.append(f"| {kind} | {r.name} | {r.vbg.status} | {reason} | {r.ort.status} |")
    return "\n".join(lines)


def write_docs(body: str, path: Path = DOCS, begin: str = BEGIN, end: str = END, intro: str = SECTION_INTRO) -> None:
    text = path.read_text()
    block = f"{begin}\n{body}\n{end}"
    if begin in text and end in text:
        text = text[: text.index(begin)] + block + text[text.index(end) + len(end):]
    else:
        text = text.rstrip("\n") + "\n" + intro + "\n" + block + "\n"
    path.write_text(text)


def summary_json(results: list[Result], work: Path, settings: dict) -> dict:
    return {
        "settings": settings,
        "totals": totals(results),
        "ops": per_op(results),
        "refusal_reasons": refusal_reasons(results, work),
        "tests": [asdict(r) for r in results],
    }


def result_command(arguments: argparse.Namespace) -> str:
    """The command line for the docs, with only the options that change results."""
    words = ["Tools/onnx_node_tests.py"]
    if arguments.vbg.resolve() != (REPO / ".build/release/vbg").resolve():
        words += ["--vbg", str(arguments.vbg).replace(str(REPO) + "/", "")]
    if arguments.path:
        words += ["--path", arguments.path]
    if arguments.kind != "node":
        words += ["--kind", arguments.kind]
    if arguments.filter:
        words += ["--filter", repr(arguments.filter)]
    if arguments.timeout != 60:
        words += ["--timeout", f"{arguments.timeout:g}"]
    return " ".join(words)


def git_commit() -> str:
    """The last commit that changed Sources/ or Package.swift (what the binary is assumed built
    from), noting uncommitted changes there."""
    try:
        commit = subprocess.run(["git", "-C", str(REPO), "log", "-1", "--format=%h", "--", "Sources", "Package.swift"],
                                capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--", "Sources", "Package.swift"],
                               capture_output=True, text=True).stdout.strip()
        return f"`{commit}`" + (" (with uncommitted changes in Sources)" if dirty else "")
    except OSError:
        return "unknown commit"


# ----------------------------------------------------------------------------------------------


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vbg", type=Path, default=Path(os.environ.get("VBG", REPO / ".build/release/vbg")),
                        help="the vbg binary (default: $VBG or .build/release/vbg)")
    parser.add_argument("--path", choices=["reference", "fast"], help="passed to vbg infer as --path")
    parser.add_argument("--kind", default="node", choices=["node", *MODEL_KINDS, "models"],
                        help="the suite: node (default), one of onnx's model suites, or models (all three)")
    parser.add_argument("--filter", default="", help="regular expression on test names (re.search)")
    parser.add_argument("--jobs", type=int, default=2, help="tests run at once (default 2)")
    parser.add_argument("--timeout", type=float, default=60, help="seconds per vbg run before it counts as a crash")
    parser.add_argument("--no-ort", action="store_true",
                        help="do not run onnxruntime (it runs in this process, one thread per job)")
    parser.add_argument("--write-docs", action="store_true", help="update the node-tests section of Docs/ONNX.md")
    parser.add_argument("--json", type=Path, help="write the machine-readable summary here")
    parser.add_argument("--work", type=Path, help="keep the materialised suite here (default: a temporary folder)")
    return parser.parse_args()


def main() -> int:
    arguments = parse_arguments()
    if arguments.write_docs and arguments.kind in MODEL_KINDS:
        sys.exit("--write-docs with a model suite needs --kind models (the block shows all three)")
    if arguments.write_docs and "uncommitted" in git_commit():
        sys.exit("--write-docs names the commit the figures come from: commit or stash the changes "
                 "in Sources and Package.swift first (and build vbg from that commit)")
    if not arguments.vbg.exists():
        sys.exit(f"{arguments.vbg}: no such binary (swift build -c release --product vbg, or --vbg PATH)")
    pattern = re.compile(arguments.filter)
    temporary = None if arguments.work else tempfile.TemporaryDirectory(prefix="vbg-node-tests-")
    work = (arguments.work or Path(temporary.name)).resolve()
    try:
        vbg = VbgRunner(arguments.vbg.resolve(), arguments.path, arguments.timeout)
        import onnxruntime

        settings = {
            "command": result_command(arguments), "onnx": onnx.__version__, "onnxruntime": onnxruntime.__version__,
            "commit": git_commit(), "path": arguments.path, "filter": arguments.filter,
            "interface": "named" if vbg.named_form else "single",
        }
        kinds = list(MODEL_KINDS) if arguments.kind == "models" else [arguments.kind]
        runs = []
        for kind in kinds:
            ops = materialise(work, pattern) if kind == "node" else materialise_models(work, kind, pattern)
            names = sorted(name for name in ops if pattern.search(name))
            print(f"{kind}: {len(names)} tests, vbg {'NAME=path' if vbg.named_form else 'single-tensor'} interface, "
                  f"{arguments.jobs} jobs", file=sys.stderr)
            runs.append((kind, run_all(names, ops, work, vbg, arguments.jobs, not arguments.no_ort, kind)))
        if arguments.kind == "node":
            results = runs[0][1]
            if arguments.write_docs:
                write_docs(markdown(results, work, settings))
            if arguments.json:
                arguments.json.write_text(json.dumps(summary_json(results, work, settings), indent=1))
            print(json.dumps(totals(results)))
        else:
            if arguments.write_docs:
                write_docs(models_markdown(runs, work, settings), begin=MODELS_BEGIN, end=MODELS_END, intro=MODELS_INTRO)
            if arguments.json:
                arguments.json.write_text(json.dumps({kind: summary_json(results, work, settings) for kind, results in runs}, indent=1))
            for kind, results in runs:
                wrong_where_ort = sum(r.vbg.status in ("wrong", "crash") and r.ort.status == "pass" for r in results)
                print(kind, json.dumps({**totals(results), "vbg wrong/crash where ort passes": wrong_where_ort}))
    finally:
        if temporary is not None:
            temporary.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
