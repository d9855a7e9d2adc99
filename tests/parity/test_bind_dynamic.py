"""A16: x.bind_dynamic(axis, M) makes an axis of a bare pl.Tensor parameter dynamic: one cache
entry (one build) serves every size of it."""
import numpy as np
import pytest

import ptokit
import ptokit.language as pl
from ptokit.errors import CompileError

M = pl.dynamic("M")


@pl.jit
def doubled(x: pl.Tensor, y: pl.Out[pl.Tensor]):
    x.bind_dynamic(0, M)
    y.bind_dynamic(0, M)
    for i in pl.range(M // 16):
        with pl.at(level=pl.Level.CORE_GROUP):
            y = pl.store(pl.muls(pl.load(x, [i * 16, 0], [16, 64]), 2.0), [i * 16, 0], y)
    return y


def test_one_cache_entry_for_every_size():
    doubled._cache.clear()
    for m in (32, 64, 48):
        x = np.random.default_rng(m).standard_normal((m, 64)).astype(np.float32)
        y = np.zeros_like(x)
        doubled(x, y)
        np.testing.assert_array_equal(y, 2 * x)
    assert len(doubled._cache) == 1


def test_mismatched_sizes_of_one_dynamic_dim():
    x, y = np.zeros((32, 64), np.float32), np.zeros((48, 64), np.float32)
    with pytest.raises(ptokit.errors.UserError, match="dynamic dimension M is 32 in an earlier argument but 48 here"):
        doubled(x, y)


@pl.program
class StaticShape:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        x.bind_dynamic(0, M)
        y = pl.store(pl.load(x, [0, 0], [16, 64]), [0, 0], y)
        return y


@pl.program
class BadAxis:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[M, 64], pl.FP32], y: pl.Out[pl.Tensor[[M, 64], pl.FP32]]):
        x.bind_dynamic(2, M)
        y = pl.store(pl.load(x, [0, 0], [16, 64]), [0, 0], y)
        return y


@pl.program
class NotDynamic:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[M, 64], pl.FP32], y: pl.Out[pl.Tensor[[M, 64], pl.FP32]]):
        x.bind_dynamic(0, 16)
        y = pl.store(pl.load(x, [0, 0], [16, 64]), [0, 0], y)
        return y


@pytest.mark.parametrize("program,message", [
    (StaticShape, "whose dimension 0 is 16, not the dynamic M"),
    (BadAxis, "the axis of bind_dynamic must be an integer literal from -2 to 1"),
    (NotDynamic, "the second argument of bind_dynamic is a pl.dynamic(...) dimension"),
])
def test_bind_dynamic_errors(tmp_path, program, message):
    with pytest.raises(CompileError) as info:
        ptokit.compile(program, output_dir=tmp_path / "out")
    assert message in str(info.value)
    assert "bind_dynamic" in str(info.value).splitlines()[1]
