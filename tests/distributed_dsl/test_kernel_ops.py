"""pld kernel ops compiled from the DSL, run on W = 2 and 4 ranks, checked against numpy."""
import numpy as np


def xs(w, n=64):
    return (np.arange(n, dtype=np.float64)[None, None, :] + 100.0 * np.arange(w)[:, None, None]).astype(np.float32)


def _domain(rt, *specs):
    slots = rt.alloc_domain([nbytes for nbytes, _, _ in specs])
    return [rt.window(s, shape, dtype) for s, (_, shape, dtype) in zip(slots, specs)]


def _run_putget(session, mode):
    w = session.world_size
    x, y = xs(w), np.zeros((w, 1, 64), np.float32)

    def entry(rt, t, world_size):
        src, dst, sig = _domain(rt, (256, [1, 64], "FP32"), (256, [1, 64], "FP32"), (32, [1, 1], "INT32"))
        for r in range(world_size):
            rt.dispatch(r, "PutGet", [t[0][r], t[1][r], src, dst, sig], [mode])

    session.call([x, y], entry=entry)
    return x, y


def test_put_to_next_rank(session):
    x, y = _run_putget(session, 0)
    np.testing.assert_array_equal(y, np.roll(x, 1, axis=0))          # y[r] = x[(r-1) % W]


def test_get_from_next_rank(session):
    x, y = _run_putget(session, 1)
    np.testing.assert_array_equal(y, np.roll(x, -1, axis=0))         # y[r] = x[(r+1) % W]


def test_put_atomic_add_into_rank0(session):
    x, y = _run_putget(session, 2)
    np.testing.assert_array_equal(y[0], x.sum(axis=0))
