"""pypto style: compile with pypto.ir.compile (runtime kind from argv), run, check against numpy."""
import sys

import numpy as np
import pypto.language as pl
from pypto import ir
from pypto.pypto_core.passes import RuntimeKind
from pypto.runtime import RunConfig

N = 64


@pl.program
class AddThenScale:
    @pl.function(type=pl.FunctionType.InCore)
    def add_scale(self, a: pl.Tensor[[N, N], pl.FP32], b: pl.Tensor[[N, N], pl.FP32],
                  out: pl.Out[pl.Tensor[[N, N], pl.FP32]]) -> pl.Tensor[[N, N], pl.FP32]:
        t = pl.add(pl.load(a, [0, 0], [N, N]), pl.load(b, [0, 0], [N, N]))
        out = pl.store(pl.muls(t, 0.5), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[N, N], pl.FP32], b: pl.Tensor[[N, N], pl.FP32],
             y: pl.Out[pl.Tensor[[N, N], pl.FP32]]) -> pl.Tensor[[N, N], pl.FP32]:
        y = self.add_scale(a, b, y)
        return y


if __name__ == "__main__":
    runtime = RuntimeKind[sys.argv[1]]
    out_dir = sys.argv[2]
    compiled = ir.compile(AddThenScale, output_dir=out_dir, runtime=runtime, dump_passes=False)
    rng = np.random.default_rng(7)
    a = rng.standard_normal((N, N)).astype(np.float32)
    b = rng.standard_normal((N, N)).astype(np.float32)
    y = np.zeros_like(a)
    config = RunConfig()
    config.rtol = 1e-6                     # pypto code sets fields after construction
    compiled(a, b, y, config=config)
    np.testing.assert_allclose(y, (a + b) * 0.5, rtol=config.rtol)
    print(f"OK {compiled.runtime.value} {compiled.last_result.platform}")
