"""Cube-path user errors: illegal moves, Acc and Left/Right overflow, dtype rules."""
import pytest

import ptokit
import ptokit.language as pl
from ptokit.errors import CompileError


def _err(prog, tmp_path, platform="a2a3sim"):
    with pytest.raises(CompileError) as info:
        ptokit.compile(prog, output_dir=tmp_path, platform=platform)
    return info.value


@pl.program
class DdrToLeft:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[256, 256], pl.FP16], c: pl.Out[pl.Tensor[[256, 256], pl.FP32]]):
        t = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Left)
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[256, 256], pl.FP16], c: pl.Out[pl.Tensor[[256, 256], pl.FP32]]):
        c = self.k(a, c)
        return c


@pl.program
class LeftOverflow:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[256, 256], pl.FP16], c: pl.Out[pl.Tensor[[256, 256], pl.FP32]]):
        m = pl.load(a, [0, 0], [256, 256], target_memory=pl.Mem.Mat)
        l = pl.move(m, target_memory=pl.Mem.Left)
        c = pl.store(pl.matmul(l, pl.move(m, target_memory=pl.Mem.Right)), [0, 0], c)
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[256, 256], pl.FP16], c: pl.Out[pl.Tensor[[256, 256], pl.FP32]]):
        c = self.k(a, c)
        return c


@pl.program
class AccOverflow:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[256, 256], pl.FP16], c: pl.Out[pl.Tensor[[256, 256], pl.FP32]]):
        l = pl.move(pl.load(a, [0, 0], [256, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        r = pl.move(pl.load(a, [0, 0], [64, 256], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        acc = pl.matmul(l, r)
        c = pl.store(acc, [0, 0], c)
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[256, 256], pl.FP16], c: pl.Out[pl.Tensor[[256, 256], pl.FP32]]):
        c = self.k(a, c)
        return c


@pl.program
class SwappedOperands:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[256, 256], pl.FP16], c: pl.Out[pl.Tensor[[256, 256], pl.FP32]]):
        l = pl.move(pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        r = pl.move(pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        acc = pl.matmul(r, l)
        return c

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[256, 256], pl.FP16], c: pl.Out[pl.Tensor[[256, 256], pl.FP32]]):
        c = self.k(a, c)
        return c


def test_ddr_to_left_is_illegal(tmp_path):
    err = _err(DdrToLeft, tmp_path)
    assert "DDR->Vec or DDR->Mat only" in str(err)
    assert "target_memory=pl.Mem.Left" in str(err).splitlines()[1]


def test_left_overflow_has_the_numbers(tmp_path):
    err = _err(LeftOverflow, tmp_path)
    assert "does not fit in Left (L0A)" in str(err)
    assert "131072 bytes needed" in str(err) and "capacity on a2a3 is 65536 bytes" in str(err)


def test_acc_overflow_depends_on_platform(tmp_path):
    # a 256x256 f32 accumulator is 256 KiB: over a2a3's 128 KiB L0C, exactly a5's 256 KiB
    err = _err(AccOverflow, tmp_path / "a2a3")
    assert "does not fit in Acc (L0C)" in str(err) and "capacity on a2a3 is 131072 bytes" in str(err)
    ptokit.compile(AccOverflow, output_dir=tmp_path / "a5", platform="a5sim")


def test_matmul_operands_must_be_left_and_right(tmp_path):
    err = _err(SwappedOperands, tmp_path)
    assert "tile.matmul requires lhs in Left, but got a Right tile" in str(err)
