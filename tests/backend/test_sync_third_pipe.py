"""The built-in assembler's flags order every pipe pair that needs it, as the real assembler's sync
insertion does: a flag A -> B orders A's work before B only, so a third pipe C touching what A
touched still waits for A (a store of a loaded tile after a vector op used it: MTE2 -> V, then
MTE2 -> MTE3, as the real tool writes on the same `.pto`)."""
import re

import ptokit
import ptokit.language as pl
from ptokit.backend.assembler.sync import SyncState

T = pl.Tensor[[64, 64], pl.FP32]


@pl.program
class StoreLoadedTile:
    """t is loaded (MTE2), read by a vector op (MTE2 -> V), then stored itself (MTE3)."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: T, c: pl.Out[T], d: pl.Out[T]):
        t = pl.load(a, [0, 0], [64, 64])
        u = pl.add(t, t)
        c = pl.store(t, [0, 0], c)
        d = pl.store(u, [0, 0], d)
        return c, d

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: T, c: pl.Out[T], d: pl.Out[T]):
        c, d = self.k(a, c, d)
        return c, d


def _kernel_lines(prog, tmp_path):
    ptokit.compile(prog, output_dir=tmp_path, platform="a2a3sim")
    return [ln.strip() for ln in (tmp_path / "ptoas" / "k.cpp").read_text().splitlines()
            if ln.strip() and not ln.strip().startswith(("//", "PTO_EST("))]


def _waits_before(lines, i):
    """The (src, dst) pipe pairs waited for right before line i."""
    out = []
    while i > 0 and not re.match(r"T[A-Z]+\(", lines[i - 1]):
        m = re.match(r"wait_flag\(PIPE_(\w+), PIPE_(\w+)", lines[i - 1])
        if m:
            out.append(m.groups())
        i -= 1
    return out


def test_a_store_of_a_loaded_tile_waits_for_the_load_after_a_vector_op_did(tmp_path):
    lines = _kernel_lines(StoreLoadedTile, tmp_path)
    load = next(ln for ln in lines if ln.startswith("TLOAD("))
    tile = re.match(r"TLOAD\((\w+),", load).group(1)
    store = next(i for i, ln in enumerate(lines) if re.match(rf"TSTORE\(\w+, {tile}\);", ln))
    assert ("MTE2", "MTE3") in _waits_before(lines, store)


def _same(a, b):
    return a == b


def test_a_flag_orders_its_two_pipes_only():
    s = SyncState()
    s.issued("MTE2", [], [1])
    assert s.needs("V", [1], [], _same) == ["MTE2"]
    s.flag("MTE2", "V")
    assert s.needs("V", [1], [], _same) == []
    assert s.needs("MTE3", [1], [], _same) == ["MTE2"]


def test_a_flag_from_a_pipe_that_waited_orders_what_it_waited_for():
    s = SyncState()
    s.issued("MTE2", [], [1])
    s.flag("MTE2", "V")
    s.issued("V", [1], [2])
    assert s.flags_needed("MTE3", [1, 2], [], _same) == ["V"]     # V waited for MTE2: one flag for both
    assert s.needs("MTE3", [1, 2], [], _same) == []


def test_where_branches_join_a_pipe_is_ordered_only_if_both_ordered_it():
    s = SyncState()
    s.issued("MTE2", [], [1])
    other = s.copy()
    s.flag("MTE2", "MTE3")
    s.merge(other)
    assert s.needs("MTE3", [1], [], _same) == ["MTE2"]
