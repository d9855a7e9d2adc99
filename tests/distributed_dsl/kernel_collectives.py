"""Kernel-level collectives (pld.tensor.* in kernel code) for the spec's feature checks 5-10, one
program per world size W (the mesh signal is a static [W, 1] window)."""
import ptokit.language as pl
import ptokit.language.distributed as pld

N = 64


def kernel_collectives(W, n=N):
    NN = n

    @pl.program
    class KernelCollectives:
        @pl.function(type=pl.FunctionType.InCore)
        def reduce(self, x: pl.Tensor[[1, NN], pl.FP32], ys: pl.Out[pl.Tensor[[1, NN], pl.FP32]],
                   ym: pl.Out[pl.Tensor[[1, NN], pl.FP32]], yn: pl.Out[pl.Tensor[[1, NN], pl.FP32]],
                   yb: pl.Out[pl.Tensor[[1, NN], pl.FP32]], yk: pl.Out[pl.Tensor[[1, NN], pl.FP32]],
                   a: pld.DistributedTensor[[1, NN], pl.FP32], b: pld.DistributedTensor[[1, NN], pl.FP32],
                   c: pld.DistributedTensor[[1, NN], pl.FP32], d: pld.DistributedTensor[[1, NN], pl.FP32],
                   e: pld.DistributedTensor[[1, NN], pl.FP32], sig: pld.DistributedTensor[[W, 1], pl.INT32],
                   root: pl.Scalar[pl.INT64]):
            ctx = pld.get_comm_ctx(sig)
            nxt = (pld.rank(ctx) + 1) % pld.nranks(ctx)
            t = pl.load(x, [0, 0], [1, NN])
            pl.store(t, [0, 0], a)
            pl.store(t, [0, 0], b)
            pl.store(t, [0, 0], c)
            if pld.rank(ctx) == root:
                pl.store(t, [0, 0], d)
            else:
                pl.store(pl.full([1, NN], dtype=pl.FP32, value=-1.0), [0, 0], d)
            a = pld.tensor.allreduce(a, sig, op=pld.ReduceOp.Sum)
            b = pld.tensor.allreduce(b, sig, op=pld.ReduceOp.Max)
            c = pld.tensor.allreduce(c, signal=sig, op=pld.ReduceOp.Min)
            d = pld.tensor.broadcast(d, sig, root=root)
            ys = pl.store(pl.load(a, [0, 0], [1, NN]), [0, 0], ys)
            ym = pl.store(pl.load(b, [0, 0], [1, NN]), [0, 0], ym)
            yn = pl.store(pl.load(c, [0, 0], [1, NN]), [0, 0], yn)
            yb = pl.store(pl.load(d, [0, 0], [1, NN]), [0, 0], yb)
            # check 5: store x + k, barrier, remote_load the next rank's, barrier, accumulate (k = 0, 1, 2)
            pl.store(t, [0, 0], e)
            sig = pld.tensor.barrier(sig)
            acc = pld.tile.remote_load(e, nxt, [0, 0], [1, NN])
            sig = pld.tensor.barrier(sig)
            pl.store(pl.adds(t, 1.0), [0, 0], e)
            sig = pld.tensor.barrier(sig)
            acc = pl.add(acc, pld.tile.remote_load(e, nxt, [0, 0], [1, NN]))
            sig = pld.tensor.barrier(sig)
            pl.store(pl.adds(t, 2.0), [0, 0], e)
            pld.tensor.barrier(sig)
            acc = pl.add(acc, pld.tile.remote_load(e, nxt, [0, 0], [1, NN]))
            pld.tensor.barrier(sig)
            yk = pl.store(acc, [0, 0], yk)
            return ys, ym, yn, yb, yk

        @pl.function(type=pl.FunctionType.InCore)
        def rows(self, x: pl.Tensor[[1, NN], pl.FP32], xa: pl.Tensor[[W, NN], pl.FP32],
                 xr: pl.Tensor[[1, W * NN], pl.FP32], yg: pl.Out[pl.Tensor[[W, NN], pl.FP32]],
                 yt: pl.Out[pl.Tensor[[W, NN], pl.FP32]], yr: pl.Out[pl.Tensor[[W, NN], pl.FP32]],
                 z: pl.Out[pl.Tensor[[1, W], pl.INT32]],
                 local: pld.DistributedTensor[[1, NN], pl.FP32], g: pld.DistributedTensor[[W, NN], pl.FP32],
                 inp: pld.DistributedTensor[[W, NN], pl.FP32], out: pld.DistributedTensor[[W, NN], pl.FP32],
                 red: pld.DistributedTensor[[W, NN], pl.FP32], sig: pld.DistributedTensor[[W, 1], pl.INT32]):
            pl.store(pl.load(x, [0, 0], [1, NN]), [0, 0], local)
            pl.store(pl.load(xa, [0, 0], [W, NN]), [0, 0], inp)
            for s in pl.range(W):                         # check 9: [1, W*n] staged into [W, n]
                pl.store(pl.load(xr, [0, s * NN], [1, NN]), [s, 0], red)
            g = pld.tensor.allgather(local, g, sig)
            out = pld.tensor.all_to_all(inp, out, sig)
            red = pld.tensor.reduce_scatter(red, sig, op=pld.ReduceOp.Sum)
            yg = pl.store(pl.load(g, [0, 0], [W, NN]), [0, 0], yg)
            yt = pl.store(pl.load(out, [0, 0], [W, NN]), [0, 0], yt)
            yr = pl.store(pl.load(red, [0, 0], [W, NN]), [0, 0], yr)
            for i in pl.range(W):
                pl.write(z, [0, i], pl.read(sig, [i, 0]))
            return yg, yt, yr, z

        @pl.function(type=pl.FunctionType.Orchestration)
        def chip(self, x: pl.Tensor[[1, NN], pl.FP32], xa: pl.Tensor[[W, NN], pl.FP32],
                 xr: pl.Tensor[[1, W * NN], pl.FP32],
                 ys: pl.Out[pl.Tensor[[1, NN], pl.FP32]], ym: pl.Out[pl.Tensor[[1, NN], pl.FP32]],
                 yn: pl.Out[pl.Tensor[[1, NN], pl.FP32]], yb: pl.Out[pl.Tensor[[1, NN], pl.FP32]],
                 yk: pl.Out[pl.Tensor[[1, NN], pl.FP32]], yg: pl.Out[pl.Tensor[[W, NN], pl.FP32]],
                 yt: pl.Out[pl.Tensor[[W, NN], pl.FP32]], yr: pl.Out[pl.Tensor[[W, NN], pl.FP32]],
                 z: pl.Out[pl.Tensor[[1, W], pl.INT32]],
                 a: pld.DistributedTensor[[1, NN], pl.FP32], b: pld.DistributedTensor[[1, NN], pl.FP32],
                 c: pld.DistributedTensor[[1, NN], pl.FP32], d: pld.DistributedTensor[[1, NN], pl.FP32],
                 e: pld.DistributedTensor[[1, NN], pl.FP32],
                 local: pld.DistributedTensor[[1, NN], pl.FP32], g: pld.DistributedTensor[[W, NN], pl.FP32],
                 inp: pld.DistributedTensor[[W, NN], pl.FP32], out: pld.DistributedTensor[[W, NN], pl.FP32],
                 red: pld.DistributedTensor[[W, NN], pl.FP32], sig: pld.DistributedTensor[[W, 1], pl.INT32],
                 root: pl.Scalar[pl.INT64]):
            ys, ym, yn, yb, yk = self.reduce(x, ys, ym, yn, yb, yk, a, b, c, d, e, sig, root)
            yg, yt, yr, z = self.rows(x, xa, xr, yg, yt, yr, z, local, g, inp, out, red, sig)
            return ys, ym, yn, yb, yk, yg, yt, yr, z

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def main(self, x: pl.Tensor[[W, 1, NN], pl.FP32], xa: pl.Tensor[[W, W, NN], pl.FP32],
                 xr: pl.Tensor[[W, 1, W * NN], pl.FP32],
                 ys: pl.Out[pl.Tensor[[W, 1, NN], pl.FP32]], ym: pl.Out[pl.Tensor[[W, 1, NN], pl.FP32]],
                 yn: pl.Out[pl.Tensor[[W, 1, NN], pl.FP32]], yb: pl.Out[pl.Tensor[[W, 1, NN], pl.FP32]],
                 yk: pl.Out[pl.Tensor[[W, 1, NN], pl.FP32]], yg: pl.Out[pl.Tensor[[W, W, NN], pl.FP32]],
                 yt: pl.Out[pl.Tensor[[W, W, NN], pl.FP32]], yr: pl.Out[pl.Tensor[[W, W, NN], pl.FP32]],
                 z: pl.Out[pl.Tensor[[W, 1, W], pl.INT32]], root: pl.Scalar[pl.INT64]):
            ba = pld.alloc_window_buffer([1, NN], dtype=pl.FP32)
            bb = pld.alloc_window_buffer([1, NN], dtype=pl.FP32)
            bc = pld.alloc_window_buffer([1, NN], dtype=pl.FP32)
            bd = pld.alloc_window_buffer([1, NN], dtype=pl.FP32)
            be = pld.alloc_window_buffer([1, NN], dtype=pl.FP32)
            bl = pld.alloc_window_buffer([1, NN], dtype=pl.FP32)
            bg = pld.alloc_window_buffer([W, NN], dtype=pl.FP32)
            bi = pld.alloc_window_buffer([W, NN], dtype=pl.FP32)
            bo = pld.alloc_window_buffer([W, NN], dtype=pl.FP32)
            br = pld.alloc_window_buffer([W, NN], dtype=pl.FP32)
            bs = pld.alloc_window_buffer([W, 1], dtype=pl.INT32)
            wa = pld.window(ba, [1, NN], dtype=pl.FP32)
            wb = pld.window(bb, [1, NN], dtype=pl.FP32)
            wc = pld.window(bc, [1, NN], dtype=pl.FP32)
            wd = pld.window(bd, [1, NN], dtype=pl.FP32)
            we = pld.window(be, [1, NN], dtype=pl.FP32)
            wl = pld.window(bl, [1, NN], dtype=pl.FP32)
            wg = pld.window(bg, [W, NN], dtype=pl.FP32)
            wi = pld.window(bi, [W, NN], dtype=pl.FP32)
            wo = pld.window(bo, [W, NN], dtype=pl.FP32)
            wr = pld.window(br, [W, NN], dtype=pl.FP32)
            ws = pld.window(bs, [W, 1], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                self.chip(x[r], xa[r], xr[r], ys[r], ym[r], yn[r], yb[r], yk[r], yg[r], yt[r], yr[r], z[r],
                          wa, wb, wc, wd, we, wl, wg, wi, wo, wr, ws, root, device=r)
    return KernelCollectives


def kernel_allreduce(W, n, dtype, op, mode="mesh"):
    """One kernel allreduce of a [1, n] window of ``dtype`` with ``op`` (staged from x, copied out to y);
    the signal is [W, 1] (mesh) or [2(W-1), W] (ring)."""
    NN, DT, OP, MODE = n, dtype, op, mode
    SIG = [W, 1] if mode == "mesh" else [2 * (W - 1), W]

    @pl.program
    class KernelAllReduce:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: pl.Tensor[[1, NN], DT], y: pl.Out[pl.Tensor[[1, NN], DT]],
              a: pld.DistributedTensor[[1, NN], DT], sig: pld.DistributedTensor[SIG, pl.INT32]):
            pld.tensor.put(a, pld.rank(pld.get_comm_ctx(a)), x)       # stage (a put to oneself)
            a = pld.tensor.allreduce(a, sig, op=OP, mode=MODE)
            pld.tensor.get(y, pld.rank(pld.get_comm_ctx(a)), a)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def chip(self, x: pl.Tensor[[1, NN], DT], y: pl.Out[pl.Tensor[[1, NN], DT]],
                 a: pld.DistributedTensor[[1, NN], DT], sig: pld.DistributedTensor[SIG, pl.INT32]):
            y = self.k(x, y, a, sig)
            return y

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def main(self, x: pl.Tensor[[W, 1, NN], DT], y: pl.Out[pl.Tensor[[W, 1, NN], DT]]):
            ba = pld.alloc_window_buffer([1, NN], dtype=DT)
            bs = pld.alloc_window_buffer(SIG, dtype=pl.INT32)
            wa = pld.window(ba, [1, NN], dtype=DT)
            ws = pld.window(bs, SIG, dtype=pl.INT32)
            for r in pl.range(W):
                self.chip(x[r], y[r], wa, ws, device=r)
    return KernelAllReduce


def host_allreduce(W, n, dtype, op, mode="mesh"):
    """The host form: stage x into a [1, n] window, pld.tensor.allreduce in the host function, copy out;
    the signal is [W, 1] (mesh) or [2(W-1)+1, W] (ring)."""
    NN, DT, OP, MODE = n, dtype, op, mode
    SIG = [W, 1] if mode == "mesh" else [2 * (W - 1) + 1, W]

    @pl.program
    class HostAllReduce:
        @pl.function(type=pl.FunctionType.InCore)
        def stage(self, x: pl.Tensor[[1, NN], DT], a: pld.DistributedTensor[[1, NN], DT]):
            pld.tensor.put(a, pld.rank(pld.get_comm_ctx(a)), x)

        @pl.function(type=pl.FunctionType.Orchestration)
        def put_in(self, x: pl.Tensor[[1, NN], DT], a: pld.DistributedTensor[[1, NN], DT]):
            self.stage(x, a)

        @pl.function(type=pl.FunctionType.InCore)
        def unstage(self, a: pld.DistributedTensor[[1, NN], DT], y: pl.Out[pl.Tensor[[1, NN], DT]]):
            pld.tensor.get(y, pld.rank(pld.get_comm_ctx(a)), a)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def take_out(self, a: pld.DistributedTensor[[1, NN], DT], y: pl.Out[pl.Tensor[[1, NN], DT]]):
            y = self.unstage(a, y)
            return y

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def main(self, x: pl.Tensor[[W, 1, NN], DT], y: pl.Out[pl.Tensor[[W, 1, NN], DT]]):
            ba = pld.alloc_window_buffer([1, NN], dtype=DT)
            bs = pld.alloc_window_buffer(SIG, dtype=pl.INT32)
            wa = pld.window(ba, [1, NN], dtype=DT)
            ws = pld.window(bs, SIG, dtype=pl.INT32)
            for r in pl.range(W):
                self.put_in(x[r], wa, device=r)
            pld.tensor.allreduce(wa, ws, op=OP, mode=MODE)
            for r in pl.range(pld.world_size()):
                self.take_out(wa, y[r], device=r)
    return HostAllReduce


def notify_wait(W):
    """The spec's checks 3 and 4 with pld.system.notify / wait: mode 0 AtomicAdd 1 at row r of every peer's
    [W, 1] signal, wait for all, read the signal; mode 1 Set [0, 0] of (r+1)%W to r+1; mode 2 all add r+1
    into rank 0's [0, 0], rank 0 waits Eq W(W+1)/2 and Sets it into every peer's [1, 0] (wait Ge 1)."""

    @pl.program
    class NotifyWait:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, z: pl.Out[pl.Tensor[[1, W], pl.INT32]], sig: pld.DistributedTensor[[W, 1], pl.INT32],
              mode: pl.Scalar[pl.INT64]):
            ctx = pld.get_comm_ctx(sig)
            r = pld.rank(ctx)
            if mode == 0:
                for p in pl.range(W):
                    if p != r:
                        pld.system.notify(sig, p, [r, 0], 1, op=pld.NotifyOp.AtomicAdd)
                for p in pl.range(W):
                    if p != r:
                        pld.system.wait(sig, [p, 0], 1, cmp=pld.WaitCmp.Ge)
            elif mode == 1:
                pld.system.notify(sig, (r + 1) % W, [0, 0], r + 1, op=pld.NotifyOp.Set)
                pld.system.wait(sig, [0, 0], 1, cmp=pld.WaitCmp.Ge)
            else:
                pld.system.notify(sig, 0, [0, 0], r + 1, op=pld.NotifyOp.AtomicAdd)
                if r == 0:
                    pld.system.wait(sig, [0, 0], W * (W + 1) // 2, cmp=pld.WaitCmp.Eq)
                    for p in pl.range(1, W):
                        pld.system.notify(sig, p, [1, 0], pl.read(sig, [0, 0]), op=pld.NotifyOp.Set)
                else:
                    pld.system.wait(sig, [1, 0], 1, cmp=pld.WaitCmp.Ge)
            for i in pl.range(W):
                pl.write(z, [0, i], pl.read(sig, [i, 0]))
            return z

        @pl.function(type=pl.FunctionType.Orchestration)
        def chip(self, z: pl.Out[pl.Tensor[[1, W], pl.INT32]], sig: pld.DistributedTensor[[W, 1], pl.INT32],
                 mode: pl.Scalar[pl.INT64]):
            z = self.k(z, sig, mode)
            return z

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def main(self, z: pl.Out[pl.Tensor[[W, 1, W], pl.INT32]], mode: pl.Scalar[pl.INT64]):
            bs = pld.alloc_window_buffer([W, 1], dtype=pl.INT32)
            ws = pld.window(bs, [W, 1], dtype=pl.INT32)
            for r in pl.range(W):
                self.chip(z[r], ws, mode, device=r)
    return NotifyWait
