"""The communication primitives end to end on W = 2 and 4 ranks of 2 clusters: hand-written
chip trees (tile-library C++ kernels) driven by host programs through the parent's ``rt``.
Every result is checked against numpy, bit for bit."""
from __future__ import annotations

import numpy as np

from dist_util import my_segments


def xs(w, n=64, dtype=np.float32):
    """x[r] = arange(n) + 100 r, shaped [W, 1, n]."""
    return (np.arange(n, dtype=np.float64)[None, None, :] + 100.0 * np.arange(w)[:, None, None]).astype(dtype)


def call(session, entry, *arrays):
    res = session.call(list(arrays), entry=entry)
    assert not [s for s in my_segments() if s not in _live(session)], "the call left its segments behind"
    return res


def _live(session):
    return [session.transport.board.name]


def _domain(rt, *specs):
    """Windows for (bytes, shape, dtype) specs, one slot each, in one domain."""
    slots = rt.alloc_domain([nbytes for nbytes, _, _ in specs])
    return [rt.window(s, shape, dtype) for s, (_, shape, dtype) in zip(slots, specs)]


def test_put_to_the_next_rank(session):
    w = session.world_size
    x, y = xs(w), np.zeros((w, 1, 64), np.float32)

    def entry(rt, t, world_size):
        src, dst, sig = _domain(rt, (256, [1, 64], "FP32"), (256, [1, 64], "FP32"), (32, [8], "INT32"))
        for r in range(world_size):
            rt.dispatch(r, "put", [t[0][r], t[1][r], src, dst, sig], [0])

    res = call(session, entry, x, y)
    np.testing.assert_array_equal(y, np.roll(x, 1, axis=0))        # y[r] = x[(r-1) % W]
    assert res.world_size == w and all(r.tasks == 1 for r in res.ranks)


def test_put_atomic_add_into_rank0(session):
    w = session.world_size
    x, y = xs(w), np.zeros((w, 1, 64), np.float32)

    def entry(rt, t, world_size):
        src, dst, sig = _domain(rt, (256, [1, 64], "FP32"), (256, [1, 64], "FP32"), (32, [8], "INT32"))
        for r in range(world_size):
            rt.dispatch(r, "put", [t[0][r], t[1][r], src, dst, sig], [1])

    call(session, entry, x, y)
    np.testing.assert_array_equal(y[0], x.sum(axis=0))               # small integers: exact in any order
    np.testing.assert_array_equal(y[1:], x[1:])


def test_get_from_the_next_rank(session):
    w = session.world_size
    x, y = xs(w), np.zeros((w, 1, 64), np.float32)

    def entry(rt, t, world_size):
        src, sig = _domain(rt, (256, [1, 64], "FP32"), (32, [8], "INT32"))
        for r in range(world_size):
            rt.dispatch(r, "get", [t[0][r], t[1][r], src, sig])

    call(session, entry, x, y)
    np.testing.assert_array_equal(y, np.roll(x, -1, axis=0))       # y[r] = x[(r+1) % W]


def test_notify_atomic_add_rows(session):
    w = session.world_size
    y = np.full((w, 1, 8), -1, np.int32)

    def entry(rt, t, world_size):
        (sig,) = _domain(rt, (32, [8], "INT32"))
        for r in range(world_size):
            rt.dispatch(r, "notify", [t[0][r], sig], [0])

    call(session, entry, y)
    want = np.zeros((w, 1, 8), np.int32)
    want[:, 0, :w] = 1
    for r in range(w):
        want[r, 0, r] = 0                                          # 1 everywhere but 0 at row r
    np.testing.assert_array_equal(y, want)


def test_notify_set(session):
    w = session.world_size
    y = np.zeros((w, 1, 8), np.int32)

    def entry(rt, t, world_size):
        (sig,) = _domain(rt, (32, [8], "INT32"))
        for r in range(world_size):
            rt.dispatch(r, "notify", [t[0][r], sig], [1])

    call(session, entry, y)
    np.testing.assert_array_equal(y[:, 0, 0], [(r - 1) % w + 1 for r in range(w)])   # W=4: [4, 1, 2, 3]


def test_wait_eq_then_ge(session):
    w = session.world_size
    y = np.zeros((w, 1, 8), np.int32)

    def entry(rt, t, world_size):
        (sig,) = _domain(rt, (32, [8], "INT32"))
        for r in range(world_size):
            rt.dispatch(r, "wait", [t[0][r], sig], [-1])

    call(session, entry, y)
    total = w * (w + 1) // 2                                       # 3, 10
    np.testing.assert_array_equal(y[:, 0, 1], [total] * w)
    assert y[0, 0, 0] == total and not y[1:, 0, 0].any()


def test_barrier_from_notify_and_wait(session):
    w = session.world_size
    x, y, z = xs(w), np.zeros((w, 1, 64), np.float32), np.full((w, 1, 8), 7, np.int32)

    def entry(rt, t, world_size):
        data, sig = _domain(rt, (256, [1, 64], "FP32"), (32, [8], "INT32"))
        for r in range(world_size):
            rt.dispatch(r, "barrier", [t[0][r], t[1][r], t[2][r], data, sig])

    call(session, entry, x, y, z)
    nxt = np.roll(x, -1, axis=0)
    want = np.zeros_like(x)
    for k in range(3):
        want = want + (nxt + np.float32(k))                        # float32 all the way, the kernel's order
    np.testing.assert_array_equal(y, want)
    np.testing.assert_array_equal(z, np.zeros_like(z))             # the reusable signal reads zero afterwards


def _allreduce(session, x):
    y = np.zeros_like(x)

    def entry(rt, t, world_size):
        data, sig = _domain(rt, (1024, [1, 256], "FP32"), (32, [8], "INT32"))
        for r in range(world_size):
            rt.dispatch(r, "allreduce", [t[0][r], t[1][r], data, sig])

    res = call(session, entry, x, y)
    return y, res


def test_allreduce_rank_order_fold_bit_exact(session):
    w = session.world_size
    x = np.random.default_rng(7).standard_normal((w, 1, 256)).astype(np.float32)
    y, _ = _allreduce(session, x)
    fold = x[0].copy()
    for s in range(1, w):
        fold = fold + x[s]                                         # ((x0 + x1) + x2) ... in float32
    for r in range(w):
        assert y[r].tobytes() == fold.tobytes(), f"rank {r} differs from the rank-order fold"


def test_window_offsets_equal_on_all_ranks(session):
    w = session.world_size
    y = np.zeros((w, 1, 8), np.int64)
    seen = {}

    def entry(rt, t, world_size):
        pad, a, b = rt.alloc_domain([100, 256, 32])     # 100 bytes round up to 128: a at 128, b at 384
        seen["offsets"] = (pad.offset, a.offset, b.offset)
        wa, wb = rt.window(a, [1, 64], "FP32"), rt.window(b, [8], "INT32")
        for r in range(world_size):
            rt.dispatch(r, "offsets", [t[0][r], wa, wb])

    call(session, entry, y)
    assert seen["offsets"] == (0, 128, 384)
    for r in range(w):
        # local - windowsIn[rank] is the planned offset on every rank; the CommContext names the
        # rank and the rank count, windows are 4 KiB at least, windowsOut = windowsIn, bytes 0-15 zero
        assert list(y[r, 0]) == [128, 384, r, w, 4096, 1, 1, 1], (r, y[r, 0])
