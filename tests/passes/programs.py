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
class OversizedMatmul:
    """Matmuls larger than L0 on a2a3 (AutoTileMatmulL0): a [64, 1024] BF16 Left operand (128 KB, Left
    holds 64 KB) computed as a K loop in place, and a biased [256, 512] FP32 result (512 KB, Acc holds
    128 KB; the 2 KB bias row, Bias 1 KB) stored directly as a grid of output tiles."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 1024], pl.BF16], b: pl.Tensor[[1024, 64], pl.BF16],
          c: pl.Tensor[[256, 64], pl.BF16], d: pl.Tensor[[64, 512], pl.BF16], bias: pl.Tensor[[1, 512], pl.FP32],
          y: pl.Out[pl.Tensor[[64, 64], pl.FP32]], z: pl.Out[pl.Tensor[[256, 512], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        a_mat = pl.load(a, [0, 0], [64, 1024], target_memory=pl.Mem.Mat)
        b_mat = pl.load(b, [0, 0], [1024, 64], target_memory=pl.Mem.Mat)
        p = pl.matmul(a_mat, b_mat)
        y = pl.store(p, [0, 0], y)
        c_mat = pl.load(c, [0, 0], [256, 64], target_memory=pl.Mem.Mat)
        d_mat = pl.load(d, [0, 0], [64, 512], target_memory=pl.Mem.Mat)
        bias_mat = pl.load(bias, [0, 0], [1, 512], target_memory=pl.Mem.Mat)
        q = pl.tile.matmul_bias(c_mat, d_mat, bias_mat)
        z = pl.store(q, [0, 0], z)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 1024], pl.BF16], b: pl.Tensor[[1024, 64], pl.BF16],
             c: pl.Tensor[[256, 64], pl.BF16], d: pl.Tensor[[64, 512], pl.BF16], bias: pl.Tensor[[1, 512], pl.FP32],
             y: pl.Out[pl.Tensor[[64, 64], pl.FP32]], z: pl.Out[pl.Tensor[[256, 512], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        y = self.k(a, b, c, d, bias, y, z)
        return y


@pl.program
class MatmulOperands:
    """Matmul operands left where the program computed them (InferTileMemorySpace): a Vec sum as
    the lhs, a Mat load as the rhs of two matmuls, the first product (Acc) as the second's lhs, and
    a plain copy of an Acc tile."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32],
          y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        v = pl.add(pl.load(a, [0, 0], [16, 16]), pl.load(a, [0, 0], [16, 16]))
        bm = pl.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        p = pl.matmul(v, bm)
        q = pl.matmul(p, bm)
        r = q
        y = pl.store(r, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 16], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32],
             y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        y = self.k(a, b, y)
        return y


@pl.program
class NdTiles:
    """N-D tiles (FlattenTileNdTo2D): a batched matmul of N-D Mat loads, one through a
    transpose_view, and a transpose of the last two axes of an N-D Vec tile."""

    @pl.function(type=pl.FunctionType.InCore)
    def bmm(self, a: pl.Tensor[[2, 16, 32], pl.FP16], b: pl.Tensor[[2, 16, 32], pl.FP16],
            c: pl.Out[pl.Tensor[[2, 16, 16], pl.FP32]]) -> pl.Tensor[[2, 16, 16], pl.FP32]:
        ta = pl.load(a, [0, 0, 0], [2, 16, 32], target_memory=pl.Mem.Mat)
        tb = pl.tile.transpose_view(pl.load(b, [0, 0, 0], [2, 16, 32], target_memory=pl.Mem.Mat))
        c = pl.store(pl.batch_matmul(ta, tb), [0, 0, 0], c)
        return c

    @pl.function(type=pl.FunctionType.InCore)
    def trans(self, x: pl.Tensor[[2, 16, 8], pl.FP32],
              y: pl.Out[pl.Tensor[[2, 8, 16], pl.FP32]]) -> pl.Tensor[[2, 8, 16], pl.FP32]:
        t: pl.Tile[[2, 16, 8], pl.FP32] = pl.load(x, [0, 0, 0], [2, 16, 8])
        y = pl.store(pl.transpose(t, axis1=1, axis2=2), [0, 0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[2, 16, 32], pl.FP16], b: pl.Tensor[[2, 16, 32], pl.FP16],
             x: pl.Tensor[[2, 16, 8], pl.FP32], c: pl.Out[pl.Tensor[[2, 16, 16], pl.FP32]],
             y: pl.Out[pl.Tensor[[2, 8, 16], pl.FP32]]) -> pl.Tensor[[2, 16, 16], pl.FP32]:
        c = self.bmm(a, b, c)
        y = self.trans(x, y)
        return c


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


@pl.program
class TensorLevelAsWritten:
    """Tensor-level ops as pypto programs write them, no annotation: a value carried through a
    loop, a tensor one if arm converts, a window of a computed value, and results bound to output
    tensors (in a kernel, and in a pl.at block) that the pass stores there."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[32, 64], pl.FP32], v: pl.Tensor[[16, 1], pl.FP32], n: pl.Scalar[pl.INDEX],
          y: pl.Out[pl.Tensor[[16, 64], pl.FP32]], z: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        e = pl.exp(a[0:16, :])
        for i in pl.range(2):
            e = pl.add(e, a[16:32, :])
        if n > 0:
            v = pl.muls(v, 2.0)
        s = pl.sub(e, v)
        z = pl.assemble(z, s[:, 0:32], [0, 0])
        y = pl.adds(s, 1.0)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[32, 64], pl.FP32], v: pl.Tensor[[16, 1], pl.FP32], n: pl.Scalar[pl.INDEX],
             y: pl.Out[pl.Tensor[[16, 64], pl.FP32]], z: pl.Out[pl.Tensor[[16, 32], pl.FP32]],
             w: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        y = self.k(a, v, n, y, z)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="twice"):
            w = pl.muls(y, 2.0)
        return w


@pl.program
class SplitKChain:
    """pypto's canonical split-K reduction: an accumulator made by pl.create_tensor (a Vec tile in
    kernel code), bound to a matmul on the first K block and to matmul_acc of itself on the others,
    stored once.  Its [160, 208] INT32 output (133120 bytes) exceeds a2a3's Acc (131072)."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[160, 256], pl.INT8], b: pl.Tensor[[256, 208], pl.INT8],
          c: pl.Out[pl.Tensor[[160, 208], pl.INT32]]) -> pl.Tensor[[160, 208], pl.INT32]:
        acc = pl.create_tensor([160, 208], dtype=pl.INT32)
        for kb in pl.range(2):
            k0 = kb * 128
            if k0 == 0:
                acc = pl.matmul(a[:, k0:k0 + 128], b[k0:k0 + 128, :], out_dtype=pl.INT32)
            else:
                acc = pl.matmul_acc(acc, a[:, k0:k0 + 128], b[k0:k0 + 128, :])
        c[0:160, 0:208] = acc
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[160, 256], pl.INT8], b: pl.Tensor[[256, 208], pl.INT8],
             c: pl.Out[pl.Tensor[[160, 208], pl.INT32]]) -> pl.Tensor[[160, 208], pl.INT32]:
        c = self.k(a, b, c)
        return c


@pl.program
class BlockValues:
    """Values a block computes and a later block reads (a tensor-level value, a tile): each becomes
    an intermediate tensor the orchestration creates and the first kernel stores into."""

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="make"):
            e = pl.exp(x)
            t = pl.muls(pl.load(x, [0, 0], [16, 64]), 2.0)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="use"):
            y = pl.assemble(y, pl.add(e, t), [0, 0])
        return y


@pl.program
class NarrowedProduct:
    """A product narrowed to FP16 only to be stored (FoldAccStoreCasts): the store takes the f32
    accumulator; the second product's narrowed tile is also moved to Vec, so its cast stays."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16],
          y: pl.Out[pl.Tensor[[16, 16], pl.FP16]], z: pl.Out[pl.Tensor[[16, 16], pl.FP16]]):
        left = pl.move(pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        right = pl.move(pl.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        y = pl.store(pl.matmul(left, right, out_dtype=pl.FP16), [0, 0], y)
        q = pl.matmul(left, right, out_dtype=pl.FP16)
        z = pl.store(pl.add(pl.move(q, target_memory=pl.Mem.Vec), pl.move(q, target_memory=pl.Mem.Vec)), [0, 0], z)
        return y, z

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16],
             y: pl.Out[pl.Tensor[[16, 16], pl.FP16]], z: pl.Out[pl.Tensor[[16, 16], pl.FP16]]):
        y, z = self.k(a, b, y, z)
        return y, z


@pl.program
class AssembleCreated:
    @pl.function(type=pl.FunctionType.InCore)
    def fill(self, x: pl.Tensor[[4, 16], pl.FP32], y: pl.Out[pl.Tensor[[4, 16], pl.FP32]]) -> pl.Tensor[[4, 16], pl.FP32]:
        y = pl.store(pl.exp(pl.load(x, [0, 0], [4, 16])), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[4, 16], pl.FP32],
             out: pl.Out[pl.Tensor[[2, 4, 16], pl.FP32]]) -> pl.Tensor[[2, 4, 16], pl.FP32]:
        for b in pl.range(2):
            chunk = pl.create_tensor([4, 16], dtype=pl.FP32)
            chunk = self.fill(x, chunk)
            out = pl.assemble(out, chunk, [b, 0, 0])
        return out


@pl.program
class BreakContinue:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
          y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 64])
        for i in pl.range(n):
            if i == 1:
                continue
            t = pl.adds(t, 1.0)
            if i >= 4:
                break
            t = pl.muls(t, 2.0)
        j = 0
        while j < n:
            j = j + 1
            if j > 2:
                if j == 5:
                    break
                continue
            t = pl.adds(t, 3.0)
        y = pl.store(t, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
             y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        y = self.k(x, n, y)
        return y
