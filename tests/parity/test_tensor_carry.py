"""A tensor an orchestration loop carries from one iteration to the next (``cur = nxt``, pypto's
iter_arg of tensor type, its issue #1286): ConvertToSSA makes ``cur`` a carried value, the loop gets
no runtime scope (the next iteration and the code after the loop read what an iteration created),
and the orchestration reassigns a tensor handle (its runs: test_orch_tensor_carry.py)."""
import pytest

import ptokit
import ptokit.language as pl
from ptokit.errors import CompileError
from ptokit.ir import nodes as N
from ptokit.ir.types import TensorType
from ptokit.language.parser import parse_program
from ptokit.passes.context import PassContext
from ptokit.passes.manager import PIPELINE

S = [16, 64]


@pl.program
class CarryRebind:
    @pl.function(type=pl.FunctionType.InCore)
    def add_one(self, src: pl.Tensor[S, pl.FP32], dst: pl.Out[pl.Tensor[S, pl.FP32]]) -> pl.Tensor[S, pl.FP32]:
        out = pl.store(pl.adds(pl.load(src, [0, 0], S), 1.0), [0, 0], dst)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def twice(self, src: pl.Tensor[S, pl.FP32], dst: pl.Out[pl.Tensor[S, pl.FP32]]) -> pl.Tensor[S, pl.FP32]:
        out = pl.store(pl.muls(pl.load(src, [0, 0], S), 2.0), [0, 0], dst)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[S, pl.FP32], c: pl.Out[pl.Tensor[S, pl.FP32]]) -> pl.Tensor[S, pl.FP32]:
        cur = pl.create_tensor(S, dtype=pl.FP32)
        cur = self.twice(a, cur)
        for i in pl.range(3):
            nxt = pl.create_tensor(S, dtype=pl.FP32)
            nxt = self.add_one(cur, nxt)
            cur = nxt
        c = self.twice(cur, c)
        return c


@pl.program
class CarryOfAnotherName:
    @pl.function(type=pl.FunctionType.InCore)
    def add_one(self, src: pl.Tensor[S, pl.FP32], dst: pl.Out[pl.Tensor[S, pl.FP32]]) -> pl.Tensor[S, pl.FP32]:
        out = pl.store(pl.adds(pl.load(src, [0, 0], S), 1.0), [0, 0], dst)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[S, pl.FP32], c: pl.Out[pl.Tensor[S, pl.FP32]]) -> pl.Tensor[S, pl.FP32]:
        first = pl.create_tensor(S, dtype=pl.FP32)
        cur = self.add_one(a, first)             # cur is another name of `first`
        for i in pl.range(3):
            nxt = pl.create_tensor(S, dtype=pl.FP32)
            nxt = self.add_one(cur, nxt)
            cur = nxt
        c = self.add_one(cur, c)
        return c


def _after(program, name: str):
    prog, ctx = parse_program(program), PassContext(platform="a2a3sim")
    for p in PIPELINE:
        prog = p.run(prog, ctx)
        if p.name == name:
            return prog.functions["main"]
    raise AssertionError(name)


def test_the_loop_carries_the_tensor_without_a_runtime_scope():
    main = _after(CarryRebind, "MaterializeRuntimeScopes")
    loop = next(s for s in main.body if isinstance(s, N.For))
    assert [(p.name, init.name) for p, init in loop.iter_args] == [(loop.iter_args[0][0].name, "cur")]
    assert isinstance(loop.results[0].type, TensorType)
    last = loop.body[-1]                      # cur_2 = nxt, yielded
    assert isinstance(last, N.Assign) and last.value.name == "nxt" and [y.name for y in loop.yields] == [last.targets[0].name]
    assert not any(isinstance(s, N.Scope) and s.kind == "scope" for s in loop.body)


def test_the_orchestration_reassigns_a_tensor_handle():
    from ptokit.codegen.orchestration import emit_orchestration
    prog, ctx = parse_program(CarryRebind), PassContext(platform="a2a3sim")
    for p in PIPELINE:
        prog = p.run(prog, ctx)
    cpp = emit_orchestration(prog, prog.functions["main"])
    loop = next(s for s in prog.functions["main"].body if isinstance(s, N.For))
    handle = loop.results[0].name
    assert f"ChipTensor {handle} = cur;" in cpp and f"{handle} = nxt;" in cpp
    assert cpp.index(f"ChipTensor {handle}") < cpp.index("for (") < cpp.index(f"{handle} = nxt;")


def test_carrying_another_names_tensor_is_a_located_error(tmp_path):
    with pytest.raises(CompileError) as info:
        ptokit.compile(CarryOfAnotherName, output_dir=tmp_path / "out")
    assert "the tensor 'cur', bound before this loop as another name of 'first'" in str(info.value)
    assert info.value.loc.file == __file__ and "cur = nxt" in str(info.value).splitlines()[1]
