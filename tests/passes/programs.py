"""Small programs, one per pass, each written to show what its pass changes.

New programs go at the end: the goldens record line numbers of this file only through the
source locations they do not print, so order does not matter, but keep each program minimal.
"""
import ptokit.language as pl


@pl.program
class InlineCall:
    @pl.function(type=pl.FunctionType.Inline)
    def scaled(self, t: pl.Tile[[16, 64], pl.FP32]) -> pl.Tile[[16, 64], pl.FP32]:
        u = pl.muls(t, 2.0)
        return u

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 64])
        u = self.scaled(t)
        y = pl.store(u, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        y = self.k(x, y)
        return y


@pl.program
class ExplicitPipe:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16],
          y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        am = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        bm = pl.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        acc = pl.matmul(pl.move(am, target_memory=pl.Mem.Left), pl.move(bm, target_memory=pl.Mem.Right))
        pl.tile.tpush_to_aiv(acc)
        v = pl.tile.tpop_from_aic(shape=[16, 16], dtype=pl.FP32)
        e = pl.exp(v)
        pl.tile.tfree_from_aic(v)
        y = pl.store(e, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16],
             y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        y = self.k(a, b, y)
        return y


@pl.program
class Nested:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 64])
        u = pl.add(pl.exp(t), pl.muls(t, 3.0))
        y = pl.store(u, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        y = self.k(x, y)
        return y


@pl.program
class CarriedAndMerged:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
          y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        acc = pl.load(x, [0, 0], [16, 64])
        for i in pl.range(1, 4):
            t = pl.load(x, [i * 16, 0], [16, 64])
            acc = pl.add(acc, t)
        if n > 2:
            acc = pl.muls(acc, 0.5)
        y = pl.store(acc, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
             y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        y = self.k(x, n, y)
        return y


@pl.program
class CubeAndVector:
    @pl.function(type=pl.FunctionType.InCore)
    def mm(self, a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16],
           c: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        am = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        bm = pl.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        acc = pl.matmul(pl.move(am, target_memory=pl.Mem.Left), pl.move(bm, target_memory=pl.Mem.Right))
        c = pl.store(acc, [0, 0], c)
        return c

    @pl.function(type=pl.FunctionType.InCore)
    def act(self, c: pl.Tensor[[16, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t = pl.relu(pl.load(c, [0, 0], [16, 16]))
        y = pl.store(t, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16],
             y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        c = pl.create_tensor([16, 16], dtype=pl.FP32)
        c = self.mm(a, b, c)
        y = self.act(c, y)
        return y


@pl.program
class MatmulExp:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16],
          y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        am = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        bm = pl.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        acc = pl.matmul(pl.move(am, target_memory=pl.Mem.Left), pl.move(bm, target_memory=pl.Mem.Right))
        v = pl.move(acc, target_memory=pl.Mem.Vec)
        y = pl.store(pl.exp(v), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16],
             y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        y = self.k(a, b, y)
        return y


@pl.program
class UnrollAndPipeline:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        acc = pl.load(x, [0, 0], [16, 64])
        for i in pl.unroll(2):
            acc = pl.adds(acc, 1.0)
        for j in pl.pipeline(0, n, 1, stage=2):
            acc = pl.add(acc, pl.load(x, [j * 16, 0], [16, 64]))
        y = pl.store(acc, [0, 0], y)
        return y


@pl.program
class Composite:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[8, 64], pl.FP32], y: pl.Out[pl.Tensor[[8, 64], pl.FP32]]) -> pl.Tensor[[8, 64], pl.FP32]:
        t = pl.load(x, [0, 0], [8, 64])
        s = pl.tile.sin(t)
        y = pl.store(s, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[8, 64], pl.FP32], y: pl.Out[pl.Tensor[[8, 64], pl.FP32]]) -> pl.Tensor[[8, 64], pl.FP32]:
        y = self.k(x, y)
        return y


@pl.program
class HandPipe:
    """A hand-written AIC/AIV/Group pair joined by one C->V pipe (HandPipes, PlacePipeBuffers)."""

    @pl.function(type=pl.FunctionType.AIC)
    def cube(self, a: pl.Tensor[[16, 16], pl.FP16], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        peer = pl.import_peer_buffer(name="c2v", peer_func="vector")
        pl.aic_initialize_pipe(peer, dir_mask=1, slot_size=1024, slot_num=2)
        ta = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        acc = pl.matmul(pl.move(ta, target_memory=pl.Mem.Left), pl.move(ta, target_memory=pl.Mem.Right))
        pl.tpush_to_aiv(acc, split=0)

    @pl.function(type=pl.FunctionType.AIV)
    def vector(self, a: pl.Tensor[[16, 16], pl.FP16], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        buf = pl.reserve_buffer(name="c2v", size=2048)
        pl.aiv_initialize_pipe(c2v_consumer_buf=buf, dir_mask=1, slot_size=1024, slot_num=2)
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tpop_from_aic(split=0)
        e = pl.exp(t)
        pl.tfree_to_aic(t)
        pl.store(e, [0, 0], y)

    @pl.function(type=pl.FunctionType.Group)
    def group(self, a: pl.Tensor[[16, 16], pl.FP16], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        self.cube(a, y)
        self.vector(a, y)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 16], pl.FP16], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        self.group(a, y)


@pl.program
class HandSplitPipe:
    """HandPipe with a split AIV function (attrs split=UP_DOWN): both lanes, each on its 8 rows (SplitHandLanes)."""

    @pl.function(type=pl.FunctionType.AIC)
    def cube(self, a: pl.Tensor[[16, 16], pl.FP16], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        peer = pl.import_peer_buffer(name="c2v", peer_func="vector")
        pl.aic_initialize_pipe(peer, dir_mask=1, slot_size=1024, slot_num=2)
        ta = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        acc = pl.matmul(pl.move(ta, target_memory=pl.Mem.Left), pl.move(ta, target_memory=pl.Mem.Right))
        pl.tpush_to_aiv(acc, split=1)

    @pl.function(type=pl.FunctionType.AIV, attrs={"split": pl.SplitMode.UP_DOWN})
    def vector(self, a: pl.Tensor[[16, 16], pl.FP16], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        buf = pl.reserve_buffer(name="c2v", size=2048)
        pl.aiv_initialize_pipe(c2v_consumer_buf=buf, dir_mask=1, slot_size=1024, slot_num=2)
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tpop_from_aic(split=1)
        e = pl.exp(t)
        pl.tfree_to_aic(t)
        pl.store(e, [0, 0], y)

    @pl.function(type=pl.FunctionType.Group)
    def group(self, a: pl.Tensor[[16, 16], pl.FP16], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        self.cube(a, y)
        self.vector(a, y)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 16], pl.FP16], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        self.group(a, y)


@pl.program
class ReturnsCreated:
    """The orchestration returns two tensors it creates and one it only uses inside (ReturnedOutputs:
    the returned ones become Out parameters, the other stays a runtime tensor)."""

    @pl.function(type=pl.FunctionType.InCore)
    def twice(self, a: pl.Tensor[[16, 16], pl.FP32], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        y = pl.store(pl.adds(pl.load(a, [0, 0], [16, 16]), 1.0), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 16], pl.FP32]):
        tmp = pl.create_tensor([16, 16], dtype=pl.FP32)
        first = pl.create_tensor([16, 16], dtype=pl.FP32)
        second = pl.create_tensor([16, 16], dtype=pl.FP32)
        tmp = self.twice(a, tmp)
        second = self.twice(tmp, second)
        first = self.twice(a, first)
        return second, first


@pl.program
class TensorLevel:
    """Tensor-level vector ops whose results the program annotates as tensors (ConvertTensorToTileOps):
    a broadcast against a [16, 1] tensor, a row reduction that needs a scratch tile, a window operand,
    and a chain through a converted name."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[32, 64], pl.FP32], v: pl.Tensor[[16, 1], pl.FP32],
          y: pl.Out[pl.Tensor[[16, 64], pl.FP32]], r: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        d: pl.Tensor[[16, 64], pl.FP32] = pl.sub(a[16:32, :], v)
        e: pl.Tensor[[16, 64], pl.FP32] = pl.exp(d)
        s: pl.Tensor[[16, 1], pl.FP32] = pl.row_sum(e)
        r = pl.assemble(r, s, [0, 0])
        y = pl.assemble(y, e, [0, 0])
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[32, 64], pl.FP32], v: pl.Tensor[[16, 1], pl.FP32],
             y: pl.Out[pl.Tensor[[16, 64], pl.FP32]], r: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        y = self.k(a, v, y, r)
        return y


@pl.program
class AtBlocks:
    """Two blocks of kernel code: the first names its store and the second reads that name."""
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], mid: pl.InOut[pl.Tensor[[16, 64], pl.FP32]],
             y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        s: pl.Scalar[pl.FP32] = 2.0
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="scale"):
            t = pl.load(x, [0, 0], [16, 64])
            m = pl.store(pl.muls(t, s), [0, 0], mid)
        with pl.at(level=pl.Level.CORE_GROUP):
            u = pl.load(m, [0, 0], [16, 64])
            y = pl.store(pl.exp(u), [0, 0], y)
        return y
