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


def _mixed(split):
    """A mixed (cube + vector) kernel that prefetches the bias row v while the cube multiplies:
    y = a @ b + v (row v added to every row); ``split``: the kernel's split mode (both lanes work)."""
    attrs = {} if split is None else {"split": split}

    @pl.program
    class PrefetchMixed:
        @pl.function(type=pl.FunctionType.InCore, attrs=attrs)
        def k(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16], v: pl.Tensor[[1, 64], pl.FP32],
              y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
            ctx = pl.prefetch.make_context()
            ev = pl.prefetch.async_prefetch(v, ctx)
            s = pl.prefetch.session(ctx)
            ta = pl.move(pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
            tb = pl.move(pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
            c = pl.move(pl.matmul(ta, tb), target_memory=pl.Mem.Vec)
            pl.prefetch.wait(ev, s)
            y = pl.store(pl.col_expand_add(c, pl.load(v, [0, 0], [1, 64])), [0, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16], v: pl.Tensor[[1, 64], pl.FP32],
                 y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
            y = self.k(a, b, v, y)
            return y

    return PrefetchMixed


PrefetchMixed = _mixed(None)
PrefetchSplit = _mixed(pl.SplitMode.UP_DOWN)


@pl.program
class PrefetchAt:
    """pl.prefetch inside a pl.at(CORE_GROUP) block of orchestration code: the block is kernel code."""

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16], v: pl.Tensor[[1, 64], pl.FP32],
             y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="mm_bias"):
            ctx = pl.prefetch.make_context()
            ev = pl.prefetch.async_prefetch(v, ctx)
            ta = pl.move(pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
            tb = pl.move(pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
            c = pl.move(pl.matmul(ta, tb), target_memory=pl.Mem.Vec)
            done = pl.prefetch.wait(ev, pl.prefetch.session(ctx))
            y = pl.store(pl.col_expand_add(c, pl.load(v, [0, 0], [1, 64])), [0, 0], y)
        return y


@pl.program
class PrefetchFlagOnTheCube:
    """Refused: the prefetch runs on the vector side of a mixed kernel; its done flag steers cube work."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16], v: pl.Tensor[[1, 64], pl.FP32],
          y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        ctx = pl.prefetch.make_context()
        done = pl.prefetch.wait(pl.prefetch.async_prefetch(v, ctx), pl.prefetch.session(ctx))
        ta = pl.move(pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        tb = pl.move(pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        c = pl.matmul(ta, tb)
        if done:
            c = pl.matmul_acc(c, ta, tb)
        y = pl.store(pl.col_expand_add(pl.move(c, target_memory=pl.Mem.Vec), pl.load(v, [0, 0], [1, 64])), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16], v: pl.Tensor[[1, 64], pl.FP32],
             y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        y = self.k(a, b, v, y)
        return y
