"""Programs that compile-time checks refuse (issue: constant windows, literals, outputs)."""
import ptokit.language as pl

T = pl.Tensor[[16, 64], pl.FP32]


@pl.program
class LoadPastEnd:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: T, y: pl.Out[T]):
        t = pl.load(x, [8, 0], [16, 64])
        y = pl.store(t, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T, y: pl.Out[T]):
        y = self.k(x, y)
        return y


@pl.program
class StorePastEnd:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: T, y: pl.Out[T]):
        t = pl.load(x, [0, 0], [16, 64])
        y = pl.store(t, [0, 32], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T, y: pl.Out[T]):
        y = self.k(x, y)
        return y


@pl.program
class NegativeOffset:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: T, y: pl.Out[T]):
        t = pl.load(x, [0, -1], [16, 64])
        y = pl.store(t, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T, y: pl.Out[T]):
        y = self.k(x, y)
        return y


@pl.program
class HugeScalar:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.INT32], y: pl.Out[pl.Tensor[[16, 64], pl.INT32]]):
        y = pl.store(pl.adds(pl.load(x, [0, 0], [16, 64]), 2**70), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.INT32], y: pl.Out[pl.Tensor[[16, 64], pl.INT32]]):
        y = self.k(x, y)
        return y


@pl.program
class HugeBound:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: T, y: pl.Out[T]):
        for i in pl.range(2**70):
            y = pl.store(pl.load(x, [0, 0], [16, 64]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T, y: pl.Out[T]):
        y = self.k(x, y)
        return y


@pl.program
class HugeInOrchestration:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: T, n: pl.Scalar[pl.INT64], y: pl.Out[T]):
        y = pl.store(pl.load(x, [0, 0], [16, 64]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T, y: pl.Out[T]):
        y = self.k(x, 2**64, y)
        return y


@pl.program
class NonFinite:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: T, y: pl.Out[T], z: pl.Out[T]):
        t = pl.load(x, [0, 0], [16, 64])
        y = pl.store(pl.maximum(t, 1e400), [0, 0], y)           # +inf
        z = pl.store(pl.muls(t, -1e400), [0, 0], z)             # -inf
        return y, z

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T, y: pl.Out[T], z: pl.Out[T]):
        y, z = self.k(x, y, z)
        return y, z


@pl.program
class OutNeverWritten:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: T, y: pl.Out[T], z: pl.Out[T]):
        y = pl.store(pl.load(x, [0, 0], [16, 64]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T, y: pl.Out[T], z: pl.Out[T]):
        y = self.k(x, y, z)
        return y


@pl.program
class StoreIntoInput:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: T, y: pl.Out[T]):
        t = pl.load(x, [0, 0], [16, 64])
        x = pl.store(pl.adds(t, 1.0), [0, 0], x)
        y = pl.store(t, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T, y: pl.Out[T]):
        y = self.k(x, y)
        return y


@pl.program
class KernelCallsKernel:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: T, y: pl.Out[T]):
        y = pl.store(pl.load(x, [0, 0], [16, 64]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def k2(self, x: T, y: pl.Out[T]):
        self.k(x, y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: T, y: pl.Out[T]):
        y = self.k2(x, y)
        return y
