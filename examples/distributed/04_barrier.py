"""Step 04, signals only: a barrier for one rendezvous built from notify / wait.

  * ``pld.system.notify(signal, peer=p, offsets=[my_rank, 0], value=1, op=NotifyOp.AtomicAdd)``
    adds 1 to this rank's row of peer p's signal window; AtomicAdd, because several ranks may
    write one cell;
  * ``pld.system.wait(signal, offsets=[p, 0], expected=1, cmp=WaitCmp.Ge)`` blocks until peer p
    has arrived (bounded by the run's timeout);
  * ``pld.rank(ctx)`` / ``pld.nranks(ctx)`` come from ``pld.get_comm_ctx(window)``.
By default every rank notifies every peer and waits on every peer; rank r's signal then holds 1
in every row but its own, which the kernel copies out: y[r, i, 0] = 0 if i == r else 1 (exact).
Counters only grow: a second rendezvous on the same window would need a reset or higher targets.

``--use-builtin`` reveals ``pld.tensor.barrier(signal)``: one call, reusable (the signal reads
zero afterwards), so the proof is data instead: stage x[r], barrier, remote_load the next rank's
slice: y[r] = x[(r + 1) % N], which holds only because the barrier ordered load after store.

    python examples/distributed/04_barrier.py -p a2a3sim -d 0,1
    python examples/distributed/04_barrier.py -p a2a3sim -d 0,1 --use-builtin
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

import ptokit.language as pl  # noqa: E402
import ptokit.language.distributed as pld  # noqa: E402
from _common import arrays, compile_and_run, config, device_ids, parser  # noqa: E402

N_RANKS = 2
SIZE = 64


@pl.jit.incore
def barrier_by_hand(y: pl.Out[pl.Tensor[[N_RANKS, 1], pl.INT32]],
                    signal: pld.DistributedTensor[[N_RANKS, 1], pl.INT32]):
    ctx = pld.get_comm_ctx(signal)
    my_rank = pld.rank(ctx)
    for peer in pl.range(N_RANKS):
        if peer != my_rank:
            pld.system.notify(signal, peer=peer, offsets=[my_rank, 0], value=1, op=pld.NotifyOp.AtomicAdd)
    for src in pl.range(N_RANKS):
        if src != my_rank:
            pld.system.wait(signal, offsets=[src, 0], expected=1, cmp=pld.WaitCmp.Ge)
    for i in pl.range(N_RANKS):                     # the signal's rows, cell by cell
        pl.write(y, [i, 0], pl.read(signal, [i, 0]))
    return y


@pl.jit.incore
def barrier_builtin(x: pl.Tensor[[1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
                    data: pld.DistributedTensor[[1, SIZE], pl.FP32],
                    signal: pld.DistributedTensor[[N_RANKS, 1], pl.INT32]):
    ctx = pld.get_comm_ctx(data)
    peer = (pld.rank(ctx) + 1) % pld.nranks(ctx)
    data = pl.store(pl.load(x, [0, 0], [1, SIZE]), [0, 0], data)
    signal = pld.tensor.barrier(signal)
    recv = pld.tile.remote_load(data, peer=peer, offsets=[0, 0], shape=[1, SIZE])
    y = pl.store(recv, [0, 0], y)
    return y


@pl.jit
def per_rank_hand(y: pl.Out[pl.Tensor[[N_RANKS, 1], pl.INT32]],
                  signal: pld.DistributedTensor[[N_RANKS, 1], pl.INT32]):
    return barrier_by_hand(y, signal)


@pl.jit
def per_rank_builtin(x: pl.Tensor[[1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
                     data: pld.DistributedTensor[[1, SIZE], pl.FP32],
                     signal: pld.DistributedTensor[[N_RANKS, 1], pl.INT32]):
    return barrier_builtin(x, y, data, signal)


@pl.jit.host
def barrier_program_hand(y: pl.Out[pl.Tensor[[N_RANKS, N_RANKS, 1], pl.INT32]]):
    signal_buf = pld.alloc_window_buffer([N_RANKS, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        signal = pld.window(signal_buf, [N_RANKS, 1], dtype=pl.INT32)
        per_rank_hand(y[r], signal, device=r)


@pl.jit.host
def barrier_program_builtin(x: pl.Tensor[[N_RANKS, 1, SIZE], pl.FP32],
                            y: pl.Out[pl.Tensor[[N_RANKS, 1, SIZE], pl.FP32]]):
    data_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    signal_buf = pld.alloc_window_buffer([N_RANKS, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        data = pld.window(data_buf, [1, SIZE], dtype=pl.FP32)
        signal = pld.window(signal_buf, [N_RANKS, 1], dtype=pl.INT32)
        per_rank_builtin(x[r], y[r], data, signal, device=r)


def main() -> int:
    args = parser("04_barrier", N_RANKS, builtin=True).parse_args()
    ids = device_ids(args, N_RANKS)
    xp = arrays(args)
    if args.use_builtin:
        x = xp.asarray(np.random.default_rng(4).standard_normal((N_RANKS, 1, SIZE)), dtype=xp.float32)
        y = xp.zeros((N_RANKS, 1, SIZE), dtype=xp.float32)
        if not compile_and_run(args, barrier_program_builtin, (x, y), config(args, ids)):
            return 0
        expected = xp.stack([x[(r + 1) % N_RANKS] for r in range(N_RANKS)])
        assert xp.allclose(y, expected, rtol=1e-5, atol=1e-5), f"barrier (builtin) mismatch: {y} vs {expected}"
    else:
        y = xp.zeros((N_RANKS, N_RANKS, 1), dtype=xp.int32)
        if not compile_and_run(args, barrier_program_hand, (y,), config(args, ids)):
            return 0
        expected = np.array([[[0 if i == r else 1] for i in range(N_RANKS)] for r in range(N_RANKS)], np.int32)
        assert (np.asarray(y) == expected).all(), f"barrier mismatch: got {y.tolist()} expected {expected.tolist()}"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
