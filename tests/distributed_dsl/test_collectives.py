"""Host collectives (builtin chip programs written in the DSL) at W = 2 and 4, against numpy."""
import numpy as np
import pytest

import ptokit
from dsl_programs import host_collectives, host_row_collectives

N = 64


@pytest.fixture(scope="module", params=[2, 4], ids=lambda w: f"W{w}")
def compiled(request, tmp_path_factory):
    w = request.param
    cfg = ptokit.DistributedConfig(device_ids=list(range(w)))
    base = tmp_path_factory.mktemp(f"coll{w}")
    return (w, ptokit.compile(host_collectives(w), output_dir=base / "a", distributed_config=cfg),
            ptokit.compile(host_row_collectives(w), output_dir=base / "b", distributed_config=cfg))


def test_allreduce_barrier_broadcast(compiled):
    w, c, _ = compiled
    x = np.random.default_rng(w).standard_normal((w, 1, N)).astype(np.float32)
    fold = x[0].copy()
    for k in range(1, w):
        fold = fold + x[k]                      # numpy's rank-order fold, in float32
    for root in (0, w - 1):
        s, m, b = (np.full_like(x, -1) for _ in range(3))
        c(x, s, m, b, root)
        for r in range(w):
            assert np.array_equal(s[r], fold), "allreduce Sum is bit-exact on every rank"
        np.testing.assert_array_equal(m, np.broadcast_to(x.max(axis=0), x.shape))
        np.testing.assert_array_equal(b, np.broadcast_to(x[root], x.shape))


def test_broadcast_root_out_of_range(compiled):
    w, c, _ = compiled
    x = np.zeros((w, 1, N), np.float32)
    with pytest.raises(ValueError, match="root=.* out of range"):
        c(x, x.copy(), x.copy(), x.copy(), w)


def test_allgather_all_to_all_reduce_scatter(compiled):
    w, _, c = compiled
    x = (np.arange(N)[None, None, :] + 100.0 * np.arange(w)[:, None, None]).astype(np.float32)
    r_, d_, j_ = np.meshgrid(np.arange(w), np.arange(w), np.arange(N), indexing="ij")
    a = (1000.0 * r_ + 100.0 * d_ + j_).astype(np.float32)          # input on rank r: [d, j]
    g, t, rs = (np.zeros((w, w, N), np.float32) for _ in range(3))
    z = np.full((w, 1, w), 7, np.int32)
    c(x, a, g, t, rs, z)
    np.testing.assert_array_equal(g, np.broadcast_to(x[:, 0, :], (w, w, N)))      # out[r] = concatenate(x)
    np.testing.assert_array_equal(t, 1000.0 * d_ + 100.0 * r_ + j_)               # target on r: [s, j]
    for r in range(w):
        np.testing.assert_array_equal(rs[r, r], a[:, r, :].sum(axis=0))
    np.testing.assert_array_equal(z, 0)          # the reusable signal reads zero after three collectives
