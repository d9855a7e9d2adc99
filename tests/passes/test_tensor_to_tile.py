"""ConvertTensorToTileOps: the front end keeps an annotated tensor-level vector op as written (typed
by the tile rule lifted to tensors); the pass lowers it to loads, scratch tiles and the tile op."""
import pytest

import ptokit.language as pl
from ptokit.errors import CompileError, InternalError
from ptokit.ir import nodes as N
from ptokit.ir.ops.tensor_level import infer_tensor_level, is_tensor_level
from ptokit.ir.types import DType, TensorType, TileType
from ptokit.ir.verifier import verify_properties
from ptokit.language.parser import parse_program
from ptokit.passes.context import PassContext
from ptokit.passes.manager import run_passes
from ptokit.passes.tensor_to_tile import convert_tensor_to_tile_ops

from . import programs as P


def _kernel(prog, name="k"):
    return prog.functions[name]


def _assigns(fn):
    return {s.targets[0].name: s.value for s in N.walk_stmts(fn.body) if isinstance(s, N.Assign)}


def test_front_end_keeps_the_op_as_written():
    k = _kernel(parse_program(P.TensorLevel))
    d = _assigns(k)["d"]
    assert is_tensor_level(d) and d.type == TensorType((16, 64), DType.FP32)
    assert d.op == "row_expand_sub"                          # the broadcast form, chosen on tensor shapes
    assert _assigns(k)["s"].type == TensorType((16, 1), DType.FP32)
    assert len(_assigns(k)["s"].args) == 1                   # no scratch yet: the pass makes it


def test_pass_lowers_to_tile_ops():
    prog = convert_tensor_to_tile_ops(parse_program(P.TensorLevel), PassContext(platform="a2a3sim"))
    k = _kernel(prog)
    assigns = _assigns(k)
    assert not any(is_tensor_level(v) for v in assigns.values())
    assert all(isinstance(assigns[n].type, TileType) for n in ("d", "e", "s"))
    assert len(assigns["s"].args) == 2                       # row_sum's scratch tile
    stores = [e for _, e in N.walk_ops(k.body, "store")]
    assert [type(e.args[0]).__name__ for e in stores] == ["Var", "Var"]   # whole loads of results folded away


def test_unlowered_ops_break_the_property():
    prog = parse_program(P.TensorLevel)
    with pytest.raises(InternalError, match="breaks 'tile_ops': the tensor-level op row_expand_sub is left"):
        verify_properties(prog, "test", {"defined", "tile_ops"})


def test_without_the_annotation_the_front_end_still_loads():
    @pl.program
    class Plain:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
            e = pl.exp(a)
            y = pl.assemble(y, e, [0, 0])
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
            y = self.k(a, y)
            return y
    assert isinstance(_assigns(_kernel(parse_program(Plain)))["e"].type, TileType)


def test_a_computed_tensor_used_as_a_window_is_a_located_error():
    @pl.program
    class Windowed:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[8, 64], pl.FP32]]) -> pl.Tensor[[8, 64], pl.FP32]:
            e: pl.Tensor[[16, 64], pl.FP32] = pl.exp(a)
            y = pl.assemble(y, e[0:8, :], [0, 0])
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[8, 64], pl.FP32]]) -> pl.Tensor[[8, 64], pl.FP32]:
            y = self.k(a, y)
            return y
    prog = parse_program(Windowed)
    with pytest.raises(CompileError) as info:
        run_passes(prog, PassContext(platform="a2a3sim"))
    assert "'e' is a tensor computed in this kernel" in str(info.value)
    assert "e[0:8, :]" in str(info.value).splitlines()[1]


def test_a_tile_reduction_still_needs_its_scratch():
    @pl.program
    class TileProd:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
            t = pl.load(a, [0, 0], [16, 64])
            r = pl.row_prod(t)
            y = pl.store(r, [0, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
            y = self.k(a, y)
            return y
    with pytest.raises(CompileError, match=r"pl.row_prod is missing its 'tmp_tile' argument .* only a tensor-level "
                                           r"call"):
        parse_program(TileProd)


def test_lifted_rule_keeps_the_written_rank():
    f32 = DType.FP32
    assert infer_tensor_level("exp", [TensorType((64,), f32)], {}) == TensorType((64,), f32)
    assert infer_tensor_level("exp", [TensorType((2, 8, 64), f32)], {}) == TensorType((2, 8, 64), f32)
    tmp = {"tmp_tile": None}
    assert infer_tensor_level("row_sum", [TensorType((2, 8, 64), f32)], tmp) == TensorType((2, 8, 1), f32)
    with pytest.raises(Exception, match="no tensor-level form"):
        infer_tensor_level("matmul", [TensorType((16, 16), DType.FP16)] * 2, {})
