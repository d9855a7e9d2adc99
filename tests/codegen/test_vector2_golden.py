"""Golden `.pto` (and the built-in assembler's C++ for it) of one kernel per family of the later vector
ops: compare/select, bitwise, remainders and three-operand arithmetic, arg-reductions, generators
(MLIR's generic form for ttri and a 7-round trandom), the parameters of existing ops (atomic store,
rounding mode, high precision, binary col_sum) and a composite (cos).

Regenerate after an intended change with ``PTOKIT_UPDATE_GOLDEN=1 pytest tests/codegen`` and review
the diff by eye.
"""
import os
from pathlib import Path

import pytest

from ptokit.backend.assembler import assemble_text
from ptokit.codegen.pto import emit_pto
from ptokit.passes import PassContext
from ptokit.passes.manager import run_passes

import vector2_programs as V

GOLDEN = Path(__file__).parent / "golden" / "vector2"
KERNELS = ["compare", "bitwise", "arith", "argreduce", "generate", "params", "composite"]


@pytest.fixture(scope="module")
def lowered():
    return run_passes(V.Families.ir, PassContext(platform="a2a3sim"))


def _check(path: Path, text: str):
    if os.environ.get("PTOKIT_UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert path.exists(), f"missing golden {path}; run with PTOKIT_UPDATE_GOLDEN=1"
    assert text == path.read_text()


@pytest.mark.parametrize("kernel", KERNELS)
def test_family_golden(lowered, kernel):
    pto, _ = emit_pto([lowered.functions[kernel]], "a2a3")
    _check(GOLDEN / f"{kernel}.pto", pto)
    _check(GOLDEN / f"{kernel}.cpp", assemble_text(pto, f"{kernel}.pto"))


def test_the_goldens_show_each_family_form():
    text = {k: (GOLDEN / f"{k}.pto").read_text() for k in KERNELS}
    assert "{cmpMode = #pto<cmp lt>} :" in text["compare"] and "pto.tsel ins(" in text["compare"]
    assert '"pto.ttri"(' in text["generate"] and "{upperOrLower = 1 : i32} : (i32, !pto.tile_buf" in text["generate"]
    assert '"pto.trandom"(' in text["generate"] and "{rounds = 7 : i32}" in text["generate"]
    assert ") {descending = true}" in text["generate"]
    assert "{atomicType = #pto<atomic_type atomic_add>}" in text["params"]
    assert "{rmode = #pto<round_mode FLOOR>} :" in text["params"]
    assert "{precisionType = #pto<div_precision high_precision>}" in text["params"]
    assert "{isBinary = true} :" in text["params"]
    assert "pto.tcos" not in text["composite"] and text["composite"].count("pto.tmul ") >= 8
    cpp = (GOLDEN / "generate.cpp").read_text()
    assert "TTRI<decltype(" in cpp and "TRANDOM<7>(" in cpp and "::DType, 1>(" in cpp
