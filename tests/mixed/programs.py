"""Mixed cube+vector and SPMD-identity programs for tests/mixed. Append new ones at the END:
golden files record line numbers."""
import functools

import ptokit.language as pl


@pl.program
class MatmulExp:
    """y = exp(a @ b): one mixed kernel (cube matmul, FIFO, vector exp)."""

    @pl.function(type=pl.FunctionType.InCore)
    def mm_exp(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
               y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        ta = pl.move(pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        tb = pl.move(pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        acc = pl.matmul(ta, tb)
        v = pl.move(acc, target_memory=pl.Mem.Vec)
        y = pl.store(pl.exp(v), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
             y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        y = self.mm_exp(a, b, y)
        return y
