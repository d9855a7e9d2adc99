"""Programs whose kernel returns a scalar next to its tensor (test_scalar_returns.py)."""
import ptokit.language as pl


@pl.program
class WidthFromKernel:
    @pl.function(type=pl.FunctionType.InCore)
    def first(self, x: pl.Tensor[[8, 64], pl.FP32], lo: pl.Scalar[pl.INDEX], hi: pl.Scalar[pl.INDEX],
              y: pl.Out[pl.Tensor[[8, 64], pl.FP32]]) -> tuple[pl.Tensor[[8, 64], pl.FP32], pl.Scalar[pl.INDEX]]:
        t = pl.load(x, [0, 0], [8, 64])
        y = pl.store(pl.adds(t, 1.0), [0, 0], y)
        span = hi - lo
        cols: pl.Scalar[pl.INDEX] = span * 4 + 3
        return y, cols

    @pl.function(type=pl.FunctionType.InCore)
    def second(self, y: pl.Tensor[[8, 64], pl.FP32], w: pl.Scalar[pl.INDEX],
               z: pl.Out[pl.Tensor[[8, 64], pl.FP32]]) -> pl.Tensor[[8, 64], pl.FP32]:
        t = pl.load(y, [0, 0], [8, 64], valid_shape=[8, w])
        z = pl.store(pl.muls(t, 2.0), [0, 0], z)
        return z

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[8, 64], pl.FP32], bounds: pl.Tensor[[2], pl.INDEX],
             y: pl.Out[pl.Tensor[[8, 64], pl.FP32]], z: pl.Out[pl.Tensor[[8, 64], pl.FP32]]) -> pl.Tensor[[8, 64], pl.FP32]:
        lo: pl.Scalar[pl.INDEX] = pl.tensor.read(bounds, [0])
        hi: pl.Scalar[pl.INDEX] = pl.tensor.read(bounds, [1])
        y2, w = self.first(x, lo, hi, y)
        z = self.second(y2, w, z)
        return z


@pl.program
class ScalarFromBlockIndex:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[8, 64], pl.FP32],
          y: pl.Out[pl.Tensor[[8, 64], pl.FP32]]) -> tuple[pl.Tensor[[8, 64], pl.FP32], pl.Scalar[pl.INDEX]]:
        y = pl.store(pl.load(x, [0, 0], [8, 64]), [0, 0], y)
        b = pl.tile.get_block_idx()
        return y, b

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[8, 64], pl.FP32], y: pl.Out[pl.Tensor[[8, 64], pl.FP32]]) -> pl.Tensor[[8, 64], pl.FP32]:
        y2, b = self.k(x, y)
        return y2


@pl.program
class ScalarFromLoop:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[8, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
          y: pl.Out[pl.Tensor[[8, 64], pl.FP32]]) -> tuple[pl.Tensor[[8, 64], pl.FP32], pl.Scalar[pl.INDEX]]:
        y = pl.store(pl.load(x, [0, 0], [8, 64]), [0, 0], y)
        acc: pl.Scalar[pl.INDEX] = 0
        for i in pl.range(0, n):
            acc = acc + i
        return y, acc

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[8, 64], pl.FP32], y: pl.Out[pl.Tensor[[8, 64], pl.FP32]]) -> pl.Tensor[[8, 64], pl.FP32]:
        y2, s = self.k(x, 5, y)
        return y2
