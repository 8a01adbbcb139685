"""Einsum (opset 12): a batched matrix product, a transpose, a sum over one axis, an inner product,
a diagonal under an ellipsis, the implicit output (labels appearing once, alphabetical), three
operands, broadcast ellipsis dims, and double."""

import numpy as np
from onnx import TensorProto


def build_cases(rng, Case):
    def data(name, value):
        return (name, "data", value)

    def x(*shape, dtype=np.float32):
        return rng.standard_normal(shape).astype(dtype)

    cases = []
    for name, equation, operands, what in [
        ("einsum_batch_matmul", "bij,bjk->bik", [x(2, 3, 4), x(2, 4, 5)], ""),
        ("einsum_transpose", "ij->ji", [x(3, 5)], ""),
        ("einsum_sum_axis", "ij->i", [x(4, 6)], ""),
        ("einsum_inner_product", "i,i", [x(7), x(7)], "implicit output: a scalar"),
        ("einsum_diagonal_ellipsis", "...ii->...i", [x(2, 3, 4, 4)], "a repeated label: the diagonal"),
        ("einsum_implicit_order", "kj,ji", [x(3, 4), x(4, 2)], "implicit output ik"),
        ("einsum_three_operands", "ab,bc,cd->ad", [x(2, 3), x(3, 4), x(4, 5)], ""),
        ("einsum_broadcast_ellipsis", "...ij,...jk->...ik", [x(2, 1, 3, 4), x(1, 5, 4, 2)], "ellipsis dims [2, 1] and [1, 5]"),
        ("einsum_spaces_double", "b i j , b j -> b i", [x(2, 3, 4, dtype=np.float64), x(2, 4, dtype=np.float64)], "spaces, double"),
    ]:
        double = operands[0].dtype == np.float64
        cases.append(Case(name, "Einsum", [data(f"X{i}", v) for i, v in enumerate(operands)], {"equation": equation},
                          opset=12, output_type=TensorProto.DOUBLE if double else TensorProto.FLOAT,
                          what=what or equation))
    return cases
