"""Simulator runtime overheads: measured and printed (run with -s to see them), not asserted.

Targets: chain <= 15 us/task, fan <= 2 us/task, one-task run <= 5 ms.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "sim_cases"))
from sim_util import KERNELS, RUNTIMES, SimCases  # noqa: E402

N = 1000
NOOP = [name for name, _ in KERNELS].index("NOOP")


@pytest.fixture(scope="module")
def sim():
    s = SimCases()
    s.run("ONE", [np.zeros(4, np.float32), NOOP, 0])   # warm: library loaded, device threads up
    return s


def _best(fn, reps=3):
    best = None
    for _ in range(reps):
        r = fn()
        best = r if best is None or r.elapsed < best.elapsed else best
    return best


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_overhead_chain_and_fan(sim, runtime):
    y = np.zeros(16, np.float32)
    chain = _best(lambda: sim.run("NCHAIN", [y, N], runtime))
    assert chain.tasks == N and len(chain.timeline.edges) == N - 1
    fan = _best(lambda: sim.run("FAN", [y, N], runtime))
    assert fan.tasks == N and len(fan.timeline.edges) == 0
    print(f"\n[{runtime}] chain of {N}: {chain.elapsed / N * 1e6:.2f} us/task (target <= 15); "
          f"fan of {N}: {fan.elapsed / N * 1e6:.2f} us/task (target <= 2)")
