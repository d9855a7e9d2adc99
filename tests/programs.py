"""DSL programs shared by the golden, negative and end-to-end tests."""
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
