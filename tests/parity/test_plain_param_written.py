"""A plain (In) orchestration tensor parameter that a task writes becomes InOut, as pypto lets a
program write it: the caller's array receives the result (pypto's cross-core programs accumulate
into such a parameter from a pl.at block)."""
import numpy as np
import pytest

import ptokit
import ptokit.language as pl

M, K, N, NB = 32, 64, 256, 64
RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]


@pl.program
class AddInto:
    @pl.function(type=pl.FunctionType.InCore)
    def acc(self, x: pl.Tensor[[M, N], pl.FP32], c: pl.InOut[pl.Tensor[[M, N], pl.FP32]]):
        c = pl.store(pl.add(pl.load(c, [0, 0], [M, N]), pl.load(x, [0, 0], [M, N])), [0, 0], c)
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[M, N], pl.FP32], c: pl.Tensor[[M, N], pl.FP32]):
        c = self.acc(x, c)
        return c


@pl.program
class MatmulIntoBlocks:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, a: pl.Tensor[[M, K], pl.FP32], b: pl.Tensor[[K, N], pl.FP32],
             c: pl.Tensor[[M, N], pl.FP32]) -> pl.Tensor[[M, N], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.LEFT_RIGHT)]):
            for nb in pl.range(0, N // NB):
                n0 = nb * NB
                c_prev = pl.slice(c, [M, NB], [0, n0])
                b_chunk = pl.slice(b, [K, NB], [0, n0])
                c_next = pl.add(c_prev, pl.matmul(a, b_chunk))
                c = pl.assemble(c, c_next, [0, n0])
        return c


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_plain_parameter_written_by_a_task(tmp_path, runtime):
    rng = np.random.default_rng(5)
    x, c = (rng.standard_normal((M, N)).astype(np.float32) for _ in range(2))
    want = c + x
    compiled = ptokit.compile(AddInto, output_dir=tmp_path / "out", runtime=runtime)
    assert [p["direction"] for p in compiled.config.orchestration.params] == ["IN", "INOUT"]
    compiled(x, c)
    np.testing.assert_allclose(c, want, rtol=1e-6)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_pl_at_block_accumulates_into_a_plain_parameter(tmp_path, runtime):
    rng = np.random.default_rng(6)
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    c = rng.standard_normal((M, N)).astype(np.float32)
    want = c + a @ b
    ptokit.compile(MatmulIntoBlocks, output_dir=tmp_path / "out", runtime=runtime)(a, b, c)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-4)
