"""ConvertToSSA renames the scalars a tile's run-time valid region names: each copy of an
unrolled body keeps its own valid rows (issue 13; before, every copy read the first copy's)."""
import sys
from pathlib import Path

from ptokit.ir import nodes as N
from ptokit.ir.types import MemorySpace, TileType
from ptokit.passes.context import PassContext
from ptokit.passes.manager import run_passes

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.e2e import matmul_valid_programs as mp  # noqa: E402


def test_unrolled_copies_keep_their_own_valid_rows():
    lowered = run_passes(mp.Blocked.ir, PassContext(platform="a2a3sim"))
    fn = lowered.functions["k_aic"]
    rows = [s.targets[0].type.valid[0].name for s in N.walk_stmts(fn.body)
            if isinstance(s, N.Assign) and isinstance(s.targets[0].type, TileType)
            and s.targets[0].type.memory is MemorySpace.Acc and s.targets[0].type.valid]
    defined = {t.name for s in N.walk_stmts(fn.body) if isinstance(s, N.Assign) for t in s.targets}
    assert len(set(rows)) == 3, rows                  # one valid-rows scalar per row block
    assert all(r in defined for r in rows), (rows, sorted(defined))
