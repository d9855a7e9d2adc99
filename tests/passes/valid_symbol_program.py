"""The goldens' programs of MaterializeValidShapeSymbols and MaterializeRuntimeScopes, in a module of
their own: the printer writes a module's dynamic dimensions into every golden of its programs."""
import ptokit.language as pl

BLK = pl.dynamic("BLK")
VALID = pl.dynamic("VALID")


@pl.program
class ValidShapeSymbol:
    """A kernel parameter's valid_shape names VALID, which no tensor shape binds
    (MaterializeValidShapeSymbols: VALID becomes a scalar parameter; each call passes its
    argument's valid extent: the slice's n, then the whole tensor's 64)."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, s: pl.Tensor[[16, BLK], pl.FP32, pl.TensorView(valid_shape=[16, VALID], layout=pl.TensorLayout.ND)],
          y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        y = pl.store(pl.load(s, [0, 0], [16, 64]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
             z: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        y = self.k(pl.slice(x, [16, 64], [0, 0], valid_shape=[16, n]), y)
        z = self.k(x, z)
        return y, z


@pl.program
class LoopOfTasks:
    """A loop submitting tasks (MaterializeRuntimeScopes: its body becomes a runtime scope, so each
    iteration's tasks retire at its end)."""

    @pl.function(type=pl.FunctionType.InCore)
    def inc(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        y = pl.store(pl.adds(pl.load(x, [0, 0], [16, 64]), 1.0), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.InOut[pl.Tensor[[16, 64], pl.FP32]]):
        for i in pl.range(n):
            t = pl.create_tensor([16, 64], dtype=pl.FP32)
            t = self.inc(y, t)
            y = self.inc(t, y)
        return y
