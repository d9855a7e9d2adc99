"""Programs for test_front_end_drift.py: forms where the front ends used to disagree with the op
table or with each other (new programs go at the end)."""
import ptokit.language as pl


@pl.program
class RowSumTmpKeyword:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 1], pl.FP32]]):
        t = pl.load(a, [0, 0], [16, 64])
        tmp = pl.create_tile([16, 64], dtype=pl.FP32)
        out = pl.store(pl.row_sum(t, tmp=tmp), [0, 0], out)
        return out


@pl.program
class PyptoSpellings:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        t = pl.load(a, [0, 0], [16, 64])
        tmp = pl.create_tile([16, 64], dtype=pl.FP32)
        s = pl.tile.row_sum(input=t, tmp_tile=tmp)
        m = pl.row_max(t, tmp_tile=tmp)
        c = pl.row_expand_sub(tile=t, row_vec=pl.adds(m, 0.0))
        c = pl.row_expand_add(c, row_vec=s)
        top = pl.slice(c, [8, 64], offset=[0, 0])
        bottom = pl.slice(c, [8, 64], offsets=[8, 0])
        both = pl.concat(src0=pl.adds(top, 2), src1=bottom)
        out = pl.store(pl.reshape(both, [16, 64]), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        out = self.k(a, out)
        return out


@pl.program
class AtUnknownKeyword:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        out = pl.store(pl.load(a, [0, 0], [16, 64]), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        with pl.at(level=pl.Level.CORE_GROUP, windowize=True):
            out = self.k(a, out)
        return out


@pl.program
class AtDepsNotNames:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        out = pl.store(pl.load(a, [0, 0], [16, 64]), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        with pl.at(level=pl.Level.CORE_GROUP, deps=[0]):
            out = self.k(a, out)
        return out


@pl.program
class SpmdKeyword:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        out = pl.store(pl.load(a, [0, 0], [16, 64]), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        with pl.spmd(4, stride=2):
            out = self.k(a, out)
        return out


@pl.program
class RangeKeyword:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        for i in pl.range(2, step=1):
            out = pl.store(pl.load(a, [0, 0], [16, 64]), [0, 0], out)
        return out


@pl.jit
def window_write_mismatch(x: pl.Tensor, y: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(2):
            t = pl.load(x, [i * 16, 0], [16, 64])
            y[i * 32:(i + 1) * 32, :] = t
    return y


@pl.jit
def window_write_folded(x: pl.Tensor, y: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(2):
            t = pl.exp(pl.load(x, [i * 16, 0], [16, 64]))
            y[i * 16:(i + 1) * 16, :] = t
    return y


@pl.jit
def jit_at_unknown_keyword(x: pl.Tensor, y: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP, windowize=True):
        y[:] = pl.exp(x)
    return y


@pl.jit.incore
def exp_block(x: pl.Tensor, y: pl.Out[pl.Tensor]):
    t = pl.exp(pl.load(x, [0, 0], [32, 64]))
    y = pl.store(t, [0, 0], y)
    return y


@pl.jit
def jit_window_task_args(x: pl.Tensor, y: pl.Out[pl.Tensor]):
    for i in pl.range(2):
        y = exp_block(x[i * 32:(i + 1) * 32, :], y[i * 32:(i + 1) * 32, :])
    return y


@pl.program
class Fp8Tensor:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.HF8], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        out = pl.store(pl.cast(pl.load(a, [0, 0], [16, 64]), pl.FP32), [0, 0], out)
        return out


@pl.program
class Uint16Copy:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.UINT16], out: pl.Out[pl.Tensor[[16, 64], pl.UINT16]]):
        out = pl.store(pl.load(a, [0, 0], [16, 64]), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 64], pl.UINT16], out: pl.Out[pl.Tensor[[16, 64], pl.UINT16]]):
        out = self.k(a, out)
        return out
