"""One small kernel per section C family whose `.pto` is a golden: views (transpose with its
compiler-made scratch, reinterpret_view, set_validshape, extract), layouts (transpose_view feeding a
matmul), gathers (gather, the mask form, mgather, scatter, mscatter) and sorting (sort32, mrgsort
formats 1 and 2)."""
import ptokit.language as pl


@pl.program
class SectionC:
    @pl.function(type=pl.FunctionType.InCore)
    def views(self, a: pl.Tensor[[16, 32], pl.FP32], y: pl.Out[pl.Tensor[[32, 16], pl.FP32]], z: pl.Out[pl.Tensor[[16, 32], pl.INT32]],
              w: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        t = pl.load(a, [0, 0], [16, 32])
        y = pl.store(pl.transpose(t, 0, 1), [0, 0], y)
        z = pl.store(pl.reinterpret_view(t, pl.INT32), [0, 0], z)
        w = pl.store(pl.tile.extract(pl.set_validshape(t, 8, 16), 0, 16, [16, 16], target_memory=pl.Mem.Vec),
                     [0, 0], w)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def layouts(self, a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[16, 32], pl.FP16],
                y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        left = pl.move(pl.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        bt = pl.tile.transpose_view(pl.load(b, [0, 0], [16, 32], target_memory=pl.Mem.Mat))
        y = pl.store(pl.matmul(left, pl.move(bt, target_memory=pl.Mem.Right)), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def gathers(self, a: pl.Tensor[[8, 64], pl.FP32], ix: pl.Tensor[[8, 32], pl.INT32],
                tab: pl.Tensor[[64, 32], pl.FP32], rows: pl.Tensor[[1, 8], pl.INT32],
                y: pl.Out[pl.Tensor[[8, 32], pl.FP32]], z: pl.Out[pl.Tensor[[8, 32], pl.FP32]],
                g: pl.Out[pl.Tensor[[8, 32], pl.FP32]], o: pl.InOut[pl.Tensor[[64, 32], pl.FP32]]):
        t = pl.load(a, [0, 0], [8, 64])
        i = pl.load(ix, [0, 0], [8, 32])
        y = pl.store(pl.tile.gather(t, i, pl.tile.create([8, 32], pl.INT32)), [0, 0], y)
        z = pl.store(pl.tile.gather_mask(t, pl.tile.MaskPattern.P0101), [0, 0], z)
        g = pl.store(pl.tile.mgather(tab, pl.load(rows, [0, 0], [1, 8]), gather_oob="wrap"), [0, 0], g)
        d = pl.tile.scatter(pl.load(a, [0, 0], [8, 64]), pl.load(y, [0, 0], [8, 32]), i)
        pl.mscatter(pl.load(z, [0, 0], [8, 32]), i, o)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def sorts(self, a: pl.Tensor[[1, 128], pl.FP32], ix: pl.Tensor[[1, 128], pl.UINT32],
              y: pl.Out[pl.Tensor[[1, 256], pl.FP32]], z: pl.Out[pl.Tensor[[1, 512], pl.FP32]]):
        s = pl.sort32(pl.load(a, [0, 0], [1, 128]), pl.load(ix, [0, 0], [1, 128]))
        y = pl.store(pl.mrgsort(s, block_len=64), [0, 0], y)
        z = pl.store(pl.mrgsort(s, s, tmp=pl.tile.create([1, 512], pl.FP32), exhausted=True), [0, 0], z)
        return y
