"""Per-instruction cycle estimates (ptokit.pto.costs, the dialect rows' ``cost``) against the a2a3
hardware figures of costdata/a2a3_measured.csv, each within the accuracy its measurement demands."""
import pytest

from ptokit.pto import costs, dialect
from ptokit.pto.calibration import EXCLUDED, calibration_rows
from ptokit.pto.types import PartitionViewType, TileBufType

ROWS = calibration_rows()


@pytest.mark.parametrize("row", ROWS, ids=[r.test for r in ROWS])
def test_estimate_within_the_measurements_accuracy(row):
    if row.excluded:
        pytest.skip(row.excluded)
    assert row.estimate is not None, f"{row.op} has no estimate"
    assert row.precision >= row.accuracy - 1e-9, (row.estimate, row.measured, row.accuracy)


def test_every_measured_instruction_but_the_excluded_is_compared():
    assert len(ROWS) >= 70
    assert {r.test for r in ROWS if r.excluded} == set(EXCLUDED)
    assert sum(1 for r in ROWS if not r.excluded) == len(ROWS) - len(EXCLUDED)


def test_short_rows_of_a_binary_op_take_one_masked_repeat_each():
    # 64 fp32 per 256-byte repeat: a 16-column tile is 256 masked repeats, a 64-column one 64 full ones
    assert costs.vector_repeats("binary", 256, 16, 16, 4) == (256, True)
    assert costs.vector_repeats("binary", 64, 64, 64, 4) == (64, False)
    assert costs.vector_repeats("unary", 64, 64, 64, 2) == (32, False)     # full-width rows are contiguous
    assert costs.vector_repeats("binary", 8, 60, 64, 4) == (8, True)        # a valid region narrower than the tile


def test_cost_grows_with_the_tile():
    small = TileBufType.of("vec", "f32", 16, 64)
    big = TileBufType.of("vec", "f32", 64, 64)
    cost = dialect.cost_of("pto.tadd")
    assert costs.estimate("pto.tadd", cost, [big, big], [big], {}) > costs.estimate("pto.tadd", cost, [small, small],
                                                                                    [small], {})


def test_transfers_take_the_path_of_their_spaces():
    mat = TileBufType.of("mat", "f16", 64, 64)
    left = TileBufType.of("left", "f16", 64, 64)
    acc = TileBufType.of("acc", "f32", 64, 64)
    view = PartitionViewType((1, 1, 1, 64, 64), "f32")
    t = dialect.cost_of("pto.tmov")
    assert costs.estimate("pto.tmov", t, [mat], [left], {}) == costs.transfer_cycles("L1_TO_L0A", 64 * 64 * 2)
    assert costs.estimate("pto.tstore", t, [acc], [view], {}) == costs.transfer_cycles("L0C_TO_GM", 64 * 64 * 4)
    # a move with no known path has no estimate rather than a guessed one
    assert costs.estimate("pto.tmov", t, [left], [mat], {}) is None


def test_an_op_without_a_cost_has_no_estimate():
    assert dialect.cost_of("pto.trecip") is None
    assert dialect.cost_of("pto.tgather") is None


def test_a_substitute_replaces_every_estimate_within_its_block_only():
    # the comparison hook of bench/vendor_perfsim.py --costs perfsim: ptokit's pipe model on another
    # model's instruction cycles; it sees ptokit's own figure and its answer is used
    t = TileBufType.of("vec", "f32", 64, 64)
    acc = TileBufType.of("acc", "f32", 64, 64)
    cost = dialect.cost_of("pto.texp")
    own = costs.estimate("pto.texp", cost, [t], [t], {})
    seen = []
    with costs.substituted(lambda op, ins, outs, cycles: seen.append((op, cycles)) or cycles + 1000):
        assert costs.estimate("pto.texp", cost, [t], [t], {}) == own + 1000
        pipe, cycles = costs.fifo_transfer("push", acc)
        assert cycles == costs.transfer_cycles("L0C_TO_GM", 64 * 64 * 4) + 1000 and pipe == "FIX"
    assert seen[0] == ("pto.texp", own) and seen[1][0] == "pto.tpush"
    assert costs.estimate("pto.texp", cost, [t], [t], {}) == own
    assert costs.fifo_transfer("push", acc)[1] == costs.transfer_cycles("L0C_TO_GM", 64 * 64 * 4)


@pytest.mark.parametrize("op, parts", [
    ("pto.tands", "pto.texpands pto.tand"),
    ("pto.tors", "pto.texpands pto.tor"),
    ("pto.txor", "pto.tor pto.tand pto.tnot pto.tand"),
    ("pto.txors", "pto.texpands pto.tor pto.texpands pto.tand pto.tnot pto.tand"),
    ("pto.tprelu", "pto.tmul pto.tcmps pto.tsel"),
    ("pto.tshls", "pto.tshl"),
    ("pto.tshrs", "pto.tshr"),
])
def test_an_op_the_tile_library_builds_from_others_costs_their_sum(op, parts):
    # a2a3's tile library implements these as that sequence over the destination's shape
    for dt, rows, cols in (("i16", 64, 64), ("i32", 16, 48)) if op != "pto.tprelu" else (("f32", 64, 64),
                                                                                          ("f16", 8, 200)):
        t = TileBufType.of("vec", dt, rows, cols)
        got = costs.estimate(op, dialect.cost_of(op), [t, t], [t], {})
        assert got is not None and got == sum(costs.estimate(p, dialect.cost_of(p), [t, t], [t], {})
                                              for p in parts.split()), (op, dt)
