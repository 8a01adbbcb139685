"""Sequence and optional ops: SequenceEmpty, SequenceConstruct, SequenceInsert, SequenceErase,
SequenceAt, SequenceLength, SplitToSequence, ConcatFromSequence, Optional, OptionalHasElement,
OptionalGetElement.

A sequence or optional cannot be a graph input or output here (the fixtures' inputs and outputs are
.npy tensors), so each case is a small graph (`case.nodes`): the op under test with the nodes that
make the sequences or optionals it reads and read the ones it makes (SequenceAt, SequenceLength,
ConcatFromSequence, OptionalGetElement, OptionalHasElement) into tensors. Positions and split
lengths are initializers, as vbg needs them at plan time."""

import numpy as np
from onnx import TensorProto, helper


def build_cases(rng, Case):
    def x(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    def ints(*shape):
        return rng.integers(-50, 50, size=shape).astype(np.int64)

    def data(name, value):
        return (name, "data", value)

    def param(name, value):
        return (name, "param", value)

    node = helper.make_node
    i64 = lambda *v: np.array(v, dtype=np.int64)  # noqa: E731
    scalar = lambda v, dtype=np.int64: np.array(v, dtype=dtype)  # noqa: E731
    I64, BOOL = TensorProto.INT64, TensorProto.BOOL
    float_tensor = helper.make_tensor_type_proto(TensorProto.FLOAT, [2])

    def case(name, op, inputs, nodes, what, opset=None, output_type=TensorProto.FLOAT, output_shapes=None,
             reference_is_wrong=None):
        types = output_type if isinstance(output_type, list) else [output_type]
        made = Case(name, op, inputs, n_outputs=len(types), what=what, opset=opset,
                    output_type=types if len(types) > 1 else types[0])
        made.nodes = nodes
        if output_shapes is not None:  # where onnx's shape inference cannot follow the sequence
            made.output_shapes = output_shapes
        if reference_is_wrong is not None:
            made.reference_is_wrong = reference_is_wrong
        return made

    return [
        case("sequence_construct_concat", "SequenceConstruct", [data("A", x(2, 3)), data("B", x(2, 1)), data("C", x(2, 4))],
             [node("SequenceConstruct", ["A", "B", "C"], ["S"]), node("ConcatFromSequence", ["S"], ["Y"], axis=1)],
             "three shapes joined along axis 1"),
        case("sequence_construct_at", "SequenceAt", [data("A", x(3, 2)), data("B", x(1, 5)), data("C", x(4)),
                                                     param("last", scalar(-1)), param("first", scalar(0, np.int32))],
             [node("SequenceConstruct", ["A", "B", "C"], ["S"]), node("SequenceAt", ["S", "last"], ["Y0"]),
              node("SequenceAt", ["S", "first"], ["Y1"])],
             "positions -1 (int64) and 0 (int32)", output_type=[TensorProto.FLOAT, TensorProto.FLOAT], output_shapes=[[4], [3, 2]]),
        case("sequence_empty_insert", "SequenceEmpty", [data("A", ints(2, 3)), data("B", ints(1, 3)), param("front", scalar(0))],
             [node("SequenceEmpty", [], ["E"], dtype=I64), node("SequenceInsert", ["E", "A"], ["S1"]),
              node("SequenceInsert", ["S1", "B", "front"], ["S2"]), node("ConcatFromSequence", ["S2"], ["Y0"], axis=0),
              node("SequenceLength", ["E"], ["Y1"])],
             "int64 elements appended then inserted at the front; the empty sequence's length", output_type=[I64, I64],
             output_shapes=[[3, 3], []]),
        case("sequence_insert_positions", "SequenceInsert", [data("A", x(1, 4)), data("B", x(2, 4)), data("C", x(3, 4)),
                                                             param("before_last", scalar(-1)), param("end", scalar(2))],
             [node("SequenceConstruct", ["A"], ["S0"]), node("SequenceInsert", ["S0", "B", "before_last"], ["S1"]),
              node("SequenceInsert", ["S1", "C", "end"], ["S2"]), node("ConcatFromSequence", ["S2"], ["Y"], axis=0)],
             "at -1 (before the last) and at n (the end)",
             reference_is_wrong="onnx.reference's SequenceInsert takes position n modulo n, inserting at the front; "
                                "the spec's range is [-n, n], n being the end (onnxruntime appends)"),
        case("sequence_erase", "SequenceErase", [data("A", x(1, 3)), data("B", x(2, 3)), data("C", x(3, 3)), data("D", x(4, 3)),
                                                 param("second", scalar(1)), param("first", scalar(-2, np.int32))],
             [node("SequenceConstruct", ["A", "B", "C", "D"], ["S0"]), node("SequenceErase", ["S0", "second"], ["S1"]),
              node("SequenceErase", ["S1"], ["S2"]), node("SequenceErase", ["S2", "first"], ["S3"]),
              node("ConcatFromSequence", ["S3"], ["Y"], axis=0)],
             "at 1, then the last (no position), then at -2 of 2"),
        case("sequence_length_of_split", "SequenceLength", [data("X", x(7, 3)), param("three", scalar(3))],
             [node("SplitToSequence", ["X", "three"], ["S"]), node("SequenceLength", ["S"], ["Y"])],
             "7 rows in pieces of 3", output_type=I64),
        case("split_to_sequence_scalar", "SplitToSequence", [data("X", x(2, 7)), param("three", scalar(3)), param("last", scalar(-1))],
             [node("SplitToSequence", ["X", "three"], ["S"], axis=-1), node("SequenceAt", ["S", "last"], ["Y"])],
             "pieces of 3 along the last axis: the last piece is 1 wide"),
        case("split_to_sequence_lengths", "SplitToSequence", [data("X", ints(2, 6, 3)), param("lengths", i64(1, 3, 2)),
                                                              param("at", scalar(1))],
             [node("SplitToSequence", ["X", "lengths"], ["S"], axis=1), node("SequenceAt", ["S", "at"], ["Y"])],
             "lengths [1, 3, 2] along axis 1, int64 data", output_type=I64),
        case("split_to_sequence_keepdims0", "SplitToSequence", [data("X", x(3, 4))],
             [node("SplitToSequence", ["X"], ["S"], axis=1, keepdims=0), node("ConcatFromSequence", ["S"], ["Y"], axis=0, new_axis=1)],
             "no split: pieces of 1, squeezed, then stacked (a transpose)"),
        case("split_to_sequence_default", "SplitToSequence", [data("X", x(3, 2, 2))],
             [node("SplitToSequence", ["X"], ["S"]), node("ConcatFromSequence", ["S"], ["Y"], axis=2)],
             "no split, keepdims 1: pieces [1, 2, 2] joined along axis 2"),
        case("concat_from_sequence_new_axis", "ConcatFromSequence", [data("A", x(2, 3)), data("B", x(2, 3)), data("C", x(2, 3))],
             [node("SequenceConstruct", ["A", "B", "C"], ["S"]), node("ConcatFromSequence", ["S"], ["Y0"], axis=-1, new_axis=1),
              node("ConcatFromSequence", ["S"], ["Y1"], axis=1, new_axis=1)],
             "stacked at the new last axis (-1) and at axis 1", output_type=[TensorProto.FLOAT, TensorProto.FLOAT]),
        case("optional_tensor", "Optional", [data("X", x(3, 4))],
             [node("Optional", ["X"], ["O"]), node("OptionalHasElement", ["O"], ["Y0"]), node("OptionalGetElement", ["O"], ["Y1"])],
             "holding a tensor", opset=18, output_type=[BOOL, TensorProto.FLOAT],
             reference_is_wrong="onnx.reference's Optional holds a tensor as a one-element list, which its "
                                "OptionalGetElement returns as it is (shape [1, 3, 4]); the spec returns the tensor"),
        case("optional_has_element_empty", "OptionalHasElement", [data("X", x(2))],
             [node("Optional", [], ["O"], type=float_tensor), node("OptionalHasElement", ["O"], ["Y0"]),
              node("OptionalHasElement", ["X"], ["Y1"]), node("Identity", ["X"], ["Y2"])],
             "an empty optional, and a tensor (version 18)", opset=18, output_type=[BOOL, BOOL, TensorProto.FLOAT],
             reference_is_wrong="onnx.reference's Optional without an input makes [None], a list, which its "
                                "OptionalHasElement counts as present; the spec's empty optional has no element"),
        case("optional_get_element_sequence", "OptionalGetElement", [data("A", x(2, 2)), data("B", x(1, 2))],
             [node("SequenceConstruct", ["A", "B"], ["S"]), node("Optional", ["S"], ["O"]),
              node("OptionalGetElement", ["O"], ["T"]), node("Identity", ["T"], ["U"]),
              node("ConcatFromSequence", ["U"], ["Y"], axis=0)],
             "holding a sequence, read through Identity of a sequence", opset=18),
    ]
