"""Chip programs written with pld (kernel level), for tests/distributed_dsl."""
import ptokit.language as pl
import ptokit.language.distributed as pld

N = 64
NR = pl.dynamic("NR")


@pl.program
class PutGet:
    """mode 0: put to (r+1)%W, notify it, wait, read dst: y = x[(r-1)%W].
    mode 1: notify (r-1)%W, wait, get from (r+1)%W: y = x[(r+1)%W].
    mode 2: put atomic-add into rank 0's dst; rank 0 waits for W notifies: y[0] = sum(x)."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]],
          src: pld.DistributedTensor[[1, N], pl.FP32], dst: pld.DistributedTensor[[1, N], pl.FP32],
          sig: pld.DistributedTensor[[1, 1], pl.INT32], mode: pl.Scalar[pl.INT64]) -> pl.Tensor[[1, N], pl.FP32]:
        ctx = pld.get_comm_ctx(src)
        r = pld.rank(ctx)
        w = pld.nranks(ctx)
        t = pl.load(x, [0, 0], [1, N])
        pl.store(t, [0, 0], src)
        if mode == 0:
            pld.tensor.put(dst, (r + 1) % w, src)
            pld.system.notify(sig, (r + 1) % w, [0, 0], 1, op=pld.NotifyOp.AtomicAdd)
            pld.system.wait(sig, [0, 0], 1, cmp=pld.WaitCmp.Ge)
            u = pl.load(dst, [0, 0], [1, N])
            y = pl.store(u, [0, 0], y)
        elif mode == 1:
            pld.system.notify(sig, (r + w - 1) % w, [0, 0], 1, op=pld.NotifyOp.AtomicAdd)
            pld.system.wait(sig, [0, 0], 1, cmp=pld.WaitCmp.Ge)
            pld.tensor.get(y, (r + 1) % w, src)
        else:
            pld.tensor.put(dst, 0, src, atomic=pl.AtomicType.Add)
            pld.system.notify(sig, 0, [0, 0], 1, op=pld.NotifyOp.AtomicAdd)
            if r == 0:
                pld.system.wait(sig, [0, 0], w, cmp=pld.WaitCmp.Eq)
            u = pl.load(dst, [0, 0], [1, N])
            y = pl.store(u, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]],
             src: pld.DistributedTensor[[1, N], pl.FP32], dst: pld.DistributedTensor[[1, N], pl.FP32],
             sig: pld.DistributedTensor[[1, 1], pl.INT32], mode: pl.Scalar[pl.INT64]) -> pl.Tensor[[1, N], pl.FP32]:
        y = self.k(x, y, src, dst, sig, mode)
        return y


@pl.program
class RingPut:
    """The spec's feature check 1 as a whole program: a host function, one chip function, one kernel."""

    @pl.function(type=pl.FunctionType.InCore)
    def step(self, x: pl.Tensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]],
             src: pld.DistributedTensor[[1, N], pl.FP32], dst: pld.DistributedTensor[[1, N], pl.FP32],
             signal: pld.DistributedTensor[[1, 1], pl.INT32]) -> pl.Tensor[[1, N], pl.FP32]:
        ctx = pld.get_comm_ctx(src)
        peer = (pld.rank(ctx) + 1) % pld.nranks(ctx)
        local = pl.load(x, [0, 0], [1, N])
        src = pl.store(local, [0, 0], src)
        pld.tensor.put(dst, peer=peer, src=src, atomic=pld.AtomicType.None_)
        pld.system.notify(signal, peer=peer, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
        pld.system.wait(signal, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)
        recv = pl.load(dst, [0, 0], [1, N])
        y = pl.store(recv, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def per_rank(self, x: pl.Tensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]],
                 src: pld.DistributedTensor[[1, N], pl.FP32], dst: pld.DistributedTensor[[1, N], pl.FP32],
                 signal: pld.DistributedTensor[[1, 1], pl.INT32]) -> pl.Tensor[[1, N], pl.FP32]:
        y = self.step(x, y, src, dst, signal)
        return y

    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def ring(self, x: pl.Tensor[[NR, 1, N], pl.FP32], y: pl.Out[pl.Tensor[[NR, 1, N], pl.FP32]]):
        src_buf = pld.alloc_window_buffer([1, N], dtype=pl.FP32)
        dst_buf = pld.alloc_window_buffer(N * 4)
        signal_buf = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)
        for r in pl.range(pld.world_size()):
            src = pld.window(src_buf, [1, N], dtype=pl.FP32)
            dst = pld.window(dst_buf, [1, N], dtype=pl.FP32)
            signal = pld.window(signal_buf, [1, 1], dtype=pl.INT32)
            self.per_rank(x[r], y[r], src, dst, signal, device=r)


def host_collectives(W):
    """The host collectives program for W ranks (the signal window is [W, 1])."""
    @pl.program
    class HostCollectives:
        """Every host collective on windows staged from x, results copied out to y (one chip each way)."""

        @pl.function(type=pl.FunctionType.InCore)
        def stage(self, x: pl.Tensor[[1, N], pl.FP32], w: pld.DistributedTensor[[1, N], pl.FP32]):
            t = pl.load(x, [0, 0], [1, N])
            pl.store(t, [0, 0], w)

        @pl.function(type=pl.FunctionType.Orchestration)
        def put_in(self, x: pl.Tensor[[1, N], pl.FP32], w: pld.DistributedTensor[[1, N], pl.FP32]):
            self.stage(x, w)

        @pl.function(type=pl.FunctionType.InCore)
        def unstage(self, w: pld.DistributedTensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]]):
            t = pl.load(w, [0, 0], [1, N])
            y = pl.store(t, [0, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def take_out(self, w: pld.DistributedTensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]]):
            y = self.unstage(w, y)
            return y

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def main(self, x: pl.Tensor[[NR, 1, N], pl.FP32], s: pl.Out[pl.Tensor[[NR, 1, N], pl.FP32]],
                 m: pl.Out[pl.Tensor[[NR, 1, N], pl.FP32]], b: pl.Out[pl.Tensor[[NR, 1, N], pl.FP32]],
                 root: pl.Scalar[pl.INT64]):
            d1 = pld.alloc_window_buffer([1, N], dtype=pl.FP32)
            d2 = pld.alloc_window_buffer([1, N], dtype=pl.FP32)
            d3 = pld.alloc_window_buffer([1, N], dtype=pl.FP32)
            sg = pld.alloc_window_buffer([W, 1], dtype=pl.INT32)
            w1 = pld.window(d1, [1, N], dtype=pl.FP32)
            w2 = pld.window(d2, [1, N], dtype=pl.FP32)
            w3 = pld.window(d3, [1, N], dtype=pl.FP32)
            sig = pld.window(sg, [W, 1], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                self.put_in(x[r], w1, device=r)
                self.put_in(x[r], w2, device=r)
                self.put_in(x[r], w3, device=r)
            pld.tensor.allreduce(w1, sig, op=pld.ReduceOp.Sum)
            pld.tensor.barrier(sig)
            pld.tensor.allreduce(w2, signal=sig, op=pld.ReduceOp.Max)
            pld.tensor.broadcast(w3, sig, root=root)
            for r in pl.range(pld.world_size()):
                self.take_out(w1, s[r], device=r)
                self.take_out(w2, m[r], device=r)
                self.take_out(w3, b[r], device=r)
    return HostCollectives


def host_row_collectives(W):
    """allgather, all_to_all and reduce_scatter on [W, N] windows; the signal is read back at the end."""

    @pl.program
    class RowCollectives:
        @pl.function(type=pl.FunctionType.InCore)
        def stage(self, x: pl.Tensor[[W, N], pl.FP32], w: pld.DistributedTensor[[W, N], pl.FP32]):
            t = pl.load(x, [0, 0], [W, N])
            pl.store(t, [0, 0], w)

        @pl.function(type=pl.FunctionType.Orchestration)
        def put_in(self, x: pl.Tensor[[W, N], pl.FP32], w: pld.DistributedTensor[[W, N], pl.FP32]):
            self.stage(x, w)

        @pl.function(type=pl.FunctionType.InCore)
        def stage_row(self, x: pl.Tensor[[1, N], pl.FP32], w: pld.DistributedTensor[[1, N], pl.FP32]):
            t = pl.load(x, [0, 0], [1, N])
            pl.store(t, [0, 0], w)

        @pl.function(type=pl.FunctionType.Orchestration)
        def put_row(self, x: pl.Tensor[[1, N], pl.FP32], w: pld.DistributedTensor[[1, N], pl.FP32]):
            self.stage_row(x, w)

        @pl.function(type=pl.FunctionType.InCore)
        def unstage(self, w: pld.DistributedTensor[[W, N], pl.FP32], y: pl.Out[pl.Tensor[[W, N], pl.FP32]]):
            t = pl.load(w, [0, 0], [W, N])
            y = pl.store(t, [0, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def take_out(self, w: pld.DistributedTensor[[W, N], pl.FP32], y: pl.Out[pl.Tensor[[W, N], pl.FP32]]):
            y = self.unstage(w, y)
            return y

        @pl.function(type=pl.FunctionType.InCore)
        def read_sig(self, sig: pld.DistributedTensor[[W, 1], pl.INT32], z: pl.Out[pl.Tensor[[1, W], pl.INT32]]):
            for i in pl.range(W):
                pl.write(z, [0, i], pl.read(sig, [i, 0]))
            return z

        @pl.function(type=pl.FunctionType.Orchestration)
        def sig_out(self, sig: pld.DistributedTensor[[W, 1], pl.INT32], z: pl.Out[pl.Tensor[[1, W], pl.INT32]]):
            z = self.read_sig(sig, z)
            return z

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def main(self, x: pl.Tensor[[W, 1, N], pl.FP32], a: pl.Tensor[[W, W, N], pl.FP32],
                 g: pl.Out[pl.Tensor[[W, W, N], pl.FP32]], t: pl.Out[pl.Tensor[[W, W, N], pl.FP32]],
                 rs: pl.Out[pl.Tensor[[W, W, N], pl.FP32]], z: pl.Out[pl.Tensor[[W, 1, W], pl.INT32]]):
            b_local = pld.alloc_window_buffer([1, N], dtype=pl.FP32)
            b_gather = pld.alloc_window_buffer([W, N], dtype=pl.FP32)
            b_in = pld.alloc_window_buffer([W, N], dtype=pl.FP32)
            b_out = pld.alloc_window_buffer([W, N], dtype=pl.FP32)
            b_rs = pld.alloc_window_buffer([W, N], dtype=pl.FP32)
            b_sig = pld.alloc_window_buffer([W, 1], dtype=pl.INT32)
            local = pld.window(b_local, [1, N], dtype=pl.FP32)
            gather = pld.window(b_gather, [W, N], dtype=pl.FP32)
            inp = pld.window(b_in, [W, N], dtype=pl.FP32)
            out = pld.window(b_out, [W, N], dtype=pl.FP32)
            red = pld.window(b_rs, [W, N], dtype=pl.FP32)
            sig = pld.window(b_sig, [W, 1], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                self.put_row(x[r], local, device=r)
                self.put_in(a[r], inp, device=r)
                self.put_in(a[r], red, device=r)
            pld.tensor.allgather(local, gather, sig)
            pld.tensor.all_to_all(inp, out, sig)
            pld.tensor.reduce_scatter(red, sig, op=pld.ReduceOp.Sum)
            for r in pl.range(pld.world_size()):
                self.take_out(gather, g[r], device=r)
                self.take_out(out, t[r], device=r)
                self.take_out(red, rs[r], device=r)
                self.sig_out(sig, z[r], device=r)
    return RowCollectives


BIG = 6000      # 24000 bytes of FP32: put in two staged pieces (<= 16 KiB each)


@pl.program
class BigPut:
    """A region larger than one staging tile: put [1, BIG] to (r+1)%W, then read dst back."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1, BIG], pl.FP32], y: pl.Out[pl.Tensor[[1, BIG], pl.FP32]],
          src: pld.DistributedTensor[[1, BIG], pl.FP32], dst: pld.DistributedTensor[[1, BIG], pl.FP32],
          sig: pld.DistributedTensor[[1, 1], pl.INT32]) -> pl.Tensor[[1, BIG], pl.FP32]:
        ctx = pld.get_comm_ctx(src)
        peer = (pld.rank(ctx) + 1) % pld.nranks(ctx)
        for c in pl.range(2):
            t = pl.load(x, [0, c * 3000], [1, 3000])
            pl.store(t, [0, c * 3000], src)
        pld.tensor.put(dst, peer, src, [0, 0], [0, 0], [1, BIG])
        pld.system.notify(sig, peer, [0, 0], 1)
        pld.system.wait(sig, [0, 0], 1, cmp=pld.WaitCmp.Ge)
        for c in pl.range(2):
            u = pl.load(dst, [0, c * 3000], [1, 3000])
            y = pl.store(u, [0, c * 3000], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[1, BIG], pl.FP32], y: pl.Out[pl.Tensor[[1, BIG], pl.FP32]],
             src: pld.DistributedTensor[[1, BIG], pl.FP32], dst: pld.DistributedTensor[[1, BIG], pl.FP32],
             sig: pld.DistributedTensor[[1, 1], pl.INT32]) -> pl.Tensor[[1, BIG], pl.FP32]:
        y = self.k(x, y, src, dst, sig)
        return y


@pl.program
class LeadPut:
    """put / get of 3-D windows [2, 4, N] (leading dim > 1) and a region of them: put the whole window to
    (r+1)%W; get rows 1..2 of plane 1 from (r+1)%W into y2."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[2, 4, N], pl.FP32], y: pl.Out[pl.Tensor[[2, 4, N], pl.FP32]],
          y2: pl.Out[pl.Tensor[[1, 2, N], pl.FP32]],
          src: pld.DistributedTensor[[2, 4, N], pl.FP32], dst: pld.DistributedTensor[[2, 4, N], pl.FP32],
          sig: pld.DistributedTensor[[1, 1], pl.INT32]):
        ctx = pld.get_comm_ctx(src)
        w = pld.nranks(ctx)
        peer = (pld.rank(ctx) + 1) % w
        pld.tensor.put(src, pld.rank(ctx), x)
        pld.tensor.put(dst, peer, src)
        pld.system.notify(sig, peer, [0, 0], 1)
        pld.system.notify(sig, (pld.rank(ctx) + w - 1) % w, [0, 0], 1)
        pld.system.wait(sig, [0, 0], 2, cmp=pld.WaitCmp.Eq)
        pld.tensor.get(y, pld.rank(ctx), dst)
        pld.tensor.get(y2, peer, src, [0, 0, 0], [1, 1, 0], [1, 2, N])
        return y, y2

    @pl.function(type=pl.FunctionType.Orchestration)
    def chip(self, x: pl.Tensor[[2, 4, N], pl.FP32], y: pl.Out[pl.Tensor[[2, 4, N], pl.FP32]],
             y2: pl.Out[pl.Tensor[[1, 2, N], pl.FP32]],
             src: pld.DistributedTensor[[2, 4, N], pl.FP32], dst: pld.DistributedTensor[[2, 4, N], pl.FP32],
             sig: pld.DistributedTensor[[1, 1], pl.INT32]):
        y, y2 = self.k(x, y, y2, src, dst, sig)
        return y, y2


CHIPS = ["PutGet", "BigPut", "LeadPut"]


def host_private_signals(W):
    """Host collectives with the signal omitted (private signals allocated by ptokit when the call runs):
    allreduce mesh Sum, ring Sum and barrier twice (in a loop: each site's signal reused), allgather."""

    @pl.program
    class PrivateSignals:
        @pl.function(type=pl.FunctionType.InCore)
        def stage(self, x: pl.Tensor[[1, N], pl.FP32], w: pld.DistributedTensor[[1, N], pl.FP32]):
            pl.store(pl.load(x, [0, 0], [1, N]), [0, 0], w)

        @pl.function(type=pl.FunctionType.Orchestration)
        def put_in(self, x: pl.Tensor[[1, N], pl.FP32], w: pld.DistributedTensor[[1, N], pl.FP32]):
            self.stage(x, w)

        @pl.function(type=pl.FunctionType.InCore)
        def unstage(self, w: pld.DistributedTensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]]):
            y = pl.store(pl.load(w, [0, 0], [1, N]), [0, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def take_out(self, w: pld.DistributedTensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]]):
            y = self.unstage(w, y)
            return y

        @pl.function(type=pl.FunctionType.InCore)
        def next_k(self, w: pld.DistributedTensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]]):
            ctx = pld.get_comm_ctx(w)
            nxt = (pld.rank(ctx) + 1) % pld.nranks(ctx)
            y = pl.store(pld.tile.remote_load(w, nxt, [0, 0], [1, N]), [0, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def next_out(self, w: pld.DistributedTensor[[1, N], pl.FP32], y: pl.Out[pl.Tensor[[1, N], pl.FP32]]):
            y = self.next_k(w, y)
            return y

        @pl.function(type=pl.FunctionType.InCore)
        def rows_k(self, w: pld.DistributedTensor[[W, N], pl.FP32], y: pl.Out[pl.Tensor[[W, N], pl.FP32]]):
            y = pl.store(pl.load(w, [0, 0], [W, N]), [0, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def rows_out(self, w: pld.DistributedTensor[[W, N], pl.FP32], y: pl.Out[pl.Tensor[[W, N], pl.FP32]]):
            y = self.rows_k(w, y)
            return y

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def main(self, x: pl.Tensor[[W, 1, N], pl.FP32], s: pl.Out[pl.Tensor[[W, 1, N], pl.FP32]],
                 rg: pl.Out[pl.Tensor[[W, 1, N], pl.FP32]], nb: pl.Out[pl.Tensor[[W, 1, N], pl.FP32]],
                 g: pl.Out[pl.Tensor[[W, W, N], pl.FP32]]):
            b1 = pld.alloc_window_buffer([1, N], dtype=pl.FP32)
            b2 = pld.alloc_window_buffer([1, N], dtype=pl.FP32)
            b3 = pld.alloc_window_buffer([1, N], dtype=pl.FP32)
            b4 = pld.alloc_window_buffer([W, N], dtype=pl.FP32)
            mesh = pld.window(b1, [1, N], dtype=pl.FP32)
            ring = pld.window(b2, [1, N], dtype=pl.FP32)
            mine = pld.window(b3, [1, N], dtype=pl.FP32)
            gather = pld.window(b4, [W, N], dtype=pl.FP32)
            for r in pl.range(pld.world_size()):
                self.put_in(x[r], mesh, device=r)
                self.put_in(x[r], ring, device=r)
                self.put_in(x[r], mine, device=r)
            pld.tensor.allreduce(mesh, op=pld.ReduceOp.Sum)
            for k in pl.range(2):
                pld.tensor.allreduce(ring, mode="ring")      # one site, run twice: its signal is reused
                pld.tensor.barrier()
            pld.tensor.allgather(mine, gather)
            for r in pl.range(pld.world_size()):
                self.take_out(mesh, s[r], device=r)
                self.take_out(ring, rg[r], device=r)
                self.next_out(mine, nb[r], device=r)
                self.rows_out(gather, g[r], device=r)
    return PrivateSignals
