"""Distributed artifact trees end to end: distributed_config.py + host_orch.py + next_levels/, run
with run_distributed, DistributedCompiledProgram and `ptokit run`; host collectives, SubWorkers,
the trace with one process per rank; determinism across runs, runtime kinds and cluster counts."""
from __future__ import annotations

import json

import numpy as np
import pytest

import ptokit
from dist_util import my_segments, tensor, write_tree

from ptokit.cli import main as cli_main
from ptokit.distributed.launcher import run_distributed
from ptokit.distributed_compiled import DistributedCompiledProgram
from ptokit.errors import UserError
from ptokit.runtime.config import RunConfig
from ptokit.runtime.trace import read_trace, read_trace_ranks
from ptokit.targets import DistributedConfig, RuntimeKind

PUT_HOST = '''
def entry(rt, tensors, world_size):
    x, y = tensors
    src, dst, sig = rt.alloc_domain("main")
    ws, wd, wg = rt.window(src, [1, 64], "FP32"), rt.window(dst, [1, 64], "FP32"), rt.window(sig, [8], "INT32")
    for r in range(world_size):
        rt.dispatch(r, "put", [x[r], y[r], ws, wd, wg], [0])
    rt.sub("double", [y])
'''
DOUBLE = '''
def double(y):
    y *= 2
'''
PUT_PARAMS = [tensor("x", "FP32", ["NR", 1, 64]), tensor("y", "FP32", ["NR", 1, 64], "OUT")]
MAIN_DOMAIN = {"name": "main", "slots": [{"name": "src", "nbytes": 256}, {"name": "dst", "nbytes": 256},
                                         {"name": "sig", "nbytes": 32}]}

COLLECTIVE_HOST = '''
def entry(rt, tensors, world_size):
    x, y = tensors
    data, res, sig = rt.alloc_domain([1024, 1024, 32])
    wd, wr, ws = rt.window(data, [1, 256], "FP32"), rt.window(res, [1, 256], "FP32"), rt.window(sig, [8], "INT32")
    for r in range(world_size):
        rt.dispatch(r, "to_window", [x[r], wd])
    rt.collective("allreduce", [wd, wr, ws], {"key": "fp32_256_mesh"})
    for r in range(world_size):
        rt.dispatch(r, "from_window", [wr, y[r]])
'''
AR_PARAMS = [tensor("x", "FP32", ["NR", 1, 256]), tensor("y", "FP32", ["NR", 1, 256], "OUT")]


def xs(w, n=64):
    return (np.arange(n, dtype=np.float64)[None, None, :] + 100.0 * np.arange(w)[:, None, None]).astype(np.float32)


@pytest.fixture(scope="module")
def put_tree(tmp_path_factory):
    return write_tree(tmp_path_factory.mktemp("put") / "tree", PUT_HOST, ["put"], PUT_PARAMS, domains=[MAIN_DOMAIN],
                      sub_workers={"double": DOUBLE})


@pytest.fixture(scope="module")
def ar_tree(tmp_path_factory):
    return write_tree(tmp_path_factory.mktemp("ar") / "tree", COLLECTIVE_HOST, ["to_window", "from_window", "wallreduce"],
                      AR_PARAMS, collectives=[{"op": "allreduce", "key": "fp32_256_mesh", "chip": "wallreduce"}])


def test_run_distributed_tree_with_a_subworker_and_trace(put_tree, tmp_path):
    x, y = xs(2), np.zeros((2, 1, 64), np.float32)
    trace = tmp_path / "run.json"
    res = run_distributed(put_tree, [x, y], RunConfig(clusters=2, trace=str(trace)), quiet=True)
    np.testing.assert_array_equal(y, 2 * np.roll(x, 1, axis=0))      # the SubWorker doubled the put's result
    assert res.device_ids == [0, 1] and [r.tasks for r in res.ranks] == [1, 1]
    doc = json.loads(trace.read_text())
    procs = {e["pid"]: e["args"]["name"] for e in doc["traceEvents"] if e.get("name") == "process_name"}
    assert sorted(procs.values()) == ["rank 0 (device 0)", "rank 1 (device 1)"]      # one process per rank
    back = read_trace_ranks(trace)
    assert [len(b.timeline.blocks) for b in back] == [1, 1]
    assert [b.timeline.kernel_names for b in back] == [{0: "put"}, {0: "put"}]
    with pytest.raises(ValueError, match="read_trace_ranks"):
        read_trace(trace)
    assert not my_segments()


def test_compiled_program_from_dir_and_device_ids(put_tree):
    prog = DistributedCompiledProgram.from_dir(put_tree)
    assert prog.world_size == 2 and prog.last_result is None
    x, y = xs(4), np.zeros((4, 1, 64), np.float32)
    # a RunConfig with distributed_config runs on those devices (NR = 4 here) ...
    prog(x, y, config=RunConfig(clusters=2, distributed_config=DistributedConfig(device_ids=[3, 1, 2, 0])))
    np.testing.assert_array_equal(y, 2 * np.roll(x, 1, axis=0))
    assert prog.last_result.device_ids == [3, 1, 2, 0]
    # ... one without keeps the compiled one (2 ranks): NR must then be 2
    with pytest.raises(TypeError, match="NR is the rank count and the program runs on 2 ranks"):
        prog(x, y, config=RunConfig(clusters=2))
    assert ptokit.DistributedConfig is DistributedConfig
    from ptokit.ir.distributed_compiled_program import DistributedConfig as IrDistributedConfig
    assert IrDistributedConfig is DistributedConfig
    assert ptokit.DistributedCompiledProgram is DistributedCompiledProgram


def test_host_collective_dispatches_the_builtin_chip_everywhere(ar_tree):
    x = np.random.default_rng(3).standard_normal((4, 1, 256)).astype(np.float32)
    y = np.zeros_like(x)
    res = run_distributed(ar_tree, [x, y], RunConfig(clusters=2, distributed_config=DistributedConfig(
        device_ids=[0, 1, 2, 3])), quiet=True)
    fold = x[0] + x[1] + x[2] + x[3]
    for r in range(4):
        assert y[r].tobytes() == fold.tobytes()
    assert [len(d) for d in res.dispatches] == [3, 3, 3, 3]          # to_window, the collective, from_window
    assert [r.tasks for r in res.ranks] == [3, 3, 3, 3]
    names = set(res.ranks[0].timeline.kernel_names.values())
    assert names == {"to_window", "wallreduce", "from_window"}


def test_collective_without_builtin_chip_is_not_supported(tmp_path):
    host = COLLECTIVE_HOST.replace('{"key": "fp32_256_mesh"}', '{"key": "fp16_64_ring"}')
    tree = write_tree(tmp_path / "t", host, ["to_window", "from_window", "wallreduce"], AR_PARAMS)
    x = np.zeros((2, 1, 256), np.float32)
    with pytest.raises(UserError, match="host collective 'allreduce' is not supported yet"):
        run_distributed(tree, [x, x.copy()], RunConfig(clusters=2), quiet=True)
    assert not my_segments()


@pytest.mark.parametrize("variant", [dict(runtime="host_build_graph", clusters=1), dict(clusters=4)],
                         ids=["hbg-1cluster", "tmr-4clusters"])
def test_determinism_across_runs_runtimes_and_clusters(ar_tree, variant):
    x = np.random.default_rng(11).standard_normal((2, 1, 256)).astype(np.float32)
    outs = []
    for config in (RunConfig(clusters=2), RunConfig(clusters=2), RunConfig(**variant)):
        y = np.zeros_like(x)
        res = run_distributed(ar_tree, [x, y], config, quiet=True)
        outs.append(y.tobytes())
        assert res.ranks[0].runtime is (RuntimeKind.HOST_BUILD_GRAPH if config.runtime is RuntimeKind.HOST_BUILD_GRAPH
                                        else RuntimeKind.TENSORMAP_AND_RINGBUFFER)
    assert outs[0] == outs[1] == outs[2]


def test_ptokit_run_on_a_distributed_tree_and_on_a_chip_tree(put_tree, capsys):
    assert cli_main(["run", str(put_tree), "-d", "0,1,2", "--no-summary", "-q"]) == 0
    out = capsys.readouterr().out
    assert "ran 3 rank(s)" in out and "rank 2 (device 2): 1 task(s)" in out and "y: float32[3, 1, 64]" in out
    assert cli_main(["run", str(put_tree / "next_levels" / "put"), "--no-summary", "-q"]) == 0
    out = capsys.readouterr().out
    assert "ran 1 rank(s)" in out and "y: float32[1, 64]" in out
    assert cli_main(["run", str(put_tree), "-d", "0,0", "-q"]) != 0
    assert "device ids must be distinct" in capsys.readouterr().err
    assert not my_segments()


def test_tampered_host_program_is_not_run(tmp_path):
    tree = write_tree(tmp_path / "t", PUT_HOST, ["put"], PUT_PARAMS, domains=[MAIN_DOMAIN],
                      sub_workers={"double": DOUBLE})
    host = tree / "orchestration" / "host_orch.py"
    host.write_text(host.read_text() + "\n# edited\n")
    x = np.zeros((2, 1, 64), np.float32)
    with pytest.raises(UserError, match="changed after ptokit wrote it, so it is not run"):
        run_distributed(tree, [x, x.copy()], RunConfig(clusters=2), quiet=True)
    assert not my_segments()


NOTIFY_HOST = '''
def entry(rt, tensors, world_size):
    y, mode = tensors
    (slot,) = rt.alloc_domain([32])
    sig = rt.window(slot, [8], "INT32")
    for r in range(world_size):
        rt.dispatch(r, "notify", [y[r], sig], [mode])
'''


@pytest.mark.parametrize("mode", [1, np.array(1, np.int64)], ids=["int", "0-d array"])
def test_host_scalar_parameters(tmp_path, mode):
    tree = write_tree(tmp_path / "t", NOTIFY_HOST, ["notify"],
                      [tensor("y", "INT32", ["NR", 1, 8], "OUT"), {"name": "mode", "kind": "scalar", "dtype": "INT64"}])
    y = np.zeros((2, 1, 8), np.int32)
    run_distributed(tree, [y, mode], RunConfig(clusters=2), quiet=True)
    np.testing.assert_array_equal(y[:, 0, 0], [2, 1])                 # Set mode: y[r] = (r-1) % W + 1
    with pytest.raises(TypeError, match=r"argument 1 \(mode\) is a scalar, got an array of shape \(2,\)"):
        run_distributed(tree, [y, np.ones(2)], RunConfig(clusters=2), quiet=True)
