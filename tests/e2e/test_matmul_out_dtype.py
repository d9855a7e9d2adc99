"""pl.matmul(..., out_dtype=) (pypto-parity.md D): the product is accumulated in FP32 and converted
to out_dtype (to nearest even), on tensors and on tiles."""
import numpy as np
import ml_dtypes

import ptokit
import ptokit.language as pl

M, K, N = 32, 64, 48


@pl.program
class OutDtype:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[M, K], pl.FP16], b: pl.Tensor[[K, N], pl.FP16],
          y16: pl.Out[pl.Tensor[[M, N], pl.FP16]], ybf: pl.Out[pl.Tensor[[M, N], pl.BF16]],
          y32: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
        y16 = pl.store(pl.matmul(a, b, out_dtype=pl.FP16), [0, 0], y16)
        left = pl.move(pl.load(a, [0, 0], [M, K], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        right = pl.move(pl.load(b, [0, 0], [K, N], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        ybf = pl.store(pl.matmul(left, right, out_dtype=pl.BF16), [0, 0], ybf)
        y32 = pl.store(pl.matmul(left, right, out_dtype=pl.FP32), [0, 0], y32)
        return y16, ybf, y32

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[M, K], pl.FP16], b: pl.Tensor[[K, N], pl.FP16],
             y16: pl.Out[pl.Tensor[[M, N], pl.FP16]], ybf: pl.Out[pl.Tensor[[M, N], pl.BF16]],
             y32: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
        y16, ybf, y32 = self.k(a, b, y16, ybf, y32)
        return y16, ybf, y32


def test_out_dtype_casts_the_fp32_product(tmp_path):
    run = ptokit.compile(OutDtype, output_dir=tmp_path / "out")
    rng = np.random.default_rng(4)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    y16, ybf = np.zeros((M, N), np.float16), np.zeros((M, N), ml_dtypes.bfloat16)
    y32 = np.zeros((M, N), np.float32)
    run(a, b, y16, ybf, y32)
    ref = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(y32, ref, rtol=1e-5, atol=1e-4)
    # the FP32 result rounded once: equal to numpy's conversion of our own FP32 product
    np.testing.assert_array_equal(y16, y32.astype(np.float16))
    np.testing.assert_array_equal(ybf.astype(np.float32), y32.astype(ml_dtypes.bfloat16).astype(np.float32))
