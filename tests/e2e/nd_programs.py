"""Kernels on N-D tiles (FlattenTileNdTo2D): tile-level batched matmuls of N-D Mat loads (natural,
through transpose_view on either side, batch axes broadcast against a 2-D operand and a batch of
one, in a loop over a batch offset) and transposes of the last two axes of 3-D and 4-D Vec tiles (one
of them 3-D by its annotation only)."""
import ptokit.language as pl

B, M, K, N = 3, 16, 32, 48


def make_nd_program(dt):
    @pl.program
    class NdTiles:
        @pl.function(type=pl.FunctionType.InCore)
        def natural(self, a: pl.Tensor[[B, M, K], dt], b: pl.Tensor[[B, K, N], dt],
                    c: pl.Out[pl.Tensor[[B, M, N], pl.FP32]]) -> pl.Tensor[[B, M, N], pl.FP32]:
            ta = pl.load(a, [0, 0, 0], [B, M, K], target_memory=pl.Mem.Mat)
            tb = pl.load(b, [0, 0, 0], [B, K, N], target_memory=pl.Mem.Mat)
            return pl.store(pl.batch_matmul(ta, tb), [0, 0, 0], c)

        @pl.function(type=pl.FunctionType.InCore)
        def both_t(self, at: pl.Tensor[[B, K, M], dt], bt: pl.Tensor[[B, N, K], dt],
                   c: pl.Out[pl.Tensor[[B, M, N], pl.FP32]]) -> pl.Tensor[[B, M, N], pl.FP32]:
            ta = pl.tile.transpose_view(pl.load(at, [0, 0, 0], [B, K, M], target_memory=pl.Mem.Mat))
            tb = pl.tile.transpose_view(pl.load(bt, [0, 0, 0], [B, N, K], target_memory=pl.Mem.Mat))
            return pl.store(pl.batch_matmul(ta, tb), [0, 0, 0], c)

        @pl.function(type=pl.FunctionType.InCore)
        def bcast(self, a: pl.Tensor[[B, M, K], dt], b1: pl.Tensor[[1, K, N], dt], b2: pl.Tensor[[K, N], dt],
                  c1: pl.Out[pl.Tensor[[B, M, N], pl.FP32]],
                  c2: pl.Out[pl.Tensor[[B, M, N], pl.FP32]]) -> pl.Tensor[[B, M, N], pl.FP32]:
            ta = pl.load(a, [0, 0, 0], [B, M, K], target_memory=pl.Mem.Mat)
            t1 = pl.load(b1, [0, 0, 0], [1, K, N], target_memory=pl.Mem.Mat)
            t2 = pl.load(b2, [0, 0], [K, N], target_memory=pl.Mem.Mat)
            c1 = pl.store(pl.batch_matmul(ta, t1), [0, 0, 0], c1)
            c2 = pl.store(pl.batch_matmul(ta, t2), [0, 0, 0], c2)
            return c1

        @pl.function(type=pl.FunctionType.InCore)
        def looped(self, a: pl.Tensor[[2 * B, M, K], dt], b: pl.Tensor[[2 * B, K, N], dt],
                   c: pl.Out[pl.Tensor[[2 * B, M, N], pl.FP32]]) -> pl.Tensor[[2 * B, M, N], pl.FP32]:
            for i in pl.range(2):
                ta = pl.load(a, [i * B, 0, 0], [B, M, K], target_memory=pl.Mem.Mat)
                tb = pl.load(b, [i * B, 0, 0], [B, K, N], target_memory=pl.Mem.Mat)
                c = pl.store(pl.batch_matmul(ta, tb), [i * B, 0, 0], c)
            return c

        @pl.function(type=pl.FunctionType.InCore)
        def trans3(self, x: pl.Tensor[[B, M, 8], pl.FP32],
                   y: pl.Out[pl.Tensor[[B, 8, M], pl.FP32]]) -> pl.Tensor[[B, 8, M], pl.FP32]:
            t: pl.Tile[[B, M, 8], pl.FP32] = pl.load(x, [0, 0, 0], [B, M, 8])
            u: pl.Tile[[B, 8, M], pl.FP32] = pl.transpose(pl.muls(t, 2.0), axis1=-1, axis2=-2)
            return pl.store(u, [0, 0, 0], y)

        @pl.function(type=pl.FunctionType.InCore)
        def trans4(self, x: pl.Tensor[[2, 2, 8, 16], pl.FP32],
                   y: pl.Out[pl.Tensor[[2, 2, 16, 8], pl.FP32]]) -> pl.Tensor[[2, 2, 16, 8], pl.FP32]:
            t = pl.load(x, [0, 0, 0, 0], [2, 2, 8, 16])
            return pl.store(pl.transpose(t, axis1=3, axis2=2), [0, 0, 0, 0], y)

        @pl.function(type=pl.FunctionType.InCore)
        def trans_annot(self, x: pl.Tensor[[2 * M, M], pl.FP32],
                        y: pl.Out[pl.Tensor[[2, M, M], pl.FP32]]) -> pl.Tensor[[2, M, M], pl.FP32]:
            # a 2-D load whose annotation names the batch axis of its rows
            t: pl.Tile[[2, M, M], pl.FP32] = pl.load(x, [0, 0], [2 * M, M])
            return pl.store(pl.transpose(t, axis1=1, axis2=2), [0, 0, 0], y)

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[B, M, K], dt], b: pl.Tensor[[B, K, N], dt], at: pl.Tensor[[B, K, M], dt],
                 bt: pl.Tensor[[B, N, K], dt], b1: pl.Tensor[[1, K, N], dt], b2: pl.Tensor[[K, N], dt],
                 a6: pl.Tensor[[2 * B, M, K], dt], b6: pl.Tensor[[2 * B, K, N], dt],
                 x3: pl.Tensor[[B, M, 8], pl.FP32], x4: pl.Tensor[[2, 2, 8, 16], pl.FP32],
                 x2: pl.Tensor[[2 * M, M], pl.FP32],
                 c_nat: pl.Out[pl.Tensor[[B, M, N], pl.FP32]], c_t: pl.Out[pl.Tensor[[B, M, N], pl.FP32]],
                 c_b1: pl.Out[pl.Tensor[[B, M, N], pl.FP32]], c_b2: pl.Out[pl.Tensor[[B, M, N], pl.FP32]],
                 c_loop: pl.Out[pl.Tensor[[2 * B, M, N], pl.FP32]], y3: pl.Out[pl.Tensor[[B, 8, M], pl.FP32]],
                 y4: pl.Out[pl.Tensor[[2, 2, 16, 8], pl.FP32]],
                 y2: pl.Out[pl.Tensor[[2, M, M], pl.FP32]]) -> pl.Tensor[[B, M, N], pl.FP32]:
            c_nat = self.natural(a, b, c_nat)
            c_t = self.both_t(at, bt, c_t)
            c_b1 = self.bcast(a, b1, b2, c_b1, c_b2)
            c_loop = self.looped(a6, b6, c_loop)
            y3 = self.trans3(x3, y3)
            y4 = self.trans4(x4, y4)
            y2 = self.trans_annot(x2, y2)
            return c_nat

    return NdTiles
