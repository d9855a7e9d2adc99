"""The builtin chip programs of host collectives, written in the DSL (one program per op and
shape, made by the factories below; ``language/host_collectives.py`` picks and names them).

Every collective runs the reusable-signal protocol of the spec (distributed.md, section 1.4):
round ``g`` adds 1 to this rank's cell (row ``r``) in every peer's signal, then waits until
every peer's cell in its own signal is ``>= g``; at the end it adds ``-rounds`` to each non-self
cell of its own signal, which reads zero again.  Round 1 makes sure every rank's data is in its
window (dispatches before the collective have finished); round 2 that every rank has read what
it needs before any rank's later dispatches change its window.  Reductions fold in rank order
(``((x0 op x1) op x2) ...``) in the element dtype, so every rank holds identical bits.

No ``from __future__ import annotations`` here: the kernels' annotations name the factories'
arguments, so they must be evaluated when each class is made.
"""

import ptokit.language as pl
import ptokit.language.distributed as pld

_COMBINE = {"Sum": pl.add, "Max": pl.maximum, "Min": pl.minimum, "Prod": pl.mul}


def barrier_program(w_rows: int):
    SR = w_rows

    @pl.program
    class Barrier:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, signal: pld.DistributedTensor[[SR, 1], pl.INT32]):
            ctx = pld.get_comm_ctx(signal)
            r = pld.rank(ctx)
            w = pld.nranks(ctx)
            for p in pl.range(w):
                if p != r:
                    pld.system.notify(signal, p, [r, 0], 1, op=pld.NotifyOp.AtomicAdd)
            for p in pl.range(w):
                if p != r:
                    pld.system.wait(signal, [p, 0], 1, cmp=pld.WaitCmp.Ge)
            for p in pl.range(w):
                if p != r:
                    pld.system.notify(signal, r, [p, 0], -1, op=pld.NotifyOp.AtomicAdd)

        @pl.function(type=pl.FunctionType.Orchestration)
        def chip(self, signal: pld.DistributedTensor[[SR, 1], pl.INT32]):
            self.kernel(signal)
    return Barrier


def allreduce_program(n: int, dtype, op: str, w_rows: int):
    SR, NN, DT = w_rows, n, dtype
    combine = _COMBINE[op]

    @pl.program
    class AllReduce:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, target: pld.DistributedTensor[[1, NN], DT], signal: pld.DistributedTensor[[SR, 1], pl.INT32]):
            ctx = pld.get_comm_ctx(signal)
            r = pld.rank(ctx)
            w = pld.nranks(ctx)
            for p in pl.range(w):
                if p != r:
                    pld.system.notify(signal, p, [r, 0], 1, op=pld.NotifyOp.AtomicAdd)
            for p in pl.range(w):
                if p != r:
                    pld.system.wait(signal, [p, 0], 1, cmp=pld.WaitCmp.Ge)
            acc = pld.tile.remote_load(target, 0, [0, 0], [1, NN])
            for s in pl.range(1, w):
                t = pld.tile.remote_load(target, s, [0, 0], [1, NN])
                acc = combine(acc, t)
            for p in pl.range(w):
                if p != r:
                    pld.system.notify(signal, p, [r, 0], 1, op=pld.NotifyOp.AtomicAdd)
            for p in pl.range(w):
                if p != r:
                    pld.system.wait(signal, [p, 0], 2, cmp=pld.WaitCmp.Ge)
            pl.store(acc, [0, 0], target)
            for p in pl.range(w):
                if p != r:
                    pld.system.notify(signal, r, [p, 0], -2, op=pld.NotifyOp.AtomicAdd)

        @pl.function(type=pl.FunctionType.Orchestration)
        def chip(self, target: pld.DistributedTensor[[1, NN], DT], signal: pld.DistributedTensor[[SR, 1], pl.INT32]):
            self.kernel(target, signal)
    return AllReduce


def allgather_program(n: int, dtype, w_rows: int, t_rows: int):
    SR, NN, DT, TR = w_rows, n, dtype, t_rows

    @pl.program
    class AllGather:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, local: pld.DistributedTensor[[1, NN], DT], target: pld.DistributedTensor[[TR, NN], DT],
                   signal: pld.DistributedTensor[[SR, 1], pl.INT32]):
            ctx = pld.get_comm_ctx(signal)
            r = pld.rank(ctx)
            w = pld.nranks(ctx)
            for p in pl.range(w):
                if p != r:
                    pld.system.notify(signal, p, [r, 0], 1, op=pld.NotifyOp.AtomicAdd)
            for p in pl.range(w):
                if p != r:
                    pld.system.wait(signal, [p, 0], 1, cmp=pld.WaitCmp.Ge)
            for s in pl.range(w):
                t = pld.tile.remote_load(local, s, [0, 0], [1, NN])
                pl.store(t, [s, 0], target)
            for p in pl.range(w):
                if p != r:
                    pld.system.notify(signal, p, [r, 0], 1, op=pld.NotifyOp.AtomicAdd)
            for p in pl.range(w):
                if p != r:
                    pld.system.wait(signal, [p, 0], 2, cmp=pld.WaitCmp.Ge)
            for p in pl.range(w):
                if p != r:
                    pld.system.notify(signal, r, [p, 0], -2, op=pld.NotifyOp.AtomicAdd)

        @pl.function(type=pl.FunctionType.Orchestration)
        def chip(self, local: pld.DistributedTensor[[1, NN], DT], target: pld.DistributedTensor[[TR, NN], DT],
                 signal: pld.DistributedTensor[[SR, 1], pl.INT32]):
            self.kernel(local, target, signal)
    return AllGather


def broadcast_program(n: int, dtype, w_rows: int):
    SR, NN, DT = w_rows, n, dtype

    @pl.program
    class Broadcast:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, target: pld.DistributedTensor[[1, NN], DT], signal: pld.DistributedTensor[[SR, 1], pl.INT32],
                   root: pl.Scalar[pl.INT64]):
            ctx = pld.get_comm_ctx(signal)
            r = pld.rank(ctx)
            w = pld.nranks(ctx)
            for p in pl.range(w):
                if p != r:
                    pld.system.notify(signal, p, [r, 0], 1, op=pld.NotifyOp.AtomicAdd)
            for p in pl.range(w):
                if p != r:
                    pld.system.wait(signal, [p, 0], 1, cmp=pld.WaitCmp.Ge)
            t = pld.tile.remote_load(target, root, [0, 0], [1, NN])
            for p in pl.range(w):
                if p != r:
                    pld.system.notify(signal, p, [r, 0], 1, op=pld.NotifyOp.AtomicAdd)
            for p in pl.range(w):
                if p != r:
                    pld.system.wait(signal, [p, 0], 2, cmp=pld.WaitCmp.Ge)
            pl.store(t, [0, 0], target)
            for p in pl.range(w):
                if p != r:
                    pld.system.notify(signal, r, [p, 0], -2, op=pld.NotifyOp.AtomicAdd)

        @pl.function(type=pl.FunctionType.Orchestration)
        def chip(self, target: pld.DistributedTensor[[1, NN], DT], signal: pld.DistributedTensor[[SR, 1], pl.INT32],
                 root: pl.Scalar[pl.INT64]):
            self.kernel(target, signal, root)
    return Broadcast


def reduce_scatter_program(n: int, dtype, w_rows: int, t_rows: int):
    """``target [W, n]``: row r on rank r becomes the Sum over ranks of their row r."""
    SR, NN, DT, TR = w_rows, n, dtype, t_rows

    @pl.program
    class ReduceScatter:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, target: pld.DistributedTensor[[TR, NN], DT], signal: pld.DistributedTensor[[SR, 1], pl.INT32]):
            ctx = pld.get_comm_ctx(signal)
            r = pld.rank(ctx)
            w = pld.nranks(ctx)
            for p in pl.range(w):
                if p != r:
                    pld.system.notify(signal, p, [r, 0], 1, op=pld.NotifyOp.AtomicAdd)
            for p in pl.range(w):
                if p != r:
                    pld.system.wait(signal, [p, 0], 1, cmp=pld.WaitCmp.Ge)
            acc = pld.tile.remote_load(target, 0, [r, 0], [1, NN])
            for s in pl.range(1, w):
                t = pld.tile.remote_load(target, s, [r, 0], [1, NN])
                acc = pl.add(acc, t)
            for p in pl.range(w):
                if p != r:
                    pld.system.notify(signal, p, [r, 0], 1, op=pld.NotifyOp.AtomicAdd)
            for p in pl.range(w):
                if p != r:
                    pld.system.wait(signal, [p, 0], 2, cmp=pld.WaitCmp.Ge)
            pl.store(acc, [r, 0], target)
            for p in pl.range(w):
                if p != r:
                    pld.system.notify(signal, r, [p, 0], -2, op=pld.NotifyOp.AtomicAdd)

        @pl.function(type=pl.FunctionType.Orchestration)
        def chip(self, target: pld.DistributedTensor[[TR, NN], DT], signal: pld.DistributedTensor[[SR, 1], pl.INT32]):
            self.kernel(target, signal)
    return ReduceScatter


def all_to_all_program(n: int, dtype, w_rows: int, t_rows: int):
    """``input``, ``target`` ``[W, n]``: target[s] on rank r becomes rank s's input[r]."""
    SR, NN, DT, TR = w_rows, n, dtype, t_rows

    @pl.program
    class AllToAll:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, src: pld.DistributedTensor[[TR, NN], DT], target: pld.DistributedTensor[[TR, NN], DT],
                   signal: pld.DistributedTensor[[SR, 1], pl.INT32]):
            ctx = pld.get_comm_ctx(signal)
            r = pld.rank(ctx)
            w = pld.nranks(ctx)
            for p in pl.range(w):
                if p != r:
                    pld.system.notify(signal, p, [r, 0], 1, op=pld.NotifyOp.AtomicAdd)
            for p in pl.range(w):
                if p != r:
                    pld.system.wait(signal, [p, 0], 1, cmp=pld.WaitCmp.Ge)
            for s in pl.range(w):
                t = pld.tile.remote_load(src, s, [r, 0], [1, NN])
                pl.store(t, [s, 0], target)
            for p in pl.range(w):
                if p != r:
                    pld.system.notify(signal, p, [r, 0], 1, op=pld.NotifyOp.AtomicAdd)
            for p in pl.range(w):
                if p != r:
                    pld.system.wait(signal, [p, 0], 2, cmp=pld.WaitCmp.Ge)
            for p in pl.range(w):
                if p != r:
                    pld.system.notify(signal, r, [p, 0], -2, op=pld.NotifyOp.AtomicAdd)

        @pl.function(type=pl.FunctionType.Orchestration)
        def chip(self, src: pld.DistributedTensor[[TR, NN], DT], target: pld.DistributedTensor[[TR, NN], DT],
                 signal: pld.DistributedTensor[[SR, 1], pl.INT32]):
            self.kernel(src, target, signal)
    return AllToAll
