"""Programs for tests/frontend/test_binder.py: calls of program functions and @pl.jit helpers
bound by Python's rules (keywords, defaults), and one of each binding mistake."""
import ptokit.language as pl

T = pl.Tensor[[16, 16], pl.FP32]


@pl.program
class Keywords:
    @pl.function(type=pl.FunctionType.InCore)
    def scale(self, a: T, out: pl.Out[T], k: pl.Scalar[pl.FP32] = 2.0):
        t = pl.load(a, [0, 0], [16, 16])
        out = pl.store(pl.mul(t, k), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: T, y: pl.Out[T]):
        y = self.scale(out=y, a=a)                 # keywords, in any order; k takes its default
        return y


@pl.program
class TooMany:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: T, out: pl.Out[T]):
        out = pl.store(pl.load(a, [0, 0], [16, 16]), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: T, y: pl.Out[T]):
        y = self.k(a, y, a)
        return y


@pl.program
class UnknownKeyword:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: T, out: pl.Out[T]):
        out = pl.store(pl.load(a, [0, 0], [16, 16]), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: T, y: pl.Out[T]):
        y = self.k(a, output=y)
        return y


@pl.program
class TwoValues:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: T, out: pl.Out[T]):
        out = pl.store(pl.load(a, [0, 0], [16, 16]), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: T, y: pl.Out[T]):
        y = self.k(a, y, a=y)
        return y


@pl.program
class Missing:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: T, out: pl.Out[T]):
        out = pl.store(pl.load(a, [0, 0], [16, 16]), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: T, y: pl.Out[T]):
        y = self.k(a)
        return y


@pl.program
class Starred:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: T, out: pl.Out[T]):
        out = pl.store(pl.load(a, [0, 0], [16, 16]), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: T, y: pl.Out[T]):
        y = self.k(*[a, y])
        return y


@pl.program
class WrongType:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: T, out: pl.Out[T]):
        out = pl.store(pl.load(a, [0, 0], [16, 16]), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 32], pl.FP32], y: pl.Out[T]):
        y = self.k(out=y, a=a)
        return y


@pl.program
class VarArgs:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: T, *rest):
        pass


@pl.program
class TensorDefault:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: T = None):
        pass


@pl.program
class OpTooMany:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: T, out: pl.Out[T]):
        t = pl.load(a, [0, 0], [16, 16])
        u = pl.exp(t, t)
        out = pl.store(u, [0, 0], out)
        return out


@pl.program
class OpAliasTwice:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: T, out: pl.Out[T]):
        t = pl.load(a, [0, 0], [16, 16])
        s = pl.not_(tile=t, input=t)
        out = pl.store(t, [0, 0], out)
        return out


# ---------------------------------------------------------------- @pl.jit helpers

@pl.jit.inline
def scaled(t: pl.Tile, k: float = 3.0):
    return pl.mul(t, k)


@pl.jit
def helper_keywords(x: pl.Tensor, y: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [16, 16])
        u = scaled(k=0.5, t=t)
        v = scaled(u)
        pl.store(v, [0, 0], y)
    return y


@pl.jit
def helper_unknown_keyword(x: pl.Tensor, y: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [16, 16])
        u = scaled(t, scale=2.0)
        pl.store(u, [0, 0], y)
    return y


@pl.jit
def helper_missing(x: pl.Tensor, y: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [16, 16])
        u = scaled(k=2.0)
        pl.store(u, [0, 0], y)
    return y


@pl.jit.inline
def sized(t: pl.Tile[[16, 16], pl.FP32]):
    return pl.exp(t)


@pl.jit
def helper_wrong_tile(x: pl.Tensor, y: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [8, 16])
        u = sized(t)
        pl.store(u, [0, 0], y)
    return y


@pl.jit
def entry_with_default(x: pl.Tensor, y: pl.Out[pl.Tensor], k: float = 0.25, *, twice: bool = False):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [16, 16])
        u = pl.mul(t, k)
        if twice:
            u = pl.mul(u, k)
        pl.store(u, [0, 0], y)
    return y


@pl.jit
def keyword_only_tensor(x: pl.Tensor, *, y: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.exp(pl.load(x, [0, 0], [16, 16])), [0, 0], y)
    return y


@pl.jit
def out_default_none(x: pl.Tensor, y: pl.Out[pl.Tensor] = None):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.exp(pl.load(x, [0, 0], [16, 16])), [0, 0], y)
    return y


@pl.jit
def entry_with_tile(x: pl.Tile[[16, 16], pl.FP32]):
    pass
