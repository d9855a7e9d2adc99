"""Golden .pto of the a5 MX matmul family (pypto-parity.md D): the scale tensor views in the
mx_a_zz / mx_b_nn layouts, the Mat -> loc=scaling moves (left scales row_major/row_major, right
scales col_major/col_major, fractal 32), and pto.tmatmul.mx / .mx.acc / .mx.bias.

Regenerate after an intended change with ``PTOKIT_UPDATE_GOLDEN=1 pytest tests/codegen`` and review
the diff by eye."""
import os
import re
import sys
from pathlib import Path

from ptokit.codegen.pto import emit_pto
from ptokit.passes import PassContext
from ptokit.passes.manager import run_passes

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.e2e import mx_programs as mp  # noqa: E402

GOLDEN = Path(__file__).parent / "golden" / "mx" / "mx_family.pto"


def test_mx_family_golden():
    ctx = PassContext(platform="a5sim")
    lowered = run_passes(mp.MxFamily.ir, ctx)
    text, _ = emit_pto([lowered.functions["k"]], ctx.arch)
    if os.environ.get("PTOKIT_UPDATE_GOLDEN"):
        GOLDEN.write_text(text)
    assert text == GOLDEN.read_text()
    ops = re.findall(r"pto\.tmatmul\.mx[.a-z]*", text)
    assert ops == ["pto.tmatmul.mx", "pto.tmatmul.mx.acc", "pto.tmatmul.mx.bias", "pto.tmatmul.mx"]
    assert "#pto.layout<mx_a_zz>" in text and "#pto.layout<mx_b_nn>" in text
    assert "loc=scaling, dtype=f8E8M0, rows=32, cols=4" in text
