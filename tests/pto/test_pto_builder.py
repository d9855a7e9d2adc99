"""Writers build `.pto` through ptokit.pto.builder: the result prints, parses back, assembles, and
every op that does not match its row of the dialect table is refused when it is built."""
import pytest

from ptokit.backend.assembler import assemble_text
from ptokit.errors import InternalError
from ptokit.pto.ast import Attr
from ptokit.pto.builder import Value, add_function, format_literal, new_module
from ptokit.pto.parser import parse
from ptokit.pto.printer import print_module
from ptokit.pto.types import PartitionViewType, PtrType, ScalarType, TensorViewType, TileBufType

F32, I64, INDEX = ScalarType("f32"), ScalarType("i64"), ScalarType("index")
TALL = TileBufType.of("vec", "f32", 32, 32)
COL = TileBufType.of("vec", "f32", 32, 1)


def _function():
    mod = new_module({"pto.target_arch": Attr.string("a2a3")})
    fb = add_function(mod, "k", [("arg0", PtrType("f32"))],
                      {"pto.kernel_kind": Attr.dialect("pto.kernel_kind", "vector")})
    return mod, fb


def _exp_kernel():
    mod, fb = _function()
    c0, c1, c32 = (fb.prologue.constant(f"c{n}_index", n, INDEX) for n in (0, 1, 32))
    b = fb.body
    view = b.make_tensor_view("x_view", fb.params[0], [c32, c32], [c32, c1], TensorViewType((None, None), "f32"),
                              loc=("k.py", 3, 5))
    part = b.partition_view("x_pview", view, [c0, c0], [c32, c32], PartitionViewType((32, 32), "f32"))
    t = b.alloc_tile("t", TALL, c32, c32, fb.prologue.constant("c0_i64", 0, I64))
    b.dps("pto.tload", [part], [t])
    b.dps("pto.texp", [t], [t], loc=("k.py", 4, 9))
    b.dps("pto.tstore", [t], [part])
    b.return_()
    return mod, fb


def test_a_built_module_prints_parses_back_and_assembles():
    mod, _ = _exp_kernel()
    text = print_module(mod)
    assert text.splitlines()[:4] == [
        'module attributes {pto.target_arch = "a2a3"} {',
        "  func.func @k(%arg0: !pto.ptr<f32>) attributes {pto.kernel_kind = #pto.kernel_kind<vector>} {",
        "  %c0_index = arith.constant 0 : index",
        "  %c1_index = arith.constant 1 : index"]
    assert f'  pto.texp ins(%t : {TALL}) outs(%t : {TALL}) loc("k.py":4:9)' in text
    assert print_module(parse(text, "k.pto")) == text
    assert "TEXP(v5, v5);" in assemble_text(text, "k.pto")


def test_prologue_constants_print_before_the_body_in_creation_order():
    mod, fb = _exp_kernel()
    fb.prologue.constant("cst", 0.5, F32)
    lines = print_module(mod).splitlines()
    assert lines[2:7] == ["  %c0_index = arith.constant 0 : index", "  %c1_index = arith.constant 1 : index",
                          "  %c32_index = arith.constant 32 : index", "  %c0_i64 = arith.constant 0 : i64",
                          "  %cst = arith.constant 5.000000e-01 : f32"]


def test_literals():
    assert format_literal(1.5e-5, F32) == "1.500000e-05"
    assert format_literal(True, ScalarType("i1")) == "1"      # pypto HEAD's spelling; ptoas 0.27 refuses "true : i1"
    assert format_literal(-3, INDEX) == "-3"


def test_scf_for_with_iteration_arguments():
    mod, fb = _function()
    c0, c1 = fb.prologue.constant("c0", 0, INDEX), fb.prologue.constant("c1", 1, INDEX)
    body, iv, (acc,), (res,) = fb.body.for_("i", c0, c1, c1, [("acc", c0)], "acc_out")
    body.yield_([body.arith("arith.addi", [acc, iv], INDEX, "next")])
    fb.body.return_()
    text = print_module(mod)
    assert "  %acc_out = scf.for %i = %c0 to %c1 step %c1 iter_args(%acc = %c0) -> (index) {" in text
    assert "    scf.yield %next : index" in text and res.name == "acc_out"
    assert print_module(parse(text)) == text


def _refused(call, *words):
    with pytest.raises(InternalError) as ei:
        call()
    for w in words:
        assert w in str(ei.value)


def test_op_checks_against_the_table():
    _, fb = _function()
    b = fb.body
    t = Value("t", TALL)
    col = Value("col", COL)
    s = Value("s", F32)
    _refused(lambda: b.dps("pto.tadd", [t], [t]), "pto.tadd takes 2..2 ins")
    _refused(lambda: b.dps("pto.texp", [s], [t]), "pto.texp src must be a tile")
    _refused(lambda: b.dps("pto.tadds", [t, t], [t]), "scalar must be a scalar")
    _refused(lambda: b.dps("pto.trsqrt", [col], [col]), "'pto.trsqrt' op expects src to use the row_major blayout")
    _refused(lambda: b.dps("pto.texp", [t], [t], {"rmode": Attr.dialect("pto", "round_mode CAST_RINT")}),
             "declares no attribute 'rmode'")
    _refused(lambda: b.dps("pto.nosuch", [t], [t]), "'pto.nosuch' is not a dps op")
    _refused(lambda: b.dps("pto.treshape", [t], [t]), "not a dps op")
    _refused(lambda: b.view("pto.treshape", "r", col, TileBufType.of("vec", "f32", 1, 64)), "cannot view")
    _refused(lambda: b.arith("arith.addi", [s], INDEX, "x"), "takes 2 operand(s)")
    _refused(lambda: b.arith("arith.addi", [s, s], F32, "x"), "cannot compute on f32")
    _refused(lambda: b.cmp("arith.cmpi", "olt", s, s, INDEX, "x"), "no comparison")
    _refused(lambda: b.push("pto.tpush_to_aiv", s, 0), "tile must be a tile")
    _refused(lambda: b.free("pto.tfree_from_aic", 7), "split", "not one of")
    _refused(lambda: b.initialize_pipe("pto.aiv_initialize_pipe", {"dir_mask": Attr.int(1)},
                                       [("c2v_consumer_buf", Value("b", ScalarType("i32")))]),
             "needs attribute 'slot_size'")
    assert fb.body.block.ops == []          # nothing refused was added


def test_a_column_reaches_a_row_major_op_through_a_view():
    mod, fb = _function()
    c0 = fb.prologue.constant("c0_i64", 0, I64)
    c1, c32 = fb.prologue.constant("c1", 1, INDEX), fb.prologue.constant("c32", 32, INDEX)
    col = fb.body.alloc_tile("col", COL, c32, c1, c0)
    row = fb.body.view("pto.treshape", "col_row", col, COL.reshaped(1, 32))
    fb.body.dps("pto.trsqrt", [row], [row])
    fb.body.return_()
    text = print_module(mod)
    assert f"  %col_row = pto.treshape %col : {COL} -> {COL.reshaped(1, 32)}" in text
    assert "TRSQRT(" in assemble_text(text, "k.pto")
