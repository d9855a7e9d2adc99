"""Tensor-level pl.matmul larger than Left / Right (pypto-parity.md D, "large pl.matmul"): the front
end computes it as a loop over K tiles into one Acc tile, the last tile partly valid when K is not a
multiple of the tile; windows of tensors work the same.  Checked against numpy."""
import numpy as np

import ptokit
import ptokit.language as pl

M, K, N = 64, 1000, 48          # K = 3 tiles of 256 + 232; [64, 1000] FP16 is 125 KB (Left: 64 KB)
K2 = 4096                        # FP32, K a multiple of the tile: 16 tiles of 256, no partial one


@pl.program
class KSplit:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[M, K], pl.FP16], b: pl.Tensor[[K, N], pl.FP16],
          a2: pl.Tensor[[32, K2], pl.FP32], b2: pl.Tensor[[K2, 32], pl.FP32],
          y: pl.Out[pl.Tensor[[M, N], pl.FP32]], y16: pl.Out[pl.Tensor[[M, N], pl.FP16]],
          y2: pl.Out[pl.Tensor[[16, 32], pl.FP32]]):
        y = pl.store(pl.matmul(a, b), [0, 0], y)
        y16 = pl.store(pl.matmul(a, b, out_dtype=pl.FP16), [0, 0], y16)
        y2 = pl.store(pl.matmul(a2[16:32, :], b2), [0, 0], y2)     # a window of a2: rows 16..31
        return y, y16, y2

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[M, K], pl.FP16], b: pl.Tensor[[K, N], pl.FP16],
             a2: pl.Tensor[[32, K2], pl.FP32], b2: pl.Tensor[[K2, 32], pl.FP32],
             y: pl.Out[pl.Tensor[[M, N], pl.FP32]], y16: pl.Out[pl.Tensor[[M, N], pl.FP16]],
             y2: pl.Out[pl.Tensor[[16, 32], pl.FP32]]):
        y, y16, y2 = self.k(a, b, a2, b2, y, y16, y2)
        return y, y16, y2


def test_large_tensor_matmul_is_a_k_loop(tmp_path):
    run = ptokit.compile(KSplit, output_dir=tmp_path / "out")
    pto = (tmp_path / "out" / "ptoas" / "k.pto").read_text()
    assert "scf.for" in pto and "pto.tmatmul.acc" in pto      # the K loop, accumulating
    rng = np.random.default_rng(2)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    a2 = rng.standard_normal((32, K2)).astype(np.float32)
    b2 = rng.standard_normal((K2, 32)).astype(np.float32)
    y, y16, y2 = np.zeros((M, N), np.float32), np.zeros((M, N), np.float16), np.zeros((16, 32), np.float32)
    run(a, b, a2, b2, y, y16, y2)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-3 * np.abs(ref).max())
    np.testing.assert_array_equal(y16, y.astype(np.float16))
    ref2 = a2[16:32].astype(np.float64) @ b2.astype(np.float64)
    np.testing.assert_allclose(y2, ref2, rtol=1e-4, atol=1e-4 * np.abs(ref2).max())
