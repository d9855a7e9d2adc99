"""Step 05, tile-level remote memory access: a one-step ring shift behind a barrier.

  * ``pld.tile.remote_load(data, peer=p, offsets=[0, 0], shape=[1, SIZE])`` pulls rank p's slice
    of window ``data`` into a local tile;
  * ``pld.tile.remote_store(tile, data, peer=p, offsets=[0, 0])`` pushes a local tile into rank
    p's slice.
Only windows (``pld.DistributedTensor``) are visible to other ranks; x and y are plain tensors.
``--mode load`` (pull): stage x[r] into the window, barrier, load the next rank's slice:
y[r] = x[(r + 1) % N].  ``--mode store`` (push): store x[r] into the next rank's slice, barrier,
read the own slice, which the previous rank wrote: y[r] = x[(r - 1) % N].

    python examples/distributed/05_remote_load_store.py -p a2a3sim -d 0,1 --mode load
    python examples/distributed/05_remote_load_store.py -p a2a3sim -d 0,1 --mode store
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
def shift_by_load(x: pl.Tensor[[1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
                  data: pld.DistributedTensor[[1, SIZE], pl.FP32],
                  signal: pld.DistributedTensor[[N_RANKS, 1], pl.INT32]):
    ctx = pld.get_comm_ctx(data)
    peer = (pld.rank(ctx) + 1) % pld.nranks(ctx)
    data = pl.store(pl.load(x, [0, 0], [1, SIZE]), [0, 0], data)       # stage: RMA reads windows
    signal = pld.tensor.barrier(signal)                                # every rank has staged
    recv = pld.tile.remote_load(data, peer=peer, offsets=[0, 0], shape=[1, SIZE])
    y = pl.store(recv, [0, 0], y)
    return y


@pl.jit.incore
def shift_by_store(x: pl.Tensor[[1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
                   data: pld.DistributedTensor[[1, SIZE], pl.FP32],
                   signal: pld.DistributedTensor[[N_RANKS, 1], pl.INT32]):
    ctx = pld.get_comm_ctx(data)
    peer = (pld.rank(ctx) + 1) % pld.nranks(ctx)
    local = pl.load(x, [0, 0], [1, SIZE])
    pld.tile.remote_store(local, data, peer=peer, offsets=[0, 0])     # push into the next rank
    signal = pld.tensor.barrier(signal)                                # every push has landed
    back = pl.load(data, [0, 0], [1, SIZE])                            # rank r-1 wrote our slice
    y = pl.store(back, [0, 0], y)
    return y


@pl.jit
def per_rank_load(x: pl.Tensor[[1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
                  data: pld.DistributedTensor[[1, SIZE], pl.FP32],
                  signal: pld.DistributedTensor[[N_RANKS, 1], pl.INT32]):
    return shift_by_load(x, y, data, signal)


@pl.jit
def per_rank_store(x: pl.Tensor[[1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
                   data: pld.DistributedTensor[[1, SIZE], pl.FP32],
                   signal: pld.DistributedTensor[[N_RANKS, 1], pl.INT32]):
    return shift_by_store(x, y, data, signal)


@pl.jit.host
def shift_load(x: pl.Tensor[[N_RANKS, 1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[N_RANKS, 1, SIZE], pl.FP32]]):
    data_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    signal_buf = pld.alloc_window_buffer([N_RANKS, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        data = pld.window(data_buf, [1, SIZE], dtype=pl.FP32)
        signal = pld.window(signal_buf, [N_RANKS, 1], dtype=pl.INT32)
        per_rank_load(x[r], y[r], data, signal, device=r)


@pl.jit.host
def shift_store(x: pl.Tensor[[N_RANKS, 1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[N_RANKS, 1, SIZE], pl.FP32]]):
    data_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    signal_buf = pld.alloc_window_buffer([N_RANKS, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        data = pld.window(data_buf, [1, SIZE], dtype=pl.FP32)
        signal = pld.window(signal_buf, [N_RANKS, 1], dtype=pl.INT32)
        per_rank_store(x[r], y[r], data, signal, device=r)


def main() -> int:
    args = parser("05_remote_load_store", N_RANKS, modes=("load", "store")).parse_args()
    ids = device_ids(args, N_RANKS)
    xp = arrays(args)
    x = xp.asarray(np.random.default_rng(5).standard_normal((N_RANKS, 1, SIZE)), dtype=xp.float32)
    y = xp.zeros((N_RANKS, 1, SIZE), dtype=xp.float32)
    program = shift_load if args.mode == "load" else shift_store
    if not compile_and_run(args, program, (x, y), config(args, ids)):
        return 0
    step = 1 if args.mode == "load" else -1
    expected = xp.stack([x[(r + step) % N_RANKS] for r in range(N_RANKS)])
    assert xp.allclose(y, expected, rtol=1e-5, atol=1e-5), f"remote_{args.mode} mismatch: {y} vs {expected}"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
