"""Programs of the sorting family: sort32 (FP32 / FP16, a partial valid region, one idx row for
every row) and mrgsort format 1 (block_len static and at run time) and format 2 (2-, 3- and 4-way,
exhausted, FP16, tmp made by the compiler)."""
import ptokit.language as pl


@pl.program
class Sorts:
    @pl.function(type=pl.FunctionType.InCore)
    def blocks(self, v32: pl.Tensor[[4, 64], pl.FP32], i32: pl.Tensor[[4, 64], pl.UINT32],
               v32b: pl.Tensor[[2, 64], pl.FP32], ishared: pl.Tensor[[1, 64], pl.UINT32],
               v16: pl.Tensor[[2, 64], pl.FP16], w: pl.Tensor[[1, 128], pl.FP32], wh: pl.Tensor[[1, 128], pl.FP16],
               wi: pl.Tensor[[1, 128], pl.UINT32], bl: pl.Scalar[pl.INDEX],
               s32: pl.Out[pl.Tensor[[4, 128], pl.FP32]], s32b: pl.Out[pl.Tensor[[2, 128], pl.FP32]],
               s16: pl.Out[pl.Tensor[[2, 256], pl.FP16]], f1: pl.Out[pl.Tensor[[1, 256], pl.FP32]],
               f1h: pl.Out[pl.Tensor[[1, 512], pl.FP16]], f1d: pl.Out[pl.Tensor[[1, 256], pl.FP32]]):
        s32 = pl.store(pl.sort32(pl.load(v32, [0, 0], [4, 64], valid_shape=[3, 48]), pl.load(i32, [0, 0], [4, 64])),
                       [0, 0], s32)
        s32b = pl.store(pl.tile.sort32(src=pl.load(v32b, [0, 0], [2, 64]), idx=pl.load(ishared, [0, 0], [1, 64])),
                        [0, 0], s32b)
        s16 = pl.store(pl.sort32(pl.load(v16, [0, 0], [2, 64]), pl.load(i32, [0, 0], [2, 64]),
                                 tmp=pl.tile.create([2, 64], pl.FP16)), [0, 0], s16)
        ids = pl.load(wi, [0, 0], [1, 128])
        runs = pl.sort32(pl.load(w, [0, 0], [1, 128]), ids)
        f1 = pl.store(pl.mrgsort(runs, block_len=64), [0, 0], f1)
        f1h = pl.store(pl.tile.mrgsort(pl.sort32(pl.load(wh, [0, 0], [1, 128]), ids), block_len=128), [0, 0], f1h)
        f1d = pl.store(pl.mrgsort(runs, block_len=bl), [0, 0], f1d)
        return s32

    @pl.function(type=pl.FunctionType.InCore)
    def lists(self, q0: pl.Tensor[[1, 32], pl.FP32], q1: pl.Tensor[[1, 32], pl.FP32],
              q2: pl.Tensor[[1, 32], pl.FP32], q3: pl.Tensor[[1, 32], pl.FP32],
              h0: pl.Tensor[[1, 32], pl.FP16], h1: pl.Tensor[[1, 32], pl.FP16], qi: pl.Tensor[[4, 32], pl.UINT32],
              m2: pl.Out[pl.Tensor[[1, 128], pl.FP32]], m3: pl.Out[pl.Tensor[[1, 192], pl.FP32]],
              m4: pl.Out[pl.Tensor[[1, 256], pl.FP32]], m2e: pl.Out[pl.Tensor[[1, 128], pl.FP32]],
              m2h: pl.Out[pl.Tensor[[1, 256], pl.FP16]], m2c: pl.Out[pl.Tensor[[1, 128], pl.FP32]]):
        l0 = pl.sort32(pl.load(q0, [0, 0], [1, 32]), pl.load(qi, [0, 0], [1, 32]))
        l1 = pl.sort32(pl.load(q1, [0, 0], [1, 32]), pl.load(qi, [1, 0], [1, 32]))
        l2 = pl.sort32(pl.load(q2, [0, 0], [1, 32]), pl.load(qi, [2, 0], [1, 32]))
        l3 = pl.sort32(pl.load(q3, [0, 0], [1, 32]), pl.load(qi, [3, 0], [1, 32]))
        m2 = pl.store(pl.mrgsort(l0, l1, tmp=pl.tile.create([1, 128], pl.FP32)), [0, 0], m2)
        m3 = pl.store(pl.tile.mrgsort(l0, l1, l2, tmp=pl.tile.create([1, 192], pl.FP32)), [0, 0], m3)
        m4 = pl.store(pl.mrgsort(l0, l1, l2, l3, pl.tile.create([1, 256], pl.FP32)), [0, 0], m4)
        short = pl.sort32(pl.load(q3, [0, 0], [1, 32], valid_shape=[1, 8]), pl.load(qi, [3, 0], [1, 32]))
        m2e = pl.store(pl.mrgsort(l0, short, tmp=pl.tile.create([1, 128], pl.FP32), exhausted=True), [0, 0], m2e)
        k0 = pl.sort32(pl.load(h0, [0, 0], [1, 32]), pl.load(qi, [0, 0], [1, 32]))
        k1 = pl.sort32(pl.load(h1, [0, 0], [1, 32]), pl.load(qi, [1, 0], [1, 32]))
        m2h = pl.store(pl.mrgsort(k0, k1, tmp=pl.tile.create([1, 256], pl.FP16)), [0, 0], m2h)
        m2c = pl.store(pl.mrgsort(l1, l0), [0, 0], m2c)       # tmp made by the compiler
        return m2

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, v32: pl.Tensor[[4, 64], pl.FP32], i32: pl.Tensor[[4, 64], pl.UINT32],
             v32b: pl.Tensor[[2, 64], pl.FP32], ishared: pl.Tensor[[1, 64], pl.UINT32],
             v16: pl.Tensor[[2, 64], pl.FP16], w: pl.Tensor[[1, 128], pl.FP32], wh: pl.Tensor[[1, 128], pl.FP16],
             wi: pl.Tensor[[1, 128], pl.UINT32], bl: pl.Scalar[pl.INDEX],
             q0: pl.Tensor[[1, 32], pl.FP32], q1: pl.Tensor[[1, 32], pl.FP32],
             q2: pl.Tensor[[1, 32], pl.FP32], q3: pl.Tensor[[1, 32], pl.FP32],
             h0: pl.Tensor[[1, 32], pl.FP16], h1: pl.Tensor[[1, 32], pl.FP16], qi: pl.Tensor[[4, 32], pl.UINT32],
             s32: pl.Out[pl.Tensor[[4, 128], pl.FP32]], s32b: pl.Out[pl.Tensor[[2, 128], pl.FP32]],
             s16: pl.Out[pl.Tensor[[2, 256], pl.FP16]], f1: pl.Out[pl.Tensor[[1, 256], pl.FP32]],
             f1h: pl.Out[pl.Tensor[[1, 512], pl.FP16]], f1d: pl.Out[pl.Tensor[[1, 256], pl.FP32]],
             m2: pl.Out[pl.Tensor[[1, 128], pl.FP32]], m3: pl.Out[pl.Tensor[[1, 192], pl.FP32]],
             m4: pl.Out[pl.Tensor[[1, 256], pl.FP32]], m2e: pl.Out[pl.Tensor[[1, 128], pl.FP32]],
             m2h: pl.Out[pl.Tensor[[1, 256], pl.FP16]], m2c: pl.Out[pl.Tensor[[1, 128], pl.FP32]]):
        s32 = self.blocks(v32, i32, v32b, ishared, v16, w, wh, wi, bl, s32, s32b, s16, f1, f1h, f1d)
        m2 = self.lists(q0, q1, q2, q3, h0, h1, qi, m2, m3, m4, m2e, m2h, m2c)
        return s32
