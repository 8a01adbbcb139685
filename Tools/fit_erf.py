#!/usr/bin/env python3
"""The coefficients of the vector erf (`Sources/Kernels/FastMath.swift`, `erfVector`), and its error.

Two minimax polynomials, fitted on Chebyshev grids by Lawson's iteration (iteratively reweighted
least squares) against Python's double `math.erf` / `math.erfc`:

- |x| <= 0.921875: erf(x) = x + x * r(x^2), r(u) = (2/sqrt(pi) - 1) + c1 u + ... + c6 u^6, weighted
  for relative error in erf. Computing x + x*r as one fused multiply-add keeps the result within
  about an ulp: r is small, so its own rounding hardly reaches the sum.
- 0.921875 < |x| < 3.925: erf(x) = 1 - exp(q(|x|)), q = log(erfc) as a degree-6 polynomial,
  weighted by erfc (the absolute error it leaves in erf). From 3.925 on, erf rounds to 1.

Then it evaluates the float32 arithmetic the kernel does (fused multiply-adds, float32 exp) over
4 million points in [0, 5] and prints the worst error in ulp of each range.

    venv/bin/python Tools/fit_erf.py
"""
import math

import numpy as np

SPLIT, TOP = 0.921875, 3.925
erf = np.vectorize(math.erf)
erfc = np.vectorize(math.erfc)


def lawson(x, f, weight, degree, iterations=200):
    a = np.vander(x, degree + 1, increasing=True)
    w = np.ones(len(x)) / len(x)
    for _ in range(iterations):
        s = np.sqrt(w) * weight
        c, *_ = np.linalg.lstsq(a * s[:, None], f * s, rcond=None)
        e = np.abs(weight * (a @ c - f))
        w = w * e
        w /= w.sum()
    return c, e.max()


def chebyshev(lo, hi, n=4000):
    return np.cos(np.linspace(0, np.pi, n)) * (hi - lo) / 2 + (hi + lo) / 2


def fit():
    x = chebyshev(0, SPLIT)
    u = x * x
    ratio = np.where(x == 0, 2 / math.sqrt(math.pi), erf(x) / np.where(x == 0, 1, x))
    # r(u) = erf(x)/x - 1, weighted so that the error is relative to erf.
    small, _ = lawson(u, ratio - 1, 1 / ratio, 6)
    x = chebyshev(SPLIT, TOP)
    large, _ = lawson(x, np.log(erfc(x)), erfc(x), 6)
    return [np.float32(c) for c in small], [np.float32(c) for c in large]


def fma(a, b, c):
    return (a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)).astype(np.float32)


def horner(coefficients, t):
    p = np.full_like(t, coefficients[-1])
    for c in reversed(coefficients[:-1]):
        p = fma(p, t, np.full_like(t, c))
    return p


def kernel(x, small, large):
    a = np.abs(x)
    below = fma(a, horner(small, (a * a).astype(np.float32)), a)
    above = (np.float32(1) - np.exp(horner(large, np.minimum(a, np.float32(TOP)))).astype(np.float32)).astype(np.float32)
    y = np.where(a <= SPLIT, below, np.where(a >= TOP, np.float32(1), above))
    return np.copysign(y, x)


def main():
    small, large = fit()
    print("small:", ", ".join(repr(float(c)) for c in small))
    print("large:", ", ".join(repr(float(c)) for c in large))
    x = np.linspace(0, 5, 4_000_001, dtype=np.float32)
    exact = erf(x.astype(np.float64))
    got = kernel(x, small, large)
    ulps = np.abs(got.astype(np.float64) - exact) / np.spacing(np.maximum(np.abs(exact), 1e-30).astype(np.float32))
    for lo, hi in ((0, SPLIT), (SPLIT, TOP), (TOP, 5)):
        m = (x >= lo) & (x < hi)
        print(f"[{lo}, {hi}): worst {ulps[m].max():.3f} ulp, mean {ulps[m].mean():.3f}")


if __name__ == "__main__":
    main()
