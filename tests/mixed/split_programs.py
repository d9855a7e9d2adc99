"""Split mixed kernels (both vector lanes work, each on its half) for tests/mixed/test_split*.py.
Append new ones at the END: golden files record line numbers."""
import ptokit.language as pl


@pl.program
class SplitSoftmax:
    """y = softmax_rows(a @ b), split UP_DOWN: each lane normalises its 32 rows."""

    @pl.function(type=pl.FunctionType.InCore, attrs={"split": pl.SplitMode.UP_DOWN})
    def mm_softmax(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
                   y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        ta = pl.move(pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        tb = pl.move(pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        v = pl.move(pl.matmul(ta, tb), target_memory=pl.Mem.Vec)
        tmp = pl.create_tile([64, 64], dtype=pl.FP32)
        e = pl.exp(pl.row_expand_sub(v, pl.row_max(v, tmp)))
        y = pl.store(pl.row_expand_div(e, pl.row_sum(e, tmp)), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
             y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        y = self.mm_softmax(a, b, y)
        return y


@pl.program
class SplitV2CLeftRight:
    """y = relu(x + bias) @ w, split LEFT_RIGHT: each lane prepares 32 of x's 64 columns, the cube
    pops the joined [64, 64] tile; the [1, 64] bias row... is a [64, 64] tile too (no broadcast)."""

    @pl.function(type=pl.FunctionType.InCore, attrs={"split": pl.SplitMode.LEFT_RIGHT})
    def prep_mm(self, x: pl.Tensor[[64, 64], pl.FP32], w: pl.Tensor[[64, 64], pl.FP16],
                y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        h = pl.cast(pl.relu(pl.load(x, [0, 0], [64, 64])), target_type=pl.FP16)
        hm = pl.move(h, target_memory=pl.Mem.Mat)
        tw = pl.move(pl.load(w, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        y = pl.store(pl.matmul(pl.move(hm, target_memory=pl.Mem.Left), tw), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], w: pl.Tensor[[64, 64], pl.FP16],
             y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        y = self.prep_mm(x, w, y)
        return y


@pl.program
class SplitMlp:
    """y = relu(x @ w1) @ w2 split UP_DOWN, both directions: each lane gets 32 rows of x @ w1, applies
    relu, casts and pushes them back; the cube joins the halves for the second product."""

    @pl.function(type=pl.FunctionType.InCore, attrs={"split": pl.SplitMode.UP_DOWN})
    def mlp(self, x: pl.Tensor[[64, 64], pl.FP16], w1: pl.Tensor[[64, 64], pl.FP16],
            w2: pl.Tensor[[64, 64], pl.FP16], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        tx = pl.move(pl.load(x, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        t1 = pl.move(pl.load(w1, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        h = pl.move(pl.matmul(tx, t1), target_memory=pl.Mem.Vec)
        hm = pl.move(pl.cast(pl.relu(h), target_type=pl.FP16), target_memory=pl.Mem.Mat)
        t2 = pl.move(pl.load(w2, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        y = pl.store(pl.matmul(pl.move(hm, target_memory=pl.Mem.Left), t2), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 64], pl.FP16], w1: pl.Tensor[[64, 64], pl.FP16],
             w2: pl.Tensor[[64, 64], pl.FP16], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        y = self.mlp(x, w1, w2, y)
        return y


@pl.program
class SplitSpmd:
    """An SPMD split kernel written in the orchestration: y[b] = exp(a[b] @ w) + b per block b of 4,
    each lane of a block doing 32 of its 64 rows (pl.spmd(..., optimizations=[pl.split(...)]))."""

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[256, 64], pl.FP16], w: pl.Tensor[[64, 64], pl.FP16],
             y: pl.Out[pl.Tensor[[256, 64], pl.FP32]]):
        with pl.spmd(4, name_hint="mm_exp", optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):
            b = pl.tile.get_block_idx()
            ta = pl.move(pl.load(a, [b * 64, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
            tw = pl.move(pl.load(w, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
            v = pl.move(pl.matmul(ta, tw), target_memory=pl.Mem.Vec)
            y = pl.store(pl.adds(pl.exp(v), b), [b * 64, 0], y)
        return y


@pl.program
class SplitAt:
    """pl.at(optimizations=[pl.split(LEFT_RIGHT)]) around a mixed body: y = (a @ b) * 2, each lane
    scaling 32 of the 64 columns."""

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
             y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="mm_scale",
                   optimizations=[pl.split(pl.SplitMode.LEFT_RIGHT)]):
            ta = pl.move(pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
            tb = pl.move(pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
            v = pl.move(pl.matmul(ta, tb), target_memory=pl.Mem.Vec)
            y = pl.store(pl.muls(v, 2.0), [0, 0], y)
        return y


@pl.program
class SplitValidRows:
    """Split UP_DOWN with valid rows clamped per lane: y[:n] = exp(x[:n]) + (a @ b)[:n] (x loaded with
    n valid rows: lane L holds clamp(n - 32 L, 0, 32)), and z = x2 * 2 for a 63-row x2 (odd: lane 0
    holds 32 rows, lane 1 31)."""

    @pl.function(type=pl.FunctionType.InCore, attrs={"split": pl.SplitMode.UP_DOWN})
    def k(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16], x: pl.Tensor[[64, 64], pl.FP32],
          x2: pl.Tensor[[63, 64], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
          z: pl.Out[pl.Tensor[[63, 64], pl.FP32]]):
        ta = pl.move(pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        tb = pl.move(pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        v = pl.move(pl.matmul(ta, tb), target_memory=pl.Mem.Vec)
        xt = pl.load(x, [0, 0], [64, 64], valid_shape=[n, 64])
        y = pl.store(pl.add(pl.exp(xt), v), [0, 0], y)
        z = pl.store(pl.muls(pl.load(x2, [0, 0], [63, 64]), 2.0), [0, 0], z)
        return y, z

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16], x: pl.Tensor[[64, 64], pl.FP32],
             x2: pl.Tensor[[63, 64], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
             z: pl.Out[pl.Tensor[[63, 64], pl.FP32]]):
        y, z = self.k(a, b, x, x2, n, y, z)
        return y, z


@pl.program
class ColSumUpDown:
    """A reduction across the split axis (a located error)."""

    @pl.function(type=pl.FunctionType.InCore, attrs={"split": pl.SplitMode.UP_DOWN})
    def k(self, a: pl.Tensor[[64, 64], pl.FP16], c: pl.Out[pl.Tensor[[1, 64], pl.FP32]]):
        ta = pl.move(pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        tb = pl.move(pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        v = pl.move(pl.matmul(ta, tb), target_memory=pl.Mem.Vec)
        tmp = pl.create_tile([64, 64], dtype=pl.FP32)
        c = pl.store(pl.col_sum(v, tmp), [0, 0], c)
        return c


@pl.program
class RowSumLeftRight:
    """A reduction across the split axis (a located error)."""

    @pl.function(type=pl.FunctionType.InCore, attrs={"split": pl.SplitMode.LEFT_RIGHT})
    def k(self, a: pl.Tensor[[64, 64], pl.FP16], r: pl.Out[pl.Tensor[[64, 1], pl.FP32]]):
        ta = pl.move(pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        tb = pl.move(pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        v = pl.move(pl.matmul(ta, tb), target_memory=pl.Mem.Vec)
        tmp = pl.create_tile([64, 64], dtype=pl.FP32)
        r = pl.store(pl.row_sum(v, tmp), [0, 0], r)
        return r


@pl.program
class SliceUpDown:
    """A positional op on a split lane (a located error)."""

    @pl.function(type=pl.FunctionType.InCore, attrs={"split": pl.SplitMode.UP_DOWN})
    def k(self, a: pl.Tensor[[64, 64], pl.FP16], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        ta = pl.move(pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        tb = pl.move(pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        v = pl.move(pl.matmul(ta, tb), target_memory=pl.Mem.Vec)
        y = pl.store(pl.slice(v, [16, 64], [0, 0]), [0, 0], y)
        return y


@pl.program
class OptsNotAList:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        with pl.at(level=pl.Level.CORE_GROUP, optimizations=pl.split(pl.SplitMode.UP_DOWN)):
            y = pl.store(pl.exp(pl.load(x, [0, 0], [16, 64])), [0, 0], y)
        return y


@pl.program
class OptsUnknown:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        with pl.spmd(2, optimizations=[1]):
            y = pl.store(pl.exp(pl.load(x, [0, 0], [16, 64])), [0, 0], y)
        return y


@pl.program
class OptsTwice:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(1), pl.split(2)]):
            y = pl.store(pl.exp(pl.load(x, [0, 0], [16, 64])), [0, 0], y)
        return y


@pl.program
class SplitPureVector:
    """A split on a pure-vector kernel is ignored: y = exp(x)."""

    @pl.function(type=pl.FunctionType.InCore, attrs={"split": pl.SplitMode.UP_DOWN})
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        y = pl.store(pl.exp(pl.load(x, [0, 0], [16, 64])), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        y = self.k(x, y)
        return y


@pl.program
class RegionExample:
    """The explicit-region example (pypto-parity E2): y = exp(q @ k) @ w with the vector part in a
    pl.split_aiv UP_DOWN region; the lanes also write their lane index into their rows of `lanes`."""

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, q: pl.Tensor[[64, 64], pl.FP16], k: pl.Tensor[[64, 64], pl.FP16], w: pl.Tensor[[64, 64], pl.FP16],
             lanes: pl.Out[pl.Tensor[[64, 64], pl.FP32]], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="region"):
            tq = pl.move(pl.load(q, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
            tk = pl.move(pl.load(k, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
            mm = pl.matmul(tq, tk)
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                v = pl.exp(pl.aiv_shard(mm))
                lanes = pl.store(pl.adds(pl.muls(v, 0.0), aiv_id), [0, 0], lanes)
                back = pl.aic_gather(pl.cast(v, target_type=pl.FP16))
            tw = pl.move(pl.load(w, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
            y = pl.store(pl.matmul(pl.move(back, target_memory=pl.Mem.Left), tw), [0, 0], y)
        return lanes, y


@pl.program
class RegionNoneAndLoop:
    """A NONE region (both lanes run the whole body; lane 1 stores: y = exp(a @ b)) and an UP_DOWN
    region in a loop (z[16 i : 16 i + 16] = relu(a[16 i:] @ b) + 1, 8 rows per lane). The kernel is
    a function with a region per loop... the two are separate kernels since a kernel has one mode."""

    @pl.function(type=pl.FunctionType.InCore)
    def none_region(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
                    y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        ta = pl.move(pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        tb = pl.move(pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        mm = pl.matmul(ta, tb)
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
            v = pl.exp(pl.aiv_shard(mm))
            if aiv_id == 1:
                y = pl.store(v, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def loop_region(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
                    z: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        tb = pl.move(pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        for i in pl.range(4):
            ta = pl.move(pl.load(a, [i * 16, 0], [16, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
            mm = pl.matmul(ta, tb)
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                z = pl.store(pl.adds(pl.relu(pl.aiv_shard(mm)), 1.0), [i * 16, 0], z)
        return z

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
             y: pl.Out[pl.Tensor[[64, 64], pl.FP32]], z: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        y = self.none_region(a, b, y)
        z = self.loop_region(a, b, z)
        return y, z


@pl.program
class RegionCubeInside:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP16], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        ta = pl.move(pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        tb = pl.move(pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            mm = pl.matmul(ta, tb)
            y = pl.store(pl.exp(pl.aiv_shard(mm)), [0, 0], y)
        return y


@pl.program
class RegionVectorOutside:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP16], x: pl.Tensor[[64, 64], pl.FP32], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        ta = pl.move(pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        tb = pl.move(pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        mm = pl.matmul(ta, tb)
        t = pl.exp(pl.load(x, [0, 0], [64, 64]))
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            y = pl.store(pl.add(pl.aiv_shard(mm), t), [0, 0], y)
        return y


@pl.program
class RegionModesDiffer:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP16], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        ta = pl.move(pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        tb = pl.move(pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        mm = pl.matmul(ta, tb)
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            y = pl.store(pl.exp(pl.aiv_shard(mm)), [0, 0], y)
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
            y = pl.store(pl.exp(pl.aiv_shard(mm)), [0, 0], y)
        return y


@pl.program
class RegionBadCount:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 64], pl.FP32], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        for aiv_id in pl.split_aiv(4, mode=pl.SplitMode.UP_DOWN):
            y = pl.store(pl.load(x, [0, 0], [64, 64]), [0, 0], y)
        return y


@pl.program
class RegionNested:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 64], pl.FP32], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            for lane in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                y = pl.store(pl.load(x, [0, 0], [64, 64]), [0, 0], y)
        return y


@pl.program
class ShardOutsideRegion:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP16], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        ta = pl.move(pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        tb = pl.move(pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        y = pl.store(pl.exp(pl.aiv_shard(pl.matmul(ta, tb))), [0, 0], y)
        return y


@pl.program
class ExplicitSplitFifo:
    """The FIFO written out with pypto's names and split= (C->V UP_DOWN, V->C LEFT_RIGHT would be a
    second mode: one kernel has one): y = relu(exp(a @ b) * 0.5 as fp16) @ b... kept small:
    y = (exp(a @ b) cast to fp16) @ b, the vector part on both lanes' row halves."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
          y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        ta = pl.move(pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        tb = pl.move(pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        pl.tpush_to_aiv(pl.matmul(ta, tb), split=1)
        v = pl.tpop_from_aic(shape=[64, 64], dtype=pl.FP32, split=1)
        h = pl.cast(pl.exp(v), target_type=pl.FP16)
        pl.tfree_to_aic(v)
        pl.tpush_to_aic(h, split=1)
        m = pl.tpop_from_aiv(shape=[64, 64], dtype=pl.FP16, split=1)
        y = pl.store(pl.matmul(pl.move(m, target_memory=pl.Mem.Left), tb), [0, 0], y)
        pl.system.tfree_to_aiv(m)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
             y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        y = self.k(a, b, y)
        return y


@pl.program
class ExplicitSplitMismatch:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP16], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        ta = pl.move(pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        tb = pl.move(pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        pl.tpush_to_aiv(pl.matmul(ta, tb), split=1)
        v = pl.tpop_from_aic(shape=[64, 64], dtype=pl.FP32, split=2)
        y = pl.store(pl.exp(v), [0, 0], y)
        pl.tfree_to_aic(v)
        return y


@pl.program
class ExplicitSplitBadCode:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP16], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        ta = pl.move(pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        tb = pl.move(pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        pl.tpush_to_aiv(pl.matmul(ta, tb), split=3)
        v = pl.tpop_from_aic(shape=[64, 64], dtype=pl.FP32, split=3)
        y = pl.store(pl.exp(v), [0, 0], y)
        return y


@pl.program
class HalfTooNarrow:
    """LEFT_RIGHT on a 16-column fp16 vector tile: each lane's 8 columns (16 bytes) are no Vec tile."""

    @pl.function(type=pl.FunctionType.InCore, attrs={"split": pl.SplitMode.LEFT_RIGHT})
    def k(self, a: pl.Tensor[[64, 64], pl.FP16], w: pl.Tensor[[64, 16], pl.FP16], y: pl.Out[pl.Tensor[[64, 16], pl.FP16]]):
        ta = pl.move(pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        tw = pl.move(pl.load(w, [0, 0], [64, 16], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        v = pl.move(pl.matmul(ta, tw), target_memory=pl.Mem.Vec)
        y = pl.store(pl.cast(v, target_type=pl.FP16), [0, 0], y)
        return y
