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
