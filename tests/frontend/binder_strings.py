"""A @pl.jit entry whose annotations Python keeps as strings (tests/frontend/test_binder.py); they
are evaluated in the function's module (a name only an annotation uses makes no closure cell)."""
from __future__ import annotations

import ptokit.language as pl

N = 8
rows = pl.dynamic("R")


def make():
    @pl.jit
    def strings(x: pl.Tensor[[rows, N], pl.FP16], y: pl.InOut[pl.Tensor[[rows, N], pl.FP16]], k: pl.FP32 = 1.0):
        pass
    return strings
