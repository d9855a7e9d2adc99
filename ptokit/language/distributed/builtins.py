"""The builtin chip programs of host collectives, written in the DSL (one program per op and
shape, made by the factories below; ``language/host_collectives.py`` picks and names them).

Each is one kernel calling the kernel-level collective of the same name (``pld.tensor.*``, the
composites of ``ir/ops/comm.py``): the reusable-signal protocol of the spec (distributed.md,
section 1.4) unrolled over the static [W, 1] signal, data in pieces of at most 16 KiB, reductions
folded in rank order, the signal zero again at the end.  Its first round makes sure every rank's
data is in its window (dispatches before the collective have finished), its last that every rank
has read what it needs before any rank's later dispatches change its window.

No ``from __future__ import annotations`` here: the kernels' annotations name the factories'
arguments, so they must be evaluated when each class is made.
"""

import ptokit.language as pl
import ptokit.language.distributed as pld

_OPS = {"Sum": pld.ReduceOp.Sum, "Max": pld.ReduceOp.Max, "Min": pld.ReduceOp.Min, "Prod": pld.ReduceOp.Prod}


def barrier_program(w_rows: int):
    SR = w_rows

    @pl.program
    class Barrier:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, signal: pld.DistributedTensor[[SR, 1], pl.INT32]):
            pld.tensor.barrier(signal)

        @pl.function(type=pl.FunctionType.Orchestration)
        def chip(self, signal: pld.DistributedTensor[[SR, 1], pl.INT32]):
            self.kernel(signal)
    return Barrier


def allreduce_program(n: int, dtype, op: str, w_rows: int, mode: str = "mesh"):
    """mesh: signal [W, 1]; ring: signal [2(W-1)+1, W] (``w_rows`` is W)."""
    NN, DT, OP, MODE = n, dtype, _OPS[op], mode
    SIG = [w_rows, 1] if mode == "mesh" else [2 * (w_rows - 1) + 1, w_rows]

    @pl.program
    class AllReduce:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, target: pld.DistributedTensor[[1, NN], DT], signal: pld.DistributedTensor[SIG, pl.INT32]):
            pld.tensor.allreduce(target, signal, op=OP, mode=MODE)

        @pl.function(type=pl.FunctionType.Orchestration)
        def chip(self, target: pld.DistributedTensor[[1, NN], DT], signal: pld.DistributedTensor[SIG, pl.INT32]):
            self.kernel(target, signal)
    return AllReduce


def allgather_program(n: int, dtype, w_rows: int, t_rows: int):
    SR, NN, DT, TR = w_rows, n, dtype, t_rows

    @pl.program
    class AllGather:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, local: pld.DistributedTensor[[1, NN], DT], target: pld.DistributedTensor[[TR, NN], DT],
                   signal: pld.DistributedTensor[[SR, 1], pl.INT32]):
            pld.tensor.allgather(local, target, signal)

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
            pld.tensor.broadcast(target, signal, root=root)

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
            pld.tensor.reduce_scatter(target, signal, op=pld.ReduceOp.Sum)

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
            pld.tensor.all_to_all(src, target, signal)

        @pl.function(type=pl.FunctionType.Orchestration)
        def chip(self, src: pld.DistributedTensor[[TR, NN], DT], target: pld.DistributedTensor[[TR, NN], DT],
                 signal: pld.DistributedTensor[[SR, 1], pl.INT32]):
            self.kernel(src, target, signal)
    return AllToAll
