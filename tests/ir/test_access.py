"""The one tensor read/write analysis (ptokit.ir.access), asked of op traits: the outliner of pl.at
blocks, @pl.jit helpers and the InCore write check all use it, so they agree."""
import ptokit.language as pl
from ptokit.ir import nodes as N
from ptokit.ir.access import tensor_accesses
from ptokit.ir.types import DType, TensorType
from ptokit.language.parser import parse_program
from ptokit.passes.context import PassContext
from ptokit.passes.outline_scopes import outline_incore_scopes


def _kernel_of(prog):
    prog = outline_incore_scopes(prog, PassContext(platform="a2a3sim"))     # the blocks as kernels
    return next(f for f in prog.functions.values() if f.kind is N.FunctionType.InCore)


def _dirs(fn):
    return {p.name: p.direction for p in fn.params if isinstance(p.type, TensorType)}


def test_a_scatter_in_an_at_block_writes_its_tensor():
    # mscatter returns the tensor it writes; the outliner once counted only pl.store as a write and
    # left `out` an input of the outlined kernel
    @pl.program
    class AtScatter:
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, src: pl.Tensor[[8, 16], pl.FP32], idx: pl.Tensor[[8, 16], pl.INT32],
                 out: pl.InOut[pl.Tensor[[256], pl.FP32]]) -> pl.Tensor[[256], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                out = pl.mscatter(pl.load(src, [0, 0], [8, 16]), pl.load(idx, [0, 0], [8, 16]), out)
            return out
    dirs = _dirs(_kernel_of(parse_program(AtScatter)))
    assert dirs["out"] is not N.Direction.IN
    assert dirs["src"] is N.Direction.IN and dirs["idx"] is N.Direction.IN


def test_tensor_level_ops_and_windows_read():
    @pl.program
    class Reads:
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32],
                 out: pl.InOut[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                # a full-size window of `a` and a tensor-level op over `out`: both reads, not writes
                r: pl.Tensor[[16, 64], pl.FP32] = pl.add(a[0:16, :], out)
                s: pl.Tensor[[16, 64], pl.FP32] = pl.mul(r, b)
                out = pl.assemble(out, s, [0, 0])
            return out
    k = _kernel_of(parse_program(Reads))
    reads, writes = tensor_accesses(k.body, {})
    assert set(writes) == {"out"}
    assert {"a", "b", "out"} <= set(reads)
    assert _dirs(k) == {"a": N.Direction.IN, "b": N.Direction.IN, "out": N.Direction.INOUT}


def test_a_window_handed_to_a_writing_function_writes_its_tensor():
    t = TensorType((16, 64), DType.FP32)
    callee = N.Function("f", N.FunctionType.InCore, [N.Param("y", t, N.Direction.OUT)], [], [])
    x = N.Var("x", type=TensorType((32, 64), DType.FP32))
    offs = N.ListExpr([N.Const(0), N.Const(0)])
    view = N.OpCall("tensor_view", [x, offs], {"shape": [16, 64]}, type=t)
    reads, writes = tensor_accesses([N.ExprStmt(N.FuncCall("f", [view]))], {"f": callee})
    assert set(writes) == {"x"} and not reads
