"""Every recorded pair of the real ptoas 0.27's C++ runs on ptokit's simulator and gives the same
numbers as the built-in assembler's tree (issue: real-tool interop, item 2).

For each case of ``fixtures/manifest.tsv`` with a recording (an accepted pair, or a mixed unit of
``probes/no_slot_num``): compile the program on the case's platform; the fresh ``ptoas/<unit>.pto``
must equal the recorded one (else the fixture is stale: a stale recording listed in ``KNOWN_STALE``
is compared through the built-in assembler's output of its recorded ``.pto`` instead, quietly;
any other fails, naming it); build the tree with the real C++ against ptokit's
CPU library; run both trees on the same seeded inputs under both runtime kinds; outputs must be
bit-for-bit equal (``fixtures/runs.tsv``). No ptoas binary is needed.
"""
from __future__ import annotations

import pytest

import numpy as np

from interop_util import (RUNTIMES, assert_same_outputs, cases, compile_case, is_stale, pair_trees, real_code_in,
                          run_io, run_outputs, write_replaying_ptoas)

# "<case>/<unit>" (probes: "probes/no_slot_num/<case>/<unit>") recordings whose .pto ptokit no
# longer writes. Regenerate them with the real ptoas (PTOAS_ROOT) and remove them here; a stale
# recording not listed fails test_no_newly_stale_fixtures.
KNOWN_STALE: frozenset = frozenset({
    "ControlFlow/k", "ControlFlow@a5/k",      # pl.unroll now copies its body (UnrollLoops) instead of looping
})

CASES = cases()

# y = x + the lane of the vector core a lone AIV task lands on: which core that is may differ
# between two runs, so each tree's output is checked to be x + 0 or x + 1 instead.
LANE_DEPENDENT = {"SubblockLane", "SubblockLane@a5"}


@pytest.fixture(scope="module")
def replay_root(tmp_path_factory):
    return write_replaying_ptoas(tmp_path_factory.mktemp("replaying_ptoas"))


def test_every_recording_is_covered():
    """80 accepted pairs and 22 mixed probes (README of fixtures/), each in some case."""
    recs = [r for _, rs in CASES.values() for r in rs]
    assert sum(not r.probe for r in recs) == 80
    assert sum(r.probe for r in recs) == 22


@pytest.mark.parametrize("case", sorted(CASES))
def test_real_assembler_output_matches_builtin(case, tmp_path, replay_root):
    units, recs = CASES[case]
    trees = pair_trees(case, tmp_path, replay_root)
    unlisted = sorted(set(trees.stale) - KNOWN_STALE)
    assert not unlisted, (f"stale fixture(s) {', '.join(unlisted)}: ptokit now writes a different .pto; regenerate "
                          f"them with the real ptoas (fixtures/README.md) or list them in KNOWN_STALE")
    for r in recs:
        assert real_code_in(trees.real, r.unit), f"{r.name}: the real tree does not hold the recorded C++"
        assert not real_code_in(trees.builtin, r.unit)
        for name, core in r.unit.functions:   # the vendor's warnings are ignored around its code only
            assert "#pragma GCC diagnostic push" in (trees.real / "kernels" / core / f"{name}.cpp").read_text()
            assert "#pragma GCC diagnostic push" not in (trees.builtin / "kernels" / core / f"{name}.cpp").read_text()
    for rt in RUNTIMES:
        if case in LANE_DEPENDENT:
            for tree in (trees.builtin, trees.real):
                ins, outs = run_io(tree, rt)
                lane_of_core = [v for v in (0.0, 1.0) if np.array_equal(outs["y"], ins["x"] + np.float32(v))]
                assert lane_of_core, f"{case} ({rt}, {tree.name}): y is not x + 0 or x + 1"
            continue
        assert_same_outputs(run_outputs(trees.builtin, rt), run_outputs(trees.real, rt), f"{case} ({rt})")


def test_no_newly_stale_fixtures(tmp_path):
    stale = set()
    for case, (units, recs) in CASES.items():
        fresh = compile_case(units, tmp_path / case).output_dir
        stale |= {r.name for r in recs if is_stale(r, fresh)}
    fixed = sorted(KNOWN_STALE - stale)
    assert not fixed, f"listed in KNOWN_STALE but fresh again (remove them from it): {', '.join(fixed)}"
    new = sorted(stale - KNOWN_STALE)
    assert not new, (f"{len(new)} fixture(s) newly stale (ptokit now writes a different .pto): {', '.join(new)}. "
                     f"Regenerate them with the real ptoas, or list them in KNOWN_STALE")
