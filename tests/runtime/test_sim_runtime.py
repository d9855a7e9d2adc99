"""Simulator runtime: task graphs under both runtime kinds (hand-written C++ programs)."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "sim_cases"))
from sim_util import RUNTIMES, SimCases  # noqa: E402

IN, OUT, INOUT, SCALAR = 1, 2, 3, 0


@pytest.fixture(scope="module")
def sim():
    return SimCases()


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_chain_with_runtime_allocated_intermediate(sim, runtime):
    x = np.arange(64, dtype=np.float32).reshape(8, 8)
    out = np.zeros_like(x)
    res = sim.run("CHAIN", [x, out, 1.5], runtime, signature=[IN, OUT, SCALAR])
    np.testing.assert_allclose(out, x * 1.5 * 2.0)
    assert res.tasks == 2
    edges = {(int(e["producer"]), int(e["consumer"])) for e in res.timeline.edges}
    assert edges == {(0, 1)}
    b = res.timeline.blocks
    t0, t1 = b[b["task_seq"] == 0][0], b[b["task_seq"] == 1][0]
    assert t1["start_ns"] >= t0["end_ns"]          # the consumer waited for the producer
    for rec in b:
        assert rec["submit_ns"] <= rec["ready_ns"] <= rec["dispatch_ns"] <= rec["start_ns"] <= rec["end_ns"]


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_diamond(sim, runtime):
    x = np.random.default_rng(0).standard_normal((16, 32)).astype(np.float32)
    out = np.zeros_like(x)
    res = sim.run("DIAMOND", [x, out], runtime)
    np.testing.assert_allclose(out, x * 2 + x * 3, rtol=1e-6)
    edges = {(int(e["producer"]), int(e["consumer"])) for e in res.timeline.edges}
    assert edges == {(0, 1), (0, 2), (1, 3), (2, 3)}
    assert res.tasks == 4 and res.blocks == 3 + 4   # the add is SPMD with 4 blocks
    assert (res.schedule, res.schedule_from) == ("default", None)   # no MANUAL scope: the default order


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("scoped", [0, 1])
def test_inout_chain(sim, runtime, scoped):
    y = np.full((4, 32), 0.5, dtype=np.float32)
    res = sim.run("INOUT_CHAIN", [y, 25, scoped, 2], runtime)
    np.testing.assert_array_equal(y, np.full((4, 32), 25.5, dtype=np.float32))
    edges = sorted((int(e["producer"]), int(e["consumer"])) for e in res.timeline.edges)
    chain = [(i, i + 1) for i in range(24)]
    if scoped and runtime == "tensormap_and_ringbuffer":
        assert set(edges) <= set(chain)   # a writer whose scope ended may retire before its reader
    else:
        assert edges == chain


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_statement_order_is_not_dependency_order(sim, runtime):
    # the writer sleeps 60 ms; its reader (submitted later) must still see its result
    x = np.arange(32, dtype=np.float32)
    tmp = np.zeros_like(x)
    out = np.zeros_like(x)
    res = sim.run("ORDER", [x, tmp, out, 60], runtime)
    np.testing.assert_array_equal(tmp, x + 1)
    np.testing.assert_array_equal(out, (x + 1) * 2)
    edges = {(int(e["producer"]), int(e["consumer"])) for e in res.timeline.edges}
    assert edges == {(0, 2)}                     # the noop in between is independent


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_explicit_dep(sim, runtime):
    x = np.arange(16, dtype=np.float32)
    a = np.zeros_like(x)
    out = np.zeros_like(x)
    res = sim.run("EXPLICIT_DEP", [x, a, out, 50], runtime)
    np.testing.assert_array_equal(out, (x + 1) * 2)
    assert {(int(e["producer"]), int(e["consumer"])) for e in res.timeline.edges} == {(0, 1)}


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("blocks,clusters", [(4, 8), (16, 2)])
def test_spmd_blocks(sim, runtime, blocks, clusters):
    out = np.full((blocks, 4), -1, dtype=np.int32)
    res = sim.run("SPMD", [out, blocks, 5], runtime, clusters=clusters)
    assert list(out[:, 0]) == list(range(blocks))
    assert (out[:, 1] == blocks).all()
    n_aic, n_aiv = clusters, 2 * clusters
    assert ((out[:, 2] >= n_aic) & (out[:, 2] < n_aic + n_aiv)).all()   # AIV core indices
    assert (out[:, 3] == (out[:, 2] - n_aic) % 2).all()                 # lane from the core index
    recs = res.timeline.blocks
    assert res.tasks == 1 and len(recs) == blocks
    assert sorted(recs["block_idx"]) == list(range(blocks))
    if blocks > n_aiv:
        # more blocks than cores: some core ran more than one block, never two at once
        by_core = {}
        for r in recs:
            by_core.setdefault(int(r["core_id"]), []).append((int(r["start_ns"]), int(r["end_ns"])))
        assert max(len(v) for v in by_core.values()) > 1
        for spans in by_core.values():
            spans.sort()
            assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_mixed_task_occupies_a_cluster(sim, runtime):
    blocks, clusters = 3, 2
    out = np.full((blocks, 4), -1, dtype=np.int32)
    res = sim.run("MIXED", [out, blocks], runtime, clusters=clusters)
    for b in range(blocks):
        # AIC wrote 7 and pushed 1000*b + lane through the cluster FIFO to each AIV lane
        assert out[b, 0] == 7
        assert out[b, 1] == 1000 * b + 0
        assert out[b, 2] == 1000 * b + 1
    recs = res.timeline.blocks
    assert len(recs) == 3 * blocks
    for b in range(blocks):
        lanes = recs[recs["block_idx"] == b]
        cores = sorted(int(c) for c in lanes["core_id"])
        c = int(out[b, 3])                       # the AIC reported its cluster
        assert cores == [c, clusters + 2 * c, clusters + 2 * c + 1]
        assert sorted(int(v) for v in lanes["lane"]) == [-1, 0, 1]


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_views_track_dependencies_per_region(sim, runtime):
    x = np.arange(128, dtype=np.float32).reshape(8, 16)
    out = np.zeros_like(x)
    res = sim.run("VIEWS", [x, out], runtime)
    scale = np.ones_like(x)
    scale[:4, :8], scale[:4, 8:], scale[4:, :8], scale[4:, 8:] = 1, 2, 3, 4
    np.testing.assert_array_equal(out, x * scale + 1)
    edges = {(int(e["producer"]), int(e["consumer"])) for e in res.timeline.edges}
    assert edges == {(0, 4), (1, 4), (2, 4), (3, 4)}   # quadrants are independent of each other


def test_both_runtimes_identical(sim):
    x = np.random.default_rng(1).standard_normal((8, 8)).astype(np.float32)
    outs = []
    for rt in RUNTIMES:
        out = np.zeros_like(x)
        sim.run("DIAMOND", [x, out], rt)
        outs.append(out)
    np.testing.assert_array_equal(outs[0], outs[1])


def test_ring_back_pressure_with_small_rings(sim):
    # 40 scoped tasks through a 4-slot ring: the orchestrator blocks until tasks retire
    y = np.zeros((2, 8), dtype=np.float32)
    sim.run("INOUT_CHAIN", [y, 40, 1, 1], "tensormap_and_ringbuffer", task_ring_size=4, dep_pool_size=4)
    np.testing.assert_array_equal(y, 40)


def test_heap_ring_reuse(sim):
    # each CHAIN run allocates 8x8 floats per intermediate; a 4 KB heap ring is reused run to run
    x = np.ones((8, 8), dtype=np.float32)
    for _ in range(3):
        out = np.zeros_like(x)
        sim.run("CHAIN", [x, out, 3.0], "tensormap_and_ringbuffer", heap_size=4096)
        np.testing.assert_array_equal(out, 6.0)


def test_a5_platform_and_thread_num(sim):
    x = np.ones((4, 4), dtype=np.float32)
    out = np.zeros_like(x)
    res = sim.run("CHAIN", [x, out, 2.0], platform="a5sim", aicpu_thread_num=5)
    np.testing.assert_array_equal(out, 4.0)
    assert res.schedulers == 4


def _stack_rss_kib(addr: int) -> int:
    """Resident KiB of the mapping of this process holding ``addr`` (0: no such mapping)."""
    inside = False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        head = line.split()[0] if line else ""
        if "-" in head and not head.endswith(":"):
            lo, hi = (int(v, 16) for v in head.split("-"))
            inside = lo <= addr < hi
        elif inside and head == "Rss:":
            return int(line.split()[1])
    return 0


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_one_orchestrator_thread_serves_every_run(sim, runtime):
    """Runs are handed to the device's orchestrator thread, not to a thread made per run."""
    import threading
    tids = set()
    for _ in range(3):
        out = np.zeros(2, dtype=np.int64)
        sim.run("THREAD", [out, 4], runtime)
        tids.add(int(out[0]))
    assert len(tids) == 1 and threading.get_native_id() not in tids


def test_orchestrator_stack_is_given_back_after_a_run(sim):
    """A run's orchestration that used 16 MiB of stack leaves none of it resident afterwards."""
    out = np.zeros(2, dtype=np.int64)
    sim.run("THREAD", [out, 16 * 1024])
    assert out[1] != 0 and _stack_rss_kib(int(out[1])) < 1024


def test_a_new_device_gets_a_new_orchestrator_thread(sim):
    """The orchestrator thread belongs to the device: another cluster count (a new device) or a
    shutdown starts another one, and runs go on working."""
    from ptokit.runtime.sim import driver
    out = np.zeros(2, dtype=np.int64)
    sim.run("THREAD", [out, 4], clusters=2)
    sim.run("THREAD", [out, 4], clusters=3)
    driver.shutdown()
    x = np.ones((4, 4), dtype=np.float32)
    y = np.zeros_like(x)
    sim.run("CHAIN", [x, y, 2.0])
    np.testing.assert_array_equal(y, 4.0)
