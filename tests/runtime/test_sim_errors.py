"""Simulator runtime: error codes, crash containment, timeouts, RunConfig validation."""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pytest

from ptokit.errors import RuntimeFailure
from ptokit.runtime.config import RunConfig

sys.path.insert(0, str(Path(__file__).resolve().parent / "sim_cases"))
from sim_util import KERNELS, RUNTIMES, SimCases  # noqa: E402

FUNC = {name: i for i, (name, _) in enumerate(KERNELS)}


@pytest.fixture(scope="module")
def sim():
    return SimCases()


def _still_usable(sim):
    x = np.arange(16, dtype=np.float32)
    out = np.zeros_like(x)
    sim.run("CHAIN", [x, out, 2.0])
    np.testing.assert_array_equal(out, x * 4)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_scalar_before_tensor_is_error_5(sim, runtime):
    with pytest.raises(RuntimeFailure) as ei:
        sim.run("SCALAR_FIRST", [np.zeros(4, np.float32)], runtime)
    assert ei.value.code == 5
    assert "after a scalar" in ei.value.message


def test_more_than_32_tensors_is_error_5(sim):
    with pytest.raises(RuntimeFailure) as ei:
        sim.run("TOO_MANY_TENSORS", [np.zeros(4, np.float32)])
    assert ei.value.code == 5
    assert "more than 32 tensor args" in ei.value.message


def test_wrong_arg_count_is_error_5(sim):
    with pytest.raises(RuntimeFailure) as ei:
        sim.run("CHAIN", [np.zeros(4, np.float32), np.zeros(4, np.float32)])   # the scalar is missing
    assert ei.value.code == 5 and "expects 3 args, got 2" in ei.value.message


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_segfaulting_kernel_fails_the_run_not_the_process(sim, runtime):
    x = np.zeros(4, np.float32)
    with pytest.raises(RuntimeFailure) as ei:
        sim.run("ONE", [x, FUNC["SEGV"], 0], runtime)
    msg = ei.value.message
    assert ei.value.code == 101
    assert "kernel 'segv'" in msg and "SIGSEGV" in msg and "task 0" in msg
    _still_usable(sim)
    with pytest.raises(RuntimeFailure):   # and it can crash again
        sim.run("ONE", [x, FUNC["SEGV"], 0], runtime)
    _still_usable(sim)


def test_aborting_kernel_fails_the_run_not_the_process(sim):
    with pytest.raises(RuntimeFailure) as ei:
        sim.run("ONE", [np.zeros(4, np.float32), FUNC["ABORT"], 0], "host_build_graph")
    assert ei.value.code == 101 and "kernel 'abort'" in ei.value.message and "SIGABRT" in ei.value.message
    _still_usable(sim)


def test_tile_library_fatal_names_kernel_and_instruction(sim):
    with pytest.raises(RuntimeFailure) as ei:
        sim.run("ONE", [np.zeros(4, np.float32), FUNC["FATAL"], 0])
    msg = ei.value.message
    assert ei.value.code == 101
    assert "kernel 'fatal'" in msg and "TLOAD: tile offset 999999" in msg and "task 0" in msg
    _still_usable(sim)


def test_graph_too_big_for_host_build_graph_names_the_limit(sim):
    y = np.zeros(8, np.float32)
    with pytest.raises(RuntimeFailure) as ei:
        sim.run("INOUT_CHAIN", [y, 10, 0, 1], "host_build_graph", task_ring_size=4)
    assert ei.value.code == 3
    assert "task_ring_size=4" in ei.value.message and "host_build_graph" in ei.value.message
    with pytest.raises(RuntimeFailure) as ei:
        sim.run("CHAIN", [np.zeros(2048, np.float32), np.zeros(2048, np.float32), 1.0], "host_build_graph",
                heap_size=4096)
    assert ei.value.code == 2 and "heap_size=4096" in ei.value.message
    _still_usable(sim)


def test_ring_held_by_open_scope_is_scope_deadlock(sim):
    # 10 tasks in ONE scope through a 4-slot ring can never drain: error 1, not a hang
    y = np.zeros(8, np.float32)
    t = time.monotonic()
    with pytest.raises(RuntimeFailure) as ei:
        sim.run("INOUT_CHAIN", [y, 10, 0, 1], "tensormap_and_ringbuffer", task_ring_size=4)
    assert time.monotonic() - t < 5
    assert ei.value.code == 1
    assert "scope deadlock" in ei.value.message and "task_ring_size=4" in ei.value.message


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_explicit_fatal_is_error_9(sim, runtime):
    with pytest.raises(RuntimeFailure) as ei:
        sim.run("FATAL", [], runtime)
    assert ei.value.code == 9 and "boom: the orchestration gave up" in ei.value.message
    _still_usable(sim)


def test_stalled_kernel_times_out_with_code_100(sim):
    x = np.zeros(4, np.float32)
    t = time.monotonic()
    with pytest.raises(RuntimeFailure) as ei:
        sim.run("ONE", [x, FUNC["SLEEP"], 3000], timeout=0.3)
    took = time.monotonic() - t
    assert ei.value.code == 100
    assert "stalled running" in ei.value.message and "kernel 'sleep'" in ei.value.message
    assert took < 2.0, took       # no hang: the sleeping core is abandoned
    _still_usable(sim)


def test_unknown_func_id_is_error_5(sim):
    with pytest.raises(RuntimeFailure) as ei:
        sim.run("ONE", [np.zeros(4, np.float32), 77, 0])
    assert ei.value.code == 5 and "func_id 77" in ei.value.message


def test_run_config_validation():
    with pytest.raises(ValueError, match="vendor toolchain"):
        RunConfig(platform="a2a3")
    with pytest.raises(ValueError, match="vendor toolchain"):
        RunConfig(platform="a5")
    with pytest.raises(ValueError, match="valid platforms"):
        RunConfig(platform="x86")
    with pytest.raises(ValueError, match="valid values are 0, 2, 3, 4"):
        RunConfig(aicpu_thread_num=1)
    with pytest.raises(ValueError, match="valid values are 0, 2, 3, 4"):
        RunConfig(aicpu_thread_num=5)
    assert RunConfig(platform="a5sim", aicpu_thread_num=5).effective_aicpu_thread_num == 5
    assert RunConfig().effective_aicpu_thread_num == 4
    with pytest.raises(ValueError, match="1..24"):
        RunConfig(clusters=0)
    with pytest.raises(ValueError, match="valid names"):
        RunConfig(runtime="fast")
    with pytest.raises(ValueError, match="timeout"):
        RunConfig(timeout=0)
    with pytest.raises(ValueError, match="task_ring_size"):
        RunConfig(task_ring_size=0)
    cfg = RunConfig(runtime="host_build_graph")
    from ptokit import RuntimeKind
    assert cfg.runtime is RuntimeKind.HOST_BUILD_GRAPH


def test_fifo_pop_without_pusher_times_out_as_kernel_error(sim):
    # an AIV lane pops from its cluster FIFO but no cube core ever pushes: the wait ends
    # (at 90% of the run timeout) with a FIFO timeout that the kernel reports as fatal
    x = np.zeros(8, np.float32)
    t = time.monotonic()
    with pytest.raises(RuntimeFailure) as ei:
        sim.run("ONE", [x, FUNC["LANE_AIV"], 0], timeout=0.4)
    assert time.monotonic() - t < 2.0
    assert ei.value.code == 101
    assert "kernel 'lane_aiv'" in ei.value.message and "TPOP" in ei.value.message
    _still_usable(sim)
