"""`return kernel(x, y)` in a @pl.jit body submits the kernel's task (it used to be dropped)."""
import numpy as np

import ptokit.language as pl


@pl.jit.incore
def _double(x: pl.Tensor[[1, 64], pl.FP32], y: pl.Out[pl.Tensor[[1, 64], pl.FP32]]):
    t = pl.load(x, [0, 0], [1, 64])
    y = pl.store(pl.add(t, t), [0, 0], y)
    return y


@pl.jit
def _returns_call(x: pl.Tensor[[1, 64], pl.FP32], y: pl.Out[pl.Tensor[[1, 64], pl.FP32]]):
    return _double(x, y)


def test_return_of_a_kernel_call_runs_it():
    x = np.arange(64, dtype=np.float32).reshape(1, 64)
    y = np.zeros_like(x)
    _returns_call(x, y)
    np.testing.assert_array_equal(y, 2 * x)
