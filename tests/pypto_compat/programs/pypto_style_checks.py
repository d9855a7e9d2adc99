"""pytest file in pypto's style, run with -p ptokit.pypto.pytest_plugin."""
import numpy as np
import pypto.language as pl
from pypto.runtime import RunConfig, run

N = 16


@pl.program
class Twice:
    @pl.function(type=pl.FunctionType.InCore)
    def twice(self, x: pl.Tensor[[N, N], pl.FP32], out: pl.Out[pl.Tensor[[N, N], pl.FP32]]) -> pl.Tensor[[N, N], pl.FP32]:
        t = pl.load(x, [0, 0], [N, N])
        out = pl.store(pl.add(t, t), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[N, N], pl.FP32], y: pl.Out[pl.Tensor[[N, N], pl.FP32]]) -> pl.Tensor[[N, N], pl.FP32]:
        y = self.twice(x, y)
        return y


def test_twice_on_a_hardware_platform():
    x = np.ones((N, N), np.float32)
    y = np.zeros_like(x)
    run(Twice, x, y, config=RunConfig(platform="a5"))
    np.testing.assert_array_equal(y, 2 * x)


def test_asks_for_a_missing_name():
    from pypto.backend import no_such_backend_api  # noqa: F401
