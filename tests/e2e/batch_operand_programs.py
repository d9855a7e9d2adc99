"""Batched matmuls of rank-3 tensors in kernel code.

``ComputedBTrans``: the b_trans operand is computed by the kernel (a tensor-level vector op, a Vec
tile after ConvertTensorToTileOps): each batch's matrix is a row band of that tile, moved to Mat and
on to Right through a transpose_view, as pypto's mixed kernels do.

``LargeBTrans``: the stacked ``[B * M, N]`` product does not fit Acc and each batch's transposed
operand does not fit Right: AutoTileMatmulL0 stores each batch's product at its place and tiles it
for L0, extracting the blocks of the transposed Mat tile (``LargeBTransTwice`` reads the stack twice:
it stays whole, and its products would need output grids: a located error).

``LargeBTrans2d``: a 2-D b_trans product whose operand does not fit Right: the front end leaves it
whole (load into Mat, transpose_view, move) and AutoTileMatmulL0 tiles it for the target."""
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


LB, LM, LK, LN = 2, 64, 64, 272      # stacked [128, 272] FP32 is 139 KB (Acc: 128 KB on a2a3); a batch's
                                     # transposed operand [64, 272] FP32 is 68 KB (Right: 64 KB)


@pl.program
class LargeBTrans:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[LB, LM, LK], pl.FP32], b: pl.Tensor[[LB, LN, LK], pl.FP32],
          c: pl.Out[pl.Tensor[[LB, LM, LN], pl.FP32]]) -> pl.Tensor[[LB, LM, LN], pl.FP32]:
        cm = pl.matmul(a, b, b_trans=True)
        c = pl.assemble(c, cm, offset=[0, 0, 0])
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[LB, LM, LK], pl.FP32], b: pl.Tensor[[LB, LN, LK], pl.FP32],
             c: pl.Out[pl.Tensor[[LB, LM, LN], pl.FP32]]) -> pl.Tensor[[LB, LM, LN], pl.FP32]:
        c = self.k(a, b, c)
        return c


@pl.program
class LargeBTransTwice:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[LB, LM, LK], pl.FP32], b: pl.Tensor[[LB, LN, LK], pl.FP32],
          c: pl.Out[pl.Tensor[[LB, LM, LN], pl.FP32]],
          d: pl.Out[pl.Tensor[[LB, LM, LN], pl.FP32]]) -> pl.Tensor[[LB, LM, LN], pl.FP32]:
        cm = pl.matmul(a, b, b_trans=True)
        c = pl.assemble(c, cm, offset=[0, 0, 0])
        d = pl.assemble(d, cm, offset=[0, 0, 0])
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[LB, LM, LK], pl.FP32], b: pl.Tensor[[LB, LN, LK], pl.FP32],
             c: pl.Out[pl.Tensor[[LB, LM, LN], pl.FP32]],
             d: pl.Out[pl.Tensor[[LB, LM, LN], pl.FP32]]) -> pl.Tensor[[LB, LM, LN], pl.FP32]:
        c = self.k(a, b, c, d)
        return c


TM, TK, TN = 64, 128, 288            # b_trans rhs [128, 288] FP32 is 144 KB (Right: 64 KB); both fit Mat


@pl.program
class LargeBTrans2d:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[TM, TK], pl.FP32], b: pl.Tensor[[TN, TK], pl.FP32],
          c: pl.Out[pl.Tensor[[TM, TN], pl.FP32]]) -> pl.Tensor[[TM, TN], pl.FP32]:
        c = pl.store(pl.matmul(a, b, b_trans=True), [0, 0], c)
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[TM, TK], pl.FP32], b: pl.Tensor[[TN, TK], pl.FP32],
             c: pl.Out[pl.Tensor[[TM, TN], pl.FP32]]) -> pl.Tensor[[TM, TN], pl.FP32]:
        c = self.k(a, b, c)
        return c
