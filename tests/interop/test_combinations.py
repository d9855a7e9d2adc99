"""Same numbers across the combinations (issue: real-tool interop, item 4): one program through
every (assembler x tile library) pair this machine has, compared with built-in x ptokit.

Assemblers: the built-in one; the real ptoas 0.27 as recorded in fixtures/ (always); a live ptoas
when the test run was given one (PTOAS_ROOT, kept by conftest as PTOKIT_TEST_PTOAS_ROOT).
Libraries: ptokit's CPU tile library; pto-isa when the run was given PTO_ISA_ROOT (kept as
PTOKIT_TEST_PTO_ISA_ROOT). In CI that is built-in x ptokit and fixture-real x ptokit. Results on
ptokit's library must be bit-identical; pto-isa computes its own way (its exp differs in the last
bit), so it is compared with a tolerance.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from interop_util import RUNTIMES, assert_same_outputs, cases, compile_case, env, pair_trees, run_outputs, \
    write_replaying_ptoas

LIVE_PTOAS = os.environ.get("PTOKIT_TEST_PTOAS_ROOT")
VENDOR = os.environ.get("PTOKIT_TEST_PTO_ISA_ROOT")
ASSEMBLERS = ["builtin", "fixture-real"] + (["ptoas"] if LIVE_PTOAS else [])
LIBRARIES = ["ptokit"] + (["pto-isa"] if VENDOR else [])
PROGRAMS = ["Elementwise", "Matmul_64_FP16"]      # a vector and a cube program pto-isa runs right


@pytest.fixture(scope="module")
def replay_root(tmp_path_factory):
    return write_replaying_ptoas(tmp_path_factory.mktemp("replaying_ptoas"))


@pytest.mark.parametrize("case", PROGRAMS)
def test_same_numbers_in_every_combination(case, tmp_path, replay_root, record_property):
    units, _ = cases()[case]
    pair = pair_trees(case, tmp_path, replay_root)
    trees = {"builtin": pair.builtin, "fixture-real": pair.real}
    if LIVE_PTOAS:
        trees["ptoas"] = compile_case(units, tmp_path / "live", ptoas_root=Path(LIVE_PTOAS)).output_dir
    assert list(trees) == ASSEMBLERS
    results = {}
    for asm, tree in trees.items():
        for lib in LIBRARIES:
            with env(PTO_ISA_ROOT=VENDOR if lib == "pto-isa" else None):
                results[(asm, lib)] = {rt: run_outputs(tree, rt) for rt in RUNTIMES}
    record_property("combinations", " ".join(f"{a}x{l}" for a, l in results))
    assert len(results) == len(ASSEMBLERS) * len(LIBRARIES) >= 2
    ref = results[("builtin", "ptokit")]
    for (asm, lib), by_rt in results.items():
        for rt in RUNTIMES:
            what = f"{case}: {asm} x {lib} ({rt}) vs builtin x ptokit"
            if lib == "ptokit":
                assert_same_outputs(ref[rt], by_rt[rt], what)
            else:
                for name, want in ref[rt].items():
                    np.testing.assert_allclose(by_rt[rt][name].astype(np.float64), want.astype(np.float64),
                                               rtol=1e-5, atol=1e-5, err_msg=what)
