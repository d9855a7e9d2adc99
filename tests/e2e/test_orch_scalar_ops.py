"""Scalar arithmetic in orchestration code means what it means in Python: ``//`` floors and the
result of ``%`` takes the divisor's sign (C++ truncates both), ``min`` / ``max`` pick an operand.
The orchestration's C++ spelling of each operator is declared in the op table (ops/scalar.py)."""
import numpy as np
import pytest

import ptokit
import ptokit.language as pl

R, C = 8, 64
T = pl.Tensor[[R, C], pl.INT32]
S = pl.Scalar[pl.INT32]


@pl.program
class ScalarOps:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: T, q: S, r: S, lo: S, hi: S, y: pl.Out[pl.Tensor[[4 * R, C], pl.INT32]]):
        t = pl.load(x, [0, 0], [R, C])
        y = pl.store(pl.adds(t, q), [0, 0], y)
        y = pl.store(pl.adds(t, r), [R, 0], y)
        y = pl.store(pl.adds(t, lo), [2 * R, 0], y)
        y = pl.store(pl.adds(t, hi), [3 * R, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T, n: S, d: S, y: pl.Out[pl.Tensor[[4 * R, C], pl.INT32]]):
        y = self.k(x, n // d, n % d, min(n, d), max(n, d), y)
        return y


@pytest.mark.parametrize("runtime", ["tensormap_and_ringbuffer", "host_build_graph"])
def test_orchestration_scalars_follow_python(tmp_path, runtime):
    c = ptokit.compile(ScalarOps, output_dir=tmp_path / "o", runtime=runtime)
    x = np.arange(R * C, dtype=np.int32).reshape(R, C)
    for n, d in ((-7, 3), (7, -3), (-7, -3), (6, 3), (2, 5)):
        y = np.zeros((4 * R, C), np.int32)
        c(x, n, d, y)
        want = np.concatenate([x + (n // d), x + (n % d), x + min(n, d), x + max(n, d)])
        np.testing.assert_array_equal(y, want, err_msg=f"n={n} d={d}")
