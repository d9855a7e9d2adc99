"""Hand-written AIC/AIV/Group programs whose AIV function is split (attrs={"split": 1|2}): written at
full size, both lanes run it, each on its half (pypto-parity E1/E3).  Append new ones at the END:
golden files record line numbers."""
import ptokit.language as pl

N = 64
SLOT = N * N * 4          # an FP32 [64, 64] tile
HSLOT = N * N * 2         # an FP16 [64, 64] tile


def softmax(mode=1, push_split=1, cube_attrs=None):
    """y = softmax_rows(a @ b): the cube pushes a @ b split UP_DOWN, each lane normalises its 32 rows."""

    @pl.program
    class HandSoftmax:
        @pl.function(type=pl.FunctionType.AIC, attrs=cube_attrs or {})
        def cube(self, a: pl.Tensor[[N, N], pl.FP16], b: pl.Tensor[[N, N], pl.FP16],
                 y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
            peer = pl.import_peer_buffer(name="c2v", peer_func="vector")
            pl.aic_initialize_pipe(peer, dir_mask=1, slot_size=SLOT, slot_num=2)
            ta = pl.load(a, [0, 0], [N, N], target_memory=pl.Mem.Mat)
            tb = pl.load(b, [0, 0], [N, N], target_memory=pl.Mem.Mat)
            acc = pl.matmul(pl.move(ta, target_memory=pl.Mem.Left), pl.move(tb, target_memory=pl.Mem.Right))
            pl.tpush_to_aiv(acc, split=push_split)

        @pl.function(type=pl.FunctionType.AIV, attrs={"split": mode})
        def vector(self, a: pl.Tensor[[N, N], pl.FP16], b: pl.Tensor[[N, N], pl.FP16],
                   y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
            buf = pl.reserve_buffer(name="c2v", size=2 * SLOT)
            pl.aiv_initialize_pipe(c2v_consumer_buf=buf, dir_mask=1, slot_size=SLOT, slot_num=2)
            t: pl.Tile[[N, N], pl.FP32, pl.Mem.Vec] = pl.tpop_from_aic(split=mode)
            tmp = pl.create_tile([N, N], dtype=pl.FP32)
            e = pl.exp(pl.row_expand_sub(t, pl.row_max(t, tmp)))
            pl.tfree_to_aic(t)
            pl.store(pl.row_expand_div(e, pl.row_sum(e, tmp)), [0, 0], y)

        @pl.function(type=pl.FunctionType.Group)
        def group(self, a: pl.Tensor[[N, N], pl.FP16], b: pl.Tensor[[N, N], pl.FP16],
                  y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
            self.cube(a, b, y)
            self.vector(a, b, y)

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[N, N], pl.FP16], b: pl.Tensor[[N, N], pl.FP16],
                 y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
            self.group(a, b, y)

    return HandSoftmax


HandSoftmax = softmax()


@pl.program
class HandV2CLeftRight:
    """y = relu(x) @ w: each lane prepares 32 of x's 64 columns (LEFT_RIGHT) and pushes its half; the
    cube pops the whole [64, 64] tile."""

    @pl.function(type=pl.FunctionType.AIC, attrs={"split": pl.SplitMode.LEFT_RIGHT})
    def cube(self, x: pl.Tensor[[N, N], pl.FP32], w: pl.Tensor[[N, N], pl.FP16],
             y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
        buf = pl.reserve_buffer(name="v2c", size=2 * HSLOT)
        pl.aic_initialize_pipe(v2c_consumer_buf=buf, dir_mask=2, slot_size=HSLOT, slot_num=2)
        m: pl.Tile[[N, N], pl.FP16, pl.Mem.Mat] = pl.tpop_from_aiv(split=2)
        left = pl.move(m, target_memory=pl.Mem.Left)
        pl.tfree_to_aiv(m)
        tw = pl.load(w, [0, 0], [N, N], target_memory=pl.Mem.Mat)
        pl.store(pl.matmul(left, pl.move(tw, target_memory=pl.Mem.Right)), [0, 0], y)

    @pl.function(type=pl.FunctionType.AIV, attrs={"split": pl.SplitMode.LEFT_RIGHT})
    def vector(self, x: pl.Tensor[[N, N], pl.FP32], w: pl.Tensor[[N, N], pl.FP16],
               y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
        peer = pl.import_peer_buffer(name="v2c", peer_func="cube")
        pl.aiv_initialize_pipe(pl.const(0, pl.INT32), peer, dir_mask=2, slot_size=HSLOT, slot_num=2)
        tx = pl.load(x, [0, 0], [N, N], target_memory=pl.Mem.Vec)
        pl.tpush_to_aic(pl.cast(pl.relu(tx), target_type=pl.FP16), split=2)

    @pl.function(type=pl.FunctionType.Group)
    def group(self, x: pl.Tensor[[N, N], pl.FP32], w: pl.Tensor[[N, N], pl.FP16],
              y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
        self.cube(x, w, y)
        self.vector(x, w, y)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[N, N], pl.FP32], w: pl.Tensor[[N, N], pl.FP16],
             y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
        self.group(x, w, y)


def col_max(mode):
    """A column reduction in the AIV function: across the split axis under UP_DOWN (refused)."""

    @pl.program
    class HandColMax:
        @pl.function(type=pl.FunctionType.AIC)
        def cube(self, a: pl.Tensor[[N, N], pl.FP16], y: pl.Out[pl.Tensor[[1, N], pl.FP32]]):
            peer = pl.import_peer_buffer(name="c2v", peer_func="vector")
            pl.aic_initialize_pipe(peer, dir_mask=1, slot_size=SLOT, slot_num=2)
            ta = pl.load(a, [0, 0], [N, N], target_memory=pl.Mem.Mat)
            acc = pl.matmul(pl.move(ta, target_memory=pl.Mem.Left), pl.move(ta, target_memory=pl.Mem.Right))
            pl.tpush_to_aiv(acc, split=mode)

        @pl.function(type=pl.FunctionType.AIV, attrs={"split": mode})
        def vector(self, a: pl.Tensor[[N, N], pl.FP16], y: pl.Out[pl.Tensor[[1, N], pl.FP32]]):
            buf = pl.reserve_buffer(name="c2v", size=2 * SLOT)
            pl.aiv_initialize_pipe(c2v_consumer_buf=buf, dir_mask=1, slot_size=SLOT, slot_num=2)
            t: pl.Tile[[N, N], pl.FP32, pl.Mem.Vec] = pl.tpop_from_aic(split=mode)
            m = pl.col_max(t)
            pl.tfree_to_aic(t)
            pl.store(m, [0, 0], y)

        @pl.function(type=pl.FunctionType.Group)
        def group(self, a: pl.Tensor[[N, N], pl.FP16], y: pl.Out[pl.Tensor[[1, N], pl.FP32]]):
            self.cube(a, y)
            self.vector(a, y)

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[N, N], pl.FP16], y: pl.Out[pl.Tensor[[1, N], pl.FP32]]):
            self.group(a, y)

    return HandColMax


@pl.program
class HandOneRow:
    """A split UP_DOWN group whose AIV function pushes a [1, 64] tile: it has no halves (refused)."""

    @pl.function(type=pl.FunctionType.AIC)
    def cube(self, x: pl.Tensor[[1, N], pl.FP16], y: pl.Out[pl.Tensor[[1, N], pl.FP16]]):
        buf = pl.reserve_buffer(name="v2c", size=2 * 128)
        pl.aic_initialize_pipe(v2c_consumer_buf=buf, dir_mask=2, slot_size=128, slot_num=2)
        m: pl.Tile[[1, N], pl.FP16, pl.Mem.Mat] = pl.tpop_from_aiv(split=1)
        pl.tfree_to_aiv(m)

    @pl.function(type=pl.FunctionType.AIV, attrs={"split": pl.SplitMode.UP_DOWN})
    def vector(self, x: pl.Tensor[[1, N], pl.FP16], y: pl.Out[pl.Tensor[[1, N], pl.FP16]]):
        peer = pl.import_peer_buffer(name="v2c", peer_func="cube")
        pl.aiv_initialize_pipe(pl.const(0, pl.INT32), peer, dir_mask=2, slot_size=128, slot_num=2)
        pl.tpush_to_aic(pl.load(x, [0, 0], [1, N], target_memory=pl.Mem.Vec), split=1)

    @pl.function(type=pl.FunctionType.Group)
    def group(self, x: pl.Tensor[[1, N], pl.FP16], y: pl.Out[pl.Tensor[[1, N], pl.FP16]]):
        self.cube(x, y)
        self.vector(x, y)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[1, N], pl.FP16], y: pl.Out[pl.Tensor[[1, N], pl.FP16]]):
        self.group(x, y)


@pl.program
class HandRuntimeValid:
    """exp(a @ a) on rows [0, n): a split AIV function popping with a run-time valid_shape; lane L holds
    clamp(n - 32 L, 0, 32) of the rows."""

    @pl.function(type=pl.FunctionType.AIC)
    def cube(self, a: pl.Tensor[[N, N], pl.FP16], y: pl.Out[pl.Tensor[[N, N], pl.FP32]], n: pl.Scalar[pl.INDEX]):
        peer = pl.import_peer_buffer(name="c2v", peer_func="vector")
        pl.aic_initialize_pipe(peer, dir_mask=1, slot_size=SLOT, slot_num=2)
        ta = pl.load(a, [0, 0], [N, N], target_memory=pl.Mem.Mat)
        acc = pl.matmul(pl.move(ta, target_memory=pl.Mem.Left), pl.move(ta, target_memory=pl.Mem.Right))
        pl.tpush_to_aiv(pl.tile.set_validshape(acc, n, N), split=1)

    @pl.function(type=pl.FunctionType.AIV, attrs={"split": pl.SplitMode.UP_DOWN})
    def vector(self, a: pl.Tensor[[N, N], pl.FP16], y: pl.Out[pl.Tensor[[N, N], pl.FP32]], n: pl.Scalar[pl.INDEX]):
        buf = pl.reserve_buffer(name="c2v", size=2 * SLOT)
        pl.aiv_initialize_pipe(c2v_consumer_buf=buf, dir_mask=1, slot_size=SLOT, slot_num=2)
        t: pl.Tile[[N, N], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[n, N])] = pl.tpop_from_aic(split=1)
        e = pl.exp(t)
        pl.tfree_to_aic(t)
        pl.store(e, [0, 0], y)

    @pl.function(type=pl.FunctionType.Group)
    def group(self, a: pl.Tensor[[N, N], pl.FP16], y: pl.Out[pl.Tensor[[N, N], pl.FP32]], n: pl.Scalar[pl.INDEX]):
        self.cube(a, y, n)
        self.vector(a, y, n)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[N, N], pl.FP16], y: pl.Out[pl.Tensor[[N, N], pl.FP32]], n: pl.Scalar[pl.INDEX]):
        self.group(a, y, n)
