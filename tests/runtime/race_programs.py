"""Programs of the race checker's tests (test_races.py): one orchestration, a `sel` scalar
picks the scenario, so each runtime kind compiles it once."""
import ptokit.language as pl

R, C, H = 64, 64, 32

# the scenarios (the `sel` argument)
(RAW, RAW_FIXED, WAR, WAR_FIXED, WAW, DISJOINT, OVERLAP, AUTO, CHAIN, AUTO_WAR, CREATED, CREATED_FIXED, SPMD_ROWS,
 SPMD_SAME, SPMD_COLS, AUTO_THEN_RAW) = range(16)


@pl.program
class Races:
    @pl.function(type=pl.FunctionType.InCore)
    def inc(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
        y = pl.store(pl.adds(pl.load(x, [0, 0], [R, C]), 1.0), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def twice(self, x: pl.Tensor[[H, C], pl.FP32], y: pl.Out[pl.Tensor[[H, C], pl.FP32]]):
        y = pl.store(pl.muls(pl.load(x, [0, 0], [H, C]), 2.0), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def rows(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
        i = pl.tile.get_block_idx()                         # block i: rows 16i .. 16i+15
        y = pl.store(pl.muls(pl.load(x, [i * 16, 0], [16, C]), 10.0), [i * 16, 0], y)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def first_rows(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
        y = pl.store(pl.muls(pl.load(x, [0, 0], [16, C]), 10.0), [0, 0], y)   # every block: rows 0..15
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def cols(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
        i = pl.tile.get_block_idx()                         # block i: columns 16i .. 16i+15
        y = pl.store(pl.muls(pl.load(x, [0, i * 16], [R, 16]), 10.0), [0, i * 16], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, C], pl.FP32], t: pl.Out[pl.Tensor[[R, C], pl.FP32]],
             y: pl.Out[pl.Tensor[[R, C], pl.FP32]], sel: pl.Scalar[pl.INT32]):
        with pl.manual_scope():
            if sel == 0:                                   # RAW: y reads t before/while t is written
                self.inc(x, t)
                self.inc(t, y)
            if sel == 1:
                t, a = pl.submit(self.inc, x, t)
                y, b = pl.submit(self.inc, t, y, deps=[a])
            if sel == 2:                                   # WAR: t is overwritten while y reads it
                self.inc(t, y)
                self.inc(x, t)
            if sel == 3:
                y, a = pl.submit(self.inc, t, y)
                t, b = pl.submit(self.inc, x, t, deps=[a])
            if sel == 4:                                   # WAW: which write of y lands last?
                self.inc(x, y)
                self.inc(t, y)
            if sel == 5:                                   # disjoint windows of y: no race
                self.twice(x[0:32, :], y[0:32, :])
                self.twice(x[32:64, :], y[32:64, :])
            if sel == 6:                                   # overlapping windows: rows 16..31 of y
                self.twice(x[0:32, :], y[0:32, :])
                self.twice(x[16:48, :], y[16:48, :])
        if sel == 7:                                       # the RAW program in an AUTO scope
            self.inc(x, t)
            self.inc(t, y)
        if sel == 8:                                       # a chain ordered by deps= only
            with pl.manual_scope():
                t, a = pl.submit(self.inc, x, t)
                y, b = pl.submit(self.inc, t, y, deps=[a])
                t, c = pl.submit(self.inc, y, t, deps=[b])
                y, d = pl.submit(self.inc, t, y, deps=[c])
        if sel == 9:                                        # AUTO scope: write-after-read is not tracked
            self.inc(t, y)
            self.inc(x, t)
        with pl.manual_scope():
            if sel == 10:                                   # a runtime-created tensor read without deps=
                u = pl.create_tensor([R, C], dtype=pl.FP32)
                u = self.inc(x, u)
                self.inc(u, y)
            if sel == 11:
                v = pl.create_tensor([R, C], dtype=pl.FP32)
                v, a = pl.submit(self.inc, x, v)
                y, b = pl.submit(self.inc, v, y, deps=[a])
            if sel == 12:                                   # SPMD blocks on their own rows: no race
                with pl.spmd(core_num=4):
                    y = self.rows(x, y)
            if sel == 13:                                   # every block writes rows 0..15
                with pl.spmd(core_num=4):
                    y = self.first_rows(x, y)
            if sel == 14:                                   # column blocks: strided, disjoint
                with pl.spmd(core_num=4):
                    y = self.cols(x, y)
        if sel == 15:                                       # an AUTO-scope task, then a MANUAL scope's RAW
            self.inc(x, t)
            with pl.manual_scope():
                self.inc(t, y)
                self.inc(y, t)
        return y
