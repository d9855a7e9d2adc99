"""Forms met running pypto's own example programs unchanged (the compat-lang pass).
New programs go at the end of this file."""
import ptokit.language as pl

R, C = 16, 32


@pl.program
class ColumnScratchReductions:
    """Row reductions given a [rows, 1] scratch tile (pypto accepts it next to one of the input's shape)."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
        t = pl.load(x, [0, 0], [R, C])
        col = pl.create_tile([R, 1], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        full = pl.create_tile([R, C], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        hi = pl.row_max(t, col)
        lo = pl.row_min(t, col)
        total = pl.row_sum(t, full)
        u = pl.row_expand_sub(t, hi)             # x - max
        u = pl.row_expand_add(u, lo)             # + min
        u = pl.row_expand_mul(u, total)          # * sum
        y = pl.store(u, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Out[pl.Tensor[[R, C], pl.FP32]]):
        y = self.k(x, y)
        return y


def _bad_scratch_program(scratch_shape):
    @pl.program
    class BadScratch:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Out[pl.Tensor[[R, 1], pl.FP32]]):
            t = pl.load(x, [0, 0], [R, C])
            tmp = pl.create_tile(scratch_shape, dtype=pl.FP32, target_memory=pl.Mem.Vec)
            m = pl.row_max(t, tmp)
            y = pl.store(m, [0, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[R, C], pl.FP32], y: pl.Out[pl.Tensor[[R, 1], pl.FP32]]):
            y = self.k(x, y)
            return y
    return BadScratch
