"""Golden .pto of matmuls with a partly valid Left operand (issue 13): the Acc tiles are allocated
with the lhs valid rows and the rhs valid columns (run-time scalars: the kernel's parameters), so
the stores from Acc and the Acc -> Vec move see only those.

Regenerate after an intended change with ``PTOKIT_UPDATE_GOLDEN=1 pytest tests/codegen`` and review
the diff by eye."""
import os
import re
import sys
from pathlib import Path

import pytest

from ptokit.codegen.pto import emit_pto
from ptokit.passes import PassContext
from ptokit.passes.manager import run_passes

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.e2e import matmul_valid_programs as mp  # noqa: E402

GOLDEN = Path(__file__).parent / "golden" / "matmul_valid"


@pytest.mark.parametrize("prog", ["StaticTail", "RuntimeValid"])
def test_matmul_valid_golden(prog):
    ctx = PassContext(platform="a2a3sim")
    lowered = run_passes(getattr(mp, prog).ir, ctx)
    names = ["k"] if prog == "StaticTail" else ["k_aic", "k_aiv"]
    text, _ = emit_pto([lowered.functions[n] for n in names], ctx.arch)
    path = GOLDEN / f"{prog}.pto"
    if os.environ.get("PTOKIT_UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text()
    accs = [line for line in text.splitlines() if "pto.alloc_tile" in line and "loc=acc" in line]
    assert accs
    if prog == "RuntimeValid":     # valid rows / cols are the kernel's n and nc parameters, never a constant
        assert all(re.search(r"valid_row = %arg\d+ valid_col = %arg\d+", line) for line in accs), accs
    else:                          # the tail block's 8 valid rows (M - 32), all 48 columns
        assert all("valid_row = %c8_index valid_col = %c48_index" in line for line in accs), accs
