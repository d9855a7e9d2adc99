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


def test_host_function_ring_put_W2_W4(tmp_path):
    """A whole program (host function -> chip function -> kernel) compiled by ptokit.compile into a
    distributed tree, run at W = 2 and 4: y[r] = x[(r-1) % W]."""
    import ptokit
    from dsl_programs import RingPut
    for w in (2, 4):
        c = ptokit.compile(RingPut, output_dir=tmp_path / f"w{w}",
                           distributed_config=ptokit.DistributedConfig(device_ids=list(range(w))))
        assert isinstance(c, ptokit.DistributedCompiledProgram) and c.world_size == w
        x, y = xs(w), np.zeros((w, 1, 64), np.float32)
        c(x, y)
        np.testing.assert_array_equal(y, np.roll(x, 1, axis=0))
        assert len(c.last_result.ranks) == w
    text = (tmp_path / "w2" / "orchestration" / "host_orch.py").read_text()
    assert "rt.dispatch(r, 'per_rank', [x[r], y[r], src, dst, signal], [])" in text
    reloaded = ptokit.DistributedCompiledProgram.from_dir(tmp_path / "w2")
    x, y = xs(2), np.zeros((2, 1, 64), np.float32)
    reloaded(x, y)
    np.testing.assert_array_equal(y, np.roll(x, 1, axis=0))


def test_jit_host_ring_get_W2_W4(tmp_path, monkeypatch):
    """pypto's function form: @pl.jit.host -> @pl.jit chip function (`return helper(...)`) -> @pl.jit.incore
    kernel with pld.tensor.get; y[r] = x[(r+1) % W]; compiled once per world size."""
    monkeypatch.chdir(tmp_path)          # the direct call writes its tree under ./build_output
    import ptokit
    from jit_programs import ring_get
    from ptokit.runtime import RunConfig
    for w in (2, 4):
        x, y = xs(w), np.zeros((w, 1, 64), np.float32)
        cfg = RunConfig(distributed_config=ptokit.DistributedConfig(device_ids=list(range(w))))
        c = ring_get.compile(x, y, config=cfg, output_dir=tmp_path / f"w{w}")
        c(x, y, config=RunConfig())
        np.testing.assert_array_equal(y, np.roll(x, -1, axis=0))
    x, y = xs(2), np.zeros((2, 1, 64), np.float32)
    ring_get(x, y, config=RunConfig(distributed_config=ptokit.DistributedConfig(device_ids=[0, 1])))
    np.testing.assert_array_equal(y, np.roll(x, -1, axis=0))


def test_put_larger_than_one_staging_tile(session):
    from dsl_programs import BIG
    w = session.world_size
    x = (np.arange(BIG, dtype=np.float64)[None, None, :] + 1e4 * np.arange(w)[:, None, None]).astype(np.float32)
    y = np.zeros_like(x)

    def entry(rt, t, world_size):
        src, dst, sig = _domain(rt, (4 * BIG, [1, BIG], "FP32"), (4 * BIG, [1, BIG], "FP32"), (32, [1, 1], "INT32"))
        for r in range(world_size):
            rt.dispatch(r, "BigPut", [t[0][r], t[1][r], src, dst, sig], [])

    session.call([x, y], entry=entry)
    np.testing.assert_array_equal(y, np.roll(x, 1, axis=0))


def test_put_get_leading_dims(session):
    """3-D windows [2, 4, 64]: a whole put (one piece per leading index), a get of a 3-D region."""
    w = session.world_size
    x = (np.arange(2 * 4 * 64, dtype=np.float64).reshape(1, 2, 4, 64) + 1e4 * np.arange(w)[:, None, None, None])
    x = x.astype(np.float32)
    y, y2 = np.zeros_like(x), np.zeros((w, 1, 2, 64), np.float32)

    def entry(rt, t, world_size):
        n = 2 * 4 * 64 * 4
        src, dst, sig = _domain(rt, (n, [2, 4, 64], "FP32"), (n, [2, 4, 64], "FP32"), (32, [1, 1], "INT32"))
        for r in range(world_size):
            rt.dispatch(r, "LeadPut", [t[0][r], t[1][r], t[2][r], src, dst, sig], [])

    session.call([x, y, y2], entry=entry)
    np.testing.assert_array_equal(y, np.roll(x, 1, axis=0))                   # y[r] = x[(r-1) % W]
    np.testing.assert_array_equal(y2, np.roll(x, -1, axis=0)[:, 1:2, 1:3, :])  # plane 1, rows 1..2 of x[r+1]
