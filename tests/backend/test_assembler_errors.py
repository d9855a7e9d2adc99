"""Malformed .pto input: located AssemblerErrors, never a Python traceback."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ptokit.backend.assembler import assemble_text
from ptokit.errors import AssemblerError

INPUTS = Path(__file__).parent / "pto_inputs"
VADD = (INPUTS / "vadd.pto").read_text()
SOFTMAX = (INPUTS / "softmax.pto").read_text()
LOOP = (INPUTS / "loop.pto").read_text()

TB = ("!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=16, v_row=?, v_col=?, blayout=row_major, "
      "slayout=none_box, fractal=512, pad=0>")


def kernel(body: str, params: str = "%arg0: !pto.ptr<f32>") -> str:
    return (
        "module {\n"
        f"  func.func @k({params}) attributes {{pto.kernel_kind = #pto.kernel_kind<vector>}} {{\n"
        "    %c0_i64 = arith.constant 0 : i64\n"
        "    %c16 = arith.constant 16 : index\n"
        f"    %a = pto.alloc_tile addr = %c0_i64 valid_row = %c16 valid_col = %c16 : {TB}\n"
        f"    %b = pto.alloc_tile addr = %c0_i64 valid_row = %c16 valid_col = %c16 : {TB}\n"
        f"{body}\n"
        "    return\n"
        "  }\n"
        "}\n")


def err_of(text: str, **kw) -> AssemblerError:
    with pytest.raises(AssemblerError) as ei:
        assemble_text(text, "t.pto", **kw)
    e = ei.value
    assert e.loc is not None and e.loc.file == "t.pto"
    assert e.loc.source_line is not None
    return e


def at(e: AssemblerError, line_text: str, token: str) -> None:
    """The error points at ``token`` on the line containing ``line_text``."""
    assert line_text in e.loc.source_line, (str(e), line_text)
    assert e.loc.source_line[e.loc.col - 1:].startswith(token), (str(e), token)
    assert "^" in str(e) and f"t.pto:{e.loc.line}:{e.loc.col}: error:" in str(e)


def test_ok_baseline():
    assert "TADD(v3, v2, v2);" in assemble_text(kernel(f"    pto.tadd ins(%a, %a : {TB}, {TB}) outs(%b : {TB})"))


def test_missing_operand_in_group():
    e = err_of(kernel(f"    pto.tadd ins(%a : {TB}) outs(%b : {TB})"))
    assert "'pto.tadd' expects 2 operand(s) in ins(...), got 1" in e.message
    at(e, "pto.tadd", "ins(")


def test_missing_operand_syntax():
    e = err_of(kernel(f"    pto.tadd ins(%a, : {TB}, {TB}) outs(%b : {TB})"))
    assert "expected an SSA operand" in e.message
    at(e, "pto.tadd", ": ")


def test_missing_outs():
    e = err_of(kernel(f"    pto.texp ins(%a : {TB})"))
    assert "missing 'outs(...)'" in e.message
    at(e, "pto.texp", "pto.texp")


def test_wrong_operand_count():
    e = err_of(kernel(f"    pto.texp ins(%a, %a : {TB}, {TB}) outs(%b : {TB})"))
    assert "expects 1 operand(s) in ins(...), got 2" in e.message
    e = err_of(kernel(f"    pto.tadd ins(%a, %a : {TB}) outs(%b : {TB})"))
    assert "2 operand(s) but 1 type(s)" in e.message


def test_unknown_op():
    e = err_of(kernel(f"    pto.tfrobnicate ins(%a : {TB}) outs(%b : {TB})"))
    assert e.message == "unknown operation 'pto.tfrobnicate'"
    at(e, "tfrobnicate", "pto.tfrobnicate")


def test_type_mismatch():
    other = TB.replace("rows=16, cols=16", "rows=16, cols=32")
    e = err_of(kernel(f"    pto.tadd ins(%a, %a : {TB}, {TB}) outs(%b : {other})"))
    assert "type mismatch: '%b' has type" in e.message and "cols=32" in e.message
    at(e, "pto.tadd", "%b")
    e = err_of(kernel("    %x = arith.addi %c16, %c0_i64 : index"))
    assert "'%c0_i64' has type i64 but is used here as index" in e.message
    at(e, "arith.addi", "%c0_i64")


def test_operand_kind():
    e = err_of(kernel(f"    pto.tadd ins(%a, %c16 : {TB}, index) outs(%b : {TB})"))
    assert "ins operand 2 of 'pto.tadd' must be a tile" in e.message
    at(e, "pto.tadd", "%c16")


def test_undefined_value():
    e = err_of(kernel(f"    pto.tadd ins(%a, %nope : {TB}, {TB}) outs(%b : {TB})"))
    assert e.message == "use of undefined value '%nope'"
    at(e, "pto.tadd", "%nope")


def test_value_out_of_scope():
    body = ("    scf.for %i = %c16 to %c16 step %c16 {\n"
            "      %inner = arith.addi %i, %c16 : index\n"
            "    }\n"
            "    %after = arith.addi %inner, %c16 : index")
    e = err_of(kernel(body))
    assert "undefined value '%inner'" in e.message
    at(e, "%after", "%inner")


def test_redefinition():
    e = err_of(kernel("    %c16 = arith.constant 3 : index"))
    assert "redefinition of '%c16'" in e.message


@pytest.mark.parametrize("cut", [0.2, 0.5, 0.8, 0.97])
def test_truncated_file(cut):
    text = VADD[:int(len(VADD) * cut)]
    e = err_of(text)
    assert "unexpected end of file" in e.message or "expected" in e.message


def test_truncated_exactly_before_closing_brace():
    e = err_of(VADD.rstrip()[:-1])
    assert "unexpected end of file" in e.message and "close the module" in e.message


@pytest.mark.parametrize("bad,msg", [
    ("loc=ub", "tile_buf loc must be one of vec, mat, left, right, acc, bias, scaling; got 'ub'"),
    ("dtype=f33", "unknown tile_buf dtype 'f33'"),
    ("rows=0", "tile_buf rows must be a positive integer; got '0'"),
    ("cols=x", "tile_buf cols must be a positive integer; got 'x'"),
    ("pad=9", "tile_buf pad must be 0..3"),
    ("blayout=diag", "tile_buf blayout must be row_major or col_major"),
])
def test_tile_type_validation(bad, msg):
    key = bad.split("=")[0]
    good = {"loc": "loc=vec", "dtype": "dtype=f32", "rows": "rows=16", "cols": "cols=16", "pad": "pad=0",
            "blayout": "blayout=row_major"}[key]
    e = err_of(kernel("").replace(TB, TB.replace(good, bad), 1))
    assert msg in e.message
    at(e, "pto.alloc_tile", bad)


def test_view_checks():
    e = err_of(VADD.replace("shape = [%c32_index, %c32_index], strides", "shape = [%c32_index], strides", 1))
    assert "expects 2 shape operands" in e.message
    e = err_of(VADD.replace("!pto.ptr<f32>, %arg1", "!pto.ptr<f16>, %arg1", 1))
    assert "pointer element type f16 does not match view element type f32" in e.message
    e = err_of(VADD.replace("-> !pto.partition_tensor_view<32x32xf32> loc(\"vadd.py\":10:9)",
                            "-> !pto.partition_tensor_view<32xf32> loc(\"vadd.py\":10:9)", 1))
    assert "does not match source view" in e.message


def test_scf_checks():
    e = err_of(LOOP.replace("        scf.yield %c16_index : index\n", "", 1))
    assert "must end with 'scf.yield'" in e.message
    e = err_of(LOOP.replace("scf.yield %next : index", "scf.yield %next, %next : index, index"))
    assert "yields 2 value(s) but its parent has 1 result(s)" in e.message
    e = err_of(LOOP.replace("%full = arith.cmpi sge, %left, %c16_index : index",
                            "%full = arith.addi %left, %c16_index : index"))
    assert "condition '%full' must have type i1" in e.message
    e = err_of(kernel("    scf.yield %c16 : index"))
    assert "outside of scf.for" in e.message


def test_misc_syntax():
    e = err_of(kernel("    %x = arith.cmpi bogus, %c16, %c16 : index"))
    assert "unknown arith.cmpi predicate 'bogus'" in e.message
    at(e, "arith.cmpi", "bogus")
    e = err_of(kernel("    %x = arith.constant 1.5 : index"))
    assert "integer constant of type index cannot be 1.5" in e.message
    e = err_of(kernel("    %x = arith.addi %c16, %c16 : i7"))
    assert "unknown type 'i7'" in e.message
    e = err_of(kernel('    "arith.addi"(%c16, %c16) : (index, index) -> index'))
    assert "generic op form" in e.message and "destination-passing pto ops only" in e.message
    e = err_of(kernel("", params="%arg0: !pto.tensor_view<?xf32>"))
    assert "must be a !pto.ptr or a scalar" in e.message
    e = err_of(VADD.replace("%c4096_i64 = arith", "%c4096_i64 = = arith"))
    assert "expected an operation name" in e.message


def test_accepts_other_spellings():
    """Forms of the dialect that other emitters use."""
    static_tb = TB.replace("v_row=?, v_col=?", "v_row=16, v_col=16")
    text = (
        "#loc1 = loc(\"k.py\":3:4)\n"
        "!t = " + static_tb + "\n"
        "module {\n"
        "  func.func @k(%arg0: !pto.ptr<f32>) {\n"
        "    %c0 = arith.constant 0 : i64\n"
        "    %a = pto.alloc_tile addr = %c0 : !t loc(#loc1)\n"
        "    %b = pto.alloc_tile addr = %c0\n"
        "        : !pto.tile_buf<vec, 16x16xf16, valid=16x16>\n"
        "    pto.tcvt ins(%a {rmode = #pto<round_mode CAST_FLOOR>} : !t)\n"
        "             outs(%b : !pto.tile_buf<loc=vec, dtype=f16, rows=16, cols=16>)\n"
        "    pto.tcolsum ins(%a, %a : !t, !t) outs(%a : !t)  // tmp is passed (pto-isa's 3-tile TCOLSUM)\n"
        "    return\n"
        "  }\n"
        "}\n")
    cpp = assemble_text(text, "k.pto")
    assert "TCVT(v3, v2, RoundMode::CAST_FLOOR);" in cpp
    assert "TCOLSUM(v2, v2, v2);" in cpp
    assert "Tile<TileType::Vec, half, 16, 16, BLayout::RowMajor, 16, 16," in cpp
    assert "#if defined(__DAV_VEC__)" in cpp


# --------------------------------------------------------------------------- fuzzing

def _only_assembler_errors(text: str) -> None:
    try:
        assemble_text(text, "fuzz.pto")
    except AssemblerError as e:
        assert e.loc is None or e.loc.file == "fuzz.pto"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=len(SOFTMAX)))
def test_fuzz_truncation(n):
    _only_assembler_errors(SOFTMAX[:n])


_ALPHABET = list("%@!#<>()[]{}=,:?x-\"0123456789 \n") + ["pto.tadd", "ins", "outs", "index", "f32", "loc",
                                                        "scf.for", "to", "step", "}", "->", "scf.yield"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(min_value=0, max_value=len(LOOP)), st.integers(min_value=0, max_value=6),
                          st.sampled_from(_ALPHABET)), min_size=1, max_size=4))
def test_fuzz_mutation(edits):
    text = LOOP
    for pos, dele, ins in edits:
        pos = min(pos, len(text))
        text = text[:pos] + ins + text[pos + dele:]
    _only_assembler_errors(text)


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=200))
def test_fuzz_garbage(text):
    _only_assembler_errors(text)


# ---------------------------------------------------------------- inputs the real assembler refuses too

@pytest.mark.parametrize("text", ["", "   \n\n", "// only a comment\n", "#loc1 = loc(\"x.py\":1:1)\n"])
def test_input_without_a_module_is_an_error(text):
    e = err_of(text)
    assert e.message == "unexpected end of file: expected a module ('module { ... }') or a 'func.func'"
    assert e.loc.line == text.count("\n") + 1      # at the end of the input, where a module was due


def test_empty_module_is_still_accepted():
    assert "#include" in assemble_text("module {\n}\n", "t.pto")


def test_index_value_as_an_address_is_an_error():
    text = kernel(f"    %i = arith.constant 64 : index\n"
                  f"    %c = pto.alloc_tile addr = %i valid_row = %c16 valid_col = %c16 : {TB}")
    e = err_of(text)
    assert e.message == "address '%i' of 'pto.alloc_tile' must be an i64, not index"
    at(e, "%c = pto.alloc_tile", "%i valid_row")


def test_i32_address_is_an_error_too():
    text = kernel(f"    %i = arith.constant 64 : i32\n"
                  f"    %c = pto.alloc_tile addr = %i valid_row = %c16 valid_col = %c16 : {TB}")
    assert "must be an i64, not i32" in err_of(text).message


TI = TB.replace("dtype=f32", "dtype=i32")
MASK = TB.replace("dtype=f32", "dtype=ui8").replace("cols=16", "cols=32")


def test_generic_form_of_a_tile_op():
    """pypto writes pto.ttri (and a 7-round pto.trandom) in MLIR's generic form: ins, then the outs."""
    ok = kernel(f"    %c1 = arith.constant 1 : i32\n"
                f"    %t = pto.alloc_tile addr = %c0_i64 valid_row = %c16 valid_col = %c16 : {TI}\n"
                f'    "pto.ttri"(%c1, %t) {{upperOrLower = 1 : i32}} : (i32, {TI}) -> ()')
    assert "TTRI<decltype(v4), 1>(v4, 1);" in assemble_text(ok, "t.pto")
    e = err_of(kernel(f'    "pto.ttri"(%a) {{upperOrLower = 1 : i32}} : (i32, {TB}) -> ()'))
    assert "'pto.ttri' has 1 operand(s) but 2 type(s)" in e.message
    e = err_of(kernel(f'    "pto.ttri"(%c16, %a) {{upperOrLower = 1 : i32}} : (index, {TB}) -> ({TB})'))
    assert "its generic form ends in '-> ()'" in e.message
    e = err_of(kernel(f'    "pto.ttri"(%c16, %a) {{upperOrLower = 2 : i32}} : (index, {TB}) -> ()'))
    assert "'pto.ttri': attribute 'upperOrLower' must be one of [0, 1], got 2 : i32" in e.message
    e = err_of(kernel(f'    %r = "pto.ttri"(%c16, %a) {{upperOrLower = 0 : i32}} : (index, {TB}) -> ()'))
    assert "writes its last operand and has no results" in e.message


def test_enum_attributes_are_checked():
    e = err_of(kernel(f"    %m = pto.alloc_tile addr = %c0_i64 valid_row = %c16 valid_col = %c16 : {MASK}\n"
                      f"    pto.tcmp ins(%a, %b {{cmpMode = #pto<cmp less>}} : {TB}, {TB}) outs(%m : {MASK})"))
    assert "attribute 'cmpMode' must be #pto<cmp eq>, #pto<cmp ne>, #pto<cmp lt>" in e.message and "got #pto<cmp less>" \
        in e.message
    e = err_of(kernel(f"    pto.tdiv ins(%a, %b : {TB}, {TB}) outs(%a : {TB}) "
                      f"{{precisionType = #pto<log_precision high_precision>}}"))
    assert "must be #pto<div_precision high_precision>" in e.message
    e = err_of(kernel(f"    pto.tci ins(%c16 : index) outs(%a : {TB}) {{descending = 1}}"))
    assert "'pto.tci': attribute 'descending' must be true or false, got 1" in e.message
