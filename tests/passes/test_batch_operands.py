"""Batched matmuls of rank-3 tensors through the passes (batch_operand_programs.py).

ConvertTensorToTileOps: each batch's window of an N-D value the kernel computes is a row band of its
Vec tile (the leading axes folded), moved to Mat for the cube; a window that is not one matrix is a
located error.  AutoTileMatmulL0: a stack of batch products larger than Acc and stored once is
stored product by product (also when only a product exceeds L0), each tiled for L0 with blocks of its transposed operand extracted from
the transposed Mat tile; a stack read otherwise stays whole, its products named and tiled in place
(an output grid there is a located error)."""
import pytest

from ptokit.errors import CompileError
from ptokit.ir import nodes as N
from ptokit.ir.types import MemorySpace
from ptokit.language.parser import parse_program
from ptokit.passes.context import PassContext
from ptokit.passes.manager import PIPELINE

from tests.e2e import batch_operand_programs as P


def _through(program, last, platform="a2a3sim"):
    prog = parse_program(program)
    ctx = PassContext(platform=platform)
    for p in PIPELINE:
        prog = p.run(prog, ctx)
        if p.name == last:
            return prog
    raise AssertionError(last)


def test_front_end_loads_each_batch_of_the_computed_value_into_mat():
    k = parse_program(P.ComputedBTrans).functions["k"]
    loads = [e for _, e in N.walk_ops(k.body, "load") if e.args[0].name == "bt"]
    assert [e.attrs["target_memory"] for e in loads] == [MemorySpace.Mat, MemorySpace.Mat]   # refused by the pass before


def test_each_batch_is_a_row_band_of_the_tile_moved_to_mat():
    k = _through(P.ComputedBTrans, "ConvertTensorToTileOps").functions["k"]
    assert not [e for _, e in N.walk_ops(k.body, "load") if e.args[0].name == "bt"]
    slices = [e for _, e in N.walk_ops(k.body, "slice")]
    assert [(e.args[0].name, e.attrs["offsets_static"], e.attrs["shape"]) for e in slices] == \
        [("bt", (0, 0), [P.N, P.K]), ("bt", (P.N, 0), [P.N, P.K])]
    moves = [e for _, e in N.walk_ops(k.body, "move") if e.args[0] in slices]
    assert [m.attrs["target_memory"] for m in moves] == [MemorySpace.Mat, MemorySpace.Mat]
    views = [e for _, e in N.walk_ops(k.body, "transpose_view")]
    assert [v.args[0] for v in views if v.args[0] in moves] == moves       # b_trans: viewed transposed in Mat


def test_the_kernel_is_split_into_its_vector_and_cube_halves():
    prog = _through(P.ComputedBTrans, "SplitMixed")
    assert {f.kind for f in prog.functions.values()} >= {N.FunctionType.AIC, N.FunctionType.AIV}


def test_a_window_of_several_matrices_of_a_computed_value_is_a_located_error():
    with pytest.raises(CompileError, match=r"a window \[2, 8, 32\] of a 3-D tensor computed in this kernel") as e:
        _through(P.WideWindow, "ConvertTensorToTileOps")
    assert "batch_operand_programs.py" in str(e.value) and ":35:" in str(e.value)


def test_a_stack_larger_than_acc_is_stored_per_batch_and_tiled():
    k = _through(P.LargeBTrans, "AutoTileMatmulL0").functions["k"]
    stores = [e for _, e in N.walk_ops(k.body, "store")]
    # each batch's [M, N] product at its batch index (in output tiles of the chooser's width)
    assert sorted({e.attrs["offsets_static"][0] for e in stores}) == list(range(P.LB))
    assert all(e.attrs["offsets_static"][1] == 0 and e.attrs["shape"][:2] == [1, P.LM] and
               e.attrs["shape"][2] < P.LN for e in stores)
    assert not [e for _, e in N.walk_ops(k.body, "assemble")] and \
        not [e for _, e in N.walk_ops(k.body, "create_tile")]          # no [B * M, N] Acc tile
    rights = [e for _, e in N.walk_ops(k.body, "extract") if e.attrs["target_memory"] is MemorySpace.Right]
    assert rights and all(e.args[0].type.layout == ("row_major", "col_major") for e in rights)   # the ZN view
    assert all(e.type.shape[1] < P.LN for e in rights)                 # N blocks: a whole one does not fit Right


def test_a_stack_that_fits_acc_is_stored_per_batch_when_a_product_exceeds_l0():
    # a5: the [128, 272] FP32 stack fits Acc, but a batch's transposed operand still exceeds Right
    k = _through(P.LargeBTrans, "AutoTileMatmulL0", platform="a5sim").functions["k"]
    assert not [e for _, e in N.walk_ops(k.body, "assemble")]
    assert sorted({e.attrs["offsets_static"][0] for _, e in N.walk_ops(k.body, "store")}) == list(range(P.LB))


def test_a_stack_read_twice_stays_whole_and_its_oversized_product_is_a_located_error():
    with pytest.raises(CompileError, match=r"the \[64, 272\] pl.FP32 result of this matmul .* only when its one use "
                                           r"is a store") as e:
        _through(P.LargeBTransTwice, "AutoTileMatmulL0")
    assert "batch_operand_programs.py:80:" in str(e.value)      # the batched pl.matmul


def test_a_large_2d_b_trans_product_is_left_whole_for_the_pass():
    k = parse_program(P.LargeBTrans2d).functions["k"]
    assert not [s for s in N.walk_stmts(k.body) if isinstance(s, N.For)]        # no K loop of the front end's
    assert len([e for _, e in N.walk_ops(k.body, "transpose_view")]) == 1
    tiled = _through(P.LargeBTrans2d, "AutoTileMatmulL0").functions["k"]
    rights = [e for _, e in N.walk_ops(tiled.body, "extract") if e.attrs["target_memory"] is MemorySpace.Right]
    assert rights and all(e.args[0].type.layout == ("row_major", "col_major") for e in rights)
    assert all(e.type.shape[0] * e.type.shape[1] * 4 <= 65536 for e in rights)     # each block fits Right
