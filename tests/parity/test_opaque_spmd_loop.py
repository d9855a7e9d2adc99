"""An Opaque function whose only work is a ``for b in pl.spmd(n):`` loop is the orchestration (one
block per iteration), as in pypto's cross-core programs; it used to be taken for a kernel."""
import numpy as np
import pytest

import ptokit
import ptokit.language as pl

M, K, N, T = 64, 32, 32, 16
RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]


@pl.program
class RowTiles:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, a: pl.Tensor[[M, K], pl.FP32], b: pl.Tensor[[K, N], pl.FP32],
             out: pl.Tensor[[M, N], pl.FP32]) -> pl.Tensor[[M, N], pl.FP32]:
        for ob in pl.spmd(M // T, name_hint="rows"):
            m0 = ob * T
            a_add = pl.add(pl.slice(a, [T, K], [m0, 0]), 1.0)      # vector, then the cube
            c = pl.add(pl.matmul(a_add, b), 1.0)
            out = pl.assemble(out, c, [m0, 0])
        return out


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_an_spmd_loop_makes_an_opaque_function_the_orchestration(tmp_path, runtime):
    rng = np.random.default_rng(11)
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    out = np.zeros((M, N), np.float32)
    compiled = ptokit.compile(RowTiles, output_dir=tmp_path / "out", runtime=runtime)
    assert compiled.config.orchestration.params        # main is the orchestration, not a kernel
    compiled(a, b, out)
    np.testing.assert_allclose(out, (a + 1) @ b + 1, rtol=1e-5, atol=1e-4)
