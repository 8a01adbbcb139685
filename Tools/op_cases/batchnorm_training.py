"""BatchNormalization with training_mode 1 (opset 15): batch statistics normalise the input and update
the running ones — a [3, 4, 2, 5] input with momentum 0.7 and epsilon 1e-2, and a [6, 3] input with the
defaults (onnx requires all three outputs in training mode)."""

import numpy as np


def build_cases(rng, Case):
    def data(name, value):
        return (name, "data", value)

    def param(name, value):
        return (name, "param", value)

    def x(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    def stats(c):
        return [param("scale", x(c)), param("B", x(c)), param("mean", x(c)),
                param("var", rng.uniform(0.5, 2, c).astype(np.float32))]

    return [
        Case("batchnorm_training_momentum", "BatchNormalization", [data("X", 2 * x(3, 4, 2, 5) + 1)] + stats(4),
             {"training_mode": 1, "momentum": 0.7, "epsilon": 1e-2}, n_outputs=3, opset=15),
        Case("batchnorm_training_2d_defaults", "BatchNormalization", [data("X", x(6, 3))] + stats(3),
             {"training_mode": 1}, n_outputs=3, opset=15),
    ]
