"""DSL programs measured by bench/run.py (named so it never shadows tests/programs.py).

Sizes are module constants so the table's units can quote them.
"""
import ptokit.language as pl

# --- a two-kernel program (compile-time rows): the README's example -------------
import sys as _sys  # noqa: E402
from pathlib import Path as _Path  # noqa: E402

_sys.path.insert(0, str(_Path(__file__).resolve().parents[1] / "examples"))
from add_scale import AddScale as TwoKernels  # noqa: E402,F401  (add, then exp(x * s), via a runtime tensor)


# --- one small task (run latency) -------------------------------------------
S = 16


@pl.program
class OneTask:
    @pl.function(type=pl.FunctionType.InCore)
    def add(self, a: pl.Tensor[[S, S], pl.FP32], b: pl.Tensor[[S, S], pl.FP32],
            out: pl.Out[pl.Tensor[[S, S], pl.FP32]]) -> pl.Tensor[[S, S], pl.FP32]:
        out = pl.store(pl.add(pl.load(a, [0, 0], [S, S]), pl.load(b, [0, 0], [S, S])), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[S, S], pl.FP32], b: pl.Tensor[[S, S], pl.FP32],
             y: pl.Out[pl.Tensor[[S, S], pl.FP32]]) -> pl.Tensor[[S, S], pl.FP32]:
        y = self.add(a, b, y)
        return y


# --- streaming elementwise work (throughput) --------------------------------
# One kernel loops over row blocks of a large tensor: y = a + b.  Tile 64x128 f32 (32 KB),
# three tiles live (96 KB of the 184 KB Vec space).
EW_ROWS = 16384
EW_COLS = 128
EW_BLOCK = 64


def make_stream_add(rows):
    """y = a + b over a [rows, EW_COLS] f32 tensor, one kernel looping over row blocks."""

    @pl.program
    class StreamAdd:
        @pl.function(type=pl.FunctionType.InCore)
        def vadd(self, a: pl.Tensor[[rows, EW_COLS], pl.FP32], b: pl.Tensor[[rows, EW_COLS], pl.FP32],
                 out: pl.Out[pl.Tensor[[rows, EW_COLS], pl.FP32]]) -> pl.Tensor[[rows, EW_COLS], pl.FP32]:
            for i in pl.range(rows // EW_BLOCK):
                ta = pl.load(a, [i * EW_BLOCK, 0], [EW_BLOCK, EW_COLS])
                tb = pl.load(b, [i * EW_BLOCK, 0], [EW_BLOCK, EW_COLS])
                out = pl.store(pl.add(ta, tb), [i * EW_BLOCK, 0], out)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[rows, EW_COLS], pl.FP32], b: pl.Tensor[[rows, EW_COLS], pl.FP32],
                 y: pl.Out[pl.Tensor[[rows, EW_COLS], pl.FP32]]) -> pl.Tensor[[rows, EW_COLS], pl.FP32]:
            y = self.vadd(a, b, y)
            return y

    return StreamAdd


StreamAdd = make_stream_add(EW_ROWS)
# A size well past a 32 MiB L3 (3 x 64 MiB moved): numpy becomes DRAM-bound too.
EW_ROWS_LARGE = 131072


@pl.program
class StreamCopy:
    """The load/store part of StreamAdd alone (y = a): separates data movement from TADD."""

    @pl.function(type=pl.FunctionType.InCore)
    def vcopy(self, a: pl.Tensor[[EW_ROWS, EW_COLS], pl.FP32],
              out: pl.Out[pl.Tensor[[EW_ROWS, EW_COLS], pl.FP32]]) -> pl.Tensor[[EW_ROWS, EW_COLS], pl.FP32]:
        for i in pl.range(EW_ROWS // EW_BLOCK):
            ta = pl.load(a, [i * EW_BLOCK, 0], [EW_BLOCK, EW_COLS])
            out = pl.store(ta, [i * EW_BLOCK, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[EW_ROWS, EW_COLS], pl.FP32],
             y: pl.Out[pl.Tensor[[EW_ROWS, EW_COLS], pl.FP32]]) -> pl.Tensor[[EW_ROWS, EW_COLS], pl.FP32]:
        y = self.vcopy(a, y)
        return y


# The same work split over SPMD blocks: one task, EW_SPMD blocks, each adding its share of rows.
EW_SPMD = 8
EW_PER_BLOCK = EW_ROWS // EW_SPMD // EW_BLOCK


@pl.program
class StreamAddSpmd:
    @pl.function(type=pl.FunctionType.InCore)
    def vadd(self, a: pl.Tensor[[EW_ROWS, EW_COLS], pl.FP32], b: pl.Tensor[[EW_ROWS, EW_COLS], pl.FP32],
             out: pl.Out[pl.Tensor[[EW_ROWS, EW_COLS], pl.FP32]]) -> pl.Tensor[[EW_ROWS, EW_COLS], pl.FP32]:
        base = pl.tile.get_block_idx() * EW_PER_BLOCK
        for i in pl.range(EW_PER_BLOCK):
            r = (base + i) * EW_BLOCK
            ta = pl.load(a, [r, 0], [EW_BLOCK, EW_COLS])
            tb = pl.load(b, [r, 0], [EW_BLOCK, EW_COLS])
            out = pl.store(pl.add(ta, tb), [r, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[EW_ROWS, EW_COLS], pl.FP32], b: pl.Tensor[[EW_ROWS, EW_COLS], pl.FP32],
             y: pl.Out[pl.Tensor[[EW_ROWS, EW_COLS], pl.FP32]]) -> pl.Tensor[[EW_ROWS, EW_COLS], pl.FP32]:
        with pl.spmd(EW_SPMD):
            y = self.vadd(a, b, y)
        return y


# --- a chain of dependent tiny tasks written in the DSL ---------------------
@pl.program
class DslChain:
    """n tasks, each y += 1 on an 8x8 tile (INOUT on y): every task depends on the previous one."""

    @pl.function(type=pl.FunctionType.InCore)
    def inc(self, y: pl.InOut[pl.Tensor[[8, 8], pl.FP32]]) -> pl.Tensor[[8, 8], pl.FP32]:
        y = pl.store(pl.adds(pl.load(y, [0, 0], [8, 8]), 1.0), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, y: pl.InOut[pl.Tensor[[8, 8], pl.FP32]], n: pl.Scalar[pl.INT32]) -> pl.Tensor[[8, 8], pl.FP32]:
        for i in pl.range(n):
            y = self.inc(y)
        return y


# --- the race checker on a MANUAL-scope pipeline over one scratch tensor -----------
RP_T = 32                               # a grid of m x n tiles of RP_T x RP_T f32


def make_race_pipeline(m, n):
    """out = 2 * x + 1 per tile of an m x n grid in two stages (stage 2 deps= on its stage 1);
    every task takes the whole scratch / out tensors and picks its tile by offsets, so all
    declared regions overlap and the checker judges every pair on the bytes touched.  2*m*n tasks."""
    rows, cols = m * RP_T, n * RP_T

    @pl.program
    class RacePipeline:
        @pl.function(type=pl.FunctionType.InCore)
        def stage1(self, x: pl.Tensor[[rows, cols], pl.FP32], s: pl.Out[pl.Tensor[[rows, cols], pl.FP32]],
                   row: pl.Scalar[pl.INDEX], col: pl.Scalar[pl.INDEX]) -> pl.Tensor[[rows, cols], pl.FP32]:
            t = pl.load(x, [row, col], [RP_T, RP_T])
            s = pl.store(pl.add(t, t), [row, col], s)
            return s

        @pl.function(type=pl.FunctionType.InCore)
        def stage2(self, s: pl.Tensor[[rows, cols], pl.FP32], out: pl.Out[pl.Tensor[[rows, cols], pl.FP32]],
                   row: pl.Scalar[pl.INDEX], col: pl.Scalar[pl.INDEX]) -> pl.Tensor[[rows, cols], pl.FP32]:
            t = pl.load(s, [row, col], [RP_T, RP_T])
            out = pl.store(pl.adds(t, 1.0), [row, col], out)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[rows, cols], pl.FP32], s: pl.Out[pl.Tensor[[rows, cols], pl.FP32]],
                 out: pl.Out[pl.Tensor[[rows, cols], pl.FP32]]) -> pl.Tensor[[rows, cols], pl.FP32]:
            with pl.manual_scope():
                for i in pl.range(m):
                    for j in pl.parallel(n):
                        s, t1 = pl.submit(self.stage1, x, s, i * RP_T, j * RP_T)
                        out, _ = pl.submit(self.stage2, s, out, i * RP_T, j * RP_T, deps=[t1])
            return out

    return RacePipeline


# --- row softmax and layer norm over the same stream (tile work per block) ----
def make_stream_softmax(rows):
    """y = softmax(x) along each row of a [rows, EW_COLS] f32 tensor, one kernel over row blocks."""

    @pl.program
    class StreamSoftmax:
        @pl.function(type=pl.FunctionType.InCore)
        def softmax(self, x: pl.Tensor[[rows, EW_COLS], pl.FP32],
                    out: pl.Out[pl.Tensor[[rows, EW_COLS], pl.FP32]]) -> pl.Tensor[[rows, EW_COLS], pl.FP32]:
            for i in pl.range(rows // EW_BLOCK):
                t = pl.load(x, [i * EW_BLOCK, 0], [EW_BLOCK, EW_COLS])
                tmp = pl.create_tile([EW_BLOCK, EW_COLS], dtype=pl.FP32)
                mx = pl.row_max(t, tmp)
                e = pl.exp(pl.row_expand_sub(t, mx))
                s = pl.row_sum(e, tmp)
                out = pl.store(pl.row_expand_div(e, s), [i * EW_BLOCK, 0], out)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[rows, EW_COLS], pl.FP32],
                 y: pl.Out[pl.Tensor[[rows, EW_COLS], pl.FP32]]) -> pl.Tensor[[rows, EW_COLS], pl.FP32]:
            y = self.softmax(x, y)
            return y

    return StreamSoftmax


def make_stream_layernorm(rows):
    """y = (x - mean) * rsqrt(var + 1e-5) * gamma + beta along each row, one kernel over row blocks."""

    @pl.program
    class StreamLayerNorm:
        @pl.function(type=pl.FunctionType.InCore)
        def norm(self, x: pl.Tensor[[rows, EW_COLS], pl.FP32], gamma: pl.Tensor[[1, EW_COLS], pl.FP32],
                 beta: pl.Tensor[[1, EW_COLS], pl.FP32],
                 out: pl.Out[pl.Tensor[[rows, EW_COLS], pl.FP32]]) -> pl.Tensor[[rows, EW_COLS], pl.FP32]:
            g = pl.load(gamma, [0, 0], [1, EW_COLS])
            bt = pl.load(beta, [0, 0], [1, EW_COLS])
            for i in pl.range(rows // EW_BLOCK):
                t = pl.load(x, [i * EW_BLOCK, 0], [EW_BLOCK, EW_COLS])
                tmp = pl.create_tile([EW_BLOCK, EW_COLS], dtype=pl.FP32)
                mean = pl.muls(pl.row_sum(t, tmp), 1.0 / EW_COLS)
                c = pl.row_expand_sub(t, mean)
                var = pl.muls(pl.row_sum(pl.mul(c, c), tmp), 1.0 / EW_COLS)
                inv = pl.rsqrt(pl.adds(var, 1e-5))
                y = pl.row_expand_mul(c, inv)
                y = pl.col_expand_mul(y, g)
                y = pl.col_expand_add(y, bt)
                out = pl.store(y, [i * EW_BLOCK, 0], out)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[rows, EW_COLS], pl.FP32], gamma: pl.Tensor[[1, EW_COLS], pl.FP32],
                 beta: pl.Tensor[[1, EW_COLS], pl.FP32],
                 y: pl.Out[pl.Tensor[[rows, EW_COLS], pl.FP32]]) -> pl.Tensor[[rows, EW_COLS], pl.FP32]:
            y = self.norm(x, gamma, beta, y)
            return y

    return StreamLayerNorm


StreamSoftmax = make_stream_softmax(EW_ROWS)
StreamLayerNorm = make_stream_layernorm(EW_ROWS)
