"""Golden `.pto` (and the built-in assembler's C++ for it) of one kernel per section C family:
views, layouts, gathers and scatters, sorting.

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

import vector_c_programs as V

GOLDEN = Path(__file__).parent / "golden" / "vector_c"
KERNELS = ["views", "layouts", "gathers", "sorts"]


@pytest.fixture(scope="module")
def lowered():
    return run_passes(V.SectionC.ir, PassContext(platform="a2a3sim"))


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
    cpp = {k: (GOLDEN / f"{k}.cpp").read_text() for k in KERNELS}
    v = text["views"]
    assert "pto.ttrans ins(%t, %_t0 : " in v and "pto.set_validshape %t, %c8_index, %c16_index : " in v
    assert "= pto.treshape %t : " in v
    assert "blayout=row_major, slayout=col_major" in text["layouts"] and "= pto.treshape %" in text["layouts"]
    g = text["gathers"]
    assert "pto.tgather ins(%t, {maskPattern = #pto.mask_pattern<P0101>} : !pto.tile_buf<" in g and '"row") outs(' in g
    assert "{coalesce = #pto<coalesce row>, gatherOob = #pto<gather_oob wrap>}" in g
    assert "pto.tscatter ins(" in g and "pto.mscatter ins(" in g
    s = text["sorts"]
    assert "%executed = arith.constant dense<0> : vector<4xi16>" in s
    assert " {exhausted = true} : " in s and ", vector<4xi16>)" in s and "%c64_i32 : " in s
    assert "TTRANS(" in cpp["views"] and ".SetValidShape(" in cpp["views"]
    assert "TGATHER<decltype(" in cpp["gathers"] and "MaskPattern::P0101>(" in cpp["gathers"]
    assert "MGATHER<Coalesce::Row, GatherOOB::Wrap>(" in cpp["gathers"]
    assert "MrgSortExecutedNumList " in cpp["sorts"] and ", true>(" in cpp["sorts"]
