"""OutlineIncoreScopes: the front end keeps a pl.at block of kernel code as an ``incore`` scope
where it stood; the pass makes it an InCore kernel (live-in tensors then scalars as parameters,
directions by the write analysis, the written tensors returned) and a call of it."""
import pytest

import ptokit.language as pl
from ptokit.errors import CompileError, InternalError
from ptokit.ir import nodes as N
from ptokit.ir.verifier import verify_properties
from ptokit.language.parser import parse_program
from ptokit.passes.context import PassContext
from ptokit.passes.outline_scopes import live_in, outline_incore_scopes

from . import programs as P

CTX = PassContext(platform="a2a3sim")


def _scopes(fn):
    return [s for s in N.walk_stmts(fn.body) if isinstance(s, N.Scope) and s.kind == "incore"]


def test_front_end_keeps_the_blocks_as_scopes():
    prog = parse_program(P.AtBlocks)
    assert set(prog.functions) == {"main"}
    assert [s.attrs["name"] for s in _scopes(prog.functions["main"])] == ["scale", "main_incore_1"]
    with pytest.raises(InternalError, match="breaks 'outlined': the block of kernel scale is not outlined"):
        verify_properties(prog, "test", {"defined", "outlined"})


def test_pass_makes_kernels_and_calls():
    prog = outline_incore_scopes(parse_program(P.AtBlocks), CTX)
    verify_properties(prog, "test", {"defined", "outlined"})
    scale, second = prog.functions["scale"], prog.functions["main_incore_1"]
    assert [(p.name, p.direction) for p in scale.params] == [
        ("x", N.Direction.IN), ("mid", N.Direction.OUT), ("s", N.Direction.IN)]
    assert [(p.name, p.direction) for p in second.params] == [("mid", N.Direction.IN), ("y", N.Direction.OUT)]
    assert [v.name for v in scale.body[-1].values] == ["mid"]      # returns the parameter it writes
    calls = [c for _, c in N.walk_calls(prog.functions["main"].body)]
    assert [(c.callee, [a.name for a in c.args]) for c in calls] == [
        ("scale", ["x", "mid", "s"]), ("main_incore_1", ["mid", "y"])]
    assert not _scopes(prog.functions["main"])


def test_live_in_is_flow_sensitive():
    a, b, t = (N.Var(n, type=None) for n in ("a", "b", "t"))
    body = [N.Assign([N.Var("t")], N.OpCall("x", [a])), N.ExprStmt(N.OpCall("y", [t, b, a]))]
    assert [v.name for v in live_in(body)] == ["a", "b"]        # t is bound before it is read


def test_a_dimension_is_read_off_its_tensor():
    @pl.program
    class Dyn:
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[pl.dynamic("M"), 64], pl.FP32],
                 y: pl.Out[pl.Tensor[[pl.dynamic("M"), 64], pl.FP32]]) -> pl.Tensor[[pl.dynamic("M"), 64], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="k"):
                for i in pl.range(0, pl.tensor.dim(x, 0), 16):
                    y = pl.store(pl.exp(pl.load(x, [i, 0], [16, 64])), [i, 0], y)
            return y
    k = outline_incore_scopes(parse_program(Dyn), CTX).functions["k"]
    assert [p.name for p in k.params] == ["x", "y"]


def test_dumps_naming_no_argument_is_a_located_error():
    @pl.program
    class BadDump:
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[16, 64], pl.FP32], z: pl.Tensor[[16, 64], pl.FP32],
                 y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP, dumps=[z]):
                y = pl.store(pl.exp(pl.load(x, [0, 0], [16, 64])), [0, 0], y)
            return y
    with pytest.raises(CompileError) as info:
        outline_incore_scopes(parse_program(BadDump), CTX)
    assert "dumps= names 'z', which is not a tensor argument of this block's task" in str(info.value)
    assert info.value.loc.file == __file__ and "dumps=[z]" in str(info.value).splitlines()[1]


def test_an_array_read_in_a_block_is_a_located_error():
    @pl.program
    class ArrayIn:
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
            arr = pl.array.create(4, pl.INT32)
            arr[0] = 3
            with pl.at(level=pl.Level.CORE_GROUP):
                k = arr[0]
                y = pl.store(pl.adds(pl.load(x, [0, 0], [16, 64]), 1.0), [k, 0], y)
            return y
    with pytest.raises(CompileError) as info:
        outline_incore_scopes(parse_program(ArrayIn), CTX)
    assert "'arr' is a pl.Array[4, pl.INT32] defined outside this pl.at block; a kernel takes only tensors and " \
           "scalars" in str(info.value)
    assert info.value.loc.file == __file__ and "k = arr[0]" in str(info.value).splitlines()[1]


def test_a_scalar_read_only_by_a_valid_shape_is_live_in():
    from ptokit.ir.types import INDEX, MemorySpace, TileType, DType
    nc = N.Var("nc", type=INDEX)
    t = N.Var("t", type=TileType((16, 64), DType.FP32, MemorySpace.Vec, valid=(16, nc)))
    body = [N.Assign([t], N.OpCall("load", [N.Var("x", type=None)], type=t.type))]
    assert sorted(v.name for v in live_in(body)) == ["nc", "x"]


def test_a_scalar_both_arms_of_an_if_bind_is_not_live_in():
    # pypto's examples/intermediate/06: `if c: n = a  else: n = b` in a block, then a valid shape of n
    from ptokit.ir.types import INDEX, MemorySpace, TileType, DType
    a, b, c, n = (N.Var(k, type=INDEX) for k in ("a", "b", "c", "n"))
    t = N.Var("t", type=TileType((16, 64), DType.FP32, MemorySpace.Vec, valid=(16, n)))
    load = N.Assign([t], N.OpCall("load", [N.Var("x", type=None)], type=t.type))
    both = N.If(c, [N.Assign([n], a)], [N.Assign([n], b)])
    assert sorted(v.name for v in live_in([both, load])) == ["a", "b", "c", "x"]
    one = N.If(c, [N.Assign([n], a)], [])               # bound in one arm only: the outer n may flow in
    assert sorted(v.name for v in live_in([one, load])) == ["a", "c", "n", "x"]


def test_values_a_later_block_reads_become_intermediate_tensors():
    prog = outline_incore_scopes(parse_program(P.BlockValues), CTX)
    verify_properties(prog, "test", {"defined", "outlined"})
    make = prog.functions["make"]
    assert [(p.name, p.direction) for p in make.params] == [
        ("x", N.Direction.IN), ("e_out", N.Direction.OUT), ("t_out", N.Direction.OUT)]
    assert [v.name for v in make.body[-1].values] == ["e_out", "t_out"]
    stores = [e for _, e in N.walk_ops(make.body, "store")]
    assert [(s.args[1].name, s.args[0].op if isinstance(s.args[0], N.OpCall) else s.args[0].name)
            for s in stores] == [("e_out", "load"), ("t_out", "t")]    # a tensor-level value through a load
    main = prog.functions["main"].body
    assert [(s.targets[0].name, s.value.op) for s in main[:2]] == [("e", "create_tensor"), ("t", "create_tensor")]
    calls = [c for _, c in N.walk_calls(main)]
    assert [(c.callee, [a.name for a in c.args]) for c in calls] == [("make", ["x", "e", "t"]), ("use", ["y", "e", "t"])]


def test_a_name_the_next_block_binds_before_reading_is_not_handed_on():
    @pl.program
    class Rebound:
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="first"):
                t = pl.load(x, [0, 0], [16, 64])
                y = pl.store(pl.exp(t), [0, 0], y)
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="second"):
                t = pl.load(y, [0, 0], [16, 64])
                y = pl.store(pl.adds(t, 1.0), [0, 0], y)
            return y
    prog = outline_incore_scopes(parse_program(Rebound), CTX)
    assert [p.name for p in prog.functions["first"].params] == ["x", "y"]
    assert not any(isinstance(s, N.Assign) for s in prog.functions["main"].body)
