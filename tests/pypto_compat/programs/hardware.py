"""pypto style: a program written for a device (platform "a2a3", device 11, PMU on), and one for a
backend type (Ascend950), run with pypto.runtime.run."""
import sys

import numpy as np
import pypto.language as pl
from pypto.backend import BackendType
from pypto.runtime import RunConfig, run

N = 32


@pl.program
class Negate:
    @pl.function(type=pl.FunctionType.InCore)
    def neg(self, x: pl.Tensor[[N, N], pl.FP32], out: pl.Out[pl.Tensor[[N, N], pl.FP32]]) -> pl.Tensor[[N, N], pl.FP32]:
        out = pl.store(pl.neg(pl.load(x, [0, 0], [N, N])), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[N, N], pl.FP32], y: pl.Out[pl.Tensor[[N, N], pl.FP32]]) -> pl.Tensor[[N, N], pl.FP32]:
        y = self.neg(x, y)
        return y


if __name__ == "__main__":
    which = sys.argv[1]
    if which == "platform":
        config = RunConfig(platform="a2a3", device_id=11, enable_pmu=1)
    else:
        config = RunConfig(backend_type=BackendType.Ascend950)
    x = np.arange(N * N, dtype=np.float32).reshape(N, N)
    y = np.zeros_like(x)
    compiled = run(Negate, x, y, config=config)
    np.testing.assert_array_equal(y, -x)
    print(f"OK {compiled.last_result.platform} device {compiled.last_result.device_id}")
