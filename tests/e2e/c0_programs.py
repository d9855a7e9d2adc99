"""Kernels for the parameters pypto gives existing ops: store(atomic=), cast(mode=), high_precision,
rsqrt's tmp, fillpad's literal pad values."""
import functools
import math

import ptokit.language as pl

R, C = 16, 64


@functools.lru_cache(maxsize=None)
def make_atomic_sum(blocks, dtype, repeats=8):
    """Every SPMD block adds its own rows of x into the same y window, `repeats` times."""
    rows = blocks * R

    @pl.program
    class AtomicSum:
        @pl.function(type=pl.FunctionType.InCore)
        def add_block(self, x: pl.Tensor[[rows, C], dtype], y: pl.InOut[pl.Tensor[[R, C], dtype]]):
            b = pl.tile.get_block_idx()
            t = pl.load(x, [b * R, 0], [R, C])
            for _ in pl.range(repeats):
                y = pl.store(t, [0, 0], y, atomic=pl.AtomicType.Add)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[rows, C], dtype], y: pl.InOut[pl.Tensor[[R, C], dtype]]):
            with pl.spmd(blocks):
                y = self.add_block(x, y)
            return y

    return AtomicSum


MODES = ("none", "rint", "round", "floor", "ceil", "trunc", "odd", "cast_rint")


@pl.program
class CastModes:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1, C], pl.FP32], y: pl.Out[pl.Tensor[[10, C], pl.INT32]]):
        t = pl.load(x, [0, 0], [1, C])
        y = pl.store(pl.cast(t, pl.INT32, mode="none"), [0, 0], y)
        y = pl.store(pl.cast(t, pl.INT32, mode="rint"), [1, 0], y)
        y = pl.store(pl.cast(t, pl.INT32), [2, 0], y)                       # mode="round", the default
        y = pl.store(pl.tile.cast(t, target_type=pl.INT32, mode="floor"), [3, 0], y)
        y = pl.store(pl.cast(t, pl.INT32, mode="ceil"), [4, 0], y)
        y = pl.store(pl.cast(t, pl.INT32, mode="trunc"), [5, 0], y)
        y = pl.store(pl.cast(t, pl.INT32, mode="odd"), [6, 0], y)
        y = pl.store(pl.cast(t, pl.INT32, mode="cast_rint"), [7, 0], y)
        y = pl.store(pl.cast(t, pl.INT32, mode=3), [8, 0], y)               # a mode's number: floor
        y = pl.store(pl.cast(t, pl.INT32, mode="FLOOR"), [9, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[1, C], pl.FP32], y: pl.Out[pl.Tensor[[10, C], pl.INT32]]):
        y = self.k(x, y)
        return y


@pl.program
class Precision:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[R, C], pl.FP32], b: pl.Tensor[[R, C], pl.FP32], y: pl.Out[pl.Tensor[[8 * R, C], pl.FP32]]):
        t = pl.load(a, [0, 0], [R, C])
        u = pl.load(b, [0, 0], [R, C], valid_shape=[R - 3, C - 7])
        tmp = pl.tile.create_tile([R, C], dtype=pl.FP32)
        y = pl.store(pl.div(t, u, high_precision=True), [0, 0], y)
        y = pl.store(pl.log(t, high_precision=True), [R, 0], y)
        y = pl.store(pl.tile.recip(t, high_precision=True), [2 * R, 0], y)
        y = pl.store(pl.tile.rsqrt(t, tmp), [3 * R, 0], y)
        y = pl.store(pl.fillpad(u, pad_value=0), [4 * R, 0], y)
        y = pl.store(pl.fillpad(u, pad_value=math.inf), [5 * R, 0], y)
        y = pl.store(pl.fillpad(u, pad_value=-math.inf), [6 * R, 0], y)
        y = pl.store(pl.tile.fillpad(u, pad_value=pl.PadValue.max), [7 * R, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[R, C], pl.FP32], b: pl.Tensor[[R, C], pl.FP32],
             y: pl.Out[pl.Tensor[[8 * R, C], pl.FP32]]):
        y = self.k(a, b, y)
        return y
