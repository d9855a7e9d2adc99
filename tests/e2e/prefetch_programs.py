"""Programs of pl.prefetch: prefetches of flat 1-D tensors ([N] and [1, N]) before the loads that
read them; the values are those of the same kernel without the prefetch."""
import ptokit.language as pl

N = 256


@pl.program
class Prefetch:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1, N], pl.FP32], y: pl.Tensor[[N], pl.FP32], h: pl.Tensor[[1, N], pl.FP16],
          out: pl.Out[pl.Tensor[[1, N], pl.FP32]], hout: pl.Out[pl.Tensor[[1, N], pl.FP16]]):
        ctx = pl.prefetch.make_context()
        ev = pl.prefetch.async_prefetch(x, ctx)
        ev_y = pl.prefetch.async_prefetch(y, ctx)
        ev_h = pl.prefetch.async_prefetch(h, ctx)
        s = pl.prefetch.session(ctx)
        pl.prefetch.wait(ev, s)
        pl.prefetch.wait(ev_y, s)
        done = pl.prefetch.wait(ev_h, s)
        a = pl.load(x, [0, 0], [1, N])
        b = pl.reshape(pl.load(y, [0], [N]), [1, N])
        out = pl.store(pl.add(pl.mul(a, b), a), [0, 0], out)
        hout = pl.store(pl.load(h, [0, 0], [1, N]), [0, 0], hout)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[1, N], pl.FP32], y: pl.Tensor[[N], pl.FP32], h: pl.Tensor[[1, N], pl.FP16],
             out: pl.Out[pl.Tensor[[1, N], pl.FP32]], hout: pl.Out[pl.Tensor[[1, N], pl.FP16]]):
        out = self.k(x, y, h, out, hout)
        return out


@pl.program
class PrefetchInACubeKernel:
    """Refused: the prefetch runs on a vector core, and this kernel is a cube (AIC) one."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16], v: pl.Tensor[[1, 64], pl.FP32],
          y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        ctx = pl.prefetch.make_context()
        ta = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        tb = pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        c = pl.matmul(pl.move(ta, target_memory=pl.Mem.Left), pl.move(tb, target_memory=pl.Mem.Right))
        y = pl.store(c, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16], v: pl.Tensor[[1, 64], pl.FP32],
             y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        y = self.k(a, b, v, y)
        return y
