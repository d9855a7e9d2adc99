"""FuseCreateAssembleToSlice: the front end keeps an orchestration ``pl.assemble`` of tensors as written;
the pass makes the created tensor a window of the target and drops the assemble, or refuses, located,
an assemble no orchestration instruction could do."""
import pytest

import ptokit.language as pl
from ptokit.errors import CompileError, InternalError
from ptokit.ir import nodes as N
from ptokit.ir.access import assembles_tensor
from ptokit.ir.verifier import verify_properties
from ptokit.language.parser import parse_program
from ptokit.passes.context import PassContext
from ptokit.passes.fuse_assemble import fuse_create_assemble_to_slice
from source_modules import import_source

from . import programs as P

CTX = PassContext(platform="a2a3sim")


def _main(prog):
    return prog.functions["main"]


def test_front_end_keeps_the_assemble_as_written():
    prog = parse_program(P.AssembleCreated)
    ops = [op for _, op in N.walk_ops(_main(prog).body) if assembles_tensor(op)]
    assert len(ops) == 1 and [a.name for a in ops[0].args[:2]] == ["out", "chunk"]
    with pytest.raises(InternalError, match="breaks 'assembles_fused'"):
        verify_properties(prog, "test", {"defined", "assembles_fused"})


def test_the_create_becomes_a_window_of_the_target():
    prog = fuse_create_assemble_to_slice(parse_program(P.AssembleCreated), CTX)
    verify_properties(prog, "test", {"defined", "assembles_fused"})
    loop = _main(prog).body[0]
    create, call = loop.body
    assert create.targets[0].name == "chunk"
    view = create.value
    assert view.op == "tensor_view" and view.args[0].name == "out"
    assert [getattr(o, "name", getattr(o, "value", None)) for o in view.args[1].items] == ["b", 0, 0]
    # the 2-D chunk is a [1, 4, 16] window of the 3-D target, seen as [4, 16]
    assert view.attrs["shape"] == [1, 4, 16] and view.attrs["then"] == (("reshape", (4, 16)),)
    assert view.type.shape == (4, 16)
    assert isinstance(call, N.ExprStmt) and isinstance(call.expr, N.FuncCall)     # the task fills the window


def test_a_window_of_the_same_rank_has_no_reshape_step():
    @pl.program
    class Same:
        @pl.function(type=pl.FunctionType.InCore)
        def fill(self, x: pl.Tensor[[4, 16], pl.FP32], y: pl.Out[pl.Tensor[[4, 16], pl.FP32]]) -> pl.Tensor[[4, 16], pl.FP32]:
            y = pl.store(pl.load(x, [0, 0], [4, 16]), [0, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[4, 16], pl.FP32],
                 out: pl.Out[pl.Tensor[[8, 16], pl.FP32]]) -> pl.Tensor[[8, 16], pl.FP32]:
            c = pl.create_tensor([4, 16], dtype=pl.FP32)
            c = self.fill(x, c)
            out = pl.assemble(out, c, [4, 0])
            return out

    prog = fuse_create_assemble_to_slice(parse_program(Same), CTX)
    view = _main(prog).body[0].value
    assert view.attrs["shape"] == [4, 16] and view.attrs["then"] == ()
    assert not any(assembles_tensor(op) for _, op in N.walk_ops(_main(prog).body))


def _program(tmp_path, lines: str):
    src = ("import ptokit.language as pl\n\n\n"
           "@pl.program\nclass P:\n"
           "    @pl.function(type=pl.FunctionType.InCore)\n"
           "    def k(self, x: pl.Tensor[[4, 16], pl.FP32], y: pl.Out[pl.Tensor[[4, 16], pl.FP32]]) -> pl.Tensor[[4, 16], pl.FP32]:\n"
           "        y = pl.store(pl.load(x, [0, 0], [4, 16]), [0, 0], y)\n"
           "        return y\n\n"
           "    @pl.function(type=pl.FunctionType.Orchestration)\n"
           "    def main(self, x: pl.Tensor[[4, 16], pl.FP32], out: pl.Out[pl.Tensor[[4, 4, 16], pl.FP32]]) -> pl.Tensor[[4, 4, 16], pl.FP32]:\n"
           + lines + "        return out\n")
    return import_source(tmp_path / "fuse.py", "fuse_assemble_cases", src).P


@pytest.mark.parametrize("lines, line, message", [
    ("        c = pl.create_tensor([4, 16], dtype=pl.FP32)\n"
     "        c = self.k(x, c)\n"
     "        out = pl.assemble(out, c, [0, 0, 0])\n"
     "        out = pl.assemble(out, c, [1, 0, 0])\n", 16, "is not a tensor created by pl.create_tensor in this block and "
                                                          "assembled once"),
    # the window is formed at the create, where r is still 0: a later r cannot place it
    ("        r = 0\n"
     "        c = pl.create_tensor([4, 16], dtype=pl.FP32)\n"
     "        c = self.k(x, c)\n"
     "        r = 1\n"
     "        out = pl.assemble(out, c, [r, 0, 0])\n", 17, "the offsets read 'r', bound after it"),
    ("        c = pl.create_tensor([4, 16], dtype=pl.FP32)\n"
     "        c = self.k(x, c)\n"
     "        out = pl.assemble(out, c, [4, 0, 0])\n", 15, "reaches past the end of 'out'"),
    ("        c = pl.create_tensor([4, 16], dtype=pl.FP32)\n"
     "        c = self.k(x, c)\n"
     "        out = pl.assemble(out, c, [0, 0])\n", 15, "the offsets must name each of the 3 dimensions"),
    ("        c = pl.create_tensor([4, 16], dtype=pl.FP16)\n"
     "        out = pl.assemble(out, c, [0, 0, 0])\n", 14, "requires matching dtypes"),
])
def test_located_errors(tmp_path, lines, line, message):
    prog = _program(tmp_path, lines)
    with pytest.raises(CompileError) as err:
        fuse_create_assemble_to_slice(parse_program(prog), CTX)
    assert message in str(err.value)
    assert f"fuse.py:{line}:" in str(err.value) and "^" in str(err.value)
