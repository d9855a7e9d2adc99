"""Split mixed kernels whose vector tiles have a run-time valid shape (issue 13): each lane's half
gets valid extent clamp(v - L * half, 0, half) on the split axis, whether the valid shape comes from
a load (valid_shape=) or from a matmul whose Left operand has run-time valid rows."""
import ptokit.language as pl


@pl.program
class SplitAtValidCols:
    """pl.at(optimizations=[pl.split(LEFT_RIGHT)]): y[:, :nc] = exp(x[:, :nc]) + (a @ b)[:, :nc], x loaded
    with nc valid columns (lane L holds clamp(nc - 32 L, 0, 32) of its 32)."""

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16], x: pl.Tensor[[64, 64], pl.FP32],
             nc: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="mm_cols",
                   optimizations=[pl.split(pl.SplitMode.LEFT_RIGHT)]):
            ta = pl.move(pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
            tb = pl.move(pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
            v = pl.move(pl.matmul(ta, tb), target_memory=pl.Mem.Vec)
            xt = pl.load(x, [0, 0], [64, 64], valid_shape=[64, nc])
            y = pl.store(pl.add(pl.exp(xt), v), [0, 0], y)
        return y


@pl.program
class SplitMatmulValidRows:
    """Split UP_DOWN: a's rows loaded with n valid (a run-time scalar), so the Acc of a @ b has n valid
    rows, moved to Vec and halved across the lanes: y[:n] = 2 (a @ b)[:n], the rest untouched."""

    @pl.function(type=pl.FunctionType.InCore, attrs={"split": pl.SplitMode.UP_DOWN})
    def k(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16], n: pl.Scalar[pl.INDEX],
          y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        ta = pl.move(pl.load(a, [0, 0], [64, 64], valid_shape=[n, 64], target_memory=pl.Mem.Mat),
                     target_memory=pl.Mem.Left)
        tb = pl.move(pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        v = pl.move(pl.matmul(ta, tb), target_memory=pl.Mem.Vec)
        y = pl.store(pl.muls(v, 2.0), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16], n: pl.Scalar[pl.INDEX],
             y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        y = self.k(a, b, n, y)
        return y
