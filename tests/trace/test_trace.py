"""Run traces (Perfetto trace-event JSON) and run summaries of real simulator runs.

Programs are compiled once per module; each test reads the traces written by one run.
"""
from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest

import ptokit
from ptokit.runtime import trace as trace_mod
from ptokit.runtime.config import RunConfig
from ptokit.runtime.summary import summarize
from ptokit.runtime.trace import TraceFormatError, read_trace, write_trace

import programs

R, N = programs.R, programs.N
SPMD_BLOCKS = 8
CLUSTERS = 4


def graphs_args():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((R, N)).astype(np.float32)
    w = rng.standard_normal((R, N)).astype(np.float32)
    return [x, w] + [np.zeros((R, N), np.float32) for _ in range(4)]


@pytest.fixture(scope="module")
def trees(tmp_path_factory):
    base = tmp_path_factory.mktemp("trace_trees")
    return {"graphs": ptokit.compile(programs.Graphs, output_dir=base / "graphs"),
            "spmd": ptokit.compile(programs.make_spmd_rows(SPMD_BLOCKS), output_dir=base / "spmd")}


@pytest.fixture(scope="module")
def runs(trees, tmp_path_factory):
    """(result, trace path) of the diamond/chain graph under both runtimes and of an SPMD task."""
    out = tmp_path_factory.mktemp("traces")
    res = {}
    for kind in ("tensormap_and_ringbuffer", "host_build_graph"):
        path = out / f"graphs_{kind}.json"
        r = trees["graphs"](*graphs_args(), config=RunConfig(trace=str(path), runtime=kind, clusters=CLUSTERS))
        res[f"graphs_{kind}"] = (r, path)
    x = np.random.default_rng(4).standard_normal((SPMD_BLOCKS * R, N)).astype(np.float32)
    y = np.zeros_like(x)
    path = out / "spmd.json"
    r = trees["spmd"](x, y, config=RunConfig(trace=str(path), clusters=CLUSTERS))
    np.testing.assert_allclose(y, x * 2.0, rtol=1e-6)
    res["spmd"] = (r, path)
    return res


# ---------------------------------------------------------------------------
# the trace-event format (independent of ptokit's reader)
# ---------------------------------------------------------------------------

PHASES = {"X", "B", "E", "i", "I", "M", "s", "t", "f", "C", "b", "e", "n"}
META_NAMES = {"process_name": "name", "thread_name": "name", "process_sort_index": "sort_index",
              "thread_sort_index": "sort_index", "process_labels": "labels"}


def _strict_json(path):
    def bad_constant(c):
        raise ValueError(f"non-JSON constant {c}")
    with open(path) as fh:
        return json.loads(fh.read(), parse_constant=bad_constant)


def validate_trace_format(doc):
    """Required fields of the Chrome trace-event format (JSON object form)."""
    assert isinstance(doc, dict) and isinstance(doc["traceEvents"], list)
    assert doc.get("displayTimeUnit", "ms") in ("ms", "ns")
    flows: dict = {}
    for ev in doc["traceEvents"]:
        for key in ("name", "ph", "ts", "pid", "tid"):
            assert key in ev, (key, ev)
        assert isinstance(ev["name"], str) and ev["name"]
        assert ev["ph"] in PHASES, ev
        assert isinstance(ev["ts"], (int, float)) and not isinstance(ev["ts"], bool) and ev["ts"] >= 0
        assert math.isfinite(ev["ts"])
        assert isinstance(ev["pid"], int) and isinstance(ev["tid"], int)
        if "args" in ev:
            assert isinstance(ev["args"], dict)
        if ev["ph"] == "X":
            assert isinstance(ev["dur"], (int, float)) and ev["dur"] >= 0, ev
        elif ev["ph"] == "M":
            assert ev["name"] in META_NAMES, ev
            assert META_NAMES[ev["name"]] in ev["args"], ev
        elif ev["ph"] in ("i", "I"):
            assert ev.get("s", "t") in ("t", "p", "g")
        elif ev["ph"] in ("s", "t", "f"):
            assert "id" in ev and "cat" in ev, ev
            flows.setdefault((ev["cat"], ev["name"], ev["id"]), []).append(ev)
    for key, evs in flows.items():   # every flow has one start and one end, the end not before the start
        phs = sorted(e["ph"] for e in evs)
        assert phs == ["f", "s"], (key, phs)
        s = next(e for e in evs if e["ph"] == "s")
        f = next(e for e in evs if e["ph"] == "f")
        assert f["ts"] >= s["ts"], key
        assert f.get("bp") == "e"
    return flows


def _threads(doc):
    """(pid, tid) -> thread name."""
    return {(e["pid"], e["tid"]): e["args"]["name"] for e in doc["traceEvents"]
            if e["ph"] == "M" and e["name"] == "thread_name"}


def _slices(doc, cat="task"):
    return [e for e in doc["traceEvents"] if e["ph"] == "X" and e.get("cat") == cat]


# ---------------------------------------------------------------------------
# tests
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["graphs_tensormap_and_ringbuffer", "graphs_host_build_graph", "spmd"])
def test_trace_validates_against_the_format(runs, key):
    result, path = runs[key]
    doc = _strict_json(path)
    flows = validate_trace_format(doc)
    assert len(flows) == len(result.timeline.edges)
    names = set(_threads(doc).values())
    expected = {"orchestrator"} | {f"scheduler {k}" for k in range(result.schedulers)}
    for c in range(CLUSTERS):
        expected |= {f"cluster {c} AIC", f"cluster {c} AIV0", f"cluster {c} AIV1"}
    assert names == expected
    procs = {e["args"]["name"] for e in doc["traceEvents"] if e["ph"] == "M" and e["name"] == "process_name"}
    assert procs == {"AICPU"} | {f"cluster {c}" for c in range(CLUSTERS)}
    # every event sits on a named track
    tracks = _threads(doc)
    for e in doc["traceEvents"]:
        if e["ph"] != "M":
            assert (e["pid"], e["tid"]) in tracks, e


def test_diamond_graph_events(runs):
    result, path = runs["graphs_tensormap_and_ringbuffer"]
    doc = _strict_json(path)
    tracks = _threads(doc)
    slices = _slices(doc)
    assert result.tasks == 9 and len(slices) == 9 == result.blocks
    by_task = {e["args"]["task"]: e for e in slices}
    names = [by_task[i]["name"] for i in range(9)]
    assert names == ["plus1", "twice", "expk", "add2", "accumulate", "accumulate", "plus1", "accumulate", "expk"]
    for e in slices:
        a = e["args"]
        # the slice is on the track of the core that ran it: every kernel here is a vector kernel
        assert tracks[(e["pid"], e["tid"])].endswith(f"AIV{a['lane']}")
        assert a["submit_ns"] <= a["ready_ns"] <= a["dispatch_ns"] <= a["start_ns"] <= a["end_ns"]
        assert e["ts"] == pytest.approx(a["start_ns"] / 1e3, abs=1e-3)
        assert e["dur"] == pytest.approx((a["end_ns"] - a["start_ns"]) / 1e3, abs=1e-3)
        assert a["block"] == 0 and a["func_id"] == {"plus1": 0, "twice": 1, "expk": 2, "add2": 3,
                                                     "accumulate": 4}[e["name"]]
    # tensor args of each task (recorded by the simulator when tracing)
    shape = f"float32[{R}, {N}]"
    assert by_task[0]["args"]["tensors"] == [f"in {shape}", f"out {shape}"]
    assert by_task[3]["args"]["tensors"] == [f"in {shape}", f"in {shape}", f"out {shape}"]
    assert by_task[4]["args"]["tensors"] == [f"in {shape}", f"inout {shape}"]
    # the diamond: 0 -> {1, 2} -> 3; the InOut chain 4 -> 5 -> 7 -> 8
    edges = {(int(p), int(c)) for p, c in result.timeline.edges}
    assert {(0, 1), (0, 2), (1, 3), (2, 3), (4, 5), (5, 7), (7, 8)} <= edges
    for p, c in edges:   # dependent tasks: consumer starts after its producer ends
        assert by_task[c]["args"]["start_ns"] >= by_task[p]["args"]["end_ns"]
        assert by_task[c]["ts"] >= by_task[p]["ts"] + by_task[p]["dur"] - 1e-3
    # flows: start inside the producer's slice on its track, finish at the consumer's start on its track
    flow_s = {e["id"]: e for e in doc["traceEvents"] if e["ph"] == "s"}
    flow_f = {e["id"]: e for e in doc["traceEvents"] if e["ph"] == "f"}
    assert len(flow_s) == len(flow_f) == len(edges)
    for i, s in flow_s.items():
        f = flow_f[i]
        p, c = by_task[s["args"]["producer"]], by_task[f["args"]["consumer"]]
        assert (s["pid"], s["tid"]) == (p["pid"], p["tid"]) and p["ts"] <= s["ts"] <= p["ts"] + p["dur"]
        assert (f["pid"], f["tid"]) == (c["pid"], c["tid"]) and f["ts"] == c["ts"]
    # orchestrator: one submit per task in submission order; schedulers: one ready per task, one dispatch per block
    orch = [(e["pid"], e["tid"]) for e in doc["traceEvents"] if e["ph"] == "M" and e["name"] == "thread_name"
            and e["args"]["name"] == "orchestrator"][0]
    submits = sorted((e for e in doc["traceEvents"] if e["ph"] == "i" and e["name"].startswith("submit ")),
                     key=lambda e: e["args"]["task"])
    assert len(submits) == 9 and all((e["pid"], e["tid"]) == orch for e in submits)
    assert [e["ts"] for e in submits] == sorted(e["ts"] for e in submits)
    sched = [e for e in doc["traceEvents"] if e["ph"] == "i" and e.get("cat") == "sched"]
    assert sum(e["name"].startswith("ready ") for e in sched) == 9
    assert sum(e["name"].startswith("dispatch ") for e in sched) == 9
    assert all(tracks[(e["pid"], e["tid"])].startswith("scheduler ") for e in sched)


def test_spmd_task_events(runs):
    result, path = runs["spmd"]
    doc = _strict_json(path)
    tracks = _threads(doc)
    slices = _slices(doc)
    assert result.tasks == 1 and len(slices) == SPMD_BLOCKS
    assert sorted(e["args"]["block"] for e in slices) == list(range(SPMD_BLOCKS))
    assert {e["args"]["task"] for e in slices} == {0}
    assert {e["name"] for e in slices} == {"scale_block"}
    for e in slices:
        assert "AIV" in tracks[(e["pid"], e["tid"])]
        # no two blocks overlap on one core
    for key, group in itertools.groupby(sorted(slices, key=lambda e: (e["tid"], e["ts"])), key=lambda e: e["tid"]):
        group = list(group)
        for a, b in zip(group, group[1:]):
            assert b["args"]["start_ns"] >= a["args"]["end_ns"]
    assert sum(e["name"].startswith("dispatch ") for e in doc["traceEvents"] if e["ph"] == "i") == SPMD_BLOCKS
    assert sum(e["name"].startswith("submit ") for e in doc["traceEvents"] if e["ph"] == "i") == 1
    assert not [e for e in doc["traceEvents"] if e["ph"] in ("s", "f")]
    s = result.summary()
    assert s.tasks == 1 and s.blocks == SPMD_BLOCKS and s.critical_path == (0,) and s.critical_path_count == 1
    assert sum(c.blocks for c in s.cores) == SPMD_BLOCKS
    assert s.kernels[0].name == "scale_block" and s.kernels[0].blocks == SPMD_BLOCKS


def _task_durations(result):
    b = result.timeline.blocks
    out = {}
    for s in set(int(v) for v in b["task_seq"]):
        rows = b[b["task_seq"] == s]
        out[s] = int(rows["end_ns"].max()) - int(rows["start_ns"].min())
    return out


def _all_chains(edges, nodes):
    """Every maximal path of a small DAG (brute force)."""
    succ = {n: [c for p, c in edges if p == n] for n in nodes}
    has_pred = {c for _, c in edges}
    paths = []

    def walk(path):
        nxt = succ[path[-1]]
        if not nxt:
            paths.append(tuple(path))
        for c in nxt:
            walk(path + [c])
    for n in nodes:
        if n not in has_pred:
            walk([n])
    return paths


@pytest.mark.parametrize("key", ["graphs_tensormap_and_ringbuffer", "graphs_host_build_graph"])
def test_summary_critical_path_is_the_longest_chain(runs, key):
    result, _ = runs[key]
    s = result.summary()
    edges = [(int(p), int(c)) for p, c in result.timeline.edges]
    dur = _task_durations(result)
    chains = _all_chains(edges, sorted(dur))
    assert max(len(c) for c in chains) == 4
    assert s.critical_path_count == 4 and s.critical_path_by_count == (4, 5, 7, 8)
    best = max(sum(dur[t] for t in c) for c in chains)
    assert s.critical_path_ns == best == sum(dur[t] for t in s.critical_path)
    assert s.critical_path in chains
    assert s.tasks == 9 and s.blocks == 9 and s.edges == len(edges)
    # waits and busy time against the raw timeline
    b = result.timeline.blocks
    assert s.busy_ns == int((b["end_ns"] - b["start_ns"]).sum())
    assert s.core_wait_ns == int((b["dispatch_ns"] - b["ready_ns"]).sum())
    assert s.dep_wait_ns == int((b["ready_ns"] - b["submit_ns"]).sum())   # one block per task here
    window = int(b["end_ns"].max() - b["submit_ns"].min())
    assert s.window_ns == window
    assert len(s.cores) == 3 * CLUSTERS
    for c in s.cores:
        mine = b[(b["core_id"] == c.core_id) & (b["lane"] == c.lane)]
        assert c.blocks == len(mine)
        assert c.busy_fraction == pytest.approx(int((mine["end_ns"] - mine["start_ns"]).sum()) / window)
    acc = next(k for k in s.kernels if k.name == "accumulate")
    rows = b[b["func_id"] == acc.func_id]
    assert acc.blocks == 3 and acc.max_ns == int((rows["end_ns"] - rows["start_ns"]).max())
    assert [k.total_ns for k in s.kernels] == sorted((k.total_ns for k in s.kernels), reverse=True)
    text = s.format()
    assert "critical path" in text and "accumulate#4 -> accumulate#5 -> accumulate#7 -> expk#8" in text


@pytest.mark.parametrize("key", ["graphs_tensormap_and_ringbuffer", "graphs_host_build_graph", "spmd"])
def test_summary_of_the_trace_read_back_equals_the_live_one(runs, key):
    result, path = runs[key]
    back = read_trace(path)
    live = result.summary()
    assert summarize(back) == live
    assert back.summary().format() == live.format()
    assert back.tasks == result.tasks and back.blocks == result.blocks and back.runtime == result.runtime
    assert back.clusters == CLUSTERS and back.elapsed == result.elapsed
    assert back.timeline.task_args == result.timeline.task_args and len(back.timeline.task_args) == result.tasks
    order = ["task_seq", "block_idx", "lane"]
    np.testing.assert_array_equal(np.sort(back.timeline.blocks, order=order),
                                  np.sort(result.timeline.blocks, order=order))
    assert sorted(map(tuple, back.timeline.edges.tolist())) == sorted(map(tuple, result.timeline.edges.tolist()))
    # writing what was read gives the same document again (one writer, one reader)
    again = path.parent / f"again_{path.name}"
    write_trace(again, back)
    assert _strict_json(again) == _strict_json(path)


def test_tracing_off_writes_nothing(trees, tmp_path, monkeypatch):
    def boom(*a, **k):
        raise AssertionError("write_trace called with tracing off")
    monkeypatch.setattr(trace_mod, "write_trace", boom)     # the driver imports it from there when tracing
    r = trees["graphs"](*graphs_args(), config=RunConfig(clusters=CLUSTERS))
    assert r.tasks == 9 and r.summary().critical_path_count == 4
    assert r.timeline.task_args == {}     # argument shapes are recorded only when tracing


def test_reader_rejects_other_files(tmp_path):
    p = tmp_path / "x.json"
    p.write_text("not json")
    with pytest.raises(TraceFormatError, match="not a JSON trace"):
        read_trace(p)
    p.write_text(json.dumps({"traceEvents": []}))
    with pytest.raises(TraceFormatError, match="not a ptokit run trace"):
        read_trace(p)
    p.write_text(json.dumps({"traceEvents": [{"name": "k", "ph": "X", "cat": "task", "ts": 0, "dur": 1, "pid": 1,
                                              "tid": 1, "args": {"task": 0}}],
                             "otherData": {"format": trace_mod.FORMAT_NAME, "version": 1}}))
    with pytest.raises(TraceFormatError, match="damaged trace event"):
        read_trace(p)
    p.write_text(json.dumps({"traceEvents": [], "otherData": {"format": trace_mod.FORMAT_NAME, "version": 99}}))
    with pytest.raises(TraceFormatError, match="newer"):
        read_trace(p)
