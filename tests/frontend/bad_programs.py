"""Programs that must be rejected, each with one mistake (see test_errors.py)."""
import ptokit.language as pl


@pl.program
class ShapeMismatch:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[32, 32], pl.FP32],
          out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        ta = pl.load(a, [0, 0], [64, 64])
        tb = pl.load(b, [0, 0], [32, 32])
        out = pl.store(pl.add(ta, tb), [0, 0], out)
        return out


@pl.program
class UndefinedName:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        t = pl.load(a, [0, 0], [64, 64])
        out = pl.store(pl.add(t, missing), [0, 0], out)  # noqa: F821
        return out


@pl.program
class TooBigForUB:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[128, 128], pl.FP32], out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]):
        t = pl.load(a, [0, 0], [128, 128])
        u = pl.exp(t)
        w = pl.add(t, u)
        out = pl.store(pl.add(w, pl.mul(t, u)), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[128, 128], pl.FP32], y: pl.Out[pl.Tensor[[128, 128], pl.FP32]]):
        y = self.k(a, y)
        return y


@pl.program
class LoopTypeChange:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        t = pl.load(a, [0, 0], [64, 64])
        for i in pl.range(4):
            t = pl.load(a, [0, 0], [32, 64])
        out = pl.store(t, [0, 0], out)
        return out


@pl.program
class WrongArgCount:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        out = pl.store(pl.load(a, [0, 0], [64, 64]), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        y = self.k(a)
        return y



@pl.program
class IllegalMove:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP16], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        t = pl.load(a, [0, 0], [64, 64])
        l = pl.move(t, target_memory=pl.Mem.Left)
        out = pl.store(pl.cast(t, target_type=pl.FP32), [0, 0], out)
        return out


@pl.program
class BadAnnotation:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64]], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        return out


@pl.program
class ScalarLoopBound:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32], s: pl.Scalar[pl.FP32],
          out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        for i in pl.range(s):
            out = pl.store(pl.load(a, [0, 0], [64, 64]), [0, 0], out)
        return out


@pl.program
class LoadWindowTooBig:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        out = pl.store(pl.load(a, [0, 0], [64, 64]), [0, 0], out)
        return out


@pl.program
class BadTileShape:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        out = pl.store(pl.load(a, [0, 0], [64, 4]), [0, 0], out)
        return out


@pl.program
class NoOrchestration:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        out = pl.store(pl.load(a, [0, 0], [64, 64]), [0, 0], out)
        return out


@pl.program
class DtypeMismatch:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP16],
          out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        out = pl.store(pl.mul(pl.load(a, [0, 0], [64, 64]), pl.load(b, [0, 0], [64, 64])), [0, 0], out)
        return out


@pl.program
class ArgumentType:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        out = pl.store(pl.load(a, [0, 0], [64, 64]), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a16: pl.Tensor[[64, 64], pl.FP16], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        y = self.k(a16, y)
        return y


@pl.program
class TensorParamRebound:
    """``a = 3`` rebinds the tensor parameter ``a``: the load that follows reads the number 3."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        a = 3
        t = pl.load(a, [0, 0], [64, 64])  # the rebound a
        out = pl.store(t, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        y = self.k(x, y)
        return y
