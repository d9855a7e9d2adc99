"""The real assembler's verifier rules (ptokit/pto/rules.py) in the built-in assembler: each `.pto`
the real ptoas refuses for an element type, a memory space or a shape is refused with its words,
located at the operand; the same op with legal operands is accepted. The rules that ptokit's own
lowerings break where pypto HEAD writes a newer form (rules.FORM_RULES) apply under ptoas_compat 0.27."""
import pytest

from ptokit.backend.assembler import assemble_text
from ptokit.errors import AssemblerError
from ptokit.pto.types import TileBufType


def tb(rows, cols, dtype="f32", loc="vec") -> str:
    """A tile type with the writer's layout for its space, valid shape static (the whole tile)."""
    return str(TileBufType.of(loc, dtype, rows, cols, v_row=rows, v_col=cols))


def kernel(tiles: dict, body: str, kind: str = "vector", params: str = "%arg0: !pto.ptr<f32>") -> str:
    lines = ["module {",
             f"  func.func @k({params}) attributes {{pto.kernel_kind = #pto.kernel_kind<{kind}>}} {{",
             "  %c0 = arith.constant 0 : index", "  %c1 = arith.constant 1 : index",
             "  %c16 = arith.constant 16 : index", "  %c3_f32 = arith.constant 3.0 : f32",
             "  %c3_i8 = arith.constant 3 : i8", "  %c3_i32 = arith.constant 3 : i32"]
    for k, (name, ty) in enumerate(tiles.items()):
        lines.append(f"  %a{k} = arith.constant {k * 8192} : i64")
        lines.append(f"  %{name} = pto.alloc_tile addr = %a{k} : {ty}")
    lines += [body, "  return", "  }", "}", ""]
    return "\n".join(lines)


def refused(text: str, arch: str, message: str, token: str, compat=None) -> None:
    with pytest.raises(AssemblerError) as ei:
        assemble_text(text, "t.pto", arch=arch, compat=compat)
    e = ei.value
    assert e.message == message, e.message
    assert e.loc is not None and e.loc.source_line[e.loc.col - 1:].startswith(token), (e.loc, e.loc.source_line)


def accepted(text: str, arch: str, compat=None) -> None:
    assert "__global__" in assemble_text(text, "t.pto", arch=arch, compat=compat)


# ---------------------------------------------------------------- tstore from Acc

def _store(elem: str) -> str:
    acc = tb(16, 16, elem, "acc")
    return kernel({"acc": acc}, (
        f"  %v = pto.make_tensor_view %arg0, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?x{elem}>\n"
        f"  %p = pto.partition_view %v, offsets = [%c0, %c0], sizes = [%c16, %c16] : !pto.tensor_view<?x?x{elem}> -> "
        f"!pto.partition_tensor_view<16x16x{elem}>\n"
        f"  pto.tstore ins(%acc : {acc}) outs(%p : !pto.partition_tensor_view<16x16x{elem}>)"),
        kind="cube", params=f"%arg0: !pto.ptr<{elem}>")


@pytest.mark.parametrize("arch, tag", [("a2a3", "A2/A3"), ("a5", "A5")])
def test_tstore_from_acc_needs_an_i32_or_f32_source(arch, tag):
    refused(_store("f16"), arch, f"'pto.tstore' op expects {tag} acc tstore src element type to be i32 or f32", "%acc",
            compat="0.27")
    accepted(_store("f32"), arch, compat="0.27")
    accepted(_store("f16"), arch)       # a form rule: pypto HEAD's mode keeps ptokit's f16 Acc store


# ---------------------------------------------------------------- textract / tinsert locations

MAT = tb(32, 32, "f16", "mat")
LEFT = tb(16, 32, "f16", "left")
VEC32, VEC16 = tb(32, 32, "f16"), tb(16, 32, "f16")


def test_textract_reads_a_mat_tile_on_a2a3():
    text = kernel({"s": VEC32, "d": VEC16},
                  f"  pto.textract ins(%s, %c0, %c0 : {VEC32}, index, index) outs(%d : {VEC16})")
    refused(text, "a2a3", "'pto.textract' op expects A2/A3 textract src to use loc=mat", "%s", compat="0.27")
    accepted(text, "a5", compat="0.27")          # a5 extracts Vec -> Vec
    accepted(kernel({"s": MAT, "d": LEFT}, f"  pto.textract ins(%s, %c0, %c0 : {MAT}, index, index) "
                                           f"outs(%d : {LEFT})", kind="cube"), "a2a3", compat="0.27")


def test_tinsert_writes_an_acc_tile_into_a_mat_tile():
    acc = tb(16, 16, "f32", "acc")
    big = tb(32, 16, "f32", "acc")
    mat = tb(32, 16, "f16", "mat")
    text = kernel({"s": acc, "d": big}, f"  pto.tinsert ins(%s, %c16, %c0 : {acc}, index, index) outs(%d : {big})",
                  kind="cube")
    refused(text, "a2a3", "'pto.tinsert' op expects A2/A3 tinsert src to use loc=acc and dst to use loc=mat", "%s",
            compat="0.27")
    refused(text, "a5", "'pto.tinsert' op expects A5 tinsert to use a supported src/dst loc pair", "%s",
            compat="0.27")
    accepted(text, "a2a3")
    accepted(kernel({"s": acc, "d": mat}, f"  pto.tinsert ins(%s, %c16, %c0 : {acc}, index, index) outs(%d : {mat})",
                    kind="cube"), "a2a3", compat="0.27")


# ---------------------------------------------------------------- vector element rules

def test_tprelu_operands_have_one_shape_for_027_and_a_u8_tmp_on_a2a3():
    t, small = tb(16, 64), tb(1, 32, "ui8")
    same = tb(16, 64, "ui8")
    text = kernel({"a": t, "b": t, "m": small, "d": t},
                  f"  pto.tprelu ins(%a, %b, %m : {t}, {t}, {small}) outs(%d : {t})")
    refused(text, "a2a3", "'pto.tprelu' op expects src0/src1/tmp/dst to have the same shape", "%m", compat="0.27")
    accepted(text, "a2a3")      # pypto HEAD sizes the tmp by the hardware's need, not 0.27's rule
    accepted(kernel({"a": t, "b": t, "m": same, "d": t},
                    f"  pto.tprelu ins(%a, %b, %m : {t}, {t}, {same}) outs(%d : {t})"), "a2a3", compat="0.27")
    f32tmp = tb(16, 64)
    refused(kernel({"a": t, "b": t, "m": f32tmp, "d": t},
                   f"  pto.tprelu ins(%a, %b, %m : {t}, {t}, {f32tmp}) outs(%d : {t})"),
            "a2a3", "'pto.tprelu' op expects A2/A3 tmp element type to be u8", "%m")


def test_tmaxs_element_types_per_arch():
    t = tb(16, 64, "i8")
    text = kernel({"a": t, "d": t}, f"  pto.tmaxs ins(%a, %c3_i8 : {t}, i8) outs(%d : {t})")
    refused(text, "a2a3", "'pto.tmaxs' op expects A2/A3 tmaxs element type to be i32/i16/f16/f32", "%a")
    accepted(text, "a5")


def test_texpands_scalar_is_the_element_type():
    t = tb(16, 64, "i32")
    refused(kernel({"d": t}, f"  pto.texpands ins(%c3_f32 : f32) outs(%d : {t})"), "a2a3",
            "'pto.texpands' op expects scalar type == dst element type", "%c3_f32")
    accepted(kernel({"d": t}, f"  pto.texpands ins(%c3_i32 : i32) outs(%d : {t})"), "a2a3")


def test_tgather_indices_are_i32_on_a2a3_and_i16_too_on_a5():
    src, idx, tmp = tb(16, 64), tb(16, 64, "i16"), tb(16, 64, "i32")
    text = kernel({"s": src, "i": idx, "t": tmp, "d": src},
                  f"  pto.tgather ins(%s, %i, %t : {src}, {idx}, {tmp}) outs(%d : {src})")
    refused(text, "a2a3", "'pto.tgather' op expects indices element type to be i32", "%i")
    accepted(text, "a5")


# ---------------------------------------------------------------- unsigned constants

def test_an_unsigned_arith_constant_is_refused_and_the_bridge_is_read():
    t = tb(16, 64, "ui32")
    bad = kernel({"d": t}, f"  %u = arith.constant 7 : ui32\n  pto.texpands ins(%u : ui32) outs(%d : {t})")
    with pytest.raises(AssemblerError) as ei:
        assemble_text(bad, "t.pto")
    assert ei.value.message.startswith("'arith.constant' op integer return type must be signless")
    assert ei.value.loc.source_line[ei.value.loc.col - 1:].startswith("7 : ui32")
    good = kernel({"d": t}, f"  %s = arith.constant 4294967295 : i32\n"
                            f"  %u = builtin.unrealized_conversion_cast %s : i32 to ui32\n"
                            f"  pto.texpands ins(%u : ui32) outs(%d : {t})")
    cpp = assemble_text(good, "t.pto")
    assert "TEXPANDS(" in cpp and "4294967295" in cpp


def test_the_writer_bridges_unsigned_constants():
    from ptokit.pto.builder import Block, Builder
    from ptokit.pto.printer import print_op
    from ptokit.pto.types import ScalarType
    block = Block()
    v = Builder(block).constant("c7_ui32", 7, ScalarType("ui32"))
    out = []
    for op in block.ops:
        print_op(op, 0, out)
    assert v.name == "c7_ui32" and str(v.type) == "ui32"
    assert [line.strip() for line in out] == ["%c7_ui32_signless = arith.constant 7 : i32",
                                              "%c7_ui32 = builtin.unrealized_conversion_cast %c7_ui32_signless : "
                                              "i32 to ui32"]


def test_a3_cross_core_events_need_set_ffts_in_the_function():
    wait = "  pto.sync.wait <PIPE_MTE2>, 3"
    refused(kernel({}, wait), "a2a3", "A3 inter-core sync requires explicit `pto.set_ffts` in the same function when "
            "using `pto.sync.set`/`pto.sync.wait`", "pto.sync.wait")
    accepted(kernel({}, wait), "a5")
    ffts = kernel({}, "  pto.set_ffts %arg1 : !pto.ptr<i64>\n" + wait,
                  params="%arg0: !pto.ptr<f32>, %arg1: !pto.ptr<i64>")
    accepted(ffts, "a2a3")
