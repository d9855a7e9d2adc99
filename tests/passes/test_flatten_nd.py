"""FlattenTileNdTo2D, IR in and IR out: N-D tiles leave the kernels as 2-D ones (batched matmuls
per batch, N-D transposes per batch, stores given their partition shape), and an N-D Mat tile
used any other way is a located error."""
import importlib.util
import sys
import textwrap

import pytest

import ptokit
from ptokit.errors import CompileError
from ptokit.ir import nodes as N
from ptokit.ir.nodes import copy_program
from ptokit.ir.printer import print_program
from ptokit.ir.types import TileType
from ptokit.language.parser import parse_program
from ptokit.passes.context import PassContext
from ptokit.passes.manager import PIPELINE

from . import programs as P


def _around(program, name="FlattenTileNdTo2D"):
    prog = parse_program(program)
    ctx = PassContext(platform="a2a3sim")
    for p in PIPELINE:
        before = copy_program(prog) if p.name == name else None
        prog = p.run(prog, ctx)
        if p.name == name:
            return before, prog
    raise AssertionError(name)


def _ops(fn):
    return [e for _, e in N.iter_exprs(fn.body) if isinstance(e, N.OpCall)]


def _nd_values(fn):
    return [e for _, e in N.iter_exprs(fn.body) if isinstance(e.type, TileType) and e.type.nd is not None]


def test_batch_matmul_of_nd_tiles_becomes_one_matmul_per_batch():
    before, after = _around(P.NdTiles)
    assert [e.op for e in _ops(before.functions["bmm"])].count("batch_matmul") == 1
    assert _nd_values(before.functions["bmm"])
    fn = after.functions["bmm"]
    ops = [e.op for e in _ops(fn)]
    assert "batch_matmul" not in ops and ops.count("matmul") == 2
    assert ops.count("transpose_view") == 2 and ops.count("assemble") == 2
    loads = [e for e in _ops(fn) if e.op == "load"]
    assert [list(e.attrs["shape"]) for e in loads] == [[1, 16, 32]] * 4      # one batch's window each
    assert sorted(e.attrs["offsets_static"][0] for e in loads) == [0, 0, 1, 1]
    assert all(t.type.shape == (16, 32) for t in loads)
    store = next(e for e in _ops(fn) if e.op == "store")
    assert list(store.attrs["shape"]) == [2, 16, 16]                   # the partition of the N-D store
    assert not _nd_values(fn)


def test_nd_transpose_becomes_a_transpose_per_batch():
    before, after = _around(P.NdTiles)
    fn = after.functions["trans"]
    ops = _ops(fn)
    trans = [e for e in ops if e.op == "transpose"]
    assert len(trans) == 2 and all(e.type.shape == (8, 16) for e in trans)
    assert [e.attrs["offsets_static"] for e in ops if e.op == "slice"] == [(0, 0), (16, 0)]
    assert [e.attrs["offsets_static"] for e in ops if e.op == "assemble"] == [(0, 0), (8, 0)]
    # the whole tile's scratch ([32, 8]) is gone: each batch has its own
    assert not any(e.op == "create_tile" and e.type.shape == (32, 8) for e in ops)
    assert not _nd_values(fn)


def test_the_pass_leaves_2d_kernels_unchanged():
    before, after = _around(P.Nested)
    assert print_program(before) == print_program(after)


def _module(tmp_path, text: str, name: str):
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod          # ptokit reads the program's source through its module
    spec.loader.exec_module(mod)
    return mod, path


BAD = """\
import ptokit.language as pl


@pl.program
class Bad:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[65, 16, 32], pl.FP16], b: pl.Tensor[[32, 16], pl.FP16],
          y: pl.Out[pl.Tensor[[32, 16], pl.FP32]], c: pl.Out[pl.Tensor[[65, 16, 16], pl.FP32]]) -> pl.Tensor[[32, 16], pl.FP32]:
{body}
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[65, 16, 32], pl.FP16], b: pl.Tensor[[32, 16], pl.FP16],
             y: pl.Out[pl.Tensor[[32, 16], pl.FP32]], c: pl.Out[pl.Tensor[[65, 16, 16], pl.FP32]]) -> pl.Tensor[[32, 16], pl.FP32]:
        y = self.k(a, b, y, c)
        return y
"""


@pytest.mark.parametrize("body,message,line,caret", [
    ("t = pl.load(a, [0, 0, 0], [2, 16, 32], target_memory=pl.Mem.Mat)\n"
     "r = pl.move(pl.load(b, [0, 0], [32, 16], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)\n"
     "y = pl.store(pl.matmul(pl.move(t, target_memory=pl.Mem.Left), r), [0, 0], y)",
     "load of an N-D window [2, 16, 32] into Mat needs the leading extents to be 1", 0, "pl.load(a"),
    ("t = pl.load(a, [0, 0, 0], [65, 16, 32], target_memory=pl.Mem.Mat)\n"
     "r = pl.move(pl.load(b, [0, 0], [32, 16], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)\n"
     "y = pl.store(pl.batch_matmul(t, r), [0, 0, 0], c)",
     "65 batches are unrolled one matmul each; at most 64", 2, "pl.batch_matmul"),
])
def test_nd_mat_tile_used_otherwise_is_a_located_error(tmp_path, body, message, line, caret):
    text = BAD.format(body=textwrap.indent(body, " " * 8))
    mod, src = _module(tmp_path, text, f"bad_nd_{abs(hash(text))}")
    with pytest.raises(CompileError) as info:
        ptokit.compile(mod.Bad, output_dir=tmp_path / "out")
    err = info.value
    assert message in str(err), str(err)
    first = BAD.splitlines().index("{body}") + 1
    assert err.loc is not None and err.loc.file == str(src) and err.loc.line == first + line, err.loc
    assert err.loc.col == 9 + body.splitlines()[line].index(caret), (err.loc.col, str(err))


ANNOT = """\
import ptokit.language as pl


@pl.program
class Bad:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[4, 2, 8], pl.FP32], y: pl.Out[pl.Tensor[[4, 2, 8], pl.FP32]]):
        t: pl.Tile[[2, 4, 8], pl.FP32] = pl.load(a, [0, 0, 0], [4, 2, 8])
        y = pl.store(t, [0, 0, 0], y)
        return y
"""


def test_an_nd_annotation_naming_other_axes_is_a_located_error(tmp_path):
    mod, src = _module(tmp_path, ANNOT, "bad_nd_annot")
    with pytest.raises(CompileError) as info:
        mod.Bad.ir
    err = info.value
    assert "annotation says pl.Tile[[2, 4, 8], pl.FP32] but the value is pl.Tile[[4, 2, 8]" in str(err), \
        str(err)
    assert err.loc is not None and err.loc.file == str(src) and err.loc.line == 8, err.loc
