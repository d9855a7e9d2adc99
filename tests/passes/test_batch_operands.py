"""ConvertTensorToTileOps on a batched matmul whose operand the kernel computes: each batch's window
of the N-D value is a row band of its Vec tile (the leading axes folded), moved to Mat for the cube;
a window that is not one matrix is a located error."""
import pytest

from ptokit.errors import CompileError
from ptokit.ir import nodes as N
from ptokit.ir.types import MemorySpace
from ptokit.language.parser import parse_program
from ptokit.passes.context import PassContext
from ptokit.passes.manager import PIPELINE

from tests.e2e import batch_operand_programs as P


def _through(program, last):
    prog = parse_program(program)
    ctx = PassContext(platform="a2a3sim")
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
