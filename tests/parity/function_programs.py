"""A6, A8, A9: function kinds, declarations, returns and names that outlive their block.
New programs go at the end of this file (tests find lines by their text)."""
import ptokit.language as pl

N = 64


@pl.function(type=pl.FunctionType.InCore)
def scale_kernel(x: pl.Tensor[[16, N], pl.FP32], y: pl.Out[pl.Tensor[[16, N], pl.FP32]]):
    y = pl.store(pl.muls(pl.load(x, [0, 0], [16, N]), 3.0), [0, 0], y)
    return y


@pl.function
def bump_kernel(x: pl.Tensor[[16, N], pl.FP32], y: pl.Out[pl.Tensor[[16, N], pl.FP32]]):
    return pl.store(pl.adds(pl.load(x, [0, 0], [16, N]), 1.0), [0, 0], y)


@pl.program
class OpaqueDefaults:
    @pl.function
    def via_name(self, x: pl.Tensor[[16, N], pl.FP32], y: pl.Out[pl.Tensor[[16, N], pl.FP32]]):
        r = pl.store(pl.exp(pl.load(x, [0, 0], [16, N])), [0, 0], y)
        return r

    @pl.function
    def no_return(self, x: pl.Tensor[[16, N], pl.FP32], y: pl.Out[pl.Tensor[[16, N], pl.FP32]]):
        pl.store(pl.neg(pl.load(x, [0, 0], [16, N])), [0, 0], y)

    @pl.function(type=pl.FunctionType.InCore)
    def two_outs(self, x: pl.Tensor[[16, N], pl.FP32], a: pl.Out[pl.Tensor[[16, N], pl.FP32]],
                 b: pl.Out[pl.Tensor[[16, N], pl.FP32]]) -> tuple[pl.Tensor[[16, N], pl.FP32], pl.Tensor[[16, N], pl.FP32]]:
        t = pl.load(x, [0, 0], [16, N])
        a = pl.store(pl.abs(t), [0, 0], a)
        b = pl.store(pl.relu(t), [0, 0], b)
        return a, b

    @pl.function
    def main(self, x: pl.Tensor[[16, N], pl.FP32], y1: pl.Out[pl.Tensor[[16, N], pl.FP32]],
             y2: pl.Out[pl.Tensor[[16, N], pl.FP32]], y3: pl.Out[pl.Tensor[[16, N], pl.FP32]],
             y4: pl.Out[pl.Tensor[[16, N], pl.FP32]], y5: pl.Out[pl.Tensor[[16, N], pl.FP32]],
             y6: pl.Out[pl.Tensor[[16, N], pl.FP32]]):
        y1 = self.via_name(x, y1)
        self.no_return(x, y2)
        y3 = scale_kernel(x, y3)
        y4 = bump_kernel(y3, y4)
        y5, y6 = self.two_outs(x, y5, y6)
        return y1


@pl.program
class LastIteration:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, N], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[64, N], pl.FP32]],
          z: pl.Out[pl.Tensor[[16, N], pl.FP32]]):
        for i in pl.range(4):
            t = pl.load(x, [i * 16, 0], [16, N])
            out = pl.store(pl.muls(t, 2.0), [i * 16, 0], y)
            last = pl.adds(t, 0.5)
            k = i * 10
        if n > 2:
            picked = pl.muls(last, 4.0)
        else:
            picked = last
        z = pl.store(pl.adds(picked, k), [0, 0], z)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, N], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[64, N], pl.FP32]],
             z: pl.Out[pl.Tensor[[16, N], pl.FP32]]):
        y = self.k(x, n, y, z)
        return y


@pl.program
class AtOutlined:
    @pl.function
    def main(self, x: pl.Tensor[[16, N], pl.FP32], y: pl.Out[pl.Tensor[[16, N], pl.FP32]],
             z: pl.Out[pl.Tensor[[16, N], pl.FP32]]):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="main"):
            y = pl.store(pl.exp(pl.load(x, [0, 0], [16, N])), [0, 0], y)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="main"):
            z = pl.store(pl.adds(pl.load(y, [0, 0], [16, N]), 1.0), [0, 0], z)
        return y


@pl.program(strict_ssa=True)
class StrictRebind:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, N], pl.FP32], y: pl.Out[pl.Tensor[[16, N], pl.FP32]]):
        t = pl.load(x, [0, 0], [16, N])
        t = pl.exp(t)
        y = pl.store(t, [0, 0], y)
        return y


@pl.program
class SplitAttr:
    @pl.function(type=pl.FunctionType.InCore, attrs={"split": 3})
    def k(self, x: pl.Tensor[[16, N], pl.FP32], y: pl.Out[pl.Tensor[[16, N], pl.FP32]]):
        y = pl.store(pl.load(x, [0, 0], [16, N]), [0, 0], y)
        return y


@pl.program
class FuncAttrs:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, N], pl.FP32], y: pl.Out[pl.Tensor[[16, N], pl.FP32]]):
        pl.func_attr({"split": pl.SplitMode.NONE})
        y = pl.store(pl.load(x, [0, 0], [16, N]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration, strict_ssa=True, auto_scope=True)
    def main(self, x: pl.Tensor[[16, N], pl.FP32], y: pl.Out[pl.Tensor[[16, N], pl.FP32]]):
        y = self.k(x, y)
        return y


@pl.program
class UnknownAttr:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, N], pl.FP32], y: pl.Out[pl.Tensor[[16, N], pl.FP32]]):
        pl.func_attr({"unroll_all": True})
        y = pl.store(pl.load(x, [0, 0], [16, N]), [0, 0], y)
        return y


@pl.program
class NoAutoScope:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, N], pl.FP32], y: pl.Out[pl.Tensor[[16, N], pl.FP32]]):
        y = pl.store(pl.load(x, [0, 0], [16, N]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)
    def main(self, x: pl.Tensor[[16, N], pl.FP32], y: pl.Out[pl.Tensor[[16, N], pl.FP32]]):
        y = self.k(x, y)
        return y


@pl.program
class AnnotatedCalls:
    @pl.function(type=pl.FunctionType.Inline)
    def scaled(self, t: pl.Tile[[16, 64], pl.FP32]) -> pl.Tile[[16, 64], pl.FP32]:
        u = pl.muls(t, 2.0)
        return u

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        t = pl.load(x, [0, 0], [16, 64])
        u: pl.Tile[[16, 64], pl.FP32] = self.scaled(t)
        y = pl.store(u, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        y2: pl.Tensor[[16, 64], pl.FP32] = self.k(x, y)
        return y2


@pl.program
class AnnotatedCallMismatch:
    @pl.function(type=pl.FunctionType.Inline)
    def scaled(self, t: pl.Tile[[16, 64], pl.FP32]) -> pl.Tile[[16, 64], pl.FP32]:
        u = pl.muls(t, 2.0)
        return u

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        t = pl.load(x, [0, 0], [16, 64])
        u: pl.Tile[[16, 32], pl.FP32] = self.scaled(t)
        y = pl.store(u, [0, 0], y)
        return y


@pl.program
class InlineCallsKernel:
    """An inline helper declared before the kernel it calls, whose return is the store itself: the
    kernel is parsed first, so the helper binds the parameter the parsed return is."""

    @pl.function(type=pl.FunctionType.Inline)
    def twice(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        y = self.bump(x, y)
        y = self.bump(y, y)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def bump(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 64])
        return pl.store(pl.adds(t, 1.0), [0, 0], y)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        y = self.twice(x, y)
        return y


@pl.program
class InlinePairInExpression:
    @pl.function(type=pl.FunctionType.Inline)
    def pair(self, t: pl.Tile[[16, 64], pl.FP32]) -> tuple[pl.Tile[[16, 64], pl.FP32], pl.Tile[[16, 64], pl.FP32]]:
        return pl.exp(t), pl.neg(t)

    @pl.function(type=pl.FunctionType.InCore)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        y = pl.store(pl.add(self.pair(pl.load(x, [0, 0], [16, 64])), 1.0), [0, 0], y)
        return y
