"""The built-in assembler reads `.pto` as the real one does: pto.treshape is an SSA view, and
the ops the real assembler wants row-major tiles for refuse a column tile with the same reason."""
import pytest

from ptokit.backend.assembler import assemble_text
from ptokit.errors import AssemblerError
from ptokit.pto import dialect
from ptokit.pto.types import TileBufType

from pto_util import interop_dir


def tb(rows, cols, dtype="f32", loc="vec", **kw) -> str:
    return str(TileBufType.of(loc, dtype, rows, cols, **kw))


ROW, COL, TALL = tb(1, 32), tb(32, 1), tb(32, 32)
WIDE = tb(16, 64)


def kernel(body: str) -> str:
    return (
        "module {\n"
        "  func.func @k(%arg0: !pto.ptr<f32>) attributes {pto.kernel_kind = #pto.kernel_kind<vector>} {\n"
        "  %c0_i64 = arith.constant 0 : i64\n"
        "  %c4096_i64 = arith.constant 4096 : i64\n"
        "  %c8192_i64 = arith.constant 8192 : i64\n"
        "  %c1 = arith.constant 1 : index\n"
        "  %c32 = arith.constant 32 : index\n"
        f"  %t = pto.alloc_tile addr = %c0_i64 valid_row = %c32 valid_col = %c32 : {TALL}\n"
        f"  %col = pto.alloc_tile addr = %c4096_i64 valid_row = %c32 valid_col = %c1 : {COL}\n"
        f"  %col2 = pto.alloc_tile addr = %c8192_i64 valid_row = %c32 valid_col = %c1 : {COL}\n"
        f"{body}\n"
        "  return\n"
        "  }\n"
        "}\n")


def err(text: str) -> AssemblerError:
    with pytest.raises(AssemblerError) as ei:
        assemble_text(text, "t.pto")
    assert ei.value.loc is not None and ei.value.loc.source_line is not None
    return ei.value


def points_at(e: AssemblerError, token: str) -> bool:
    return e.loc.source_line[e.loc.col - 1:].startswith(token)


# ---------------------------------------------------------------- pto.treshape

def test_treshape_ssa_view_lowers_to_a_tile_over_the_same_bytes():
    cpp = assemble_text(kernel(f"  %r = pto.treshape %col : {COL} -> {ROW}\n"
                               f"  pto.texp ins(%r : {ROW}) outs(%r : {ROW})"), "t.pto")
    row_t = TileBufType.of("vec", "f32", 1, 32).cxx()
    assert f"{row_t} v5;\n  TRESHAPE(v5, v3);" in cpp      # v3 is %col
    assert "TEXP(v5, v5);" in cpp


def test_treshape_ins_outs_form_is_refused_as_by_the_real_assembler():
    e = err(kernel(f"  pto.treshape ins(%col : {COL}) outs(%col2 : {ROW})"))
    assert "'pto.treshape' is an SSA view: write '%dst = pto.treshape %src" in e.message
    assert points_at(e, "ins(")


@pytest.mark.parametrize("dst,reason", [
    (tb(32, 1, loc="mat"), "expects src and dst to use the same loc"),
    (tb(1, 64), "expects src and dst to have the same total byte size (128 vs 256)"),
    (str(TileBufType("vec", "f32", 1, 32, None, None, "row_major", "row_major", 512, 0)),
     "cannot reshape between boxed and non-boxed tile layouts"),
])
def test_treshape_checks_of_the_real_assembler(dst, reason):
    e = err(kernel(f"  %r = pto.treshape %col : {COL} -> {dst}"))
    assert e.message == f"'pto.treshape' op {reason}"
    assert points_at(e, "pto.treshape")


def test_treshape_needs_the_source_type_written_at_the_use():
    e = err(kernel(f"  %r = pto.treshape %col : {ROW} -> {ROW}"))
    assert "type mismatch: '%col'" in e.message


# ---------------------------------------------------------------- row-major-only ops

UNARY_ROW_MAJOR = sorted(n for n, s in dialect.PTO_OPS.items()
                         if s.form == "dps" and s.row_major == ("src", "dst") and len(s.ins) - s.optional == 1)


def test_the_unary_family_that_needs_row_major_tiles():
    assert {"pto.texp", "pto.tlog", "pto.tsqrt", "pto.trsqrt", "pto.trecip", "pto.tabs", "pto.trelu",
            "pto.tcolsum"} <= set(UNARY_ROW_MAJOR)


@pytest.mark.parametrize("op", [n for n in UNARY_ROW_MAJOR if not n.startswith("pto.tcol")])
def test_unary_op_on_a_column_is_refused_with_the_real_reason(op):
    e = err(kernel(f"  {op} ins(%col : {COL}) outs(%col2 : {COL})"))
    assert e.message == f"'{op}' op expects src to use the row_major blayout"
    assert points_at(e, "%col :")


def test_unary_op_into_a_column_names_dst():
    e = err(kernel(f"  %r = pto.treshape %col : {COL} -> {ROW}\n  pto.trsqrt ins(%r : {ROW}) outs(%col2 : {COL})"))
    assert e.message == "'pto.trsqrt' op expects dst to use the row_major blayout"
    assert points_at(e, "%col2 :")


@pytest.mark.parametrize("op", ["pto.tadd", "pto.tsub", "pto.tmul", "pto.tdiv", "pto.tmax", "pto.tmin"])
def test_binary_op_on_columns_is_refused_with_the_real_reason(op):
    e = err(kernel(f"  {op} ins(%col, %col2 : {COL}, {COL}) outs(%col : {COL})"))
    assert e.message == f"'{op}' op expects src0, src1, and dst to use row-major layout"


@pytest.mark.parametrize("line,cxx", [
    (f"pto.tneg ins(%col : {COL}) outs(%col2 : {COL})", "TNEG(v4, v3);"),
    (f"pto.tmuls ins(%col, %s : {COL}, f32) outs(%col2 : {COL})", "TMULS(v4, v3, 2.0f);"),
    (f"pto.tadds ins(%col, %s : {COL}, f32) outs(%col2 : {COL})", "TADDS(v4, v3, 2.0f);"),
    (f"pto.tcvt ins(%col : {COL}) outs(%col2 : {COL})", "TCVT(v4, v3, RoundMode::CAST_RINT);"),
    (f"pto.trowexpandmul ins(%t, %col : {TALL}, {COL}) outs(%t : {TALL})", "TROWEXPANDMUL(v2, v2, v3);"),
    (f"pto.trowsum ins(%t, %t : {TALL}, {TALL}) outs(%col : {COL})", "TROWSUM(v3, v2, v2);"),
])
def test_ops_the_real_assembler_accepts_on_columns(line, cxx):
    cpp = assemble_text(kernel(f"  %s = arith.constant 2.0 : f32\n  {line}"), "t.pto")
    assert cxx in cpp


def test_row_reduction_of_a_column_is_refused():
    e = err(kernel(f"  pto.trowsum ins(%col, %col : {COL}, {COL}) outs(%col2 : {COL})"))
    assert e.message == "'pto.trowsum' op expects src to use the row_major blayout"


def test_writes_through_a_view_are_synchronised_with_reads_of_its_source():
    cpp = assemble_text(kernel(
        f"  %r = pto.treshape %col : {COL} -> {ROW}\n"
        f"  pto.texp ins(%r : {ROW}) outs(%r : {ROW})\n"
        "  %v = pto.make_tensor_view %arg0, shape = [%c32, %c1], strides = [%c1, %c1] {layout = #pto.layout<nd>} "
        ": !pto.tensor_view<?x?xf32>\n"
        "  %p = pto.partition_view %v, offsets = [%c1, %c1], sizes = [%c32, %c1] : !pto.tensor_view<?x?xf32> "
        "-> !pto.partition_tensor_view<32x1xf32>\n"
        f"  pto.tstore ins(%col : {COL}) outs(%p : !pto.partition_tensor_view<32x1xf32>)"), "t.pto")
    assert cpp.index("TEXP(") < cpp.index("set_flag(PIPE_V, PIPE_MTE3") < cpp.index("TSTORE(")


INTEROP = interop_dir()


def test_what_the_real_assembler_refused_is_refused_here_for_the_same_reason():
    """rejections.txt: the layout refusals give the real message; the ins/outs treshape is refused too."""
    checked = 0
    for line in (INTEROP / "rejections.txt").read_text().splitlines():
        unit, _, reason = line.partition("\t")
        path = INTEROP / "rejected" / unit
        if "slot_num" in reason or "nosplit" in reason:
            continue       # cross-core forms of ptoas 0.27 (ptoas_compat)
        with pytest.raises(AssemblerError) as ei:
            assemble_text(path.read_text(), unit, arch="a5" if "@a5" in unit else "a2a3")
        real = reason.split("error: ", 1)[1]
        if "blayout" in real:
            assert ei.value.message == real, unit
        else:
            assert "is an SSA view" in ei.value.message and ei.value.loc.line == 50, unit
        checked += 1
    assert checked == 4
