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


def _split_matmul(mode):
    """Split ``mode``: the Acc of a @ b gets a run-time valid extent n on the split axis (UP_DOWN: a's
    rows loaded with n valid; LEFT_RIGHT: b's columns), moved to Vec and halved across the lanes:
    y = 2 (a @ b) on the valid rows / columns, the rest untouched."""
    up_down = mode == pl.SplitMode.UP_DOWN

    @pl.program
    class SplitMatmulValid:
        @pl.function(type=pl.FunctionType.InCore, attrs={"split": mode})
        def k(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16], n: pl.Scalar[pl.INDEX],
              y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
            if up_down:
                am = pl.load(a, [0, 0], [64, 64], valid_shape=[n, 64], target_memory=pl.Mem.Mat)
                bm = pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
            else:
                am = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
                bm = pl.load(b, [0, 0], [64, 64], valid_shape=[64, n], target_memory=pl.Mem.Mat)
            v = pl.move(pl.matmul(pl.move(am, target_memory=pl.Mem.Left), pl.move(bm, target_memory=pl.Mem.Right)),
                        target_memory=pl.Mem.Vec)
            y = pl.store(pl.muls(v, 2.0), [0, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16], n: pl.Scalar[pl.INDEX],
                 y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
            y = self.k(a, b, n, y)
            return y

    return SplitMatmulValid


SPLIT_MATMUL = {"UP_DOWN": _split_matmul(pl.SplitMode.UP_DOWN), "LEFT_RIGHT": _split_matmul(pl.SplitMode.LEFT_RIGHT)}


@pl.program
class SplitPushValidRows:
    """Split UP_DOWN, vector to cube: x loaded with n valid rows (a run-time scalar), each lane pushes
    its half (clamp(n - 32 L, 0, 32) valid rows) to the cube, which multiplies the whole n rows:
    y[:n] = exp(x[:n]) @ b, the rest untouched."""

    @pl.function(type=pl.FunctionType.InCore, attrs={"split": pl.SplitMode.UP_DOWN})
    def k(self, x: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16], n: pl.Scalar[pl.INDEX],
          y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        e = pl.exp(pl.load(x, [0, 0], [64, 64], valid_shape=[n, 64]))
        l = pl.move(pl.move(e, target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        r = pl.move(pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        y = pl.store(pl.matmul(l, r), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16], n: pl.Scalar[pl.INDEX],
             y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        y = self.k(x, b, n, y)
        return y
