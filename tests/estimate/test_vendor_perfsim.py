"""ptokit's kernel totals against the vendor perf-sim on the same kernel C++ (opt-in).

Runs only with ``--perfsim-isa DIR`` (a pto-isa checkout whose perf-sim headers build; see
bench/vendor_perfsim.py and docs/estimate.md, "Against the vendor perf-sim"). Where both models give an
instruction the same cycles (the element-wise chain), the totals must agree within 15 %: the pipe
model and the vendor's order the same instructions the same way. The softmax, the matmul and the
flash-attention kernel are reported, not bounded: their totals differ by the instructions whose
perf-sim cycles differ from the vendor's hardware measurements that ptokit follows, and by the FIFO's
copies through GM (docs/estimate.md).
"""
from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _bench():
    spec = importlib.util.spec_from_file_location("ptokit_bench_perfsim", ROOT / "bench" / "vendor_perfsim.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def rows(request, tmp_path_factory):
    isa = request.config.getoption("--perfsim-isa")
    if not isa:
        pytest.skip("needs --perfsim-isa DIR (a pto-isa checkout whose perf-sim builds)")
    cxx = shutil.which("clang++-19") or shutil.which("clang++") or "g++"
    return {name: (ours, theirs, note) for name, ours, theirs, note in
            _bench().compare(Path(isa), cxx, tmp_path_factory.mktemp("perfsim"), per_instruction=True)}


def test_every_kernel_builds_under_the_vendor_cost_model(rows):
    for name, (ours, theirs, note) in rows.items():
        assert theirs, f"{name}: {note}"
        assert ours > 0, name


def test_same_instruction_costs_give_the_same_total(rows):
    ours, theirs, note = rows["chain"]
    assert abs(ours - theirs) <= 0.15 * theirs, (ours, theirs, note)
