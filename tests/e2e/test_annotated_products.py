"""A pl.Tensor annotation on a value kernel code computes on chip (pypto's tensor-level results): the
name holds the tile; an N-D annotation with leading axes of 1 names the 2-D product.  Checked against
numpy under both runtime kinds; an annotation the tile cannot stand for stays a located error."""
import numpy as np
import pytest

import ptokit
import ptokit.language as pl
from ptokit.errors import CompileError

RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]
M, K, N = 16, 64, 48


@pl.program
class Annotated:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[M, K], pl.FP32], b: pl.Tensor[[1, N, K], pl.FP32],
          c: pl.Out[pl.Tensor[[1, M, N], pl.FP32]], d: pl.Out[pl.Tensor[[1, M, N], pl.FP32]]):
        p: pl.Tensor[[1, M, N], pl.FP32] = pl.matmul(a, b, b_trans=True, out_dtype=pl.FP32)
        c = pl.assemble(c, p, offset=[0, 0, 0])
        h0: pl.Tensor[[M, K // 2], pl.FP32] = pl.slice(a, [M, K // 2], [0, 0])
        h1: pl.Tensor[[M, K // 2], pl.FP32] = pl.slice(a, [M, K // 2], [0, K // 2])
        g0: pl.Tensor[[1, N, K // 2], pl.FP32] = pl.slice(b, [1, N, K // 2], [0, 0, 0])
        g1: pl.Tensor[[1, N, K // 2], pl.FP32] = pl.slice(b, [1, N, K // 2], [0, 0, K // 2])
        q: pl.Tensor[[1, M, N], pl.FP32] = pl.matmul(h0, g0, b_trans=True, out_dtype=pl.FP32)
        q2: pl.Tensor[[1, M, N], pl.FP32] = pl.matmul_acc(q, h1, g1, b_trans=True)
        d = pl.assemble(d, q2, offset=[0, 0, 0])
        return c, d

    @pl.function(type=pl.FunctionType.InCore)
    def v(self, x: pl.Tensor[[32, 32], pl.FP32], idx: pl.Tensor[[2, 8], pl.INT32],
          src: pl.Tensor[[16, 32], pl.FP32], s: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        r: pl.Tensor[[32, 32], pl.FP32] = pl.scatter_update(x, -2, idx, src)
        s = pl.assemble(s, r, [0, 0])
        return s

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[M, K], pl.FP32], b: pl.Tensor[[1, N, K], pl.FP32],
             x: pl.Tensor[[32, 32], pl.FP32], idx: pl.Tensor[[2, 8], pl.INT32], src: pl.Tensor[[16, 32], pl.FP32],
             c: pl.Out[pl.Tensor[[1, M, N], pl.FP32]], d: pl.Out[pl.Tensor[[1, M, N], pl.FP32]],
             s: pl.Out[pl.Tensor[[32, 32], pl.FP32]]):
        c, d = self.k(a, b, c, d)
        s = self.v(x, idx, src, s)
        return c, d, s


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_annotated_products_against_numpy(tmp_path, runtime):
    run = ptokit.compile(Annotated, output_dir=tmp_path / "out", runtime=runtime)
    rng = np.random.default_rng(5)
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((1, N, K)).astype(np.float32)
    x = rng.standard_normal((32, 32)).astype(np.float32)
    idx = rng.permutation(32)[:16].astype(np.int32).reshape(2, 8)
    src = rng.standard_normal((16, 32)).astype(np.float32)
    c = np.zeros((1, M, N), np.float32)
    d = np.zeros((1, M, N), np.float32)
    s = np.zeros((32, 32), np.float32)
    run(a, b, x, idx, src, c, d, s)
    ref = a.astype(np.float64) @ b[0].astype(np.float64).T
    np.testing.assert_allclose(c[0], ref, rtol=1e-4, atol=1e-4 * np.abs(ref).max())
    np.testing.assert_allclose(d[0], ref, rtol=1e-4, atol=1e-4 * np.abs(ref).max())
    want = x.copy()
    want[idx.reshape(-1)] = src
    np.testing.assert_array_equal(s, want)


def test_an_annotation_the_tile_cannot_stand_for_is_a_located_error(tmp_path):
    @pl.program
    class Wrong:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[M, K], pl.FP32], b: pl.Tensor[[K, N], pl.FP32],
              c: pl.Out[pl.Tensor[[M, N], pl.FP32]]) -> pl.Tensor[[M, N], pl.FP32]:
            p: pl.Tensor[[2, M, N], pl.FP32] = pl.matmul(a, b)
            c = pl.assemble(c, p, [0, 0])
            return c

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[M, K], pl.FP32], b: pl.Tensor[[K, N], pl.FP32],
                 c: pl.Out[pl.Tensor[[M, N], pl.FP32]]) -> pl.Tensor[[M, N], pl.FP32]:
            c = self.k(a, b, c)
            return c
    with pytest.raises(CompileError) as info:
        ptokit.compile(Wrong, output_dir=tmp_path / "out")
    text = str(info.value)
    assert "annotation says pl.Tensor[[2, 16, 48], pl.FP32] but the value is pl.Tile[[16, 48], pl.FP32, pl.Mem.Acc]" \
        in text and "^" in text
