"""One small kernel per family of the later vector ops, for the `.pto` and C++ goldens."""
import ptokit.language as pl

R, C = 8, 64


@pl.program
class Families:
    @pl.function(type=pl.FunctionType.InCore)
    def compare(self, a: pl.Tensor[[R, C], pl.FP32], b: pl.Tensor[[R, C], pl.FP32],
                y: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
        t = pl.load(a, [0, 0], [R, C])
        u = pl.load(b, [0, 0], [R, C], valid_shape=[R, 40])
        tmp = pl.tile.create_tile([1, 32], dtype=pl.UINT8)
        y = pl.store(pl.tile.sel(pl.cmp(t, u, cmp_type=2), t, u, tmp), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def bitwise(self, a: pl.Tensor[[R, C], pl.INT16], y: pl.Out[pl.Tensor[[R, C], pl.INT16]]):   # a2a3 xors 8/16 bits
        t = pl.load(a, [0, 0], [R, C])
        y = pl.store(pl.xor(pl.shls(t, 3), t, t), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def arith(self, a: pl.Tensor[[R, C], pl.INT32], y: pl.Out[pl.Tensor[[R, C], pl.INT32]]):   # a2a3 rem: i32/f32
        t = pl.load(a, [0, 0], [R, C])
        tmp = pl.tile.create_tile([R, C], dtype=pl.INT32)
        y = pl.store(pl.tile.subsc(pl.tile.rem(t, t, tmp), 7, t), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def argreduce(self, a: pl.Tensor[[R, C], pl.FP16], y: pl.Out[pl.Tensor[[R, 1], pl.INT32]]):
        t = pl.load(a, [0, 0], [R, C])
        tmp = pl.tile.create_tile([R, C], dtype=pl.FP16)
        y = pl.store(pl.row_argmax(t, tmp), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def generate(self, d: pl.Scalar[pl.INT32], y: pl.Out[pl.Tensor[[R, C], pl.INT32]],
                 z: pl.Out[pl.Tensor[[R, C], pl.UINT32]], w: pl.Out[pl.Tensor[[1, C], pl.INT32]]):
        y = pl.store(pl.tile.tri(d, [R, C], upper=True), [0, 0], y)
        z = pl.store(pl.random(1, 2, 3, 4, 5, 6, [R, C], rounds=7), [0, 0], z)
        w = pl.store(pl.tile.ci(0, [1, C], descending=True), [0, 0], w)
        return y, z, w

    @pl.function(type=pl.FunctionType.InCore)
    def params(self, a: pl.Tensor[[R, C], pl.FP32], y: pl.InOut[pl.Tensor[[R, C], pl.INT32]],
               s: pl.Out[pl.Tensor[[1, C], pl.FP32]]):
        t = pl.load(a, [0, 0], [R, C])
        tmp = pl.tile.create_tile([R, C], dtype=pl.FP32)
        y = pl.store(pl.cast(pl.div(t, t, high_precision=True), pl.INT32, mode="floor"), [0, 0], y,
                     atomic=pl.AtomicType.Add)
        s = pl.store(pl.col_sum(t, tmp), [0, 0], s)
        return y, s

    @pl.function(type=pl.FunctionType.InCore)
    def composite(self, a: pl.Tensor[[R, C], pl.FP32], y: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
        y = pl.store(pl.tile.cos(pl.load(a, [0, 0], [R, C])), [0, 0], y)
        return y
