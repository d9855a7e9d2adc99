"""Traces of hand-written simulator cases (tests/runtime/sim_cases): a mixed AIC+AIV task,
a 1000-task chain and fan (critical path, the trace file round trip)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from ptokit.runtime.build import INCLUDE_DIR, BuildJob, build_many
from ptokit.runtime.config import RunConfig
from ptokit.runtime.sim import KernelBinary, run_binaries
from ptokit.runtime.trace import read_trace, trace_events, write_trace

CASES = Path(__file__).resolve().parents[1] / "runtime" / "sim_cases"
# func_ids fixed by sim_cases/orchestrations.cpp (same build jobs as sim_util.py: shared cache entries)
KERNELS = {"LANE_AIC": (6, "aic"), "LANE_AIV": (7, "aiv"), "NOOP": (10, "aiv")}
ORCHS = ["MIXED", "FAN", "NCHAIN"]
N = 1000


@pytest.fixture(scope="module")
def sim():
    core = {"aiv": "__DAV_VEC__", "aic": "__DAV_CUBE__"}
    jobs = [BuildJob(CASES / "kernels.cpp", ("__CPU_SIM", core[ct], f"K_{name}"), [INCLUDE_DIR], ["-Werror"],
                     name_hint=f"simtest:{name}") for name, (_, ct) in KERNELS.items()]
    jobs += [BuildJob(CASES / "orchestrations.cpp", ("__CPU_SIM", f"O_{name}"), [INCLUDE_DIR], ["-Werror"],
                      name_hint=f"simtest:orch_{name}") for name in ORCHS]
    paths = build_many(jobs)
    kernels = [KernelBinary(fid, str(p), name.lower(), ct) for (name, (fid, ct)), p in zip(KERNELS.items(), paths)]
    orchs = dict(zip(ORCHS, map(str, paths[len(KERNELS):])))

    def run(orch, args, **cfg):
        return run_binaries(orchs[orch], kernels, args, RunConfig(**cfg))
    run("FAN", [np.zeros(4, np.float32), 1])   # warm: library loaded, device threads up
    return run


def test_mixed_task_lanes_on_one_cluster(sim, tmp_path):
    blocks, clusters = 3, 2
    out = np.full((blocks, 4), -1, dtype=np.int32)
    path = tmp_path / "mixed.json"
    res = sim("MIXED", [out, blocks], clusters=clusters, trace=str(path))
    doc = json.loads(path.read_text())
    tracks = {(e["pid"], e["tid"]): e["args"]["name"] for e in doc["traceEvents"]
              if e["ph"] == "M" and e["name"] == "thread_name"}
    slices = [e for e in doc["traceEvents"] if e["ph"] == "X" and e["cat"] == "task"]
    assert len(slices) == 3 * blocks == len(res.timeline.blocks)
    for b in range(blocks):
        lanes = [e for e in slices if e["args"]["block"] == b]
        c = int(out[b, 3])                    # the AIC reported its cluster
        assert sorted(tracks[(e["pid"], e["tid"])] for e in lanes) == \
            [f"cluster {c} AIC", f"cluster {c} AIV0", f"cluster {c} AIV1"]
        assert {e["pid"] for e in lanes} == {100 + c}
        names = {tracks[(e["pid"], e["tid"])].split()[-1]: e["name"] for e in lanes}
        assert names == {"AIC": "lane_aic", "AIV0": "lane_aiv", "AIV1": "lane_aiv"}
    s = res.summary()
    assert s.tasks == 1 and s.blocks == 9 and s.critical_path_count == 1
    assert {c.label for c in s.cores if c.blocks} <= {f"cluster {c} {x}" for c in range(2) for x in ("AIC", "AIV0", "AIV1")}
    assert read_trace(path).summary() == s


def test_chain_and_fan_critical_paths_and_trace_round_trip(sim, tmp_path):
    y = np.zeros(16, np.float32)
    chain = sim("NCHAIN", [y, N])
    s = chain.summary()
    assert s.tasks == N and s.edges == N - 1
    assert s.critical_path_count == N and s.critical_path_by_count == tuple(range(N))
    assert s.critical_path == tuple(range(N))
    b = chain.timeline.blocks
    assert s.critical_path_ns == int((b["end_ns"] - b["start_ns"]).sum())
    fan = sim("FAN", [np.zeros(4, np.float32), N])
    sf = fan.summary()
    assert sf.edges == 0 and sf.critical_path_count == 1
    assert sf.critical_path_ns == int((fan.timeline.blocks["end_ns"] - fan.timeline.blocks["start_ns"]).max())

    # the trace file round-trips (its cost per block is a bench figure, not a test)
    path = tmp_path / "chain.json"
    write_trace(path, chain)
    doc = trace_events(chain)
    back = read_trace(path)
    assert back.summary() == s
    assert len([e for e in doc["traceEvents"] if e["ph"] == "X" and e["cat"] == "task"]) == N


def test_mixed_task_fifo_waits_are_recorded_when_tracing(sim, tmp_path):
    """AIV lanes pop what the AIC pushes; a pop that starts before the push waits and is
    recorded (timing decides how many do: every recorded wait must be consistent)."""
    blocks, clusters = 6, 3
    seen = 0
    for attempt in range(5):
        out = np.full((blocks, 4), -1, dtype=np.int32)
        path = tmp_path / f"mixed{attempt}.json"
        res = sim("MIXED", [out, blocks], clusters=clusters, trace=str(path))
        waits = res.timeline.fifo_waits
        assert waits is not None
        b = res.timeline.blocks
        for w in waits:
            assert w["task_seq"] == 0 and w["pipe"] == 0 and w["dir"] == 1 and w["op"] in (0, 1)
            if w["op"] == 1:   # a TPOP waits on its own vector lane's FIFO
                assert w["lane"] == w["fifo_lane"] in (0, 1)
            mine = b[(b["core_id"] == w["core_id"]) & (b["start_ns"] <= w["start_ns"]) & (w["end_ns"] <= b["end_ns"])]
            assert len(mine) == 1, "a FIFO wait lies inside a block of its core"
            assert w["start_ns"] <= w["end_ns"]
        s = res.summary()
        assert s.fifo_waits == len(waits)
        back = read_trace(path)
        assert back.summary() == s
        doc = json.loads(path.read_text())
        assert len([e for e in doc["traceEvents"] if e.get("cat") == "fifo"]) == len(waits)
        seen += len(waits)
        if seen:
            break
    assert seen, "no TPOP ever waited for its TPUSH in 5 runs"
    untraced = sim("MIXED", [np.full((blocks, 4), -1, dtype=np.int32), blocks], clusters=clusters)
    assert untraced.timeline.fifo_waits is None
