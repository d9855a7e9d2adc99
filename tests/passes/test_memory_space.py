"""InferTileMemorySpace (passes/memory_space.py), IR in and IR out: the move paths it finds per
target, the chains it inserts (one per operand and scope), and the Acc copies it keeps as aliases."""
import pytest

import ptokit.language as pl
from ptokit.errors import CompileError
from ptokit.ir import nodes as N
from ptokit.ir.types import MemorySpace as M
from ptokit.language.parser import parse_program
from ptokit.passes.context import PassContext
from ptokit.passes.manager import PIPELINE
from ptokit.passes.memory_space import move_path
from ptokit.targets import Target

from programs import CarriedAcc       # tests/programs.py: also run end to end (tests/e2e)


def run_through(program, name="InferTileMemorySpace", platform="a2a3sim"):
    prog, ctx = parse_program(program), PassContext(platform=platform)
    for p in PIPELINE:
        prog = p.run(prog, ctx)
        if p.name == name:
            return prog
    raise AssertionError(name)


def moves(body):
    return [(s.targets[0].name, s.value.args[0].name, s.value.attrs["target_memory"])
            for s in N.walk_stmts(body) if isinstance(s, N.Assign) and isinstance(s.value, N.OpCall)
            and s.value.op == "move"]


@pytest.mark.parametrize("platform", ["a2a3sim", "a5sim"])
def test_move_paths_follow_the_target(platform):
    t = Target.of(platform)
    assert move_path(M.Mat, M.Left, t) == [M.Left]
    assert move_path(M.Vec, M.Left, t) == [M.Mat, M.Left]        # the FIFO's Vec->Mat, then on the cube
    assert move_path(M.Acc, M.Right, t) == [M.Mat, M.Right]
    assert move_path(M.Mat, M.Bias, t) == [M.Bias]
    assert move_path(M.Right, M.Left, t) is None                  # no move leaves L0B


@pl.program
class BranchOperands:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP16], n: pl.Scalar[pl.INDEX],
          y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        am = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        if n > 0:
            p = pl.matmul(am, am)
            y = pl.store(p, [0, 0], y)
        else:
            q = pl.matmul(am, am)
            y = pl.store(q, [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 16], pl.FP16], n: pl.Scalar[pl.INDEX],
             y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        y = self.k(a, n, y)
        return y


def test_one_chain_per_operand_and_scope():
    fn = run_through(BranchOperands).functions["k"]
    branch = next(s for s in fn.body if isinstance(s, N.If))
    # each arm moves am into Left and Right once; neither arm reads the other's moves
    assert moves(branch.then_body) == [("am_Left", "am", M.Left), ("am_Right", "am", M.Right)]
    assert moves(branch.else_body) == [("am_Left_1", "am", M.Left), ("am_Right_1", "am", M.Right)]
    before = run_through(BranchOperands, "ConvertToSSA").functions["k"]
    assert moves(before.body) == []                                # the front end moved nothing


def test_acc_copies_become_aliases():
    before = run_through(CarriedAcc, "ConvertToSSA").functions["k"]
    assert any(src and dst is M.Acc for _, src, dst in moves(before.body))      # Acc->Acc copies
    fn = run_through(CarriedAcc).functions["k"]
    assert all(dst is not M.Acc for _, _, dst in moves(fn.body))
    loop = next(s for s in fn.body if isinstance(s, N.For))
    assert [init.name for _, init in loop.iter_args] == ["o"]
    assert [y.name for y in loop.yields] == ["o_acc"]
    store = next(s for s in fn.body if isinstance(s, N.ExprStmt) and s.expr.op == "store")
    assert store.expr.args[0].name == loop.results[0].name


@pl.program
class CopyOutsideLoop:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP16], y: pl.Out[pl.Tensor[[64, 16], pl.FP32]]):
        am = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        o = pl.matmul(am, am)
        for i in pl.range(4):
            t = o
            t = pl.matmul_acc(t, am, am)
            y = pl.store(t, [i * 16, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 16], pl.FP16], y: pl.Out[pl.Tensor[[64, 16], pl.FP32]]):
        y = self.k(a, y)
        return y


def test_a_copy_each_round_of_a_loop_is_not_an_alias():
    # every round starts from o: as an alias the rounds would accumulate; Acc has no copy, so refused
    with pytest.raises(CompileError, match="tile.move Acc->Acc is not a legal move on a2a3") as ei:
        run_through(CopyOutsideLoop)
    assert "t = o" in str(ei.value)


@pl.program
class GmHandoffs:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP16], t: pl.InOut[pl.Tensor[[16, 16], pl.FP32]],
          u: pl.InOut[pl.Tensor[[16, 16], pl.FP32]], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        am = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        e = pl.exp(pl.load(u, [0, 0], [16, 16]))           # u is read before the cube writes it
        p = pl.matmul(am, am)
        t = pl.store(p, [0, 0], t)
        u = pl.store(p, [0, 0], u)
        y = pl.store(pl.add(pl.load(t, [0, 0], [16, 16]), e), [0, 0], y)
        return t, u, y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 16], pl.FP16], t: pl.InOut[pl.Tensor[[16, 16], pl.FP32]],
             u: pl.InOut[pl.Tensor[[16, 16], pl.FP32]], y: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        t, u, y = self.k(a, t, u, y)
        return t, u, y


def test_a_gm_handoff_is_fenced_by_a_move_after_the_store():
    fn = run_through(GmHandoffs).functions["k"]
    body_ops = [(s.targets[0].name if isinstance(s, N.Assign) else None) for s in fn.body]
    # one fence, right after the store into t (read back by vector work); none for u (read before)
    assert moves(fn.body) == [("am_Left", "am", M.Left), ("am_Right", "am", M.Right), ("p_fence", "p", M.Vec)]
    i = body_ops.index("p_fence")
    assert fn.body[i - 1].expr.op == "store" and fn.body[i - 1].expr.args[1].name == "t"


@pl.program
class TransposedSum:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[48, 32], pl.FP32],
          c: pl.Out[pl.Tensor[[16, 48], pl.FP32]]) -> pl.Tensor[[16, 48], pl.FP32]:
        bt = pl.add(b, b)
        c = pl.assemble(c, pl.matmul(a, bt, b_trans=True), [0, 0])
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[48, 32], pl.FP32],
             c: pl.Out[pl.Tensor[[16, 48], pl.FP32]]) -> pl.Tensor[[16, 48], pl.FP32]:
        c = self.k(a, b, c)
        return c


def test_a_transposed_vec_operand_is_viewed_transposed_in_mat():
    fn = run_through(TransposedSum).functions["k"]
    ops = {s.targets[0].name: s.value for s in fn.body if isinstance(s, N.Assign) and isinstance(s.value, N.OpCall)}
    assert ops["bt_Mat"].op == "move" and ops["bt_Mat_T"].op == "transpose_view"
    assert ops["bt_Mat_T"].type.shape == (32, 48)
    assert ops["bt_Mat_T_Right"].args[0].name == "bt_Mat_T"
    mm = next(e for e in ops.values() if e.op == "matmul")
    assert [a.name for a in mm.args][1] == "bt_Mat_T_Right" and mm.attrs["b_trans"] is False


def test_the_verifier_catches_an_operand_left_behind():
    from ptokit.errors import InternalError
    from ptokit.ir.verifier import verify_properties
    prog = run_through(TransposedSum, "ConvertToSSA")      # before the pass: bt is a Vec operand
    with pytest.raises(InternalError, match="tile_memory.*matmul reads its rhs from a Vec tile"):
        verify_properties(prog, "ConvertToSSA", {"tile_memory"})
    verify_properties(run_through(TransposedSum), "InferTileMemorySpace", {"tile_memory", "ssa"})
