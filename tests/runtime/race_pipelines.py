"""Programs of test_race_touched.py: MANUAL-scope pipelines whose tasks all take one whole
tensor and pick their tile by scalar offsets (declared regions overlap, touched bytes do not),
and a scope nested in a MANUAL scope that reads what an outer task writes without deps=."""
import ptokit.language as pl

M, N, TR, TC = 4, 4, 32, 32          # the pipeline's tile grid
ROWS, COLS = M * TR, N * TC
PHASES, BRANCHES, TM, BN = 4, 4, 16, 64   # the phase fence: PHASES x BRANCHES stripes of TM rows
BM = PHASES * BRANCHES * TM


@pl.program
class SubmitPipeline:
    """out = 2 * x + 1 per tile: stage 1 writes the tile of scratch, stage 2 (deps= on its stage 1)
    reads it back; tiles of one row run concurrently while other tiles of scratch are written.
    `racy` 1: stage 2 without deps=."""

    @pl.function(type=pl.FunctionType.InCore)
    def stage1(self, x: pl.Tensor[[ROWS, COLS], pl.FP32], scratch: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
               row: pl.Scalar[pl.INDEX], col: pl.Scalar[pl.INDEX]) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
        t = pl.load(x, [row, col], [TR, TC])
        scratch = pl.store(pl.add(t, t), [row, col], scratch)
        return scratch

    @pl.function(type=pl.FunctionType.InCore)
    def stage2(self, scratch: pl.Tensor[[ROWS, COLS], pl.FP32], out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
               row: pl.Scalar[pl.INDEX], col: pl.Scalar[pl.INDEX]) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
        t = pl.load(scratch, [row, col], [TR, TC])
        out = pl.store(pl.adds(t, 1.0), [row, col], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[ROWS, COLS], pl.FP32], scratch: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
             out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]], racy: pl.Scalar[pl.INT32]) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
        with pl.manual_scope():
            for i in pl.range(M):
                row: pl.Scalar[pl.INDEX] = i * TR
                for j in pl.parallel(N):
                    col: pl.Scalar[pl.INDEX] = j * TC
                    scratch, t1 = pl.submit(self.stage1, x, scratch, row, col)
                    if racy == 0:
                        out, _ = pl.submit(self.stage2, scratch, out, row, col, deps=[t1])
                    if racy == 1:                     # stage 2 without its deps=: a race on each tile
                        out = self.stage2(scratch, out, row, col)
        return out


@pl.program
class AtPipeline:
    """The same pipeline written with pl.at(level=CORE_GROUP, deps=[...]) as tid blocks."""

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[ROWS, COLS], pl.FP32], scratch: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
             out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
        with pl.manual_scope():
            for i in pl.range(M):
                row: pl.Scalar[pl.INDEX] = i * TR
                for j in pl.parallel(N):
                    col: pl.Scalar[pl.INDEX] = j * TC
                    with pl.at(level=pl.Level.CORE_GROUP, name_hint="stage1") as t1:
                        a = pl.load(x, [row, col], [TR, TC])
                        scratch = pl.store(pl.add(a, a), [row, col], scratch)
                    with pl.at(level=pl.Level.CORE_GROUP, name_hint="stage2", deps=[t1]) as _t2:
                        b = pl.load(scratch, [row, col], [TR, TC])
                        out = pl.store(pl.adds(b, 1.0), [row, col], out)
        return out


@pl.program
class PhaseFence:
    """PHASES phases of BRANCHES tasks; each task waits for the whole previous phase (an array of
    task ids carried by the loop) and writes its own stripe of `out`, declaring all of it: the
    tasks of one phase run concurrently."""

    @pl.function(type=pl.FunctionType.InCore)
    def stripe(self, data: pl.Tensor[[BM, BN], pl.FP32], row: pl.Scalar[pl.INDEX], bias: pl.Scalar[pl.FP32],
               out: pl.Out[pl.Tensor[[BM, BN], pl.FP32]]) -> pl.Tensor[[BM, BN], pl.FP32]:
        t = pl.load(data, [row, 0], [TM, BN])
        out = pl.store(pl.adds(t, bias), [row, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, data: pl.Tensor[[BM, BN], pl.FP32],
             out: pl.Out[pl.Tensor[[BM, BN], pl.FP32]]) -> pl.Tensor[[BM, BN], pl.FP32]:
        with pl.manual_scope():
            tids = pl.array.create(BRANCHES, pl.TASK_ID)
            for phase, (prev,) in pl.range(PHASES, init_values=(tids,)):
                ids = pl.array.create(BRANCHES, pl.TASK_ID)
                for branch in pl.parallel(BRANCHES):
                    row = (phase * BRANCHES + branch) * TM
                    out, tid = pl.submit(self.stripe, data, row, 1.0, out, deps=[prev])
                    ids[branch] = tid
                _fence = pl.yield_(ids)
        return out


@pl.program
class NestedScope:
    """`sel` 0: a pl.scope() nested in a MANUAL scope reads t, which the outer scope's task writes,
    without deps= (a race: the nested scope is manual too); 1: the same with deps=."""

    @pl.function(type=pl.FunctionType.InCore)
    def inc(self, x: pl.Tensor[[64, 64], pl.FP32], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        y = pl.store(pl.adds(pl.load(x, [0, 0], [64, 64]), 1.0), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], t: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
             y: pl.Out[pl.Tensor[[64, 64], pl.FP32]], sel: pl.Scalar[pl.INT32]):
        with pl.manual_scope():
            t, a = pl.submit(self.inc, x, t)
            if sel == 0:
                with pl.scope():
                    y = self.inc(t, y)
            if sel == 1:
                with pl.scope():
                    y, b = pl.submit(self.inc, t, y, deps=[a])
        return y


@pl.program
class Touches:
    """What the checker records besides tiles, in a MANUAL scope without deps=: `sel` 0: two
    atomic adds into one tile (no race); 1: a task, an orchestration read of what it wrote, then
    a reader (the wait orders them: no race); 2: scalar writes of two different elements of one
    tensor (no race); 3: scalar writes of the same element (a race)."""

    @pl.function(type=pl.FunctionType.InCore)
    def acc(self, x: pl.Tensor[[64, 64], pl.FP32], y: pl.InOut[pl.Tensor[[64, 64], pl.FP32]]):
        y = pl.store(pl.load(x, [0, 0], [64, 64]), [0, 0], y, atomic=pl.AtomicType.Add)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def inc(self, x: pl.Tensor[[64, 64], pl.FP32], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        y = pl.store(pl.adds(pl.load(x, [0, 0], [64, 64]), 1.0), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def poke(self, y: pl.InOut[pl.Tensor[[64, 64], pl.FP32]], i: pl.Scalar[pl.INDEX]):
        pl.write(y, [0, i], 7.0)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], t: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
             y: pl.InOut[pl.Tensor[[64, 64], pl.FP32]], sel: pl.Scalar[pl.INT32]):
        with pl.manual_scope():
            if sel == 0:
                y = self.acc(x, y)
                y = self.acc(x, y)
            if sel == 1:
                t = self.inc(x, t)
                v = pl.read(t, [0, 0])
                y = self.inc(t, y)
            if sel == 2:
                y = self.poke(y, 0)
                y = self.poke(y, 1)
            if sel == 3:
                y = self.poke(y, 5)
                y = self.poke(y, 5)
        return y


ST = 16                                # SharedTiles: tiles of ST x ST in a 64 x 64 tensor


@pl.program
class SharedTiles:
    """Every task takes the whole tensor `s` and picks a tile by offsets (the declared regions
    all overlap); what the kernels touch decides.  `sel` 0: a writer, a second writer of the next
    tile with deps= on it, a reader of the first tile with deps= on the second only (ordered by a
    path, no direct edge), and an unrelated writer of the adjacent tile (no race); 1: two writers of
    tiles that overlap by a quarter, no deps= (a race); 2: a writer, a second writer of the same
    tile with deps= on it, then a reader without deps= (a race with the nearer writer); 3: a reader
    without deps=, then a writer of its tile (a race, whichever completes first)."""

    @pl.function(type=pl.FunctionType.InCore)
    def put(self, x: pl.Tensor[[64, 64], pl.FP32], s: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
            row: pl.Scalar[pl.INDEX], col: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64, 64], pl.FP32]:
        s = pl.store(pl.adds(pl.load(x, [row, col], [ST, ST]), 1.0), [row, col], s)
        return s

    @pl.function(type=pl.FunctionType.InCore)
    def get(self, s: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
            row: pl.Scalar[pl.INDEX], col: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64, 64], pl.FP32]:
        out = pl.store(pl.load(s, [row, col], [ST, ST]), [row, col], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], s: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
             out: pl.Out[pl.Tensor[[64, 64], pl.FP32]], sel: pl.Scalar[pl.INT32]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.manual_scope():
            if sel == 0:
                s, a = pl.submit(self.put, x, s, 0, 0)
                s, b = pl.submit(self.put, x, s, 0, ST, deps=[a])
                out, _c = pl.submit(self.get, s, out, 0, 0, deps=[b])
                s, _d = pl.submit(self.put, x, s, 0, 2 * ST)
            if sel == 1:
                s, _a = pl.submit(self.put, x, s, 0, 0)
                s, _b = pl.submit(self.put, x, s, ST // 2, ST // 2)
            if sel == 2:
                s, a = pl.submit(self.put, x, s, 0, 0)
                s, _b = pl.submit(self.put, x, s, 0, 0, deps=[a])
                out, _c = pl.submit(self.get, s, out, 0, 0)
            if sel == 3:
                out, _c = pl.submit(self.get, s, out, 0, 0)
                s, _a = pl.submit(self.put, x, s, 0, 0)
        return out
