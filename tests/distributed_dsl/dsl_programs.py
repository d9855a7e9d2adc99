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
CHIPS = ["PutGet"]


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
