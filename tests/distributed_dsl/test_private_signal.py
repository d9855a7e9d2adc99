"""Host collectives with the signal omitted (issue 20, distributed.md section 4.2 check 6 "H, signal
omitted"): ptokit allocates a private, zeroed signal window per call site when the host call runs,
sized for the compile's W ([W, 1] mesh, [2(W-1)+1, W] ring), reused by the site's later runs and
freed with the call's segments.  W = 2 and 4, against numpy; the compiled program runs twice."""
import numpy as np
import pytest

import ptokit
from dist_util import my_segments
from dsl_programs import N, host_private_signals
from ptokit.runtime.config import RunConfig


@pytest.mark.parametrize("w", [2, 4], ids=lambda w: f"W{w}")
def test_collectives_without_a_signal(w, tmp_path):
    before = set(my_segments())
    cfg = ptokit.DistributedConfig(device_ids=list(range(w)))
    c = ptokit.compile(host_private_signals(w), output_dir=tmp_path / "p", distributed_config=cfg)
    text = (tmp_path / "p" / "orchestration" / "host_orch.py").read_text()
    assert f"rt.private_signal(0, [{w}, 1])" in text                       # mesh allreduce
    assert f"rt.private_signal(1, [{2 * (w - 1) + 1}, {w}])" in text        # ring allreduce
    assert text.count("rt.private_signal(") == 4                           # + barrier (both looped), allgather
    run = RunConfig(clusters=2, timeout=20.0, distributed_config=cfg)
    for seed in (0, 1):                                                     # a second call: fresh zeroed signals
        x = np.random.default_rng(seed).standard_normal((w, 1, N)).astype(np.float32)
        fold = x[0].copy()
        for k in range(1, w):
            fold = fold + x[k]
        s, rg, nb = (np.full_like(x, -1) for _ in range(3))
        g = np.full((w, w, N), -1, np.float32)
        c(x, s, rg, nb, g, config=run)
        for r in range(w):
            assert np.array_equal(s[r], fold), "mesh Sum is numpy's rank-order fold, bit-exact on every rank"
            np.testing.assert_allclose(rg[r], w * fold, rtol=1e-5, atol=1e-4)   # ring Sum, twice
            assert np.array_equal(rg[r], rg[0]), "ring Sum holds the same bits on every rank"
            np.testing.assert_array_equal(nb[r], x[(r + 1) % w])           # after the barriers: the next rank's
            np.testing.assert_array_equal(g[r], x[:, 0, :])                # allgather
    assert set(my_segments()) <= before, "a private signal's segment was left in /dev/shm"


def test_private_signal_is_made_for_the_compiled_world_size(tmp_path):
    """The private signals are sized for the compile's W: the tree refuses another world size before any
    rank starts (and so does rt.private_signal itself)."""
    cfg = ptokit.DistributedConfig(device_ids=[0, 1])
    c = ptokit.compile(host_private_signals(2), output_dir=tmp_path / "p", distributed_config=cfg)
    x = np.zeros((2, 1, N), np.float32)
    four = RunConfig(distributed_config=ptokit.DistributedConfig(device_ids=[0, 1, 2, 3]))
    with pytest.raises(ValueError, match="compiled for 2 ranks"):
        c(x, x.copy(), x.copy(), x.copy(), np.zeros((2, 2, N), np.float32), config=four)


def test_rt_private_signal_refuses_another_world_size():
    from ptokit.distributed.host import HostRuntime

    class FourRanks:
        world_size = 4
    with pytest.raises(ValueError, match="compiled for 2 rank.* runs on 4"):
        HostRuntime(FourRanks()).private_signal(0, [2, 1])


def test_jit_host_allreduce_without_a_signal(tmp_path):
    """@pl.jit.host: the same private signal, sized for each compile's world size (W = 2, then 4)."""
    from jit_programs import allreduce_no_signal
    for w in (2, 4):
        x = np.random.default_rng(w).standard_normal((w, 1, N)).astype(np.float32)
        fold = x[0].copy()
        for k in range(1, w):
            fold = fold + x[k]
        y = np.zeros_like(x)
        cfg = RunConfig(clusters=2, distributed_config=ptokit.DistributedConfig(device_ids=list(range(w))))
        allreduce_no_signal.compile(x, y, config=cfg, output_dir=tmp_path / f"w{w}")(x, y, config=cfg)
        for r in range(w):
            assert np.array_equal(y[r], fold)
