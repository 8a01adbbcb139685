"""The loss ops: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (reduction none / sum / mean,
ignore_index, class weights, N-d inputs, SCE's optional log_prob output, float32 and double)."""

import numpy as np
from onnx import TensorProto


def build_cases(rng, Case):
    def data(name, value):
        return (name, "data", value)

    def param(name, value):
        return (name, "param", value)

    def scores(*shape, dtype=np.float32):
        return rng.standard_normal(shape).astype(dtype)

    def targets(classes, *shape, dtype=np.int64):
        return rng.integers(0, classes, size=shape).astype(dtype)

    def weights(classes, dtype=np.float32):
        # Double weights hold float32 values: the engine stores a double initializer as float32.
        return rng.uniform(0.2, 2.0, size=classes).astype(np.float32).astype(dtype)

    cases = []
    for op, prefix in [("NegativeLogLikelihoodLoss", "nll"), ("SoftmaxCrossEntropyLoss", "sce")]:
        cases.append(Case(f"{prefix}_none_2d", op, [data("x", scores(5, 4)), data("t", targets(4, 5))],
                          {"reduction": "none"}, opset=13, what="(N, C), one loss per sample"))
        cases.append(Case(f"{prefix}_mean_default", op, [data("x", scores(3, 5, 2)), data("t", targets(5, 3, 2))],
                          opset=13, what="the default reduction (mean) over (N, d1)"))
        cases.append(Case(f"{prefix}_sum_int32_4d", op, [data("x", scores(2, 3, 4, 3)),
                                                         data("t", targets(3, 2, 4, 3, dtype=np.int32))],
                          {"reduction": "sum"}, opset=13, what="int32 targets, (N, C, d1, d2)"))
        cases.append(Case(f"{prefix}_mean_weights_4d", op, [data("x", scores(2, 4, 3, 2)), data("t", targets(4, 2, 3, 2)),
                                                            param("w", weights(4))],
                          {"reduction": "mean"}, opset=13, what="mean divides by the sum of the gathered weights"))
        t = targets(5, 3, 4)
        t[0, :] = 2
        t[2, 1] = 2
        cases.append(Case(f"{prefix}_mean_ignore_index", op, [data("x", scores(3, 5, 4)), data("t", t)],
                          {"reduction": "mean", "ignore_index": 2}, opset=13,
                          what="ignored positions leave the sum and the count"))
        t = targets(4, 2, 3)
        t[1, 0] = -1
        cases.append(Case(f"{prefix}_none_weights_negative_ignore", op, [data("x", scores(2, 4, 3)), data("t", t),
                                                                         param("w", weights(4))],
                          {"reduction": "none", "ignore_index": -1}, opset=13,
                          what="a negative ignore_index, weights, loss 0 where ignored"))
        cases.append(Case(f"{prefix}_mean_weights_ignore_every_element", op,
                          [data("x", scores(2, 3, 2)), data("t", np.full((2, 2), 1, dtype=np.int64)),
                           param("w", weights(3))],
                          {"reduction": "mean", "ignore_index": 1}, opset=13,
                          what="every position ignored: the mean is 0 / 0, NaN"))
        cases.append(Case(f"{prefix}_sum_double", op, [data("x", scores(3, 4, 2, dtype=np.float64)), data("t", targets(4, 3, 2)),
                                                       param("w", weights(4, np.float64))],
                          {"reduction": "sum", "ignore_index": 0}, opset=13, output_type=TensorProto.DOUBLE,
                          what="double scores and weights"))
    cases.append(Case("nll_opset12_mean", "NegativeLogLikelihoodLoss", [data("x", scores(4, 3)), data("t", targets(3, 4))],
                      opset=12, what="version 12"))
    cases.append(Case("sce_log_prob_none", "SoftmaxCrossEntropyLoss", [data("x", scores(2, 5, 3)), data("t", targets(5, 2, 3))],
                      {"reduction": "none"}, n_outputs=2, opset=13, what="the log_prob output"))
    cases.append(Case("sce_log_prob_mean_weights_ignore_double", "SoftmaxCrossEntropyLoss",
                      [data("x", scores(3, 4, 2, 2, dtype=np.float64)), data("t", targets(4, 3, 2, 2)),
                       param("w", weights(4, np.float64))],
                      {"ignore_index": 3}, n_outputs=2, opset=12, output_type=TensorProto.DOUBLE,
                      what="version 12, double, weights, ignore_index and log_prob"))
    return cases
