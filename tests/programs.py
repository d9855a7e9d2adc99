"""DSL programs shared by tests. Append new ones at the END: golden .pto files record line numbers."""
import functools

import ptokit.language as pl

N = 64
R = 32
M = pl.dynamic("M")


@pl.program
class Elementwise:
    @pl.function(type=pl.FunctionType.InCore)
    def add(self, a: pl.Tensor[[N, N], pl.FP32], b: pl.Tensor[[N, N], pl.FP32],
            out: pl.Out[pl.Tensor[[N, N], pl.FP32]]) -> pl.Tensor[[N, N], pl.FP32]:
        ta = pl.load(a, [0, 0], [N, N])
        tb = pl.load(b, [0, 0], [N, N])
        out = pl.store(pl.add(ta, tb), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def mul_exp(self, a: pl.Tensor[[N, N], pl.FP32], b: pl.Tensor[[N, N], pl.FP32],
                out: pl.Out[pl.Tensor[[N, N], pl.FP32]]) -> pl.Tensor[[N, N], pl.FP32]:
        t = pl.mul(pl.load(a, [0, 0], [N, N]), pl.load(b, [0, 0], [N, N]))
        out = pl.store(pl.exp(t), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[N, N], pl.FP32], b: pl.Tensor[[N, N], pl.FP32],
             y: pl.Out[pl.Tensor[[N, N], pl.FP32]], z: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
        y = self.add(a, b, y)
        z = self.mul_exp(a, b, z)
        return y, z


@pl.program
class ScalarOperand:
    @pl.function(type=pl.FunctionType.InCore)
    def axpb(self, x: pl.Tensor[[N, N], pl.FP32], alpha: pl.Scalar[pl.FP32],
             out: pl.Out[pl.Tensor[[N, N], pl.FP32]]) -> pl.Tensor[[N, N], pl.FP32]:
        t = pl.load(x, [0, 0], [N, N])
        t = pl.mul(t, alpha)
        t = pl.add(t, 1.5)
        out = pl.store(t, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[N, N], pl.FP32], alpha: pl.Scalar[pl.FP32],
             y: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
        y = self.axpb(x, alpha, y)
        return y


@pl.program
class DynamicRows:
    """A dynamic row count M and a scalar parameter; loops over row blocks of R rows."""

    @pl.function(type=pl.FunctionType.InCore)
    def scale_rows(self, x: pl.Tensor[[M, N], pl.FP32], s: pl.Scalar[pl.FP32],
                   out: pl.Out[pl.Tensor[[M, N], pl.FP32]]) -> pl.Tensor[[M, N], pl.FP32]:
        for i in pl.range(M // R):
            t = pl.load(x, [i * R, 0], [R, N])
            out = pl.store(pl.mul(t, s), [i * R, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[M, N], pl.FP32], s: pl.Scalar[pl.FP32],
             y: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
        y = self.scale_rows(x, s, y)
        return y


@pl.program
class LoopSum:
    """Accumulate n row blocks (n is a runtime scalar) into one tile: a loop-carried tile."""

    @pl.function(type=pl.FunctionType.InCore)
    def block_sum(self, x: pl.Tensor[[256, N], pl.FP32], n: pl.Scalar[pl.INT32],
                  out: pl.Out[pl.Tensor[[R, N], pl.FP32]]) -> pl.Tensor[[R, N], pl.FP32]:
        acc = pl.load(x, [0, 0], [R, N])
        for i in pl.range(1, n):
            t = pl.load(x, [i * R, 0], [R, N])
            acc = pl.add(acc, t)
        out = pl.store(acc, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[256, N], pl.FP32], n: pl.Scalar[pl.INT32],
             y: pl.Out[pl.Tensor[[R, N], pl.FP32]]):
        y = self.block_sum(x, n, y)
        return y


@pl.program
class SoftmaxRows:
    @pl.function(type=pl.FunctionType.InCore)
    def softmax(self, x: pl.Tensor[[R, N], pl.FP32],
                out: pl.Out[pl.Tensor[[R, N], pl.FP32]]) -> pl.Tensor[[R, N], pl.FP32]:
        t = pl.load(x, [0, 0], [R, N])
        tmp = pl.create_tile([R, N], dtype=pl.FP32)
        mx = pl.row_max(t, tmp)
        e = pl.exp(pl.row_expand_sub(t, mx))
        s = pl.row_sum(e, tmp)
        out = pl.store(pl.row_expand_div(e, s), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, N], pl.FP32], y: pl.Out[pl.Tensor[[R, N], pl.FP32]]):
        y = self.softmax(x, y)
        return y


@pl.program
class LayerNormish:
    """Row normalisation then a per-column scale and shift: row and column expands."""

    @pl.function(type=pl.FunctionType.InCore)
    def norm(self, x: pl.Tensor[[R, N], pl.FP32], gamma: pl.Tensor[[1, N], pl.FP32],
             beta: pl.Tensor[[1, N], pl.FP32], out: pl.Out[pl.Tensor[[R, N], pl.FP32]]
             ) -> pl.Tensor[[R, N], pl.FP32]:
        t = pl.load(x, [0, 0], [R, N])
        tmp = pl.create_tile([R, N], dtype=pl.FP32)
        mean = pl.muls(pl.row_sum(t, tmp), 1.0 / N)
        c = pl.row_expand_sub(t, mean)
        var = pl.muls(pl.row_sum(pl.mul(c, c), tmp), 1.0 / N)
        inv = pl.rsqrt(pl.adds(var, 1e-5))
        y = pl.row_expand_mul(c, inv)
        y = pl.col_expand_mul(y, pl.load(gamma, [0, 0], [1, N]))
        y = pl.col_expand_add(y, pl.load(beta, [0, 0], [1, N]))
        out = pl.store(y, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, N], pl.FP32], gamma: pl.Tensor[[1, N], pl.FP32],
             beta: pl.Tensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[R, N], pl.FP32]]):
        y = self.norm(x, gamma, beta, y)
        return y


def make_matmul(m, k, n, dtype):
    """C[m, n] = A[m, k] @ B[k, n] in one cube kernel (fp32 accumulate)."""

    @pl.program
    class Matmul:
        @pl.function(type=pl.FunctionType.InCore)
        def mm(self, a: pl.Tensor[[m, k], dtype], b: pl.Tensor[[k, n], dtype],
               c: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            ta = pl.load(a, [0, 0], [m, k], target_memory=pl.Mem.Mat)
            tb = pl.load(b, [0, 0], [k, n], target_memory=pl.Mem.Mat)
            acc = pl.matmul(pl.move(ta, target_memory=pl.Mem.Left), pl.move(tb, target_memory=pl.Mem.Right))
            c = pl.store(acc, [0, 0], c)
            return c

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[m, k], dtype], b: pl.Tensor[[k, n], dtype],
                 c: pl.Out[pl.Tensor[[m, n], pl.FP32]]):
            c = self.mm(a, b, c)
            return c

    return Matmul


KB = 64


@pl.program
class MatmulKLoop:
    """C = A @ B with K split into blocks of KB: matmul, then matmul_acc in a loop."""

    @pl.function(type=pl.FunctionType.InCore)
    def mm(self, a: pl.Tensor[[64, 256], pl.FP16], b: pl.Tensor[[256, 64], pl.FP16],
           c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        la = pl.move(pl.load(a, [0, 0], [64, KB], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        rb = pl.move(pl.load(b, [0, 0], [KB, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        acc = pl.matmul(la, rb)
        for k in pl.range(1, 256 // KB):
            la = pl.move(pl.load(a, [0, k * KB], [64, KB], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
            rb = pl.move(pl.load(b, [k * KB, 0], [KB, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
            acc = pl.matmul_acc(acc, la, rb)
        c = pl.store(acc, [0, 0], c)
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 256], pl.FP16], b: pl.Tensor[[256, 64], pl.FP16],
             c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        c = self.mm(a, b, c)
        return c


@pl.program
class FusedLinear:
    """y = relu(x @ w + bias): a cube task feeding a vector task through an intermediate."""

    @pl.function(type=pl.FunctionType.InCore)
    def linear(self, x: pl.Tensor[[64, 128], pl.FP16], w: pl.Tensor[[128, 64], pl.FP16],
               h: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        tx = pl.move(pl.load(x, [0, 0], [64, 128], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        tw = pl.move(pl.load(w, [0, 0], [128, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        h = pl.store(pl.matmul(tx, tw), [0, 0], h)
        return h

    @pl.function(type=pl.FunctionType.InCore)
    def bias_relu(self, h: pl.Tensor[[64, 64], pl.FP32], bias: pl.Tensor[[1, 64], pl.FP32],
                  y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t = pl.col_expand_add(pl.load(h, [0, 0], [64, 64]), pl.load(bias, [0, 0], [1, 64]))
        y = pl.store(pl.relu(t), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 128], pl.FP16], w: pl.Tensor[[128, 64], pl.FP16],
             bias: pl.Tensor[[1, 64], pl.FP32], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        h = pl.create_tensor([64, 64], dtype=pl.FP32)
        h = self.linear(x, w, h)
        y = self.bias_relu(h, bias, y)
        return y


@pl.program
class FFN:
    """out = gelu_tanh(x @ w1) @ w2 with fp16 operands: cube -> vector -> cube tasks."""

    @pl.function(type=pl.FunctionType.InCore)
    def mm1(self, x: pl.Tensor[[64, 64], pl.FP16], w: pl.Tensor[[64, 128], pl.FP16],
            h: pl.Out[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]:
        tx = pl.move(pl.load(x, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        tw = pl.move(pl.load(w, [0, 0], [64, 128], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        h = pl.store(pl.matmul(tx, tw), [0, 0], h)
        return h

    @pl.function(type=pl.FunctionType.InCore)
    def gelu(self, h: pl.Tensor[[64, 128], pl.FP32], g: pl.Out[pl.Tensor[[64, 128], pl.FP16]]
             ) -> pl.Tensor[[64, 128], pl.FP16]:
        t = pl.load(h, [0, 0], [64, 128])
        # gelu(t) ~= t * sigmoid(1.702 t) = t / (1 + exp(-1.702 t))
        s = pl.recip(pl.adds(pl.exp(pl.muls(t, -1.702)), 1.0))
        g = pl.store(pl.cast(pl.mul(t, s), target_type=pl.FP16), [0, 0], g)
        return g

    @pl.function(type=pl.FunctionType.InCore)
    def mm2(self, g: pl.Tensor[[64, 128], pl.FP16], w: pl.Tensor[[128, 64], pl.FP16],
            out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        tg = pl.move(pl.load(g, [0, 0], [64, 128], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        tw = pl.move(pl.load(w, [0, 0], [128, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        out = pl.store(pl.matmul(tg, tw), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 64], pl.FP16], w1: pl.Tensor[[64, 128], pl.FP16],
             w2: pl.Tensor[[128, 64], pl.FP16], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        h = pl.create_tensor([64, 128], dtype=pl.FP32)
        g = pl.create_tensor([64, 128], dtype=pl.FP16)
        h = self.mm1(x, w1, h)
        g = self.gelu(h, g)
        out = self.mm2(g, w2, out)
        return out


@pl.program
class Graphs:
    """Diamond, InOut chain and out-of-order submission, in one orchestration.

    t1 = x + 1;  t2 = exp(t1);  t3 = t1 * 2;  d = t2 + t3       (diamond)
    acc += x three times                                         (InOut chain)
    z = w + 1 submitted between two dependent tasks              (statement order != dependency order)
    """

    @pl.function(type=pl.FunctionType.InCore)
    def plus1(self, x: pl.Tensor[[R, N], pl.FP32], y: pl.Out[pl.Tensor[[R, N], pl.FP32]]):
        y = pl.store(pl.adds(pl.load(x, [0, 0], [R, N]), 1.0), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def expk(self, x: pl.Tensor[[R, N], pl.FP32], y: pl.Out[pl.Tensor[[R, N], pl.FP32]]):
        y = pl.store(pl.exp(pl.load(x, [0, 0], [R, N])), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def twice(self, x: pl.Tensor[[R, N], pl.FP32], y: pl.Out[pl.Tensor[[R, N], pl.FP32]]):
        y = pl.store(pl.muls(pl.load(x, [0, 0], [R, N]), 2.0), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def add2(self, a: pl.Tensor[[R, N], pl.FP32], b: pl.Tensor[[R, N], pl.FP32],
             y: pl.Out[pl.Tensor[[R, N], pl.FP32]]):
        y = pl.store(pl.add(pl.load(a, [0, 0], [R, N]), pl.load(b, [0, 0], [R, N])), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def accumulate(self, x: pl.Tensor[[R, N], pl.FP32], acc: pl.InOut[pl.Tensor[[R, N], pl.FP32]]):
        t = pl.add(pl.load(acc, [0, 0], [R, N]), pl.load(x, [0, 0], [R, N]))
        acc = pl.store(t, [0, 0], acc)
        return acc

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, N], pl.FP32], w: pl.Tensor[[R, N], pl.FP32],
             d: pl.Out[pl.Tensor[[R, N], pl.FP32]], acc: pl.InOut[pl.Tensor[[R, N], pl.FP32]],
             z: pl.Out[pl.Tensor[[R, N], pl.FP32]], e: pl.Out[pl.Tensor[[R, N], pl.FP32]]):
        t1 = pl.create_tensor([R, N], dtype=pl.FP32)
        t2 = pl.create_tensor([R, N], dtype=pl.FP32)
        t3 = pl.create_tensor([R, N], dtype=pl.FP32)
        t1 = self.plus1(x, t1)
        t3 = self.twice(t1, t3)
        t2 = self.expk(t1, t2)
        d = self.add2(t2, t3, d)
        acc = self.accumulate(x, acc)
        acc = self.accumulate(x, acc)
        z = self.plus1(w, z)
        acc = self.accumulate(x, acc)
        e = self.expk(acc, e)
        return d, acc, z, e


@pl.program
class ReadsUninitialised:
    """A bug on purpose: adds a scratch tile that was never written."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[R, N], pl.FP32], y: pl.Out[pl.Tensor[[R, N], pl.FP32]]):
        scratch = pl.create_tile([R, N], dtype=pl.FP32)
        y = pl.store(pl.add(pl.load(x, [0, 0], [R, N]), scratch), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, N], pl.FP32], y: pl.Out[pl.Tensor[[R, N], pl.FP32]]):
        y = self.k(x, y)
        return y


@functools.lru_cache(maxsize=None)
def make_spmd_rows(blocks):
    """y = x * 2 + block_idx, one R-row block per SPMD block: block identity selects the rows."""
    rows = blocks * R

    @pl.program
    class SpmdRows:
        @pl.function(type=pl.FunctionType.InCore)
        def scale_block(self, x: pl.Tensor[[rows, N], pl.FP32], y: pl.Out[pl.Tensor[[rows, N], pl.FP32]]):
            b = pl.tile.get_block_idx()
            t = pl.muls(pl.load(x, [b * R, 0], [R, N]), 2.0)
            y = pl.store(t, [b * R, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[rows, N], pl.FP32], y: pl.Out[pl.Tensor[[rows, N], pl.FP32]]):
            with pl.spmd(blocks):
                y = self.scale_block(x, y)
            return y

    return SpmdRows


@pl.program
class ControlFlow:
    """if/else merging a tile and a scalar, pl.unroll, pl.parallel and an Inline helper."""

    @pl.function(type=pl.FunctionType.Inline)
    def affine(self, t: pl.Tile[[R, N], pl.FP32], a: pl.Scalar[pl.FP32]) -> pl.Tile[[R, N], pl.FP32]:
        u = pl.muls(t, a)
        return pl.adds(u, 1.0)

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[4 * R, N], pl.FP32], mode: pl.Scalar[pl.INT32],
          y: pl.Out[pl.Tensor[[5 * R, N], pl.FP32]]):
        t = pl.load(x, [0, 0], [R, N])
        shift = 0
        if mode > 0:
            t = self.affine(t, 2.0)
            shift = R
        else:
            t = pl.neg(t)
        y = pl.store(t, [shift, 0], y)
        for i in pl.unroll(2):
            u = pl.load(x, [(i + 1) * R, 0], [R, N])
            y = pl.store(pl.exp(u), [(i + 2) * R, 0], y)
        for j in pl.parallel(1):
            v = pl.load(x, [j * R, 0], [R, N])
            y = pl.store(pl.abs(v), [4 * R, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[4 * R, N], pl.FP32], mode: pl.Scalar[pl.INT32],
             y: pl.Out[pl.Tensor[[5 * R, N], pl.FP32]]):
        y = self.k(x, mode, y)
        return y


K2 = pl.dynamic("K2")


@pl.program
class AuditFixes:
    """Names first bound in both arms of an if, pl.reshape, a Vec->Vec move and a tile alias,
    and a tensor whose dynamic dimension (K * 2) is never used to address it."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[K2 * 2, 64], pl.FP32],
          n: pl.Scalar[pl.INT32], y: pl.Out[pl.Tensor[[32, 64], pl.FP32]],
          z: pl.Out[pl.Tensor[[64, 32], pl.FP32]]):
        acc = pl.load(a, [0, 0], [32, 64])
        if n > 2:
            off = 32
            r = pl.adds(acc, 1.0)
        else:
            off = 0
            r = pl.subs(acc, 1.0)
        t = pl.load(a, [off, 0], [32, 64])
        c = pl.move(t, target_memory=pl.Mem.Vec)
        d = c
        u = pl.add(pl.add(r, d), pl.load(b, [0, 0], [32, 64]))
        y = pl.store(u, [0, 0], y)
        z = pl.store(pl.reshape(pl.exp(u), [64, 32]), [0, 0], z)
        return y, z

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[K2 * 2, 64], pl.FP32],
             n: pl.Scalar[pl.INT32], y: pl.Out[pl.Tensor[[32, 64], pl.FP32]],
             z: pl.Out[pl.Tensor[[64, 32], pl.FP32]]):
        y, z = self.k(a, b, n, y, z)
        return y, z


@pl.program
class DynamicIntermediate:
    """A runtime-created intermediate whose shape has a dynamic dimension."""

    @pl.function(type=pl.FunctionType.InCore)
    def plus1(self, x: pl.Tensor[[M, N], pl.FP32], t: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
        for i in pl.range(M // R):
            t = pl.store(pl.adds(pl.load(x, [i * R, 0], [R, N]), 1.0), [i * R, 0], t)
        return t

    @pl.function(type=pl.FunctionType.InCore)
    def expk(self, t: pl.Tensor[[M, N], pl.FP32], y: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
        for i in pl.range(M // R):
            y = pl.store(pl.exp(pl.load(t, [i * R, 0], [R, N])), [i * R, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[M, N], pl.FP32], y: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
        t = pl.create_tensor([M, N], dtype=pl.FP32)
        t = self.plus1(x, t)
        y = self.expk(t, y)
        return y


# ---------------------------------------------------------------- tensor windows (row blocks) as task args

@pl.program
class WindowRowBlocks:
    """One task per 32-row block of a [256, 64] input, each writing the matching rows of y."""

    @pl.function(type=pl.FunctionType.InCore)
    def blk(self, x: pl.Tensor[[R, N], pl.FP32], s: pl.Scalar[pl.FP32],
            o: pl.Out[pl.Tensor[[R, N], pl.FP32]]) -> pl.Tensor[[R, N], pl.FP32]:
        o = pl.store(pl.adds(pl.muls(pl.load(x, [0, 0], [R, N]), s), 1.0), [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[256, N], pl.FP32], y: pl.Out[pl.Tensor[[256, N], pl.FP32]]):
        for i in pl.range(8):
            y = self.blk(x[i * R:(i + 1) * R, :], i + 1.0 - 1.0, y[i * R:(i + 1) * R, :])
        return y


@pl.program
class WindowDynamicRows:
    """Row blocks of a tensor with a dynamic row count; blocks of 32 rows and a 64-row block."""

    @pl.function(type=pl.FunctionType.InCore)
    def neg(self, x: pl.Tensor[[R, N], pl.FP32], o: pl.Out[pl.Tensor[[R, N], pl.FP32]]):
        o = pl.store(pl.neg(pl.load(x, [0, 0], [R, N])), [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[M, N], pl.FP32], y: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
        for i in pl.range(M // R):
            self.neg(x[i * R:i * R + R], y[R * i:R * i + R, 0:N])
        return y


@pl.program
class WindowIntermediate:
    """A runtime intermediate t written whole by one task, one window of it doubled in place,
    then read back in row windows by four tasks."""

    @pl.function(type=pl.FunctionType.InCore)
    def plus1(self, x: pl.Tensor[[128, N], pl.FP32], t: pl.Out[pl.Tensor[[128, N], pl.FP32]]):
        for i in pl.range(4):
            t = pl.store(pl.adds(pl.load(x, [i * R, 0], [R, N]), 1.0), [i * R, 0], t)
        return t

    @pl.function(type=pl.FunctionType.InCore)
    def dbl(self, t: pl.InOut[pl.Tensor[[R, N], pl.FP32]]):
        t = pl.store(pl.muls(pl.load(t, [0, 0], [R, N]), 2.0), [0, 0], t)
        return t

    @pl.function(type=pl.FunctionType.InCore)
    def expk(self, t: pl.Tensor[[R, N], pl.FP32], y: pl.Out[pl.Tensor[[R, N], pl.FP32]]):
        y = pl.store(pl.exp(pl.load(t, [0, 0], [R, N])), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[128, N], pl.FP32], y: pl.Out[pl.Tensor[[128, N], pl.FP32]]):
        t = pl.create_tensor([128, N], dtype=pl.FP32)
        t = self.plus1(x, t)
        t = self.dbl(t[64:96, :])
        for i in pl.range(4):
            y = self.expk(t[i * R:(i + 1) * R, :], y[i * R:(i + 1) * R, :])
        return y


@pl.program
class WindowOrder:
    """Statement order is not dependency order: blocks of u are written last-first, a whole-u
    reader waits for all four, a window reader only for its block, an unrelated task for none."""

    @pl.function(type=pl.FunctionType.InCore)
    def plus1(self, x: pl.Tensor[[R, N], pl.FP32], o: pl.Out[pl.Tensor[[R, N], pl.FP32]]):
        o = pl.store(pl.adds(pl.load(x, [0, 0], [R, N]), 1.0), [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.InCore)
    def twice(self, x: pl.Tensor[[R, N], pl.FP32], o: pl.Out[pl.Tensor[[R, N], pl.FP32]]):
        o = pl.store(pl.muls(pl.load(x, [0, 0], [R, N]), 2.0), [0, 0], o)
        return o

    @pl.function(type=pl.FunctionType.InCore)
    def expk(self, u: pl.Tensor[[128, N], pl.FP32], o: pl.Out[pl.Tensor[[128, N], pl.FP32]]):
        for i in pl.range(4):
            o = pl.store(pl.exp(pl.load(u, [i * R, 0], [R, N])), [i * R, 0], o)
        return o

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[128, N], pl.FP32], u: pl.Out[pl.Tensor[[128, N], pl.FP32]],
             z: pl.Out[pl.Tensor[[128, N], pl.FP32]], w: pl.Out[pl.Tensor[[R * 2, N], pl.FP32]]):
        for i in pl.range(4):
            u = self.plus1(x[(3 - i) * R:(4 - i) * R, :], u[(3 - i) * R:(4 - i) * R, :])
        w = self.twice(x[0:R, :], w[R:2 * R, :])
        z = self.expk(u, z)
        w = self.twice(u[R:2 * R], w[0:R, :])
        return u, z, w


@pl.program
class CarriedAcc:
    """pypto's explicit carry of an Acc tile (init_values / pl.yield_, a plain copy before the loop):
    sum over four row blocks of a of block @ b."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16],
          y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        bm = pl.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        o = pl.matmul(pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat), bm)
        o_out = o
        for i, (o_iter,) in pl.range(1, 4, init_values=(o,)):
            o_acc = pl.matmul_acc(o_iter, pl.load(a, [i * 16, 0], [16, 16], target_memory=pl.Mem.Mat), bm)
            (o_out,) = pl.yield_(o_acc)
        y = pl.store(o_out, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16],
             y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        y = self.k(a, b, y)
        return y
