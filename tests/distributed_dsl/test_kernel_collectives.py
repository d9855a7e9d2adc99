"""Kernel-level collectives (pld.tensor.* in kernel code, the spec's feature checks 5-10 in K form) at
W = 2 and 4, against numpy; the reusable signal reads zero afterwards."""
import numpy as np
import pytest

import ptokit
import ptokit.language as pl
import ptokit.language.distributed as pld
from dist_util import my_segments
from ptokit.runtime import RunConfig
from kernel_collectives import N, host_allreduce, kernel_allreduce, kernel_collectives


def _cfg(w):
    return ptokit.DistributedConfig(device_ids=list(range(w)))


@pytest.fixture(scope="module", params=[2, 4], ids=lambda w: f"W{w}")
def world(request):
    return request.param


def _fold(x):
    out = x[0].copy()
    for k in range(1, len(x)):
        out = out + x[k]                      # numpy's rank-order fold, in the element dtype
    return out


def test_kernel_collectives(world, tmp_path):
    w = world
    c = ptokit.compile(kernel_collectives(w), output_dir=tmp_path / "kc", distributed_config=_cfg(w))
    x = (np.arange(N)[None, None, :] + 100.0 * np.arange(w)[:, None, None]).astype(np.float32)
    r_, d_, j_ = np.meshgrid(np.arange(w), np.arange(w), np.arange(N), indexing="ij")
    xa = (1000.0 * r_ + 100.0 * d_ + j_).astype(np.float32)            # all_to_all input on rank r: [d, j]
    xr = (np.arange(w * N)[None, None, :] + 1000.0 * np.arange(w)[:, None, None]).astype(np.float32)
    before = set(my_segments())
    first = None
    for root in (0, w - 1):
        outs = [np.full((w, 1, N), 5, np.float32) for _ in range(5)]
        outs += [np.zeros((w, w, N), np.float32) for _ in range(3)] + [np.full((w, 1, w), 7, np.int32)]
        c(x, xa, xr, *outs, root)
        first = first or [o.tobytes() for o in outs]
        ys, ym, yn, yb, yk, yg, yt, yr, z = outs
        for r in range(w):
            assert np.array_equal(ys[r], _fold(x)), "allreduce Sum: the rank-order fold, bit-exact on every rank"
        np.testing.assert_array_equal(ym, np.broadcast_to(x.max(axis=0), x.shape))
        np.testing.assert_array_equal(yn, np.broadcast_to(x.min(axis=0), x.shape))
        np.testing.assert_array_equal(yb, np.broadcast_to(x[root], x.shape))          # non-roots stored -1 first
        nxt = np.roll(x, -1, axis=0)
        np.testing.assert_array_equal(yk, nxt + (nxt + 1) + (nxt + 2))                # check 5: sum_k x[r+1] + k
        np.testing.assert_array_equal(yg, np.broadcast_to(x[:, 0, :], (w, w, N)))     # allgather
        np.testing.assert_array_equal(yt, 1000.0 * d_ + 100.0 * r_ + j_)             # all_to_all: [s, j] on r
        for r in range(w):                                                             # reduce_scatter: row r
            np.testing.assert_array_equal(yr[r, r], _fold(xr[:, 0, N * r:N * (r + 1)]))
        np.testing.assert_array_equal(z, 0)          # the reusable signal reads zero after 12 collectives
    # section 4.3: the same bits again, with 1 and 4 clusters, on both runtime kinds
    for cfg in (RunConfig(clusters=1, runtime="host_build_graph"), RunConfig(clusters=4)):
        outs = [np.zeros((w, 1, N), np.float32) for _ in range(5)]
        outs += [np.zeros((w, w, N), np.float32) for _ in range(3)] + [np.zeros((w, 1, w), np.int32)]
        c(x, xa, xr, *outs, 0, config=cfg)
        assert [o.tobytes() for o in outs] == first, cfg
    assert set(my_segments()) <= before


@pytest.mark.parametrize("form,n", [("K", 1), ("K", 17), ("K", 4097), ("H", 17), ("H", 4097)])
def test_allreduce_lengths_bit_exact(world, form, n, tmp_path):
    """Tails shorter than 32 bytes and rows over one 16 KiB piece; random inputs; bit-exact; kernel and
    host forms."""
    w = world
    factory = kernel_allreduce if form == "K" else host_allreduce
    c = ptokit.compile(factory(w, n, pl.FP32, pld.ReduceOp.Sum), output_dir=tmp_path / "t",
                       distributed_config=_cfg(w))
    x = np.random.default_rng(n + w).standard_normal((w, 1, n)).astype(np.float32)
    y = np.zeros_like(x)
    c(x, y)
    for r in range(w):
        assert np.array_equal(y[r], _fold(x))


@pytest.mark.parametrize("form", ["K", "H"])
def test_allreduce_min_prod_and_fp16_sum(world, form, tmp_path):
    w = world
    factory = kernel_allreduce if form == "K" else host_allreduce
    r_, j_ = np.meshgrid(np.arange(w), np.arange(N), indexing="ij")
    x = (1 + r_ / 8 + (j_ % 5) / 16).astype(np.float32)[:, None, :]
    c = ptokit.compile(factory(w, N, pl.FP32, pld.ReduceOp.Prod), output_dir=tmp_path / "p",
                       distributed_config=_cfg(w))
    y = np.zeros_like(x)
    c(x, y)
    np.testing.assert_allclose(y, np.broadcast_to(x.prod(axis=0), x.shape), rtol=1e-3)
    h = np.random.default_rng(w).standard_normal((w, 1, N)).astype(np.float16)
    c = ptokit.compile(factory(w, N, pl.FP16, pld.ReduceOp.Sum), output_dir=tmp_path / "h",
                       distributed_config=_cfg(w))
    y = np.zeros_like(h)
    c(h, y)
    np.testing.assert_allclose(y.astype(np.float32), np.broadcast_to(h.astype(np.float32).sum(axis=0), h.shape),
                               rtol=1e-3, atol=1e-2)
    if form == "H":
        c = ptokit.compile(factory(w, N, pl.FP32, pld.ReduceOp.Min), output_dir=tmp_path / "m",
                           distributed_config=_cfg(w))
        y = np.zeros_like(x)
        c(x, y)
        np.testing.assert_array_equal(y, np.broadcast_to(x.min(axis=0), x.shape))


@pytest.mark.parametrize("form", ["K", "H"])
def test_allreduce_ring_sum(world, form, tmp_path):
    """mode='ring' (signal [2(W-1), W] in a kernel, [2(W-1)+1, W] in a host function): the Sum within
    1e-5, identical bits on every rank and on a second run."""
    w = world
    factory = kernel_allreduce if form == "K" else host_allreduce
    c = ptokit.compile(factory(w, 256, pl.FP32, pld.ReduceOp.Sum, "ring"), output_dir=tmp_path / "r",
                       distributed_config=_cfg(w))
    x = np.random.default_rng(10 + w).standard_normal((w, 1, 256)).astype(np.float32)
    y, y2 = np.zeros_like(x), np.zeros_like(x)
    c(x, y)
    c(x, y2)
    np.testing.assert_allclose(y, np.broadcast_to(x.sum(axis=0), x.shape), rtol=1e-5, atol=1e-5)
    assert all(np.array_equal(y[0], y[r]) for r in range(w)) and np.array_equal(y, y2)


def test_notify_and_wait(world, tmp_path):
    """Checks 3 and 4 in the DSL: AtomicAdd rows, Set, wait Eq then Ge."""
    from kernel_collectives import notify_wait
    w = world
    c = ptokit.compile(notify_wait(w), output_dir=tmp_path / "nw", distributed_config=_cfg(w))
    z = np.full((w, 1, w), 7, np.int32)
    c(z, 0)
    np.testing.assert_array_equal(z[:, 0, :], 1 - np.eye(w, dtype=np.int32))      # 1 everywhere but row r
    c(z, 1)
    np.testing.assert_array_equal(z[:, 0, 0], [(r - 1) % w + 1 for r in range(w)])  # W=4: [4, 1, 2, 3]
    c(z, 2)
    total = w * (w + 1) // 2
    np.testing.assert_array_equal(z[1:, 0, 1], total)                              # 3 (W=2), 10 (W=4)
    assert z[0, 0, 0] == total
