"""A program whose [R, 1] columns (row reductions) go through every element-wise op that the real
assembler accepts only on row-major tiles, plus the ones it accepts on columns as they are."""
import ptokit.language as pl

R, N, K = 16, 32, 16


@pl.program
class ColumnOps:
    @pl.function(type=pl.FunctionType.InCore)
    def cols(self, x: pl.Tensor[[R, N], pl.FP32], out: pl.Out[pl.Tensor[[R, K], pl.FP32]]
             ) -> pl.Tensor[[R, K], pl.FP32]:
        t = pl.load(x, [0, 0], [R, N])
        tmp = pl.create_tile([R, N], dtype=pl.FP32)
        s = pl.row_sum(pl.mul(t, t), tmp)          # > 0
        m = pl.row_max(t, tmp)                     # either sign
        a = pl.rsqrt(pl.adds(s, 1.0))
        b = pl.sqrt(s)
        c = pl.exp(pl.neg(pl.abs(m)))
        d = pl.log(pl.adds(s, 2.0))
        e = pl.recip(pl.adds(s, 1.0))
        f = pl.relu(m)
        out = pl.store(a, [0, 0], out)
        out = pl.store(b, [0, 1], out)
        out = pl.store(c, [0, 2], out)
        out = pl.store(d, [0, 3], out)
        out = pl.store(e, [0, 4], out)
        out = pl.store(f, [0, 5], out)
        out = pl.store(pl.add(a, b), [0, 6], out)
        out = pl.store(pl.sub(c, d), [0, 7], out)
        out = pl.store(pl.mul(e, m), [0, 8], out)
        out = pl.store(pl.div(m, pl.adds(s, 1.0)), [0, 9], out)
        out = pl.store(pl.maximum(m, c), [0, 10], out)
        out = pl.store(pl.minimum(m, c), [0, 11], out)
        out = pl.store(pl.muls(m, 3.0), [0, 12], out)
        out = pl.store(pl.neg(m), [0, 13], out)
        out = pl.store(pl.abs(m), [0, 14], out)
        out = pl.store(pl.rsqrt(pl.adds(pl.mul(m, m), 0.5)), [0, 15], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, N], pl.FP32], y: pl.Out[pl.Tensor[[R, K], pl.FP32]]):
        y = self.cols(x, y)
        return y


def expected(x):
    import numpy as np
    s = (x * x).sum(axis=1)
    m = x.max(axis=1)
    a, b = 1 / np.sqrt(s + 1), np.sqrt(s)
    c, d = np.exp(-np.abs(m)), np.log(s + 2)
    e, f = 1 / (s + 1), np.maximum(m, 0)
    cols = [a, b, c, d, e, f, a + b, c - d, e * m, m / (s + 1), np.maximum(m, c), np.minimum(m, c), m * 3,
            -m, np.abs(m), 1 / np.sqrt(m * m + 0.5)]
    return np.stack(cols, axis=1).astype(np.float32)


@pl.program
class ReduceColumn:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[R, N], pl.FP32], out: pl.Out[pl.Tensor[[R, 1], pl.FP32]]) -> pl.Tensor[[R, 1], pl.FP32]:
        t = pl.load(x, [0, 0], [R, N])
        s = pl.row_sum(t, pl.create_tile([R, N], dtype=pl.FP32))
        c = pl.row_sum(s, pl.create_tile([R, 1], dtype=pl.FP32))
        out = pl.store(c, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, N], pl.FP32], y: pl.Out[pl.Tensor[[R, 1], pl.FP32]]):
        y = self.k(x, y)
        return y

