"""Batched matmuls whose operand the kernel computes (a tensor-level vector op over rank-3 tensors,
a Vec tile after ConvertTensorToTileOps): each batch's matrix is a row band of that tile, moved to
Mat and on to Left / Right (through a transpose_view for b_trans), as pypto's mixed kernels do."""
import ptokit.language as pl

B, M, K, N = 2, 16, 32, 16


@pl.program
class ComputedBTrans:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[B, M, K], pl.FP32], b0: pl.Tensor[[B, N, K], pl.FP32],
          b1: pl.Tensor[[B, N, K], pl.FP32],
          c: pl.Out[pl.Tensor[[B, M, N], pl.FP32]]) -> pl.Tensor[[B, M, N], pl.FP32]:
        bt = pl.add(b0, b1)                                   # [B, N, K], computed on the vector core
        cm = pl.matmul(a, bt, b_trans=True, out_dtype=pl.FP32)
        c = pl.assemble(c, cm, offset=[0, 0, 0])
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[B, M, K], pl.FP32], b0: pl.Tensor[[B, N, K], pl.FP32],
             b1: pl.Tensor[[B, N, K], pl.FP32],
             c: pl.Out[pl.Tensor[[B, M, N], pl.FP32]]) -> pl.Tensor[[B, M, N], pl.FP32]:
        c = self.k(a, b0, b1, c)
        return c


@pl.program
class WideWindow:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, b0: pl.Tensor[[B, N, K], pl.FP32], b1: pl.Tensor[[B, N, K], pl.FP32],
          c: pl.Out[pl.Tensor[[B, 8, K], pl.FP32]]) -> pl.Tensor[[B, 8, K], pl.FP32]:
        bt = pl.add(b0, b1)
        c = pl.assemble(c, pl.exp(bt[:, 0:8, :]), offset=[0, 0, 0])     # two matrices' first rows: not one band
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, b0: pl.Tensor[[B, N, K], pl.FP32], b1: pl.Tensor[[B, N, K], pl.FP32],
             c: pl.Out[pl.Tensor[[B, 8, K], pl.FP32]]) -> pl.Tensor[[B, 8, K], pl.FP32]:
        c = self.k(b0, b1, c)
        return c
