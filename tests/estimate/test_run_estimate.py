"""Estimated device time of whole runs (RunConfig(estimate=True), docs/estimate.md): deterministic
under both runtime kinds, per-pipe busy cycles that follow the program, overlap between pipes, the
summary, the CLI and the trace's device tracks."""
import json

import numpy as np
import pytest

import ptokit
from ptokit.cli import main as cli_main
from ptokit.runtime.config import RunConfig
from ptokit.runtime.trace import PID_DEVICE, read_trace

import programs as P
from mixed import programs as MP

from . import programs as EP

RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]
_CACHE = {}


def compiled(key, prog, tmp_path_factory):
    if key not in _CACHE:
        _CACHE[key] = ptokit.compile(prog, output_dir=tmp_path_factory.mktemp(key))
    return _CACHE[key]


def elementwise_args():
    a = np.random.default_rng(1).standard_normal((64, 64)).astype(np.float32)
    b = np.random.default_rng(2).standard_normal((64, 64)).astype(np.float32)
    return a, b, np.zeros((64, 64), np.float32), np.zeros((64, 64), np.float32)


def run(key, prog, args, tmp_path_factory, **cfg):
    return compiled(key, prog, tmp_path_factory)(*args, config=RunConfig(estimate=True, **cfg))


def figures(e):
    return (e.cycles, e.critical_path_cycles, e.critical_path, e.busy,
            [(t.seq, t.kernel, t.cycles, t.start, t.end, t.busy) for t in e.tasks])


def test_estimate_is_deterministic_under_both_runtime_kinds(tmp_path_factory):
    seen = []
    for runtime in RUNTIMES:
        for _ in range(2):
            args = elementwise_args()
            r = run("ew", P.Elementwise, args, tmp_path_factory, runtime=runtime)
            np.testing.assert_allclose(args[2], args[0] + args[1], rtol=1e-6)   # the results are still right
            seen.append(figures(r.estimate))
    assert all(s == seen[0] for s in seen), seen
    assert seen[0][0] > 0


def test_off_by_default_and_no_estimate_then(tmp_path_factory):
    r = compiled("ew", P.Elementwise, tmp_path_factory)(*elementwise_args())
    assert r.estimate is None and r.timeline.estimates is None


def test_pipes_busy_follow_the_program(tmp_path_factory):
    ew = run("ew", P.Elementwise, elementwise_args(), tmp_path_factory).estimate
    assert ew.busy["VEC"] > 0 and ew.busy["MTE2"] > 0 and ew.busy["MTE3"] > 0
    assert ew.busy["CUBE"] == ew.busy["MTE1"] == ew.busy["FIXP"] == 0
    a = np.ones((64, 256), np.float16)
    b = np.ones((256, 64), np.float16)
    c = np.zeros((64, 64), np.float32)
    mm = run("mmk", P.MatmulKLoop, (a, b, c), tmp_path_factory).estimate
    np.testing.assert_allclose(c, np.full((64, 64), 256.0))
    assert mm.busy["CUBE"] > 0 and mm.busy["MTE1"] > 0 and mm.busy["FIXP"] > 0 and mm.busy["MTE2"] > 0
    assert mm.busy["VEC"] == 0 and mm.busy["MTE3"] == 0
    # four 64x64x64 fp16 fractal passes of the cube: 4 x (6 + 4*4*4) cycles
    assert mm.busy["CUBE"] == 4 * (6 + 64)


def test_double_buffering_overlaps_the_pipes(tmp_path_factory):
    x = np.random.default_rng(3).standard_normal((64, 64)).astype(np.float32)
    y = np.zeros_like(x)
    e = run("halves", EP.TwoBuffers, (x, y), tmp_path_factory).estimate
    np.testing.assert_allclose(y, np.exp(x), rtol=1e-5)
    task = e.tasks[0]
    assert task.cycles < sum(e.busy.values()), (task.cycles, e.busy)   # the second load runs beside the first exp
    assert task.cycles >= max(e.busy.values())                        # ... but no pipe does two things at once


def test_loop_iterations_on_one_buffer_do_not_overlap(tmp_path_factory):
    # each iteration reuses the one Vec buffer: its load waits for the previous iteration's store (the
    # loop-carried MTE3 -> MTE2 flag at the end of the body), so one chunk at a time
    x = np.random.default_rng(3).standard_normal((EP.C * EP.RC, 64)).astype(np.float32)
    y = np.zeros_like(x)
    e = run("stream", EP.StreamExp, (x, y), tmp_path_factory).estimate
    np.testing.assert_allclose(y, np.exp(x), rtol=1e-5)
    assert e.tasks[0].cycles == sum(e.busy.values())


def test_mixed_kernel_vector_waits_for_the_cube(tmp_path_factory):
    a = np.ones((64, 64), np.float16) * 0.01
    b = np.ones((64, 64), np.float16) * 0.01
    y = np.zeros((64, 64), np.float32)
    r = run("mmexp", MP.MatmulExp, (a, b, y), tmp_path_factory)
    e, tl = r.estimate, r.timeline
    assert e.busy["CUBE"] > 0 and e.busy["VEC"] > 0
    aic = tl.estimates[tl.blocks["lane"] == -1]
    aiv = tl.estimates[tl.blocks["lane"] >= 0]
    # the vector lanes' exp starts only after the cube pushed its result: their pipe work begins later
    vec = 5   # ESTIMATE_PIPES index of VEC
    assert all(int(v["first"][vec]) >= int(aic[0]["last"][3]) for v in aiv if v["busy"][vec])
    assert e.cycles == max(int(x["cycles"]) for x in tl.estimates)


def test_a_push_waits_for_a_free_fifo_slot(tmp_path_factory):
    # two slots: the cube's third push needs the slot of the vector's first pop back, its fourth the
    # second's, which lane 0 frees only after a whole tile's vector work; so the cube's block lasts at
    # least until then, though its own work would be done long before
    a = np.ones((EP.NP * 64, 64), np.float16) * 0.01
    w = np.ones((64, 64), np.float16) * 0.01
    seen = []
    for runtime in RUNTIMES:
        y = np.zeros((EP.NP * 64, 64), np.float32)
        r = run("slow", EP.SlowConsumer, (a, w, y), tmp_path_factory, runtime=runtime)
        np.testing.assert_allclose(y, 1.0)
        seen.append(figures(r.estimate))
    assert seen[0] == seen[1]           # the stalls are device time: the same under both runtime kinds
    tl = r.timeline
    aic = tl.estimates[tl.blocks["lane"] == -1][0]
    lane0 = tl.estimates[tl.blocks["lane"] == 0][0]
    vec, fixp = 5, 4   # ESTIMATE_PIPES indices
    one_tile = int(lane0["busy"][vec]) // EP.NP
    assert int(aic["last"][fixp]) >= int(lane0["first"][vec]) + one_tile
    assert int(aic["busy"][fixp]) < int(aic["cycles"]) // 4     # the cube's own work is a small part of it


def test_summary_prints_the_estimate(tmp_path_factory):
    r = run("ew", P.Elementwise, elementwise_args(), tmp_path_factory)
    text = r.summary().format()
    assert "estimated device time:" in text and "estimated busy cycles per pipe: Scalar" in text
    assert f"{r.estimate.cycles} cycles at 1.85 GHz" in text
    plain = compiled("ew", P.Elementwise, tmp_path_factory)(*elementwise_args())
    assert "estimated" not in plain.summary().format()


def test_trace_has_the_device_tracks_and_reads_back(tmp_path_factory, tmp_path):
    path = tmp_path / "run.json"
    r = run("ew", P.Elementwise, elementwise_args(), tmp_path_factory, trace=str(path))
    doc = json.loads(path.read_text())
    names = {e["args"]["name"] for e in doc["traceEvents"]
             if e.get("ph") == "M" and e.get("pid") == PID_DEVICE and "name" in e["args"]}
    assert any(n.startswith("device estimate") for n in names)
    assert any(n.endswith(" VEC") for n in names) and any(n.endswith(" MTE2") for n in names)
    slices = [e for e in doc["traceEvents"] if e.get("cat") == "device" and e.get("ph") == "X"]
    assert {e["name"] for e in slices} >= {"add", "mul_exp", "VEC", "MTE2", "MTE3"}
    back = read_trace(path)
    assert figures(back.estimate) == figures(r.estimate)
    assert back.summary().format() == r.summary().format()


def test_cli_estimate(tmp_path_factory, capsys):
    tree = compiled("ew", P.Elementwise, tmp_path_factory).output_dir
    assert cli_main(["run", str(tree), "-q", "--estimate"]) == 0
    out = capsys.readouterr().out
    assert "estimated device time:" in out and "estimated slowest tasks:" in out
    assert cli_main(["run", str(tree), "-q", "--estimate", "--no-summary"]) == 0
    out = capsys.readouterr().out
    assert "estimated device time:" in out and "run summary" not in out
    assert cli_main(["run", str(tree), "-q"]) == 0
    assert "estimated" not in capsys.readouterr().out


def test_estimate_option_is_checked():
    with pytest.raises(ValueError, match="estimate=1: must be True or False"):
        RunConfig(estimate=1)
    with pytest.raises(ValueError, match="a2a3 only"):
        RunConfig(estimate=True, platform="a5sim")


def test_busy_cycles_are_the_written_instruction_costs(tmp_path_factory):
    """Straight-line kernels: every PTO_EST line the assembler wrote runs once, so each pipe's busy cycles
    are the sum of its lines' cycles (the simulator accounts what the costs say, no more, no less)."""
    import re
    c = compiled("softmax", P.SoftmaxRows, tmp_path_factory)
    x = np.random.default_rng(4).standard_normal((P.R, P.N)).astype(np.float32)
    y = np.zeros_like(x)
    e = c(x, y, config=RunConfig(estimate=True)).estimate
    want = {}
    for cpp in (c.output_dir / "kernels").rglob("*.cpp"):
        for pipe, cycles in re.findall(r"PTO_EST\(PIPE_(\w+), (\d+)u", cpp.read_text()):
            label = {"V": "VEC", "MTE2": "MTE2", "MTE3": "MTE3", "M": "CUBE", "MTE1": "MTE1", "FIX": "FIXP"}[pipe]
            want[label] = want.get(label, 0) + int(cycles)
    assert want and {k: v for k, v in e.busy.items() if v} == want
    assert e.busy["VEC"] > e.busy["MTE3"]     # a softmax is vector work
