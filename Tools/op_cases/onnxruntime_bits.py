"""Ops whose bits the engine copies from onnxruntime's CPU kernels (exact, not within 1e-5):
HardSwish (x * min(max(x * (1/6) + 0.5, 0), 1), each operation rounded apart), GlobalAveragePool
(MLAS's `MlasPoolGlobalKernel`: four float32 lane sums, (s0 + s2) + (s1 + s3), the tail in order, / n),
Erf (MLAS's `MlasErfKernelFma3` on x86 with FMA, |x| clamped to 3.925) and Sigmoid from x = -10 on
(MLAS's rational logistic, `MlasLogisticKernelFma3`; below -10 the engine computes 1 / (1 + e^-x)
to a few ulp instead, so this case's inputs are >= -10). A value a DynamicQuantizeLinear reads moves
a whole quantum where it is one ulp off, so `OperatorFixtureTests` compares these cases (`*_bits`)
byte for byte on both paths. Inputs: a dense grid over the interesting range, the specials,
and random values; for the pool, planes of 899 (a tail of 3) and of 3 values."""

import numpy as np


def build_cases(rng, Case):
    def data(name, value):
        return (name, "data", value)

    specials = np.array([0.0, -0.0, np.inf, -np.inf, 18.0, -18.0, 17.5, -17.5, 100.0, -100.0, 1e30, -1e30,
                         17.844, 17.87294, 17.89196, 17.89684, 1e-30, -1e-30, 3.0, -3.0], np.float32)
    finite = specials[np.isfinite(specials)]  # HardSwish(-inf) is NaN, which the 1e-5 comparison cannot take
    hardswish = np.concatenate([finite, np.linspace(-4, 4, 8001, dtype=np.float32),
                                (2 * rng.standard_normal(4000)).astype(np.float32)])
    cases = [
        Case("hardswish_bits", "HardSwish", [data("X", hardswish.reshape(1, -1))],
             what="onnxruntime's x * clamp(x/6 + 0.5), bit for bit: grid over [-4, 4], specials, random"),
        Case("globalaveragepool_bits", "GlobalAveragePool",
             [data("X", (2 * rng.standard_normal((1, 24, 29, 31)) + 0.5).astype(np.float32))],
             what="onnxruntime's MLAS global mean, bit for bit: 24 planes of 29x31"),
        Case("globalaveragepool_small_bits", "GlobalAveragePool",
             [data("X", (2 * rng.standard_normal((2, 5, 1, 3)) + 0.5).astype(np.float32))],
             what="planes of 3: the tail alone"),
        Case("erf_bits", "Erf", [data("X", np.concatenate([specials, np.linspace(-5, 5, 10001, dtype=np.float32),
                                                          (2 * rng.standard_normal(4000)).astype(np.float32)]).reshape(1, -1))],
             what="onnxruntime's MLAS erf, bit for bit: grid over [-5, 5], specials, random"),
    ]
    # Drawn after the other cases' values, so that adding this case left theirs as they were.
    sigmoid = np.concatenate([specials, np.linspace(-10, 20, 6001, dtype=np.float32),
                              (4 * rng.standard_normal(4000)).astype(np.float32)])
    sigmoid = sigmoid[~(sigmoid < -10)]
    cases.append(Case("sigmoid_bits", "Sigmoid", [data("X", sigmoid.reshape(1, -1))],
                      what="onnxruntime's MLAS logistic, bit for bit, from -10 on: grid over [-10, 20], specials, random"))
    return cases
