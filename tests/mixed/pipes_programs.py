"""Hand-written AIC/AIV/Group programs with explicit pipes (pypto-parity E3) and events (E4)."""
import ptokit.language as pl

N = 64
SLOT = N * N * 4          # an FP32 [64, 64] tile
HSLOT = N * N * 2         # an FP16 [64, 64] tile


def two_pipes(dual: bool):
    """y = relu(a @ b) @ w: C->V on pipe 0, V->C on pipe 1; the AIV side also writes h = relu(a @ b)."""
    aiv_attrs = {"dual_aiv_dispatch": True} if dual else {}

    @pl.program
    class TwoPipes:
        @pl.function(type=pl.FunctionType.AIC)
        def cube(self, a: pl.Tensor[[N, N], pl.FP16], b: pl.Tensor[[N, N], pl.FP16],
                 w: pl.Tensor[[N, N], pl.FP16], h: pl.Out[pl.Tensor[[N, N], pl.FP32]],
                 y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
            c2v = pl.import_peer_buffer(name="c2v", peer_func="vector")
            v2c = pl.reserve_buffer(name="v2c", size=2 * HSLOT, base=pl.AUTO)
            pl.aic_initialize_pipe(c2v, pl.const(0, pl.INT32), dir_mask=1, slot_size=SLOT, slot_num=2, id=0)
            pl.aic_initialize_pipe(v2c_consumer_buf=v2c, dir_mask=2, slot_size=HSLOT, slot_num=2, id=1)
            ta = pl.load(a, [0, 0], [N, N], target_memory=pl.Mem.Mat)
            tb = pl.load(b, [0, 0], [N, N], target_memory=pl.Mem.Mat)
            acc = pl.matmul(pl.move(ta, target_memory=pl.Mem.Left), pl.move(tb, target_memory=pl.Mem.Right))
            pl.tpush_to_aiv(acc, split=0, id=0)
            back: pl.Tile[[N, N], pl.FP16, pl.Mem.Mat] = pl.tpop_from_aiv(split=0, id=1)
            left = pl.move(back, target_memory=pl.Mem.Left)
            pl.tfree_to_aiv(back, id=1)
            tw = pl.load(w, [0, 0], [N, N], target_memory=pl.Mem.Mat)
            out = pl.matmul(left, pl.move(tw, target_memory=pl.Mem.Right))
            pl.store(out, [0, 0], y)

        @pl.function(type=pl.FunctionType.AIV, attrs=aiv_attrs)
        def vector(self, a: pl.Tensor[[N, N], pl.FP16], b: pl.Tensor[[N, N], pl.FP16],
                   w: pl.Tensor[[N, N], pl.FP16], h: pl.Out[pl.Tensor[[N, N], pl.FP32]],
                   y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
            c2v = pl.reserve_buffer(name="c2v", size=2 * SLOT, base=pl.AUTO)
            v2c = pl.import_peer_buffer(name="v2c", peer_func="cube")
            pl.aiv_initialize_pipe(c2v_consumer_buf=c2v, dir_mask=1, slot_size=SLOT, slot_num=2, id=0)
            pl.aiv_initialize_pipe(pl.const(0, pl.INT32), v2c, dir_mask=2, slot_size=HSLOT, slot_num=2, id=1)
            t: pl.Tile[[N, N], pl.FP32, pl.Mem.Vec] = pl.tpop_from_aic(split=0, id=0)
            r = pl.relu(t)
            pl.tfree_to_aic(t, id=0)
            pl.tpush_to_aic(pl.cast(r, target_type=pl.FP16), split=0, id=1)
            if pl.tile.get_subblock_idx() == 0:
                pl.store(r, [0, 0], h)

        @pl.function(type=pl.FunctionType.Group)
        def group(self, a: pl.Tensor[[N, N], pl.FP16], b: pl.Tensor[[N, N], pl.FP16],
                  w: pl.Tensor[[N, N], pl.FP16], h: pl.Out[pl.Tensor[[N, N], pl.FP32]],
                  y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
            self.cube(a, b, w, h, y)
            self.vector(a, b, w, h, y)

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[N, N], pl.FP16], b: pl.Tensor[[N, N], pl.FP16],
                 w: pl.Tensor[[N, N], pl.FP16], h: pl.Out[pl.Tensor[[N, N], pl.FP32]],
                 y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
            self.group(a, b, w, h, y)

    return TwoPipes


TwoPipes = two_pipes(False)
TwoPipesDual = two_pipes(True)


@pl.program
class ValidPop:
    """A pop whose valid region is run-time: rows [0, n) of exp(a @ b) are written, the rest stays."""

    @pl.function(type=pl.FunctionType.AIC)
    def cube(self, a: pl.Tensor[[N, N], pl.FP16], b: pl.Tensor[[N, N], pl.FP16],
             y: pl.Out[pl.Tensor[[N, N], pl.FP32]], n: pl.Scalar[pl.INDEX]):
        peer = pl.import_peer_buffer(name="c2v", peer_func="vector")
        pl.aic_initialize_pipe(peer, dir_mask=1, slot_size=SLOT, slot_num=2)
        ta = pl.load(a, [0, 0], [N, N], target_memory=pl.Mem.Mat)
        tb = pl.load(b, [0, 0], [N, N], target_memory=pl.Mem.Mat)
        acc = pl.matmul(pl.move(ta, target_memory=pl.Mem.Left), pl.move(tb, target_memory=pl.Mem.Right))
        part = pl.tile.set_validshape(acc, n, N)
        pl.tpush_to_aiv(part, split=0)

    @pl.function(type=pl.FunctionType.AIV)
    def vector(self, a: pl.Tensor[[N, N], pl.FP16], b: pl.Tensor[[N, N], pl.FP16],
               y: pl.Out[pl.Tensor[[N, N], pl.FP32]], n: pl.Scalar[pl.INDEX]):
        buf = pl.reserve_buffer(name="c2v", size=2 * SLOT)
        pl.aiv_initialize_pipe(c2v_consumer_buf=buf, dir_mask=1, slot_size=SLOT, slot_num=2)
        t: pl.Tile[[N, N], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[n, N])] = pl.tpop_from_aic(split=0)
        e = pl.exp(t)
        pl.tfree_to_aic(t)
        pl.store(e, [0, 0], y)

    @pl.function(type=pl.FunctionType.Group)
    def group(self, a: pl.Tensor[[N, N], pl.FP16], b: pl.Tensor[[N, N], pl.FP16],
              y: pl.Out[pl.Tensor[[N, N], pl.FP32]], n: pl.Scalar[pl.INDEX]):
        self.cube(a, b, y, n)
        self.vector(a, b, y, n)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[N, N], pl.FP16], b: pl.Tensor[[N, N], pl.FP16],
             y: pl.Out[pl.Tensor[[N, N], pl.FP32]], n: pl.Scalar[pl.INDEX]):
        self.group(a, b, y, n)


@pl.program
class StaticValidPop:
    """ValidPop with a static valid region of 20 rows (n is unused)."""

    @pl.function(type=pl.FunctionType.AIC)
    def cube(self, a: pl.Tensor[[N, N], pl.FP16], b: pl.Tensor[[N, N], pl.FP16],
             y: pl.Out[pl.Tensor[[N, N], pl.FP32]], n: pl.Scalar[pl.INDEX]):
        peer = pl.import_peer_buffer(name="c2v", peer_func="vector")
        pl.aic_initialize_pipe(peer, dir_mask=1, slot_size=SLOT, slot_num=2)
        ta = pl.load(a, [0, 0], [N, N], target_memory=pl.Mem.Mat)
        tb = pl.load(b, [0, 0], [N, N], target_memory=pl.Mem.Mat)
        acc = pl.matmul(pl.move(ta, target_memory=pl.Mem.Left), pl.move(tb, target_memory=pl.Mem.Right))
        part = pl.tile.set_validshape(acc, 20, N)
        pl.tpush_to_aiv(part, split=0)

    @pl.function(type=pl.FunctionType.AIV)
    def vector(self, a: pl.Tensor[[N, N], pl.FP16], b: pl.Tensor[[N, N], pl.FP16],
               y: pl.Out[pl.Tensor[[N, N], pl.FP32]], n: pl.Scalar[pl.INDEX]):
        buf = pl.reserve_buffer(name="c2v", size=2 * SLOT)
        pl.aiv_initialize_pipe(c2v_consumer_buf=buf, dir_mask=1, slot_size=SLOT, slot_num=2)
        t: pl.Tile[[N, N], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[20, N])] = pl.tpop_from_aic(split=0)
        e = pl.exp(t)
        pl.tfree_to_aic(t)
        pl.store(e, [0, 0], y)

    @pl.function(type=pl.FunctionType.Group)
    def group(self, a: pl.Tensor[[N, N], pl.FP16], b: pl.Tensor[[N, N], pl.FP16],
              y: pl.Out[pl.Tensor[[N, N], pl.FP32]], n: pl.Scalar[pl.INDEX]):
        self.cube(a, b, y, n)
        self.vector(a, b, y, n)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[N, N], pl.FP16], b: pl.Tensor[[N, N], pl.FP16],
             y: pl.Out[pl.Tensor[[N, N], pl.FP32]], n: pl.Scalar[pl.INDEX]):
        self.group(a, b, y, n)


# ---------------------------------------------------------------- misuse (one located error each)
def broken(kind: str):
    """A C->V group with one mistake (kind): each is a located CompileError."""
    aic_mask = 3 if kind == "dir_mask" else 1
    push_id = 2 if kind == "no_pipe" else 0
    imported = "c2x" if kind == "import" else "c2v"
    size = SLOT if kind == "size" else 2 * SLOT
    pushed_rows = 2 * N if kind == "slot" else N

    @pl.program
    class Broken:
        @pl.function(type=pl.FunctionType.AIC)
        def cube(self, a: pl.Tensor[[2 * N, N], pl.FP16], b: pl.Tensor[[N, N], pl.FP16],
                 y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
            peer = pl.import_peer_buffer(name=imported, peer_func="vector")
            pl.aic_initialize_pipe(peer, dir_mask=aic_mask, slot_size=SLOT, slot_num=2)
            ta = pl.load(a, [0, 0], [pushed_rows, N], target_memory=pl.Mem.Mat)
            tb = pl.load(b, [0, 0], [N, N], target_memory=pl.Mem.Mat)
            acc = pl.matmul(pl.move(ta, target_memory=pl.Mem.Left), pl.move(tb, target_memory=pl.Mem.Right))
            pl.tpush_to_aiv(acc, split=0, id=push_id)

        @pl.function(type=pl.FunctionType.AIV)
        def vector(self, a: pl.Tensor[[2 * N, N], pl.FP16], b: pl.Tensor[[N, N], pl.FP16],
                   y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
            buf = pl.reserve_buffer(name="c2v", size=size)
            pl.aiv_initialize_pipe(c2v_consumer_buf=buf, dir_mask=1, slot_size=SLOT, slot_num=2)
            t: pl.Tile[[N, N], pl.FP32, pl.Mem.Vec] = pl.tpop_from_aic(split=0)
            e = pl.exp(t)
            pl.tfree_to_aic(t)
            pl.store(e, [0, 0], y)

        @pl.function(type=pl.FunctionType.Group)
        def group(self, a: pl.Tensor[[2 * N, N], pl.FP16], b: pl.Tensor[[N, N], pl.FP16],
                  y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
            self.cube(a, b, y)
            self.vector(a, b, y)

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[2 * N, N], pl.FP16], b: pl.Tensor[[N, N], pl.FP16],
                 y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
            self.group(a, b, y)

    return Broken


@pl.program
class NoFree:
    """The vector side pops and never frees."""

    @pl.function(type=pl.FunctionType.AIC)
    def cube(self, a: pl.Tensor[[N, N], pl.FP16], y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
        peer = pl.import_peer_buffer(name="c2v", peer_func="vector")
        pl.aic_initialize_pipe(peer, dir_mask=1, slot_size=SLOT, slot_num=2)
        ta = pl.load(a, [0, 0], [N, N], target_memory=pl.Mem.Mat)
        acc = pl.matmul(pl.move(ta, target_memory=pl.Mem.Left), pl.move(ta, target_memory=pl.Mem.Right))
        pl.tpush_to_aiv(acc, split=0)

    @pl.function(type=pl.FunctionType.AIV)
    def vector(self, a: pl.Tensor[[N, N], pl.FP16], y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
        buf = pl.reserve_buffer(name="c2v", size=2 * SLOT)
        pl.aiv_initialize_pipe(c2v_consumer_buf=buf, dir_mask=1, slot_size=SLOT, slot_num=2)
        t: pl.Tile[[N, N], pl.FP32, pl.Mem.Vec] = pl.tpop_from_aic(split=0)
        pl.store(pl.exp(t), [0, 0], y)

    @pl.function(type=pl.FunctionType.Group)
    def group(self, a: pl.Tensor[[N, N], pl.FP16], y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
        self.cube(a, y)
        self.vector(a, y)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[N, N], pl.FP16], y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
        self.group(a, y)


# ---------------------------------------------------------------- events and barriers (E4)
@pl.program
class SyncSetWait:
    """The cube writes a @ b to GM and raises event 4; the vector side waits on it, then reads
    the product back and writes y = a @ b + 1."""

    @pl.function(type=pl.FunctionType.AIC)
    def cube(self, a: pl.Tensor[[N, N], pl.FP16], b: pl.Tensor[[N, N], pl.FP16],
             ws: pl.Tensor[[256], pl.INT64], p: pl.InOut[pl.Tensor[[N, N], pl.FP32]],
             y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
        pl.system.set_ffts(ws)
        ta = pl.load(a, [0, 0], [N, N], target_memory=pl.Mem.Mat)
        tb = pl.load(b, [0, 0], [N, N], target_memory=pl.Mem.Mat)
        acc = pl.matmul(pl.move(ta, target_memory=pl.Mem.Left), pl.move(tb, target_memory=pl.Mem.Right))
        pl.store(acc, [0, 0], p)
        pl.system.sync_set(4, pipe=pl.PipeType.FIX)

    @pl.function(type=pl.FunctionType.AIV)
    def vector(self, a: pl.Tensor[[N, N], pl.FP16], b: pl.Tensor[[N, N], pl.FP16],
               ws: pl.Tensor[[256], pl.INT64], p: pl.InOut[pl.Tensor[[N, N], pl.FP32]],
               y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
        pl.system.set_ffts(ws)
        pl.system.sync_wait(4, pipe=pl.PipeType.MTE2)
        t = pl.load(p, [0, 0], [N, N])
        pl.store(pl.adds(t, 1.0), [0, 0], y)

    @pl.function(type=pl.FunctionType.Group)
    def group(self, a: pl.Tensor[[N, N], pl.FP16], b: pl.Tensor[[N, N], pl.FP16],
              ws: pl.Tensor[[256], pl.INT64], p: pl.InOut[pl.Tensor[[N, N], pl.FP32]],
              y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
        self.cube(a, b, ws, p, y)
        self.vector(a, b, ws, p, y)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[N, N], pl.FP16], b: pl.Tensor[[N, N], pl.FP16],
             ws: pl.Tensor[[256], pl.INT64], p: pl.InOut[pl.Tensor[[N, N], pl.FP32]],
             y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
        self.group(a, b, ws, p, y)


@pl.program
class BothLanesSet:
    """V->C with ffts_mode=2: each vector lane writes its half of 2 * x to GM and raises event 1;
    the cube is released once both lanes did, and computes y = (2 * x) @ w."""

    @pl.function(type=pl.FunctionType.AIC)
    def cube(self, x: pl.Tensor[[N, N], pl.FP16], w: pl.Tensor[[N, N], pl.FP16],
             t: pl.InOut[pl.Tensor[[N, N], pl.FP16]], y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
        pl.system.sync_wait(1, pipe=pl.PipeType.MTE2)
        tt = pl.load(t, [0, 0], [N, N], target_memory=pl.Mem.Mat)
        tw = pl.load(w, [0, 0], [N, N], target_memory=pl.Mem.Mat)
        acc = pl.matmul(pl.move(tt, target_memory=pl.Mem.Left), pl.move(tw, target_memory=pl.Mem.Right))
        pl.store(acc, [0, 0], y)

    @pl.function(type=pl.FunctionType.AIV, attrs={"dual_aiv_dispatch": True})
    def vector(self, x: pl.Tensor[[N, N], pl.FP16], w: pl.Tensor[[N, N], pl.FP16],
               t: pl.InOut[pl.Tensor[[N, N], pl.FP16]], y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
        lane = pl.tile.get_subblock_idx()
        h = pl.load(x, [lane * 32, 0], [32, N])
        pl.store(pl.muls(h, 2.0), [lane * 32, 0], t)
        pl.system.sync_set(1, pipe=pl.PipeType.MTE3, ffts_mode=2)

    @pl.function(type=pl.FunctionType.Group)
    def group(self, x: pl.Tensor[[N, N], pl.FP16], w: pl.Tensor[[N, N], pl.FP16],
              t: pl.InOut[pl.Tensor[[N, N], pl.FP16]], y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
        self.cube(x, w, t, y)
        self.vector(x, w, t, y)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[N, N], pl.FP16], w: pl.Tensor[[N, N], pl.FP16],
             t: pl.InOut[pl.Tensor[[N, N], pl.FP16]], y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
        self.group(x, w, t, y)


@pl.program
class NeverRaised:
    """The vector side waits on event 3, which the cube never raises: a timeout error, not a hang."""

    @pl.function(type=pl.FunctionType.AIC)
    def cube(self, a: pl.Tensor[[N, N], pl.FP16], y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
        ta = pl.load(a, [0, 0], [N, N], target_memory=pl.Mem.Mat)
        acc = pl.matmul(pl.move(ta, target_memory=pl.Mem.Left), pl.move(ta, target_memory=pl.Mem.Right))
        pl.store(acc, [0, 0], y)

    @pl.function(type=pl.FunctionType.AIV)
    def waiter(self, a: pl.Tensor[[N, N], pl.FP16], y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
        pl.system.sync_wait(3, pipe=pl.PipeType.MTE2)

    @pl.function(type=pl.FunctionType.Group)
    def group(self, a: pl.Tensor[[N, N], pl.FP16], y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
        self.cube(a, y)
        self.waiter(a, y)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[N, N], pl.FP16], y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
        self.group(a, y)


BLOCKS = 8


@pl.program
class SyncAll:
    """8 blocks: each writes t[b] = 2 * x[b], all meet at pl.system.syncall, then each writes
    y[b] = t[(b + 1) % 8] + 1 -- its neighbour's result."""

    @pl.function(type=pl.FunctionType.InCore)
    def step(self, x: pl.Tensor[[BLOCKS * 16, N], pl.FP32], t: pl.InOut[pl.Tensor[[BLOCKS * 16, N], pl.FP32]],
             y: pl.Out[pl.Tensor[[BLOCKS * 16, N], pl.FP32]]):
        b = pl.tile.get_block_idx()
        pl.store(pl.muls(pl.load(x, [b * 16, 0], [16, N]), 2.0), [b * 16, 0], t)
        pl.system.syncall(core_type="aiv_only")
        nb = (b + 1) % pl.tile.get_block_num()
        pl.store(pl.adds(pl.load(t, [nb * 16, 0], [16, N]), 1.0), [b * 16, 0], y)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[BLOCKS * 16, N], pl.FP32], t: pl.InOut[pl.Tensor[[BLOCKS * 16, N], pl.FP32]],
             y: pl.Out[pl.Tensor[[BLOCKS * 16, N], pl.FP32]]):
        n = pl.system.available_cluster_count()      # 8 on the simulator's default device
        with pl.spmd(n, sync_start=True):
            self.step(x, t, y)


@pl.program
class SyncAllSkipped:
    """Like SyncAll, but block 0 skips the pl.system.syncall under an if on its block index: the
    other blocks' barrier can never complete -- a timeout error, not a hang."""

    @pl.function(type=pl.FunctionType.InCore)
    def skipper(self, x: pl.Tensor[[BLOCKS * 16, N], pl.FP32], t: pl.InOut[pl.Tensor[[BLOCKS * 16, N], pl.FP32]],
                y: pl.Out[pl.Tensor[[BLOCKS * 16, N], pl.FP32]]):
        b = pl.tile.get_block_idx()
        pl.store(pl.muls(pl.load(x, [b * 16, 0], [16, N]), 2.0), [b * 16, 0], t)
        if b != 0:
            pl.system.syncall(core_type="aiv_only")
        pl.store(pl.adds(pl.load(t, [b * 16, 0], [16, N]), 1.0), [b * 16, 0], y)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[BLOCKS * 16, N], pl.FP32], t: pl.InOut[pl.Tensor[[BLOCKS * 16, N], pl.FP32]],
             y: pl.Out[pl.Tensor[[BLOCKS * 16, N], pl.FP32]]):
        with pl.spmd(BLOCKS, sync_start=True):
            self.skipper(x, t, y)


@pl.program
class SyncAllSubmit:
    """SyncAll launched with pl.spmd_submit(..., sync_start=True)."""

    @pl.function(type=pl.FunctionType.InCore)
    def step(self, x: pl.Tensor[[BLOCKS * 16, N], pl.FP32], t: pl.InOut[pl.Tensor[[BLOCKS * 16, N], pl.FP32]],
             y: pl.Out[pl.Tensor[[BLOCKS * 16, N], pl.FP32]]):
        b = pl.tile.get_block_idx()
        pl.store(pl.muls(pl.load(x, [b * 16, 0], [16, N]), 2.0), [b * 16, 0], t)
        pl.system.syncall(core_type="aiv_only")
        nb = (b + 1) % pl.tile.get_block_num()
        y = pl.store(pl.adds(pl.load(t, [nb * 16, 0], [16, N]), 1.0), [b * 16, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[BLOCKS * 16, N], pl.FP32], t: pl.InOut[pl.Tensor[[BLOCKS * 16, N], pl.FP32]],
             y: pl.Out[pl.Tensor[[BLOCKS * 16, N], pl.FP32]]):
        y, _ = pl.spmd_submit(self.step, x, t, y, core_num=BLOCKS, sync_start=True)


@pl.program
class DeepRing:
    """pl.cross_core_slot(slot_num=4): the automatic C->V pipe of the outlined kernel has 4 slots;
    y[i] = exp(a @ b) + i over a loop of 4 hand-overs."""

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
             y: pl.Out[pl.Tensor[[256, 64], pl.FP32]]):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="deep", optimizations=[pl.cross_core_slot(slot_num=4)]):
            ta = pl.move(pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
            tb = pl.move(pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
            for i in pl.range(4):
                v = pl.move(pl.matmul(ta, tb), target_memory=pl.Mem.Vec)
                y = pl.store(pl.adds(pl.exp(v), pl.cast(i, pl.FP32)), [i * 64, 0], y)
        return y


@pl.program
class BothLanesSetFfts:
    """BothLanesSet with the FFTS base set in each function that raises or waits (a2a3 needs it: the
    real assembler refuses a cross-core event without pl.system.set_ffts in the same function)."""

    @pl.function(type=pl.FunctionType.AIC)
    def cube(self, x: pl.Tensor[[N, N], pl.FP16], w: pl.Tensor[[N, N], pl.FP16], ws: pl.Tensor[[256], pl.INT64],
             t: pl.InOut[pl.Tensor[[N, N], pl.FP16]], y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
        pl.system.set_ffts(ws)
        pl.system.sync_wait(1, pipe=pl.PipeType.MTE2)
        tt = pl.load(t, [0, 0], [N, N], target_memory=pl.Mem.Mat)
        tw = pl.load(w, [0, 0], [N, N], target_memory=pl.Mem.Mat)
        acc = pl.matmul(pl.move(tt, target_memory=pl.Mem.Left), pl.move(tw, target_memory=pl.Mem.Right))
        pl.store(acc, [0, 0], y)

    @pl.function(type=pl.FunctionType.AIV, attrs={"dual_aiv_dispatch": True})
    def vector(self, x: pl.Tensor[[N, N], pl.FP16], w: pl.Tensor[[N, N], pl.FP16], ws: pl.Tensor[[256], pl.INT64],
               t: pl.InOut[pl.Tensor[[N, N], pl.FP16]], y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
        pl.system.set_ffts(ws)
        lane = pl.tile.get_subblock_idx()
        h = pl.load(x, [lane * 32, 0], [32, N])
        pl.store(pl.muls(h, 2.0), [lane * 32, 0], t)
        pl.system.sync_set(1, pipe=pl.PipeType.MTE3, ffts_mode=2)

    @pl.function(type=pl.FunctionType.Group)
    def group(self, x: pl.Tensor[[N, N], pl.FP16], w: pl.Tensor[[N, N], pl.FP16], ws: pl.Tensor[[256], pl.INT64],
              t: pl.InOut[pl.Tensor[[N, N], pl.FP16]], y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
        self.cube(x, w, ws, t, y)
        self.vector(x, w, ws, t, y)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[N, N], pl.FP16], w: pl.Tensor[[N, N], pl.FP16], ws: pl.Tensor[[256], pl.INT64],
             t: pl.InOut[pl.Tensor[[N, N], pl.FP16]], y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
        self.group(x, w, ws, t, y)


@pl.program
class NeverRaisedFfts:
    """NeverRaised with the FFTS base set where the event is waited for."""

    @pl.function(type=pl.FunctionType.AIC)
    def cube(self, a: pl.Tensor[[N, N], pl.FP16], ws: pl.Tensor[[256], pl.INT64],
             y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
        ta = pl.load(a, [0, 0], [N, N], target_memory=pl.Mem.Mat)
        acc = pl.matmul(pl.move(ta, target_memory=pl.Mem.Left), pl.move(ta, target_memory=pl.Mem.Right))
        pl.store(acc, [0, 0], y)

    @pl.function(type=pl.FunctionType.AIV)
    def waiter(self, a: pl.Tensor[[N, N], pl.FP16], ws: pl.Tensor[[256], pl.INT64],
               y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
        pl.system.set_ffts(ws)
        pl.system.sync_wait(3, pipe=pl.PipeType.MTE2)

    @pl.function(type=pl.FunctionType.Group)
    def group(self, a: pl.Tensor[[N, N], pl.FP16], ws: pl.Tensor[[256], pl.INT64],
              y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
        self.cube(a, ws, y)
        self.waiter(a, ws, y)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[N, N], pl.FP16], ws: pl.Tensor[[256], pl.INT64],
             y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
        self.group(a, ws, y)


S16 = 16


@pl.program
class SplitWindowPop:
    """pypto's dynamic valid pop: the cube pushes a whole [16, 16] product split UP_DOWN, each vector
    lane pops its [8, 16] half through a run-time valid region [r, c] (the vendor's TPOP takes the
    whole half, the valid shape windows it); the consumer reserves 4 slots and gives no slot count."""

    @pl.function(type=pl.FunctionType.AIC, attrs={"split": pl.SplitMode.UP_DOWN})
    def cube(self, a: pl.Tensor[[S16, S16], pl.FP16], b: pl.Tensor[[S16, S16], pl.FP16],
             y: pl.Out[pl.Tensor[[S16, S16], pl.FP32]], r: pl.Scalar[pl.INDEX], c: pl.Scalar[pl.INDEX]):
        peer = pl.import_peer_buffer(name="c2v", peer_func="vector")
        pl.aic_initialize_pipe(dir_mask=1, slot_size=S16 * S16 * 4, c2v_consumer_buf=peer)
        ta = pl.load(a, [0, 0], [S16, S16], target_memory=pl.Mem.Mat)
        tb = pl.load(b, [0, 0], [S16, S16], target_memory=pl.Mem.Mat)
        acc = pl.matmul(pl.move(ta, target_memory=pl.Mem.Left), pl.move(tb, target_memory=pl.Mem.Right))
        pl.tpush_to_aiv(acc, split=1)

    @pl.function(type=pl.FunctionType.AIV, attrs={"split": pl.SplitMode.UP_DOWN})
    def vector(self, a: pl.Tensor[[S16, S16], pl.FP16], b: pl.Tensor[[S16, S16], pl.FP16],
               y: pl.Out[pl.Tensor[[S16, S16], pl.FP32]], r: pl.Scalar[pl.INDEX], c: pl.Scalar[pl.INDEX]):
        buf = pl.reserve_buffer(name="c2v", size=4 * S16 * S16 * 4, base=0x2000)
        pl.aiv_initialize_pipe(dir_mask=1, slot_size=S16 * S16 * 4, c2v_consumer_buf=buf)
        t: pl.Tile[[S16, S16], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[r, c])] = pl.tpop_from_aic(split=1)
        e = pl.adds(t, 1.0)
        pl.tfree_to_aic(t)
        pl.store(e, [0, 0], y)

    @pl.function(type=pl.FunctionType.Group, attrs={"split": pl.SplitMode.UP_DOWN})
    def group(self, a: pl.Tensor[[S16, S16], pl.FP16], b: pl.Tensor[[S16, S16], pl.FP16],
              y: pl.Out[pl.Tensor[[S16, S16], pl.FP32]], r: pl.Scalar[pl.INDEX], c: pl.Scalar[pl.INDEX]):
        self.cube(a, b, y, r, c)
        self.vector(a, b, y, r, c)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[S16, S16], pl.FP16], b: pl.Tensor[[S16, S16], pl.FP16],
             y: pl.Out[pl.Tensor[[S16, S16], pl.FP32]], r: pl.Scalar[pl.INDEX], c: pl.Scalar[pl.INDEX]):
        self.group(a, b, y, r, c)
