"""Kernels of the generator ops (expands, full, ci/arange, tri, random) and the pad-filling copies."""
import math

import ptokit.language as pl

R, C = 16, 64
VR, VC = 13, 45


@pl.program
class Generate:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[R, C], pl.FP32], start: pl.Scalar[pl.INT32], diag: pl.Scalar[pl.INT32],
          key: pl.Scalar[pl.INT32], y0: pl.Out[pl.Tensor[[R, C], pl.FP32]], y1: pl.Out[pl.Tensor[[R, C], pl.FP16]],
          y2: pl.Out[pl.Tensor[[1, C], pl.INT32]], y3: pl.Out[pl.Tensor[[1, 32], pl.INT16]],
          y4: pl.Out[pl.Tensor[[R, C], pl.INT32]], y5: pl.Out[pl.Tensor[[R, C], pl.FP32]],
          y6: pl.Out[pl.Tensor[[R, C], pl.UINT32]], y7: pl.Out[pl.Tensor[[R, C], pl.INT32]],
          y8: pl.Out[pl.Tensor[[2 * R, 2 * C], pl.FP32]], y9: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
        t = pl.load(a, [0, 0], [R, C], valid_shape=[VR, VC])
        y0 = pl.store(pl.expands(t, 2.5), [0, 0], y0)
        y1 = pl.store(pl.full([R, C], pl.FP16, 1.5), [0, 0], y1)
        y2 = pl.store(pl.tile.ci(5, [1, C]), [0, 0], y2)
        y3 = pl.store(pl.arange(start, [1, 32], dtype=pl.INT16, descending=True), [0, 0], y3)
        y4 = pl.store(pl.tile.tri(diag, [R, C], valid_shape=[VR, VC]), [0, 0], y4)
        y5 = pl.store(pl.tile.tri(-2, [R, C], dtype=pl.FP32, upper=True), [0, 0], y5)
        y6 = pl.store(pl.random(1, 2, 3, 4, 5, 6, [R, C], valid_shape=[VR, VC]), [0, 0], y6)
        y7 = pl.store(pl.tile.random(key, 7, -1, 0, 0, 9, [R, C], dtype=pl.INT32, rounds=7), [0, 0], y7)
        y8 = pl.store(pl.fillpad_expand(t, [2 * R, 2 * C], pad_value=math.inf), [0, 0], y8)
        y9 = pl.store(pl.tile.fillpad_inplace(t, pad_value=-math.inf), [0, 0], y9)
        return y0, y1, y2, y3, y4, y5, y6, y7, y8, y9

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[R, C], pl.FP32], start: pl.Scalar[pl.INT32], diag: pl.Scalar[pl.INT32],
             key: pl.Scalar[pl.INT32], y0: pl.Out[pl.Tensor[[R, C], pl.FP32]], y1: pl.Out[pl.Tensor[[R, C], pl.FP16]],
             y2: pl.Out[pl.Tensor[[1, C], pl.INT32]], y3: pl.Out[pl.Tensor[[1, 32], pl.INT16]],
             y4: pl.Out[pl.Tensor[[R, C], pl.INT32]], y5: pl.Out[pl.Tensor[[R, C], pl.FP32]],
             y6: pl.Out[pl.Tensor[[R, C], pl.UINT32]], y7: pl.Out[pl.Tensor[[R, C], pl.INT32]],
             y8: pl.Out[pl.Tensor[[2 * R, 2 * C], pl.FP32]], y9: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
        y0, y1, y2, y3, y4, y5, y6, y7, y8, y9 = self.k(a, start, diag, key, y0, y1, y2, y3, y4, y5, y6, y7, y8, y9)
        return y0, y1, y2, y3, y4, y5, y6, y7, y8, y9
