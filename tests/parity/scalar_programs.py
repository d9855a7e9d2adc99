"""A15, A16, B: scalar forms. New programs go at the end."""
import ptokit.language as pl

M = pl.dynamic("M")


@pl.program
class Scalars:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[M, 64], pl.FP32], s: pl.Scalar[pl.INT32], y: pl.Out[pl.Tensor[[M, 64], pl.FP32]]):
        pl.static_assert(64 % 16 == 0, "columns come in 16s")
        rows, cols = x.shape
        n = pl.tensor.dim(x, 0)
        c16 = pl.const(16, pl.INT32)
        bits = (s << 2) | 1                 # s * 4 + 1
        mask = bits & 0xFF ^ 0              # unchanged for small s
        neg = ~s + 1                        # -s
        big = pl.max(s, c16)
        small = min(s, 3)
        mag = abs(neg)
        f = pl.cast(mask + big + small + mag, pl.FP32)
        both = (s > 0) and (n > 0)
        either = not (s > 100) or (cols < 0)
        for i in pl.range(n // 16):
            t = pl.load(x, [i * 16, 0], [16, cols])
            if both and either:
                t = pl.adds(t, f)
            y = pl.store(t, [i * 16, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[M, 64], pl.FP32], s: pl.Scalar[pl.INT32], y: pl.Out[pl.Tensor[[M, 64], pl.FP32]]):
        y = self.k(x, s, y)
        return y


@pl.program
class StaticAssertFails:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        pl.static_assert(x.shape[0] % 32 == 0, "rows come in 32s")
        y = pl.store(pl.load(x, [0, 0], [16, 64]), [0, 0], y)
        return y


@pl.program
class ConstTooBig:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        c = pl.const(300, pl.INT8)
        y = pl.store(pl.adds(pl.load(x, [0, 0], [16, 64]), c), [0, 0], y)
        return y


@pl.program
class YieldLoops:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
          z: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        acc0 = pl.load(x, [0, 0], [16, 64])
        for i, (acc, cnt) in pl.range(1, 4, init_values=(acc0, 0)):
            t = pl.load(x, [i * 16, 0], [16, 64])
            nxt = pl.add(acc, t)
            total, seen = pl.yield_(nxt, cnt + 1)
        for j, (m,) in pl.pipeline(0, 4, 1, stage=2, init_values=(acc0,)):
            if j < n:
                cand = pl.yield_(pl.maximum(m, pl.load(x, [j * 16, 0], [16, 64])))
            else:
                cand = pl.yield_(m)
            best = pl.yield_(cand)
        y = pl.store(pl.muls(total, pl.cast(seen, pl.FP32)), [0, 0], y)
        z = pl.store(best, [0, 0], z)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
             z: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        y = self.k(x, n, y, z)
        return y


@pl.program
class UnrollPipeline:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[128, 64], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        acc = pl.load(x, [0, 0], [16, 64])
        for i in pl.unroll(1, 3):                 # two copies, i = 1 and 2
            acc = pl.add(acc, pl.muls(pl.load(x, [i * 16, 0], [16, 64]), 2.0))
        for j in pl.pipeline(3, n, 1, stage=3):   # rows 3 .. n-1 in steps of three, then the rest
            acc = pl.add(acc, pl.load(x, [j * 16, 0], [16, 64]))
        for j in pl.pipeline(0, 5, 2, stage=2):   # 0, 2 in one step, 4 after it
            acc = pl.adds(acc, 1.0)
        y = pl.store(acc, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[128, 64], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        for r in pl.unroll(2):
            y = self.k(x, n, y)
        return y
