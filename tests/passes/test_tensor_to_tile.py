"""ConvertTensorToTileOps: the front end keeps every tensor-level vector op as written (typed by the
tile rule lifted to tensors), annotated or not; the pass lowers it to loads, scratch tiles and the
tile op, sized from the target."""
import pytest

import ptokit.language as pl
from ptokit.errors import CompileError, InternalError
from ptokit.ir import nodes as N
from ptokit.ir.ops.tensor_level import infer_tensor_level, is_tensor_level, keeps_tensor_operand
from ptokit.ir.types import DType, TensorType, TileType
from ptokit.ir.verifier import verify_properties
from ptokit.language.parser import parse_program
from ptokit.passes.context import PassContext
from ptokit.passes.manager import PIPELINE, run_passes
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


def test_without_the_annotation_the_front_end_keeps_the_op_too():
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
    e = _assigns(_kernel(parse_program(Plain)))["e"]
    assert is_tensor_level(e) and e.args[0].name == "a"        # no load: the operand as written
    lowered = _assigns(_kernel(convert_tensor_to_tile_ops(parse_program(Plain), PassContext(platform="a2a3sim"))))
    assert isinstance(lowered["e"].type, TileType) and lowered["a_tile0"].op == "load"


def _lowered(program, name="k"):
    prog = run_passes(parse_program(program), PassContext(platform="a2a3sim"))
    return prog.functions[name]


def _through_convert(program):
    prog = parse_program(program)
    ctx = PassContext(platform="a2a3sim")
    for p in PIPELINE:
        prog = p.run(prog, ctx)
        if p.name == "ConvertTensorToTileOps":
            return prog
    raise AssertionError("no ConvertTensorToTileOps")


def test_as_written_carries_branches_windows_and_outputs():
    prog = _through_convert(P.TensorLevelAsWritten)
    k = prog.functions["k"]
    top = k.body
    loop = next(s for s in top if isinstance(s, N.For))
    first = {s.targets[0].name: s.value for s in top if isinstance(s, N.Assign)}
    assert isinstance(first["e"].type, TileType)                             # converted before the loop
    inner = loop.body[-1]
    assert inner.targets[0].name == "e" and isinstance(inner.value.args[0].type, TileType)   # the carried tile
    branch = next(s for s in top if isinstance(s, N.If))
    assert branch.then_body[-1].value.op == "muls"
    assert branch.else_body[-1].value.op == "load" and branch.else_body[-1].targets[0].name == "v"   # one arm: a load
    slices = [e for _, e in N.walk_ops(k.body, "slice")]
    assert len(slices) == 1 and slices[0].attrs["shape"] == [16, 32]       # s[:, 0:32]: a slice of s's tile
    stores = [e for _, e in N.walk_ops(k.body, "store")]
    assert [e.args[1].name for e in stores] == ["z", "y"]                   # y = pl.adds(s, 1.0): a store into y
    assert "y" not in _assigns(k)
    twice = prog.functions["twice"]
    assert [p.name for p in twice.params] == ["y", "w"] and twice.params[1].direction is N.Direction.OUT
    assert [e.args[1].name for _, e in N.walk_ops(twice.body, "store")] == ["w"]


def test_an_output_bound_to_a_value_of_another_shape_is_a_located_error():
    @pl.program
    class Mismatch:
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                y = pl.exp(x)
            return y
    with pytest.raises(CompileError) as info:
        run_passes(parse_program(Mismatch), PassContext(platform="a2a3sim"))
    assert "'y' is an output tensor pl.Tensor[[16, 1], pl.FP32], but this binds it to a value of shape [16, 64]" \
        in str(info.value)
    assert "y = pl.exp(x)" in str(info.value).splitlines()[1]


def test_a_loop_that_changes_a_converted_value_is_a_located_error():
    @pl.program
    class Changes:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
            e = pl.exp(a)
            for i in pl.range(2):
                e = pl.row_sum(e)
            y = pl.assemble(y, e, [0, 0])
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
            y = self.k(a, y)
            return y
    with pytest.raises(CompileError) as info:
        run_passes(parse_program(Changes), PassContext(platform="a2a3sim"))
    assert "'e' is a tile computed in this kernel (a tensor-level op) before the loop" in str(info.value)
    assert "for i in pl.range(2)" in str(info.value).splitlines()[1]


def test_sized_from_the_target_not_the_smallest_platform():
    @pl.program
    class Big:          # a [128, 384] FP32 operand: 192 KB, more than a2a3's Vec buffer, within a5's
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[128, 384], pl.FP32], y: pl.Out[pl.Tensor[[128, 384], pl.FP32]]) -> pl.Tensor[[128, 384], pl.FP32]:
            y = pl.assemble(y, pl.exp(a), [0, 0])
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[128, 384], pl.FP32], y: pl.Out[pl.Tensor[[128, 384], pl.FP32]]) -> pl.Tensor[[128, 384], pl.FP32]:
            y = self.k(a, y)
            return y
    prog = parse_program(Big)
    with pytest.raises(CompileError, match="196608-byte tile, more than the .*-byte Vec buffer on a2a3"):
        convert_tensor_to_tile_ops(parse_program(Big), PassContext(platform="a2a3sim"))
    k = convert_tensor_to_tile_ops(prog, PassContext(platform="a5sim")).functions["k"]
    assert not any(keeps_tensor_operand(e) for _, e in N.walk_ops(k.body))


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


ACCUMULATE = """
@pl.function
def accumulate(x: pl.Tensor[[10], pl.FP32], iterations: pl.Tensor[[1], pl.INT32]) -> pl.Tensor[[10], pl.FP32]:
    init_sum: pl.Tensor[[10], pl.FP32] = pl.create_tensor([10], dtype=pl.FP32)
    for i, (running_sum,) in pl.range(5, init_values=(init_sum,)):
        new_sum: pl.Tensor[[10], pl.FP32] = pl.add(running_sum, x)
        result = pl.yield_(new_sum)
    return result
"""


def test_a_tensor_level_op_in_orchestration_code_is_parsed():
    """pypto's pl.parse example: an Opaque function (an orchestration: it creates a tensor) adding
    tensors parses to its IR, the op kept as written."""
    import ptokit.ir as ir
    fn = pl.parse(ACCUMULATE)
    assert isinstance(fn, ir.Function) and fn.name == "accumulate"
    add = next(e for _, e in N.walk_ops(fn.body, "add"))
    assert is_tensor_level(add) and add.type == TensorType((10,), DType.FP32)


def test_a_tensor_level_op_in_orchestration_code_is_refused_when_compiled():
    @pl.program
    class OutsideAt:
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
            t = pl.exp(a)
            with pl.at(level=pl.Level.CORE_GROUP):
                y = pl.assemble(y, pl.load(t, [0, 0], [16, 64]), [0, 0])
            return y
    with pytest.raises(CompileError) as info:
        run_passes(parse_program(OutsideAt), PassContext(platform="a2a3sim"))
    assert "pl.exp on tensors computes on a core, but main is orchestration code: put it in a `with " \
           "pl.at(level=pl.Level.CORE_GROUP):` block" in str(info.value)
    assert "t = pl.exp(a)" in str(info.value).splitlines()[1]


def test_a_stored_tensor_is_sized_from_the_target_too():
    """The front end still loads the tensor a store writes (pl.assemble(y, x, ...)), but no longer
    refuses it against the smallest Vec buffer of every platform: PlanMemory sizes it for the target."""
    @pl.program
    class Copy:         # [128, 384] FP32: 192 KB, over a2a3's Vec buffer, within a5's
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: pl.Tensor[[128, 384], pl.FP32], y: pl.Out[pl.Tensor[[128, 384], pl.FP32]]) -> pl.Tensor[[128, 384], pl.FP32]:
            y = pl.assemble(y, x, [0, 0])
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[128, 384], pl.FP32], y: pl.Out[pl.Tensor[[128, 384], pl.FP32]]) -> pl.Tensor[[128, 384], pl.FP32]:
            y = self.k(x, y)
            return y
    prog = parse_program(Copy)
    run_passes(prog, PassContext(platform="a5sim"))
    with pytest.raises(CompileError) as info:
        run_passes(prog, PassContext(platform="a2a3sim"))
    assert "kernel k does not fit in Vec (UB): 196608 bytes needed" in str(info.value)
    assert "y = pl.assemble(y, x, [0, 0])" in str(info.value).splitlines()[1]


def test_a_slice_with_a_valid_shape_is_loaded_by_the_pass_reading_only_that_part():
    @pl.program
    class Valid:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
            w = pl.slice(x, [16, 64], [0, 0], valid_shape=[16, 40])
            e = pl.exp(w)
            y = pl.assemble(y, e, [0, 0])
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
            y = self.k(x, y)
            return y
    prog = parse_program(Valid)
    assert is_tensor_level(_assigns(_kernel(prog))["e"])                   # kept as written, window and all
    k = convert_tensor_to_tile_ops(prog, PassContext(platform="a2a3sim")).functions["k"]
    load = _assigns(k)["x_tile0"]
    assert load.op == "load" and tuple(load.attrs["valid"]) == (16, 40)
    assert tuple(_assigns(k)["e"].type.valid) == (16, 40)
