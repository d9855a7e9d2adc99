"""RunSummary on a hand-made timeline whose answers are known exactly."""
from __future__ import annotations

import numpy as np
import pytest

from ptokit.targets import RuntimeKind
from ptokit.runtime.records import BLOCK_RECORD_DTYPE, EDGE_DTYPE, FIFO_WAIT_DTYPE, RunResult, Timeline
from ptokit.runtime.summary import core_label, summarize
from ptokit.runtime.trace import read_trace, write_trace

# (task, func, block, core, lane, submit, ready, dispatch, start, end); clusters = 2:
# AIC cores 0, 1; cluster 0 AIV0/AIV1 = 2, 3; cluster 1 AIV0/AIV1 = 4, 5
ROWS = [
    (0, 0, 0, 2, 0, 0, 5, 5, 10, 110),          # a: 100
    (1, 1, 0, 2, 0, 20, 110, 112, 115, 125),    # b: 10   (after a)
    (2, 1, 0, 3, 1, 30, 125, 140, 150, 160),    # b: 10   (after 1; 15 ns waiting for a core)
    (3, 1, 0, 2, 0, 40, 160, 161, 165, 175),    # b: 10   (after 2)
    (4, 2, 0, 4, 0, 50, 110, 110, 120, 620),    # c: 500  (after a)
    (5, 3, 0, 0, -1, 60, 60, 60, 70, 90),       # d: SPMD, 2 blocks on both AIC cores: span 70..100
    (5, 3, 1, 1, -1, 60, 60, 80, 85, 100),
]
EDGES = [(0, 1), (1, 2), (2, 3), (0, 4)]
NAMES = {0: "a", 1: "b", 2: "c", 3: "d"}


def make_result():
    blocks = np.array([(t, 0x100 + t, f, b, c, l, s, r, d, st, e) for t, f, b, c, l, s, r, d, st, e in ROWS],
                      dtype=BLOCK_RECORD_DTYPE)
    edges = np.array(EDGES, dtype=EDGE_DTYPE)
    return RunResult(elapsed=0.5e-6, tasks=6, blocks=len(ROWS), timeline=Timeline(blocks[::-1].copy(), edges, NAMES),
                     schedulers=3, runtime=RuntimeKind.TENSORMAP_AND_RINGBUFFER, clusters=2, platform="a2a3sim")


def test_known_graph():
    s = make_result().summary()
    assert (s.tasks, s.blocks, s.edges) == (6, 7, 4)
    assert s.critical_path == (0, 4) and s.critical_path_ns == 600
    assert s.critical_path_by_count == (0, 1, 2, 3) and s.critical_path_count == 4
    assert s.window_ns == 620 - 0
    assert s.busy_ns == 100 + 10 + 10 + 10 + 500 + 20 + 15
    # dependency waits per task (ready - submit): 5, 90, 95, 120, 60, 0
    assert s.dep_wait_ns == 5 + 90 + 95 + 120 + 60 + 0 and s.dep_wait_max_ns == 120
    # core waits per block (dispatch - ready): 0, 2, 15, 1, 0, 0, 20
    assert s.core_wait_ns == 38 and s.core_wait_max_ns == 20
    assert s.launch_ns == 5 + 3 + 10 + 4 + 10 + 10 + 5
    labels = [c.label for c in s.cores]
    assert labels == ["cluster 0 AIC", "cluster 0 AIV0", "cluster 0 AIV1",
                      "cluster 1 AIC", "cluster 1 AIV0", "cluster 1 AIV1"]
    busy = {c.label: (c.blocks, c.busy_ns) for c in s.cores}
    assert busy == {"cluster 0 AIC": (1, 20), "cluster 0 AIV0": (3, 120), "cluster 0 AIV1": (1, 10),
                    "cluster 1 AIC": (1, 15), "cluster 1 AIV0": (1, 500), "cluster 1 AIV1": (0, 0)}
    assert next(c for c in s.cores if c.label == "cluster 1 AIV0").busy_fraction == pytest.approx(500 / 620)
    assert [(k.name, k.blocks, k.total_ns, k.max_ns) for k in s.kernels] == \
        [("c", 1, 500, 500), ("a", 1, 100, 100), ("d", 2, 35, 20), ("b", 3, 30, 10)]
    assert [k.name for k in s.slowest_by_max(2)] == ["c", "a"]
    assert s.kernels[2].mean_ns == 17.5
    text = s.format(top=2)
    assert "critical path: 0.6 us over 2 task(s): a#0 -> c#4" in text
    assert "longest chain: 4 task(s): a#0 -> b#1 -> b#2 -> b#3" in text
    assert "cluster 1 AIV0" in text and "80.65%" in text
    d = s.to_dict()
    assert d["critical_path"] == [0, 4] and d["kernels"][0]["name"] == "c"


def test_round_trip_of_a_known_graph(tmp_path):
    r = make_result()
    write_trace(tmp_path / "t.json", r)
    back = read_trace(tmp_path / "t.json")
    assert summarize(back) == r.summary()
    assert back.platform == "a2a3sim" and back.schedulers == 3 and back.timeline.kernel_names == NAMES


def test_empty_and_unknown_cluster_count(tmp_path):
    empty = RunResult(0.0, 0, 0, Timeline(np.zeros(0, BLOCK_RECORD_DTYPE), np.zeros(0, EDGE_DTYPE)))
    s = empty.summary()
    write_trace(tmp_path / "empty.json", empty)
    assert read_trace(tmp_path / "empty.json").summary() == s
    assert (s.tasks, s.blocks, s.critical_path_count, s.critical_path_ns, s.window_ns) == (0, 0, 0, 0, 0)
    assert "run summary: 0 task(s)" in s.format()
    r = make_result()
    r.clusters = 0      # unknown: only cores that ran something are listed
    s = r.summary()
    assert sum(c.blocks for c in s.cores) == 7 and all(c.blocks for c in s.cores)
    assert core_label(5, 1, 2) == "cluster 1 AIV1" and core_label(1, -1, 2) == "cluster 1 AIC"


def test_fifo_waits_are_drawn_counted_and_read_back(tmp_path):
    r = make_result()
    # task 5's AIC block waited 4 ns in a TPUSH (C2V pipe 0, lane 1); the AIV of cluster 0 6 ns in a TPOP
    r.timeline.fifo_waits = np.array([(5, 0, -1, 0, 1, 0, 1, 72, 76), (1, 2, 0, 0, 1, 1, 0, 116, 122)],
                                     dtype=FIFO_WAIT_DTYPE)
    s = r.summary()
    assert s.fifo_waits == 2 and s.fifo_wait_ns == 10 and "cross-core FIFO waits: 2" in s.format()
    path = write_trace(tmp_path / "f.json", r)
    import json
    doc = json.loads(path.read_text())
    tracks = {(e["pid"], e["tid"]): e["args"]["name"] for e in doc["traceEvents"]
              if e["ph"] == "M" and e["name"] == "thread_name"}
    waits = [e for e in doc["traceEvents"] if e.get("cat") == "fifo"]
    assert [(e["name"], tracks[(e["pid"], e["tid"])], e["dur"]) for e in waits] == \
        [("TPUSH wait", "cluster 0 AIC", 0.004), ("TPOP wait", "cluster 0 AIV0", 0.006)]
    assert waits[0]["args"]["what"] == "TPUSH on pipe 0 (C2V, lane 1)"
    back = read_trace(path)
    np.testing.assert_array_equal(back.timeline.fifo_waits, r.timeline.fifo_waits)
    assert back.summary() == s
