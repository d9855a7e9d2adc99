"""InferAccumulatorSpace (IR in, IR out): the accumulator a program makes for matmul_acc is an Acc
tile; a pl.full zero accumulator's first product is the plain one; what cannot be placed stays Vec
(and is InferTileMemorySpace's located error)."""
import pytest

import ptokit.language as pl
from ptokit.errors import CompileError
from ptokit.ir import nodes as N
from ptokit.ir.types import MemorySpace
from ptokit.language.parser import parse_program
from ptokit.passes.accumulators import infer_accumulator_space
from ptokit.passes.context import PassContext
from ptokit.passes.manager import PIPELINE


def _around(program):
    prog = parse_program(program)
    ctx = PassContext(platform="a2a3sim")
    for p in PIPELINE:
        if p.name == "InferAccumulatorSpace":
            return prog, infer_accumulator_space(prog, ctx).functions["k"]
        prog = p.run(prog, ctx)
    raise AssertionError("no InferAccumulatorSpace in the pipeline")


def _ops(fn, name):
    return [e for _, e in N.walk_ops(fn.body, name)]


@pl.program
class Zeros:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 128], pl.FP16], b: pl.Tensor[[128, 64], pl.FP16], m: pl.Scalar[pl.INDEX],
          c: pl.Out[pl.Tensor[[16, 64], pl.FP32]], d: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        acc = pl.full([16, 64], dtype=pl.FP32, value=0.0)
        for kb in pl.range(4):
            acc = pl.matmul_acc(acc, a[:, kb * 32:kb * 32 + 32], b[kb * 32:kb * 32 + 32, :])
        c = pl.store(acc, [0, 0], c)
        maybe = pl.full([16, 64], dtype=pl.FP32, value=0.0)     # run-time bounds: the loop may not run
        for kb in pl.range(m):
            maybe = pl.matmul_acc(maybe, a[:, kb * 32:kb * 32 + 32], b[kb * 32:kb * 32 + 32, :])
        d = pl.store(maybe, [0, 0], d)
        return c, d

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 128], pl.FP16], b: pl.Tensor[[128, 64], pl.FP16], m: pl.Scalar[pl.INDEX],
             c: pl.Out[pl.Tensor[[16, 64], pl.FP32]], d: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        c, d = self.k(a, b, m, c, d)
        return c, d


def test_a_zero_accumulator_in_a_loop_takes_init_cond_on_the_first_round():
    _, k = _around(Zeros)
    (made,) = _ops(k, "create_tile")
    assert made.type.memory is MemorySpace.Acc
    first, second = _ops(k, "matmul_acc")
    cond = first.args[3]
    assert cond.op == "scalar.eq" and cond.args[0].name == "kb" and cond.args[1].value == 0
    # with run-time bounds the loop may run no round and leave zeros, which Acc cannot hold: Vec stays
    (full,) = _ops(k, "full")
    assert len(second.args) == 3 and second.args[0].type.memory is MemorySpace.Vec


def test_a_zero_accumulator_read_once_is_the_plain_product():
    @pl.program
    class Once:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 64], pl.FP16],
              c: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
            z = pl.full([16, 64], dtype=pl.FP32, value=0.0)
            z = pl.matmul_acc(z, a, b)
            c = pl.store(z, [0, 0], c)
            return c

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 64], pl.FP16],
                 c: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
            c = self.k(a, b, c)
            return c
    before, k = _around(Once)
    assert not _ops(k, "full") and not _ops(k, "create_tile") and not _ops(k, "matmul_acc")
    (mm,) = _ops(k, "matmul")
    assert mm.type.memory is MemorySpace.Acc


def test_a_nonzero_fill_stays_vec():
    @pl.program
    class Ones:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 64], pl.FP16],
              c: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
            z = pl.full([16, 64], dtype=pl.FP32, value=1.0)
            z = pl.matmul_acc(z, a, b)
            c = pl.store(z, [0, 0], c)
            return c

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 64], pl.FP16],
                 c: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
            c = self.k(a, b, c)
            return c
    _, k = _around(Ones)
    assert _ops(k, "full") and _ops(k, "matmul_acc")[0].args[0].type.memory is MemorySpace.Vec


@pl.program
class AccColumnWindow:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[64, 128], pl.FP32],
          c: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        acc = pl.tile.create([16, 128], pl.FP32, target_memory=pl.MemorySpace.Acc)
        for t in pl.range(2):
            a_l0 = pl.move(pl.load(a, [0, 0], [16, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
            b_l0 = pl.move(pl.load(b, [0, t * 64], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
            win = pl.tile.slice(acc, [16, 64], [0, t * 64])
            win = pl.matmul_acc(win, a_l0, b_l0, init_cond=True)
        c = pl.store(acc, [0, 0], c)
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[64, 128], pl.FP32],
             c: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        c = self.k(a, b, c)
        return c


def test_accumulating_into_a_slice_of_an_acc_tile_is_a_located_error():
    # pypto's slice of an Acc tile is a view its products land in; ptokit's slice is a copy
    with pytest.raises(CompileError, match=r"pl.matmul_acc accumulates in place into 'win', a pl.tile.slice of the "
                                           r"Acc tile 'acc'") as e:
        _around(AccColumnWindow)
    assert "test_accumulators.py" in str(e.value) and "win = pl.matmul_acc(win" in str(e.value)
