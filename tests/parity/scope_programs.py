"""A3, A4, B: runtime scopes, task submission, SPMD forms. New programs go at the end."""
import ptokit.language as pl

R, C = 64, 64


@pl.program
class Scopes:
    @pl.function(type=pl.FunctionType.InCore)
    def inc(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
        y = pl.store(pl.adds(pl.load(x, [0, 0], [R, C]), 1.0), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def pair(self, x: pl.Tensor[[R, C], pl.FP32], a: pl.Out[pl.Tensor[[R, C], pl.FP32]],
             b: pl.Out[pl.Tensor[[R, C], pl.FP32]]) -> tuple[pl.Tensor[[R, C], pl.FP32], pl.Tensor[[R, C], pl.FP32]]:
        t = pl.load(x, [0, 0], [R, C])
        a = pl.store(pl.muls(t, 2.0), [0, 0], a)
        b = pl.store(pl.muls(t, 3.0), [0, 0], b)
        return a, b

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Out[pl.Tensor[[R, C], pl.FP32]],
             a: pl.Out[pl.Tensor[[R, C], pl.FP32]], b: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
        u = pl.create_tensor([R, C], dtype=pl.FP32)
        u = self.inc(x, u)
        with pl.manual_scope():
            t = pl.create_tensor([R, C], dtype=pl.FP32)
            t, t0 = pl.submit(self.inc, u, t)
            u, t1 = pl.submit(self.inc, t, u, deps=[t0])
        with pl.scope(mode=pl.ScopeMode.AUTO):
            y = pl.submit(self.inc, u, y)
        with pl.scope():
            (a, b), _ = pl.submit(self.pair, y, a, b)
        return y


@pl.program
class SpmdForms:
    @pl.function(type=pl.FunctionType.InCore)
    def rows(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
        i = pl.tile.get_block_idx()
        y = pl.store(pl.muls(pl.load(x, [i * 16, 0], [16, C]), 10.0), [i * 16, 0], y)
        return y

    @pl.function
    def main(self, x: pl.Tensor[[R, C], pl.FP32], n: pl.Scalar[pl.INDEX], y1: pl.Out[pl.Tensor[[R, C], pl.FP32]],
             y2: pl.Out[pl.Tensor[[R, C], pl.FP32]], y3: pl.Out[pl.Tensor[[R, C], pl.FP32]],
             y4: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
        for i in pl.spmd(4, name_hint="ex"):
            y1[i * 16:(i + 1) * 16, :] = pl.exp(x[i * 16:(i + 1) * 16, :])
        with pl.spmd(core_num=4, sync_start=True):
            y2 = self.rows(x, y2)
        with pl.spmd(n, deps=[]) as t2:
            y3 = self.rows(y2, y3)
        with pl.cluster():
            with pl.spmd(core_num=4):
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="neg"):
                    j = pl.tile.get_block_idx()
                    y4 = pl.store(pl.neg(pl.load(x, [j * 16, 0], [16, C])), [j * 16, 0], y4)
        return y1


@pl.program
class NestedManual:
    @pl.function(type=pl.FunctionType.InCore)
    def inc(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
        y = pl.store(pl.load(x, [0, 0], [R, C]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
        with pl.manual_scope():
            with pl.scope(mode=pl.ScopeMode.MANUAL):
                y = self.inc(x, y)
        return y


@pl.program
class ScopeInKernel:
    @pl.function(type=pl.FunctionType.InCore)
    def inc(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
        with pl.scope():
            y = pl.store(pl.load(x, [0, 0], [R, C]), [0, 0], y)
        return y


@pl.program
class Predicate:
    @pl.function(type=pl.FunctionType.InCore)
    def inc(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
        y = pl.store(pl.load(x, [0, 0], [R, C]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
        y, t = pl.submit(self.inc, x, y, predicate=(x > 0))
        return y


@pl.jit
def jit_spmd_loop(x: pl.Tensor, y: pl.Out[pl.Tensor]):
    for i in pl.spmd(4):
        y[i * 16:(i + 1) * 16, :] = pl.adds(x[i * 16:(i + 1) * 16, :], 5.0)
    return y


@pl.program
class EscapesScope:
    @pl.function(type=pl.FunctionType.InCore)
    def inc(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
        y = pl.store(pl.load(x, [0, 0], [R, C]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
        with pl.scope():
            t = pl.create_tensor([R, C], dtype=pl.FP32)
            t = self.inc(x, t)
        y = self.inc(t, y)
        return y


def sync_start_rows(blocks: int):
    """``blocks`` vector blocks started together (sync_start=True), block i scaling rows 8i..8i+7 by 10:
    48 blocks need every vector core of a2a3 (24 clusters), more than the default 8 clusters simulate."""

    @pl.program
    class SyncStartRows:
        @pl.function(type=pl.FunctionType.InCore)
        def rows(self, x: pl.Tensor[[blocks * 8, C], pl.FP32], y: pl.Out[pl.Tensor[[blocks * 8, C], pl.FP32]]):
            i = pl.tile.get_block_idx()
            y = pl.store(pl.muls(pl.load(x, [i * 8, 0], [8, C]), 10.0), [i * 8, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[blocks * 8, C], pl.FP32], y: pl.Out[pl.Tensor[[blocks * 8, C], pl.FP32]]):
            with pl.spmd(core_num=blocks, sync_start=True):
                y = self.rows(x, y)
            return y
    return SyncStartRows


@pl.program
class SyncStartRunTimeBlocks:
    """A sync-start task whose block count is a scalar argument: known only when it runs."""

    @pl.function(type=pl.FunctionType.InCore)
    def rows(self, x: pl.Tensor[[48 * 8, C], pl.FP32], y: pl.Out[pl.Tensor[[48 * 8, C], pl.FP32]]):
        i = pl.tile.get_block_idx()
        y = pl.store(pl.muls(pl.load(x, [i * 8, 0], [8, C]), 10.0), [i * 8, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[48 * 8, C], pl.FP32], n: pl.Scalar[pl.INDEX],
             y: pl.Out[pl.Tensor[[48 * 8, C], pl.FP32]]):
        with pl.spmd(core_num=n, sync_start=True):
            y = self.rows(x, y)
        return y
