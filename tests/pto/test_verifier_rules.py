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


# ---------------------------------------------------------------- element types per op (pto/element_types.py)

def _binary(op: str, elem: str, extra: str = "") -> str:
    t = tb(16, 64, elem)
    tiles = {"a": t, "b": t, "d": t} | ({"t": t} if extra else {})
    ins = "%a, %b" + (", %t" if extra else "")
    types = f"{t}, {t}" + (f", {t}" if extra else "")
    return kernel(tiles, f"  {op} ins({ins} : {types}) outs(%d : {t})")


@pytest.mark.parametrize("op, elem, a2a3_words, a5_ok", [
    ("pto.tpartadd", "i8", "tpartadd element type to be i32/i16/f16/f32", True),
    ("pto.tand", "i32", "tand src0, src1, and dst element type to be i8/i16", True),
    ("pto.tand", "f32", "tand src0, src1, and dst element type to be i8/i16", False),
    ("pto.trowexpandmax", "i8", "trowexpandmax element type to be i16/i32/f16/f32", True),
])
def test_binary_element_types_per_arch(op, elem, a2a3_words, a5_ok):
    refused(_binary(op, elem), "a2a3", f"'{op}' op expects A2/A3 {a2a3_words}", "%a")
    if a5_ok:
        accepted(_binary(op, elem), "a5")
    else:
        with pytest.raises(AssemblerError, match="expects A5"):
            assemble_text(_binary(op, elem), "t.pto", arch="a5")


def test_tcmp_inputs_are_i32_f16_f32_on_a2a3():
    for elem in ("i8", "ui16", "bf16"):
        t, m = tb(16, 64, elem), tb(16, 32, "ui8")
        text = kernel({"a": t, "b": t, "d": m},
                      f"  pto.tcmp ins(%a, %b {{cmpMode = #pto<cmp lt>}} : {t}, {t}) outs(%d : {m})")
        refused(text, "a2a3", "'pto.tcmp' op expects A2/A3 tcmp input element type to be i32/f16/f32", "%a")
        accepted(text, "a5")
    t, m = tb(16, 64, "i32"), tb(16, 32, "ui8")
    accepted(kernel({"a": t, "b": t, "d": m},
                    f"  pto.tcmp ins(%a, %b {{cmpMode = #pto<cmp lt>}} : {t}, {t}) outs(%d : {m})"), "a2a3")


def test_trem_is_i32_or_f32_on_a2a3():
    refused(_binary("pto.trem", "i16", extra="tmp"), "a2a3", "'pto.trem' op expects A2/A3 trem element type to be i32/f32",
            "%a")
    accepted(_binary("pto.trem", "i16", extra="tmp"), "a5")
    accepted(_binary("pto.trem", "i32", extra="tmp"), "a2a3")


def test_tshrs_takes_16_and_32_bit_integers_on_a2a3():
    def shrs(elem):
        t = tb(16, 64, elem)
        return kernel({"a": t, "d": t}, f"  pto.tshrs ins(%a, %c3_i32 : {t}, i32) outs(%d : {t})")
    refused(shrs("i8"), "a2a3", "'pto.tshrs' op expects A2/A3 tshrs src and dst element type to be i16/i32", "%a")
    accepted(shrs("i8"), "a5")
    accepted(shrs("ui16"), "a2a3")      # a width: signed or unsigned alike


def test_tcolsum_element_types():
    src, dst = tb(16, 64, "bf16"), tb(1, 64, "bf16")
    text = kernel({"s": src, "d": dst}, f"  pto.tcolsum ins(%s : {src}) outs(%d : {dst})")
    refused(text, "a2a3", "'pto.tcolsum' op expects A2/A3 tcolsum element type to be f16/f32/i16/i32", "%s")
    accepted(text, "a5")


def test_tload_dst_element_types_on_a2a3():
    t = tb(16, 64, "f8E4M3FN")
    view = "!pto.partition_tensor_view<16x64xf8E4M3FN>"
    text = kernel({"d": t}, (
        f"  %v = pto.make_tensor_view %arg0, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf8E4M3FN>\n"
        f"  %p = pto.partition_view %v, offsets = [%c0, %c0], sizes = [%c16, %c16] : !pto.tensor_view<?x?xf8E4M3FN> -> "
        f"{view}\n"
        f"  pto.tload ins(%p : {view}) outs(%d : {t})"), params="%arg0: !pto.ptr<f8E4M3FN>")
    refused(text, "a2a3", "'pto.tload' op expects A2/A3 tload dst element type to be i8/i16/i32/i64/u64/f16/bf16/f32",
            "%d")
    accepted(text, "a5")


def test_an_integer_scalar_tmaxs_is_refused_for_027_only():
    t = tb(16, 64, "i32")
    text = kernel({"a": t, "d": t}, f"  pto.tmaxs ins(%a, %c3_i32 : {t}, i32) outs(%d : {t})")
    refused(text, "a2a3", "'pto.tmaxs' op with a i32 scalar is not lowered by ptoas 0.27 (it stops with "
                          "\"ins/outs are not memref yet\")", "%c3_i32", compat="0.27")
    accepted(text, "a2a3")              # pypto HEAD writes it so for a newer ptoas


def test_an_unsigned_scalar_operand_is_refused_for_027_only():
    t = tb(16, 64, "ui16")
    text = kernel({"a": t, "d": t}, f"  %s = arith.constant 3 : i16\n"
                                    f"  %u = builtin.unrealized_conversion_cast %s : i16 to ui16\n"
                                    f"  pto.tands ins(%a, %u : {t}, ui16) outs(%d : {t})")
    refused(text, "a2a3", "'pto.tands' op takes no ui16 scalar in ptoas 0.27 (signless integers and floats only)", "%u",
            compat="0.27")
    accepted(text, "a2a3")


def _push(loc: str, pipe_attrs: str = "dir_mask = 1, slot_size = 8192") -> str:
    t = tb(64, 64, "f16", loc)
    return "\n".join([
        "module {",
        "  func.func @k(%arg0: !pto.ptr<ui8>) attributes {pto.kernel_kind = #pto.kernel_kind<cube>} {",
        "  %c0_i32 = arith.constant 0 : i32", "  %a0 = arith.constant 0 : i64",
        f"  pto.aic_initialize_pipe {{{pipe_attrs}}} (gm_slot_buffer = %arg0 : !pto.ptr<ui8>, "
        "c2v_consumer_buf = %c0_i32 : i32, v2c_consumer_buf = %c0_i32 : i32)",
        f"  %t = pto.alloc_tile addr = %a0 : {t}",
        f"  pto.tpush_to_aiv(%t : {t}) {{split = 0}}",
        "  return", "  }", "}", ""])


def test_a_mat_tile_push_is_refused_for_027_only():
    refused(_push("mat"), "a2a3", "'pto.tpush_to_aiv' op tile type must map to a supported producer pipe "
                                  "(ptoas 0.27 pushes Acc or Vec tiles)", "%t :", compat="0.27")
    accepted(_push("mat"), "a2a3")


def test_a_hand_pipe_id_and_slot_num_are_unknown_to_027():
    """0.27 reads {dir_mask, slot_size[, nosplit]}: an id ("expected 'dir_mask'") or slot_num is refused by
    PTO codegen under ptoas_compat="0.27" (pto.compat.unknown_to), not written."""
    from ptokit.pto.compat import unknown_to
    from ptokit.pto.parser import parse
    for attrs, word in (("id = 0, dir_mask = 1, slot_size = 8192", "id"),
                        ("dir_mask = 1, slot_size = 8192, slot_num = 2", "slot_num")):
        text = _push("vec", attrs)
        found = [what for _, what in unknown_to(parse(text).funcs[0], "0.27")]
        assert found == [f"attribute '{word}' of 'pto.aic_initialize_pipe'"], found
        accepted(text, "a2a3")
    assert not list(unknown_to(parse(_push("vec")).funcs[0], "0.27"))


def test_a_trowexpandadd_tmp_is_refused_for_027_only():
    t, col = tb(32, 64, "f32"), str(TileBufType.of("vec", "f32", 32, 1, v_row=32, v_col=1))
    text = kernel({"a": t, "c": col, "s": t, "d": t},
                  f"  pto.trowexpandadd ins(%a, %c, %s : {t}, {col}, {t}) outs(%d : {t})")
    refused(text, "a2a3", "'pto.trowexpandadd' op takes no tmp operand in ptoas 0.27 (ins(%src0, %src1 : T0, T1) only)",
            "%s", compat="0.27")
    accepted(text, "a2a3")


def test_a_packed_a5_tcmp_mask_is_refused_for_027_only():
    """0.27's A5 tcmp wants src0, src1 and dst of one shape; the packed A5 mask (one bit per element) is
    pypto HEAD's form for newer ptoas. a2a3 checks only the valid rows."""
    t, mask = tb(16, 64, "f32"), tb(16, 32, "ui8")
    text = kernel({"a": t, "b": t, "m": mask},
                  f"  pto.tcmp ins(%a, %b {{cmpMode = #pto<cmp lt>}} : {t}, {t}) outs(%m : {mask})")
    refused(text, "a5", "'pto.tcmp' op expects src0, src1, and dst to have the same shape (ptoas 0.27's A5 rule; "
                        "the packed A5 mask is written for newer ptoas)", "%m", compat="0.27")
    accepted(text, "a5")
    accepted(text, "a2a3", compat="0.27")
    same = tb(16, 64, "ui8")
    accepted(kernel({"a": t, "b": t, "m": same},
                    f"  pto.tcmp ins(%a, %b {{cmpMode = #pto<cmp lt>}} : {t}, {t}) outs(%m : {same})"), "a5", compat="0.27")


@pytest.mark.parametrize("arch, words", [("a5", "A5 vec"), ("a2a3", "A2/A3 vec/mat")])
def test_an_fp8_vec_store_is_refused_for_027_only(arch, words):
    vec = tb(16, 32, "f8E4M3FN")
    text = kernel({"t": vec}, (
        "  %v = pto.make_tensor_view %arg0, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf8E4M3FN>\n"
        "  %p = pto.partition_view %v, offsets = [%c0, %c0], sizes = [%c16, %c16] : !pto.tensor_view<?x?xf8E4M3FN> -> "
        "!pto.partition_tensor_view<16x32xf8E4M3FN>\n"
        f"  pto.tstore ins(%t : {vec}) outs(%p : !pto.partition_tensor_view<16x32xf8E4M3FN>)"),
        params="%arg0: !pto.ptr<f8E4M3FN>")
    refused(text, arch, f"'pto.tstore' op expects {words} tstore src element type to be i8/i16/i32/i64/u64/f16/bf16/f32",
            "%t", compat="0.27")
    accepted(text, arch)


@pytest.mark.parametrize("op", ["trowsum", "trowmax", "trowmin"])
@pytest.mark.parametrize("arch", ["a2a3", "a5"])
def test_row_reductions_take_no_bf16_on_either_arch(op, arch):
    src, tmp, dst = tb(16, 64, "bf16"), tb(16, 64, "bf16"), str(TileBufType.of("vec", "bf16", 16, 1, v_row=16, v_col=1))
    text = kernel({"s": src, "t": tmp, "d": dst}, f"  pto.{op} ins(%s, %t : {src}, {tmp}) outs(%d : {dst})")
    refused(text, arch, f"'pto.{op}' op expects element type to be i16/i32/f16/f32", "%s")
    ok, okd = tb(16, 64, "f16"), str(TileBufType.of("vec", "f16", 16, 1, v_row=16, v_col=1))
    accepted(kernel({"s": ok, "t": ok, "d": okd}, f"  pto.{op} ins(%s, %t : {ok}, {ok}) outs(%d : {okd})"), arch)


def test_a_row_min_tmp_is_row_major():
    src, col = tb(16, 64, "f32"), str(TileBufType.of("vec", "f32", 16, 1, v_row=16, v_col=1))
    text = kernel({"s": src, "t": col, "d": col}, f"  pto.trowmin ins(%s, %t : {src}, {col}) outs(%d : {col})")
    with pytest.raises(AssemblerError) as ei:
        assemble_text(text, "t.pto", arch="a2a3")
    assert "row_major" in ei.value.message and "tmp" in ei.value.message, ei.value.message


@pytest.mark.parametrize("arch", ["a2a3", "a5"])
def test_tprelu_is_f16_or_f32(arch):
    t, m = tb(16, 64, "bf16"), tb(16, 64, "ui8" if arch == "a2a3" else "bf16")
    text = kernel({"a": t, "b": t, "m": m, "d": t}, f"  pto.tprelu ins(%a, %b, %m : {t}, {t}, {m}) outs(%d : {t})")
    refused(text, arch, "'pto.tprelu' op expects dst/src0/src1 element type to be f16 or f32", "%a")


def test_textract_element_types_on_a2a3():
    mat, left = tb(32, 32, "i32", "mat"), tb(16, 32, "i32", "left")
    text = kernel({"s": mat, "d": left}, f"  pto.textract ins(%s, %c0, %c0 : {mat}, index, index) outs(%d : {left})",
                  kind="cube")
    refused(text, "a2a3", "'pto.textract' op expects A2/A3 textract element type to be i8/f16/bf16/f32", "%s",
            compat="0.27")
    accepted(text, "a2a3")      # ptokit's own windows (Vec -> Vec, i32) keep pypto HEAD's mode


def test_trems_scalar_is_the_tile_element_type():
    t = tb(16, 64, "f16")
    text = kernel({"s": t, "t": t, "d": t}, f"  pto.trems ins(%s, %c3_f32, %t : {t}, f32, {t}) outs(%d : {t})")
    refused(text, "a5", "'pto.trems' op expects scalar type to match the tile element type", "%c3_f32")


@pytest.mark.parametrize("arch", ["a2a3", "a5"])
def test_column_expdif_is_f16_or_f32(arch):
    t, row = tb(16, 64, "bf16"), tb(1, 64, "bf16")
    text = kernel({"a": t, "r": row, "d": t}, f"  pto.tcolexpandexpdif ins(%a, %r : {t}, {row}) outs(%d : {t})")
    refused(text, arch, "'pto.tcolexpandexpdif' op expects tcolexpandexpdif element type to be f16 or f32", "%a")


def test_trandom_is_a5_only_for_027():
    t = tb(16, 64, "ui32")
    text = kernel({"d": t}, "  %k = arith.constant 1 : i32\n"
                            f"  pto.trandom ins(%k, %k, %k, %k, %k, %k : i32, i32, i32, i32, i32, i32) outs(%d : {t})")
    with pytest.raises(AssemblerError) as ei:
        assemble_text(text, "t.pto", arch="a2a3", compat="0.27")
    assert ei.value.message == "'pto.trandom' op trandom is only supported for A5 targets", ei.value.message
    accepted(text, "a2a3")
    accepted(text, "a5", compat="0.27")


@pytest.mark.parametrize("op", ["mul", "add", "sub", "max", "min"])
def test_column_expand_binary_element_types(op):
    """i16/i32/f16/f32 on A2/A3, also i8 on A5, never bf16 (the tool's words, located at src0)."""
    for arch, elem, words in (("a2a3", "bf16", "A2/A3 tcolexpand{op} element type to be i16/i32/f16/f32"),
                              ("a2a3", "i8", "A2/A3 tcolexpand{op} element type to be i16/i32/f16/f32"),
                              ("a5", "bf16", "A5 tcolexpand{op} element type to be i8/i16/i32/f16/f32")):
        t, row = tb(16, 64, elem), tb(1, 64, elem)
        text = kernel({"a": t, "r": row, "d": t}, f"  pto.tcolexpand{op} ins(%a, %r : {t}, {row}) outs(%d : {t})")
        refused(text, arch, f"'pto.tcolexpand{op}' op expects " + words.format(op=op), "%a")
    for arch, elem in (("a5", "i8"), ("a2a3", "i16"), ("a2a3", "f16")):
        t, row = tb(16, 64, elem), tb(1, 64, elem)
        accepted(kernel({"a": t, "r": row, "d": t}, f"  pto.tcolexpand{op} ins(%a, %r : {t}, {row}) outs(%d : {t})"),
                 arch)
