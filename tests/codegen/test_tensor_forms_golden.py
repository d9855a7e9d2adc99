"""Golden `.pto` (and the built-in assembler's C++ for it) of the pl.tensor forms: a 1/0 value mask
turned into a packed one (cmps ne) for sel, compiler-made scratch for sel, prelu and
rsqrt(high_precision=True).

Regenerate after an intended change with ``PTOKIT_UPDATE_GOLDEN=1 pytest tests/codegen`` and review
the diff by eye.
"""
import os
import sys
from pathlib import Path

from ptokit.backend.assembler import assemble_text
from ptokit.codegen.pto import emit_pto
from ptokit.passes import PassContext
from ptokit.passes.manager import run_passes

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from e2e.tensor_form_programs import TensorFormsGolden  # noqa: E402

GOLDEN = Path(__file__).parent / "golden" / "tensor_forms"


def _check(path: Path, text: str):
    if os.environ.get("PTOKIT_UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert path.exists(), f"missing golden {path}; run with PTOKIT_UPDATE_GOLDEN=1"
    assert text == path.read_text()


def test_tensor_forms_golden():
    lowered = run_passes(TensorFormsGolden.ir, PassContext(platform="a2a3sim"))
    pto, _ = emit_pto([lowered.functions["k"]], "a2a3")
    _check(GOLDEN / "k.pto", pto)
    _check(GOLDEN / "k.cpp", assemble_text(pto, "k.pto"))
    assert "pto.tcmps" in pto and "#pto<cmp ne>" in pto and "pto.tsel" in pto and "pto.tprelu" in pto
