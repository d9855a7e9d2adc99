"""pypto's function form of a distributed program (@pl.jit.host / @pl.jit / @pl.jit.incore)."""
import ptokit.language as pl
import ptokit.language.distributed as pld

SIZE = 64
NR = pl.dynamic("NR")


@pl.jit.incore
def get_step(x: pl.Tensor[[1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
             src: pld.DistributedTensor[[1, SIZE], pl.FP32], dst: pld.DistributedTensor[[1, SIZE], pl.FP32],
             signal: pld.DistributedTensor[[1, 1], pl.INT32]):
    ctx = pld.get_comm_ctx(src)
    w = pld.nranks(ctx)
    peer = (pld.rank(ctx) + 1) % w
    local = pl.load(x, [0, 0], [1, SIZE])
    src = pl.store(local, [0, 0], src)
    # tell the rank that reads from us that our src is staged; wait for the rank we read from
    pld.system.notify(signal, peer=(pld.rank(ctx) + w - 1) % w, offsets=[0, 0], value=1, op=pld.NotifyOp.AtomicAdd)
    pld.system.wait(signal, offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)
    pld.tensor.get(dst, peer=peer, src=src)
    recv = pl.load(dst, [0, 0], [1, SIZE])
    y = pl.store(recv, [0, 0], y)
    return y


@pl.jit
def per_rank_get(x: pl.Tensor[[1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]],
                 src: pld.DistributedTensor[[1, SIZE], pl.FP32], dst: pld.DistributedTensor[[1, SIZE], pl.FP32],
                 signal: pld.DistributedTensor[[1, 1], pl.INT32]):
    return get_step(x, y, src, dst, signal)


@pl.jit.host
def ring_get(x: pl.Tensor[[NR, 1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]]):
    src_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    dst_buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    signal_buf = pld.alloc_window_buffer([1, 1], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        src = pld.window(src_buf, [1, SIZE], dtype=pl.FP32)
        dst = pld.window(dst_buf, [1, SIZE], dtype=pl.FP32)
        signal = pld.window(signal_buf, [1, 1], dtype=pl.INT32)
        per_rank_get(x[r], y[r], src, dst, signal, device=r)


@pl.jit.incore
def stage_w(x: pl.Tensor[[1, SIZE], pl.FP32], w: pld.DistributedTensor[[1, SIZE], pl.FP32]):
    pl.store(pl.load(x, [0, 0], [1, SIZE]), [0, 0], w)


@pl.jit
def put_w(x: pl.Tensor[[1, SIZE], pl.FP32], w: pld.DistributedTensor[[1, SIZE], pl.FP32]):
    stage_w(x, w)


@pl.jit.incore
def unstage_w(w: pld.DistributedTensor[[1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]]):
    y = pl.store(pl.load(w, [0, 0], [1, SIZE]), [0, 0], y)
    return y


@pl.jit
def take_w(w: pld.DistributedTensor[[1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[1, SIZE], pl.FP32]]):
    return unstage_w(w, y)


@pl.jit.host
def allreduce_no_signal(x: pl.Tensor[[NR, 1, SIZE], pl.FP32], y: pl.Out[pl.Tensor[[NR, 1, SIZE], pl.FP32]]):
    """The function form of a host allreduce with its signal omitted (a private signal ptokit makes)."""
    buf = pld.alloc_window_buffer([1, SIZE], dtype=pl.FP32)
    w = pld.window(buf, [1, SIZE], dtype=pl.FP32)
    for r in pl.range(pld.world_size()):
        put_w(x[r], w, device=r)
    pld.tensor.allreduce(w)
    for r in pl.range(pld.world_size()):
        take_w(w, y[r], device=r)
