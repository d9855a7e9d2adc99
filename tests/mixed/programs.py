"""Mixed cube+vector and SPMD-identity programs for tests/mixed. Append new ones at the END:
golden files record line numbers."""
import functools

import ptokit.language as pl


@pl.program
class MatmulExp:
    """y = exp(a @ b): one mixed kernel (cube matmul, FIFO, vector exp)."""

    @pl.function(type=pl.FunctionType.InCore)
    def mm_exp(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
               y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        ta = pl.move(pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        tb = pl.move(pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        acc = pl.matmul(ta, tb)
        v = pl.move(acc, target_memory=pl.Mem.Vec)
        y = pl.store(pl.exp(v), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
             y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        y = self.mm_exp(a, b, y)
        return y


@functools.lru_cache(maxsize=None)
def make_matmul_exp_spmd(blocks):
    """y[b] = exp(a[b] @ w) per SPMD block b: both sides of the group use block identity."""
    rows = blocks * 64

    @pl.program
    class MatmulExpSpmd:
        @pl.function(type=pl.FunctionType.InCore)
        def mm_exp(self, a: pl.Tensor[[rows, 64], pl.FP16], w: pl.Tensor[[64, 64], pl.FP16],
                   y: pl.Out[pl.Tensor[[rows, 64], pl.FP32]]) -> pl.Tensor[[rows, 64], pl.FP32]:
            b = pl.tile.get_block_idx()
            ta = pl.move(pl.load(a, [b * 64, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
            tw = pl.move(pl.load(w, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
            v = pl.move(pl.matmul(ta, tw), target_memory=pl.Mem.Vec)
            y = pl.store(pl.exp(v), [b * 64, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[rows, 64], pl.FP16], w: pl.Tensor[[64, 64], pl.FP16],
                 y: pl.Out[pl.Tensor[[rows, 64], pl.FP32]]):
            with pl.spmd(blocks):
                y = self.mm_exp(a, w, y)
            return y

    return MatmulExpSpmd


@pl.program
class SpmdSibling:
    """An SPMD group whose AIC member does not use block identity (it declares the block locals for
    its pipe-buffer shard but does not pass them): y[b] = (a @ w) * (b + 1)."""

    @pl.function(type=pl.FunctionType.InCore)
    def scaled(self, a: pl.Tensor[[64, 64], pl.FP16], w: pl.Tensor[[64, 64], pl.FP16],
               y: pl.Out[pl.Tensor[[256, 64], pl.FP32]]) -> pl.Tensor[[256, 64], pl.FP32]:
        ta = pl.move(pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        tw = pl.move(pl.load(w, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        v = pl.move(pl.matmul(ta, tw), target_memory=pl.Mem.Vec)
        b = pl.tile.get_block_idx()
        y = pl.store(pl.muls(v, b + 1), [b * 64, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP16], w: pl.Tensor[[64, 64], pl.FP16],
             y: pl.Out[pl.Tensor[[256, 64], pl.FP32]]):
        with pl.spmd(4):
            y = self.scaled(a, w, y)
        return y


@pl.program
class SubblockLane:
    """A vector kernel reading its lane: y = x + lane (a lone AIV task sees the lane of its core)."""

    @pl.function(type=pl.FunctionType.InCore)
    def add_lane(self, x: pl.Tensor[[32, 64], pl.FP32], y: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
        lane = pl.tile.get_subblock_idx()
        y = pl.store(pl.adds(pl.load(x, [0, 0], [32, 64]), lane), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[32, 64], pl.FP32], y: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
        y = self.add_lane(x, y)
        return y


@pl.program
class RowBlocksLoop:
    """A loop around the boundary: per 16-row block i, y[i] = relu(a[i] @ w) + 1."""

    @pl.function(type=pl.FunctionType.InCore)
    def rows(self, a: pl.Tensor[[64, 64], pl.FP16], w: pl.Tensor[[64, 64], pl.FP16],
             y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        tw = pl.move(pl.load(w, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        for i in pl.range(4):
            ta = pl.move(pl.load(a, [i * 16, 0], [16, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
            v = pl.move(pl.matmul(ta, tw), target_memory=pl.Mem.Vec)
            y = pl.store(pl.adds(pl.relu(v), 1.0), [i * 16, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP16], w: pl.Tensor[[64, 64], pl.FP16],
             y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        y = self.rows(a, w, y)
        return y


@pl.program
class TwoPushes:
    """Two Acc->Vec moves whose popped tiles are both live at once: y = a @ b + a @ c."""

    @pl.function(type=pl.FunctionType.InCore)
    def two(self, a: pl.Tensor[[32, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32],
            c: pl.Tensor[[64, 64], pl.FP32], y: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
        ta = pl.move(pl.load(a, [0, 0], [32, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        tb = pl.move(pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        v1 = pl.move(pl.matmul(ta, tb), target_memory=pl.Mem.Vec)
        tc = pl.move(pl.load(c, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        v2 = pl.move(pl.matmul(ta, tc), target_memory=pl.Mem.Vec)
        y = pl.store(pl.add(v1, v2), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[32, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32],
             c: pl.Tensor[[64, 64], pl.FP32], y: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
        y = self.two(a, b, c, y)
        return y


BS = 64     # keys per KV block
NB = 4      # KV blocks
HD = 64     # head dim
QR = 16     # query rows (heads x decode tokens)


@pl.program
class PagedDecode:
    """Paged-attention-style decode. Per KV block j: scores_j = q @ K_j^T (cube), e_j = exp(scores_j * scale)
    and its row sums (vector) -- one mixed kernel looping over the blocks; then a vector task
    normalises (p = e / l, fp16) and a cube task computes out = p @ V block by block."""

    @pl.function(type=pl.FunctionType.InCore)
    def scores(self, q: pl.Tensor[[QR, HD], pl.FP16], kt: pl.Tensor[[HD, NB * BS], pl.FP16],
               e: pl.Out[pl.Tensor[[QR, NB * BS], pl.FP32]], l: pl.Out[pl.Tensor[[QR, 1], pl.FP32]]):
        tq = pl.move(pl.load(q, [0, 0], [QR, HD], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        tmp = pl.create_tile([QR, BS], dtype=pl.FP32)
        k0 = pl.move(pl.load(kt, [0, 0], [HD, BS], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        s0 = pl.move(pl.matmul(tq, k0), target_memory=pl.Mem.Vec)
        e0 = pl.exp(pl.muls(s0, 0.125))
        acc = pl.row_sum(e0, tmp)
        e = pl.store(e0, [0, 0], e)
        for j in pl.range(1, NB):
            kj = pl.move(pl.load(kt, [0, j * BS], [HD, BS], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
            sj = pl.move(pl.matmul(tq, kj), target_memory=pl.Mem.Vec)
            ej = pl.exp(pl.muls(sj, 0.125))
            acc = pl.add(acc, pl.row_sum(ej, tmp))
            e = pl.store(ej, [0, j * BS], e)
        l = pl.store(acc, [0, 0], l)
        return e, l

    @pl.function(type=pl.FunctionType.InCore)
    def normalize(self, e: pl.Tensor[[QR, NB * BS], pl.FP32], l: pl.Tensor[[QR, 1], pl.FP32],
                  p: pl.Out[pl.Tensor[[QR, NB * BS], pl.FP16]]):
        t = pl.row_expand_div(pl.load(e, [0, 0], [QR, NB * BS]), pl.load(l, [0, 0], [QR, 1]))
        p = pl.store(pl.cast(t, target_type=pl.FP16), [0, 0], p)
        return p

    @pl.function(type=pl.FunctionType.InCore)
    def pv(self, p: pl.Tensor[[QR, NB * BS], pl.FP16], v: pl.Tensor[[NB * BS, HD], pl.FP16],
           out: pl.Out[pl.Tensor[[QR, HD], pl.FP32]]):
        lp = pl.move(pl.load(p, [0, 0], [QR, BS], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        rv = pl.move(pl.load(v, [0, 0], [BS, HD], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        acc = pl.matmul(lp, rv)
        for j in pl.range(1, NB):
            lp = pl.move(pl.load(p, [0, j * BS], [QR, BS], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
            rv = pl.move(pl.load(v, [j * BS, 0], [BS, HD], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
            acc = pl.matmul_acc(acc, lp, rv)
        out = pl.store(acc, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, q: pl.Tensor[[QR, HD], pl.FP16], kt: pl.Tensor[[HD, NB * BS], pl.FP16],
             v: pl.Tensor[[NB * BS, HD], pl.FP16], out: pl.Out[pl.Tensor[[QR, HD], pl.FP32]]):
        e = pl.create_tensor([QR, NB * BS], dtype=pl.FP32)
        l = pl.create_tensor([QR, 1], dtype=pl.FP32)
        p = pl.create_tensor([QR, NB * BS], dtype=pl.FP16)
        e, l = self.scores(q, kt, e, l)
        p = self.normalize(e, l, p)
        out = self.pv(p, v, out)
        return out


@pl.program
class BlockRows:
    """A vector kernel using block identity: y[b] = x[b] * 2 + b over pl.spmd(4)."""

    @pl.function(type=pl.FunctionType.InCore)
    def rows(self, x: pl.Tensor[[128, 64], pl.FP32], y: pl.Out[pl.Tensor[[128, 64], pl.FP32]]):
        b = pl.tile.get_block_idx()
        y = pl.store(pl.adds(pl.muls(pl.load(x, [b * 32, 0], [32, 64]), 2.0), b), [b * 32, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[128, 64], pl.FP32], y: pl.Out[pl.Tensor[[128, 64], pl.FP32]]):
        with pl.spmd(4):
            y = self.rows(x, y)
        return y


@pl.program
class ExplicitFifo:
    """y = exp(a @ b) + 1 with the cross-core FIFO written out: push, pop, free."""

    @pl.function(type=pl.FunctionType.InCore)
    def mm_exp(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
               y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        ta = pl.move(pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        tb = pl.move(pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        acc = pl.matmul(ta, tb)
        pl.tile.tpush_to_aiv(acc)
        v = pl.tile.tpop_from_aic(shape=[64, 64], dtype=pl.FP32)
        y = pl.store(pl.adds(pl.exp(v), 1.0), [0, 0], y)
        pl.tile.tfree_from_aic(v)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
             y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        y = self.mm_exp(a, b, y)
        return y


@pl.program
class UnpairedPop:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        v = pl.tile.tpop_from_aic(shape=[64, 64], dtype=pl.FP32)
        y = pl.store(v, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        y = self.k(y)
        return y


@pl.program
class ReverseFifo:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 64], pl.FP32], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        t = pl.load(x, [0, 0], [64, 64])
        pl.tile.tpush_to_aic(t)
        y = pl.store(t, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        y = self.k(x, y)
        return y


# ----------------------------------------------------------------- vector -> cube (V2C)

@pl.program
class FusedMlp:
    """y = relu(x @ w1) @ w2 in ONE mixed kernel: the first product goes to the vector side (C2V),
    relu + cast to fp16 there, and the result comes back to the cube (V2C) for the second product."""

    @pl.function(type=pl.FunctionType.InCore)
    def mlp(self, x: pl.Tensor[[64, 64], pl.FP16], w1: pl.Tensor[[64, 64], pl.FP16],
            w2: pl.Tensor[[64, 64], pl.FP16], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        tx = pl.move(pl.load(x, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        t1 = pl.move(pl.load(w1, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        h = pl.move(pl.matmul(tx, t1), target_memory=pl.Mem.Vec)
        hm = pl.move(pl.cast(pl.relu(h), target_type=pl.FP16), target_memory=pl.Mem.Mat)
        hl = pl.move(hm, target_memory=pl.Mem.Left)
        t2 = pl.move(pl.load(w2, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        y = pl.store(pl.matmul(hl, t2), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 64], pl.FP16], w1: pl.Tensor[[64, 64], pl.FP16],
             w2: pl.Tensor[[64, 64], pl.FP16], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        y = self.mlp(x, w1, w2, y)
        return y


@pl.program
class ExplicitV2C:
    """y = exp(x) @ w with the vector-to-cube FIFO written out (V2C only, dir_mask 2)."""

    @pl.function(type=pl.FunctionType.InCore)
    def vexp_mm(self, x: pl.Tensor[[32, 64], pl.FP16], w: pl.Tensor[[64, 32], pl.FP16],
                y: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        e = pl.cast(pl.exp(pl.cast(pl.load(x, [0, 0], [32, 64]), target_type=pl.FP32)), target_type=pl.FP16)
        pl.tile.tpush_to_aic(e)
        m = pl.tile.tpop_from_aiv(shape=[32, 64], dtype=pl.FP16)
        tl = pl.move(m, target_memory=pl.Mem.Left)
        pl.tile.tfree_from_aiv(m)
        tw = pl.move(pl.load(w, [0, 0], [64, 32], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        y = pl.store(pl.matmul(tl, tw), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[32, 64], pl.FP16], w: pl.Tensor[[64, 32], pl.FP16],
             y: pl.Out[pl.Tensor[[32, 32], pl.FP32]]):
        y = self.vexp_mm(x, w, y)
        return y


@functools.lru_cache(maxsize=None)
def make_fused_mlp_spmd(blocks, submit=False):
    """y[b] = relu(x[b] @ w1) @ w2 per SPMD block b (64 rows each), C2V and V2C in one group;
    ``submit=True`` launches it with pl.spmd_submit instead of ``with pl.spmd``."""
    rows = blocks * 64

    @pl.program
    class FusedMlpSpmd:
        @pl.function(type=pl.FunctionType.InCore)
        def mlp(self, x: pl.Tensor[[rows, 64], pl.FP16], w1: pl.Tensor[[64, 64], pl.FP16],
                w2: pl.Tensor[[64, 32], pl.FP16], y: pl.Out[pl.Tensor[[rows, 32], pl.FP32]]) -> pl.Tensor[[rows, 32], pl.FP32]:
            b = pl.tile.get_block_idx()
            tx = pl.move(pl.load(x, [b * 64, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
            t1 = pl.move(pl.load(w1, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
            h = pl.move(pl.matmul(tx, t1), target_memory=pl.Mem.Vec)
            hm = pl.move(pl.cast(pl.relu(h), target_type=pl.FP16), target_memory=pl.Mem.Mat)
            t2 = pl.move(pl.load(w2, [0, 0], [64, 32], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
            y = pl.store(pl.matmul(pl.move(hm, target_memory=pl.Mem.Left), t2), [b * 64, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[rows, 64], pl.FP16], w1: pl.Tensor[[64, 64], pl.FP16],
                 w2: pl.Tensor[[64, 32], pl.FP16], y: pl.Out[pl.Tensor[[rows, 32], pl.FP32]]):
            with pl.spmd(blocks):
                y = self.mlp(x, w1, w2, y)
            return y

    @pl.program
    class FusedMlpSubmit:
        @pl.function(type=pl.FunctionType.InCore)
        def mlp(self, x: pl.Tensor[[rows, 64], pl.FP16], w1: pl.Tensor[[64, 64], pl.FP16],
                w2: pl.Tensor[[64, 32], pl.FP16], y: pl.Out[pl.Tensor[[rows, 32], pl.FP32]]) -> pl.Tensor[[rows, 32], pl.FP32]:
            b = pl.tile.get_block_idx()
            tx = pl.move(pl.load(x, [b * 64, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
            t1 = pl.move(pl.load(w1, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
            h = pl.move(pl.matmul(tx, t1), target_memory=pl.Mem.Vec)
            hm = pl.move(pl.cast(pl.relu(h), target_type=pl.FP16), target_memory=pl.Mem.Mat)
            t2 = pl.move(pl.load(w2, [0, 0], [64, 32], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
            y = pl.store(pl.matmul(pl.move(hm, target_memory=pl.Mem.Left), t2), [b * 64, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[rows, 64], pl.FP16], w1: pl.Tensor[[64, 64], pl.FP16],
                 w2: pl.Tensor[[64, 32], pl.FP16], y: pl.Out[pl.Tensor[[rows, 32], pl.FP32]]):
            y, _ = pl.spmd_submit(self.mlp, x, w1, w2, y, core_num=blocks)
            return y

    return FusedMlpSubmit if submit else FusedMlpSpmd


AQ = 32     # query rows of OneKernelAttention (two blocks of 16)


@pl.program
class OneKernelAttention:
    """o = softmax(q @ k^T / 8) @ v in ONE mixed kernel, per 16-row query block: scores go to the
    vector side (C2V), the fp16 probabilities come back to the cube (V2C) for p @ v."""

    @pl.function(type=pl.FunctionType.InCore)
    def attn(self, q: pl.Tensor[[AQ, HD], pl.FP16], kt: pl.Tensor[[HD, BS], pl.FP16],
             v: pl.Tensor[[BS, HD], pl.FP16], o: pl.Out[pl.Tensor[[AQ, HD], pl.FP32]]) -> pl.Tensor[[AQ, HD], pl.FP32]:
        tk = pl.move(pl.load(kt, [0, 0], [HD, BS], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        tv = pl.move(pl.load(v, [0, 0], [BS, HD], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        tmp = pl.create_tile([16, BS], dtype=pl.FP32)
        for i in pl.range(AQ // 16):
            tq = pl.move(pl.load(q, [i * 16, 0], [16, HD], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
            s = pl.muls(pl.move(pl.matmul(tq, tk), target_memory=pl.Mem.Vec), 0.125)
            e = pl.exp(pl.row_expand_sub(s, pl.row_max(s, tmp)))
            p = pl.cast(pl.row_expand_div(e, pl.row_sum(e, tmp)), target_type=pl.FP16)
            tp = pl.move(pl.move(p, target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
            o = pl.store(pl.matmul(tp, tv), [i * 16, 0], o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, q: pl.Tensor[[AQ, HD], pl.FP16], kt: pl.Tensor[[HD, BS], pl.FP16],
             v: pl.Tensor[[BS, HD], pl.FP16], o: pl.Out[pl.Tensor[[AQ, HD], pl.FP32]]):
        o = self.attn(q, kt, v, o)
        return o


@pl.program
class UnpairedPopFromAiv:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, w: pl.Tensor[[64, 64], pl.FP16], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        m = pl.tile.tpop_from_aiv(shape=[64, 64], dtype=pl.FP16)
        tw = pl.move(pl.load(w, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        y = pl.store(pl.matmul(pl.move(m, target_memory=pl.Mem.Left), tw), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, w: pl.Tensor[[64, 64], pl.FP16], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        y = self.k(w, y)
        return y


@pl.program
class MatTileOutlivesSlot:
    """Two Vec->Mat transfers whose Mat tiles are both read after the second: a located error."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 64], pl.FP16], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        a = pl.move(pl.load(x, [0, 0], [64, 64]), target_memory=pl.Mem.Mat)
        b = pl.move(pl.load(x, [0, 0], [64, 64]), target_memory=pl.Mem.Mat)
        acc = pl.matmul(pl.move(a, target_memory=pl.Mem.Left), pl.move(b, target_memory=pl.Mem.Right))
        y = pl.store(acc, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 64], pl.FP16], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        y = self.k(x, y)
        return y
