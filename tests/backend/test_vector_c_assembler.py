"""The built-in assembler on the section C forms: each parses, checks and lowers to the tile library's
call, and each malformed one is a located error (views, gathers/scatters, sorting)."""
from __future__ import annotations

import pytest

from ptokit.backend.assembler import assemble_text
from ptokit.errors import AssemblerError
from ptokit.pto.parser import parse
from ptokit.pto.printer import print_module

TB = ("!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=16, v_row=?, v_col=?, blayout=row_major, "
      "slayout=none_box, fractal=512, pad=0>")


def kernel(body: str) -> str:
    return ("module {\n"
            "  func.func @k(%arg0: !pto.ptr<f32>) attributes {pto.kernel_kind = #pto.kernel_kind<vector>} {\n"
            "    %c0_i64 = arith.constant 0 : i64\n"
            "    %c16 = arith.constant 16 : index\n"
            f"    %a = pto.alloc_tile addr = %c0_i64 valid_row = %c16 valid_col = %c16 : {TB}\n"
            f"    %b = pto.alloc_tile addr = %c0_i64 valid_row = %c16 valid_col = %c16 : {TB}\n"
            f"{body}\n"
            "    return\n"
            "  }\n"
            "}\n")


def err_of(text: str) -> AssemblerError:
    with pytest.raises(AssemblerError) as ei:
        assemble_text(text, "t.pto")
    assert ei.value.loc is not None and ei.value.loc.file == "t.pto" and ei.value.loc.source_line is not None
    return ei.value


def at(e: AssemblerError, line_text: str, token: str) -> None:
    """The error points at ``token`` on the line containing ``line_text``."""
    assert line_text in e.loc.source_line, (str(e), line_text)
    assert e.loc.source_line[e.loc.col - 1:].startswith(token), (str(e), token)

STATIC = TB.replace("v_row=?, v_col=?", "v_row=16, v_col=16")
ROW = TB.replace("rows=16, cols=16", "rows=1, cols=64")
I32 = TB.replace("dtype=f32", "dtype=i32")
MASK = "{maskPattern = #pto.mask_pattern<P1010>}"


def _rows(extra: str = "") -> str:
    return ("    %c1 = arith.constant 1 : index\n    %c64 = arith.constant 64 : index\n"
            f"    %r0 = pto.alloc_tile addr = %c0_i64 valid_row = %c1 valid_col = %c64 : {ROW}\n"
            f"    %r1 = pto.alloc_tile addr = %c0_i64 valid_row = %c1 valid_col = %c64 : {ROW}\n"
            f"    %r2 = pto.alloc_tile addr = %c0_i64 valid_row = %c1 valid_col = %c64 : {ROW}\n" + extra)


def test_the_forms_lower_to_their_calls():
    body = (f"    %i = pto.alloc_tile addr = %c0_i64 valid_row = %c16 valid_col = %c16 : {I32}\n"
            f"    pto.set_validshape %a, %c16, %c16 : {TB}\n"
            f"    pto.ttrans ins(%a, %b : {TB}, {TB}) outs(%b : {TB})\n"
            f"    pto.tgather ins(%a, %i, %b : {TB}, {I32}, {TB}) outs(%b : {TB})\n"
            f"    pto.tgather ins(%a, {MASK} : {TB}, \"row\") outs(%b : {TB})\n"
            f"    pto.tscatter ins(%a, {MASK} : {TB}, \"row\") outs(%b : {TB})\n"
            + _rows("    %e = arith.constant dense<0> : vector<4xi16>\n"
                    f"    pto.tmrgsort ins(%r0, %r1, %r2 {{exhausted = false}} : {ROW}, {ROW}, {ROW}) "
                    f"outs(%r2, %e : {ROW}, vector<4xi16>)"))
    cpp = assemble_text(kernel(body), "t.pto")
    assert "v2.SetValidShape(16, 16);" in cpp
    assert "TTRANS(v3, v2, v3);" in cpp
    assert "TGATHER(v3, v2, v4, v3);" in cpp
    assert "TGATHER<decltype(v3), decltype(v2), MaskPattern::P1010>(v3, v2);" in cpp
    assert "TSCATTER<MaskPattern::P1010>(v3, v2);" in cpp
    assert "MrgSortExecutedNumList v8{};" in cpp
    assert "TMRGSORT<decltype(v7), decltype(v7), decltype(v5), decltype(v6), false>(v7, v8, v7, v5, v6);" in cpp


def test_the_forms_print_back_as_written():
    text = kernel(f"    pto.tgather ins(%a, {MASK} : {TB}, \"row\") outs(%b : {TB})\n"
                  + _rows("    %e = arith.constant dense<0> : vector<4xi16>\n"
                          f"    pto.tmrgsort ins(%r0, %r1, %r2 {{exhausted = true}} : {ROW}, {ROW}, {ROW}) "
                          f"outs(%r2, %e : {ROW}, vector<4xi16>)"))
    printed = print_module(parse(text))
    assert f"pto.tgather ins(%a, {MASK} : {TB}, \"row\") outs(%b : {TB})" in printed
    assert f"ins(%r0, %r1, %r2 {{exhausted = true}} : {ROW}, {ROW}, {ROW}) outs(%r2, %e : {ROW}, vector<4xi16>)" \
        in printed
    assert "%e = arith.constant dense<0> : vector<4xi16>" in printed
    assert print_module(parse(printed)) == printed


def test_set_validshape_needs_a_dynamic_valid_shape():
    body = (f"    %s = pto.alloc_tile addr = %c0_i64 : {STATIC}\n"
            f"    pto.set_validshape %s, %c16, %c16 : {STATIC}")
    e = err_of(kernel(body))
    assert e.message == "'pto.set_validshape' op expects source tile_buf to have dynamic validShape (?, ?)"
    at(e, "pto.set_validshape", "pto.set_validshape")
    e = err_of(kernel(f"    pto.set_validshape %a, %c16 : {TB}"))
    assert "'pto.set_validshape' expects 3 operands, got 2" in e.message
    e = err_of(kernel(f"    pto.set_validshape %a, %a, %c16 : {TB}"))
    assert "operand 2 of 'pto.set_validshape' must be an index" in e.message
    at(e, "pto.set_validshape", "%a, %c16")


def test_a_many_form_op_names_its_forms():
    e = err_of(kernel(f"    pto.tgather ins(%a, %b : {TB}, {TB}) outs(%b : {TB})"))
    assert "'pto.tgather' has no form with these operands; its forms are ins(src, indices, tmp) outs(dst); " \
           "ins(src : ..., 'row') outs(dst)" in e.message
    at(e, "pto.tgather", "ins(")
    e = err_of(kernel(f"    pto.tadd ins(%a, %a : {TB}, {TB}, \"row\") outs(%b : {TB})"))
    assert "'pto.tadd' takes no \"row\" after its ins types" in e.message


def test_mask_and_enum_attributes_are_checked():
    e = err_of(kernel(f"    pto.tgather ins(%a, {{maskPattern = #pto.mask_pattern<P0110>}} : {TB}, \"row\") "
                      f"outs(%b : {TB})"))
    assert "'pto.tgather': attribute 'maskPattern' must be #pto.mask_pattern<P0101>, #pto.mask_pattern<P1010>, " \
           "#pto.mask_pattern<P0001>, #pto.mask_pattern<P0010>, #pto.mask_pattern<P0100>, #pto.mask_pattern<P1000>, " \
           "#pto.mask_pattern<P1111>, got #pto.mask_pattern<P0110>" in e.message
    # the right word in the wrong dialect attribute
    e = err_of(kernel(f"    pto.tgather ins(%a, {{maskPattern = #pto<coalesce P0101>}} : {TB}, \"row\") "
                      f"outs(%b : {TB})"))
    assert "attribute 'maskPattern' must be #pto.mask_pattern<P0101>" in e.message
    e = err_of(kernel(f"    pto.tscatter ins(%a : {TB}, \"row\") outs(%b : {TB})"))
    assert "'pto.tscatter': missing enum attribute 'maskPattern'" in e.message
    body = _rows("    %e = arith.constant dense<0> : vector<4xi16>\n"
                 f"    pto.tmrgsort ins(%r0, %r1, %r2 {{exhausted = 3}} : {ROW}, {ROW}, {ROW}) "
                 f"outs(%r2, %e : {ROW}, vector<4xi16>)")
    assert "'pto.tmrgsort': attribute 'exhausted' must be true or false, got 3" in err_of(kernel(body)).message


def test_vector_constants_and_types():
    e = err_of(kernel("    %e = arith.constant dense<0> : i32"))
    assert "dense<...> goes with a vector type" in e.message
    e = err_of(kernel("    %e = arith.constant 0 : vector<4xi16>"))
    assert "dense<...> goes with a vector type (and a vector constant needs dense<...>)" in e.message
    e = err_of(kernel("    %e = arith.constant dense<0> : vector<4xq9>"))
    assert "unknown vector element type 'q9'" in e.message
    body = _rows("    %e = arith.constant dense<0> : vector<8xi16>\n"
                 f"    pto.tmrgsort ins(%r0, %r1, %r2 {{exhausted = false}} : {ROW}, {ROW}, {ROW}) "
                 f"outs(%r2, %e : {ROW}, vector<8xi16>)")
    assert "'pto.tmrgsort' has no form with these operands" in err_of(kernel(body)).message
