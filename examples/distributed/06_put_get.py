"""Step 06, tensor-level point to point: put (push) and get (pull).

  * ``pld.tensor.put(dst, peer=p, src=src)`` copies the local ``src`` into rank p's window ``dst``
    and returns when the data landed (the sender initiates);
  * ``pld.tensor.get(dst, peer=p, src=src)`` copies rank p's window ``src`` into the local ``dst``
    (the receiver initiates).
Both are staged through tiles of at most 16 KiB, whole tensors or regions (dst_offsets,
src_offsets, shape).  ``--mode put``: stage, put into the next rank, notify it, wait for the
previous rank's notify, read the own dst: y[r] = x[(r - 1) % N].  ``--mode get``: stage, notify
the previous rank that our src is ready, wait for the next rank's, get its src:
y[r] = x[(r + 1) % N].

    python examples/distributed/06_put_get.py -p a2a3sim -d 0,1 --mode put
    python examples/distributed/06_put_get.py -p a2a3sim -d 0,1 --mode get
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
def put_step(x: pl.Tensor[[1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
             src: pld.DistributedTensor[[1, SIZE], pl.FP32], dst: pld.DistributedTensor[[1, SIZE], pl.FP32],
             signal: pld.DistributedTensor[[1, 1], pl.INT32]):
    ctx = pld.get_comm_ctx(src)
    peer = (pld.rank(ctx) + 1) % pld.nranks(ctx)
    src = pl.store(pl.load(x, [0, 0], [1, SIZE]), [0, 0], src)
    pld.tensor.put(dst, peer=peer, src=src, atomic=pld.AtomicType.None_)
    pld.system.notify(signal, peer=peer, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
    pld.system.wait(signal, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)    # rank r-1 has put
    y = pl.store(pl.load(dst, [0, 0], [1, SIZE]), [0, 0], y)
    return y


@pl.jit.incore
def get_step(x: pl.Tensor[[1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
             src: pld.DistributedTensor[[1, SIZE], pl.FP32], dst: pld.DistributedTensor[[1, SIZE], pl.FP32],
             signal: pld.DistributedTensor[[1, 1], pl.INT32]):
    ctx = pld.get_comm_ctx(src)
    w = pld.nranks(ctx)
    peer = (pld.rank(ctx) + 1) % w
    src = pl.store(pl.load(x, [0, 0], [1, SIZE]), [0, 0], src)
    pld.system.notify(signal, peer=(pld.rank(ctx) + w - 1) % w, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
    pld.system.wait(signal, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)    # rank r+1 has staged
    pld.tensor.get(dst, peer=peer, src=src)
    y = pl.store(pl.load(dst, [0, 0], [1, SIZE]), [0, 0], y)
    return y


@pl.jit
def per_rank_put(x: pl.Tensor[[1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
                 src: pld.DistributedTensor[[1, SIZE], pl.FP32], dst: pld.DistributedTensor[[1, SIZE], pl.FP32],
                 signal: pld.DistributedTensor[[1, 1], pl.INT32]):
    return put_step(x, y, src, dst, signal)


@pl.jit
def per_rank_get(x: pl.Tensor[[1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
                 src: pld.DistributedTensor[[1, SIZE], pl.FP32], dst: pld.DistributedTensor[[1, SIZE], pl.FP32],
                 signal: pld.DistributedTensor[[1, 1], pl.INT32]):
    return get_step(x, y, src, dst, signal)


@pl.jit.host
def ring_put(x: pl.Tensor[[N_RANKS, 1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[N_RANKS, 1, SIZE], pl.FP32]]):
    src_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    dst_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    signal_buf = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        src = pld.window(src_buf, [1, SIZE], dtype=pl.FP32)
        dst = pld.window(dst_buf, [1, SIZE], dtype=pl.FP32)
        signal = pld.window(signal_buf, [1, 1], dtype=pl.INT32)
        per_rank_put(x[r], y[r], src, dst, signal, device=r)


@pl.jit.host
def ring_get(x: pl.Tensor[[N_RANKS, 1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[N_RANKS, 1, SIZE], pl.FP32]]):
    src_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    dst_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    signal_buf = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        src = pld.window(src_buf, [1, SIZE], dtype=pl.FP32)
        dst = pld.window(dst_buf, [1, SIZE], dtype=pl.FP32)
        signal = pld.window(signal_buf, [1, 1], dtype=pl.INT32)
        per_rank_get(x[r], y[r], src, dst, signal, device=r)


def main() -> int:
    args = parser("06_put_get", N_RANKS, modes=("put", "get")).parse_args()
    ids = device_ids(args, N_RANKS)
    xp = arrays(args)
    x = xp.asarray(np.random.default_rng(6).standard_normal((N_RANKS, 1, SIZE)), dtype=xp.float32)
    y = xp.zeros((N_RANKS, 1, SIZE), dtype=xp.float32)
    program = ring_get if args.mode == "get" else ring_put
    if not compile_and_run(args, program, (x, y), config(args, ids)):
        return 0
    step = 1 if args.mode == "get" else -1
    expected = xp.stack([x[(r + step) % N_RANKS] for r in range(N_RANKS)])
    assert xp.allclose(y, expected, rtol=1e-5, atol=1e-5), f"{args.mode} mismatch: {y} vs {expected}"
    print("OK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
