"""Scalar arguments convert exactly or are a TypeError naming the parameter (issue 18, item 8).

One check (``ptokit.runtime.abi.scalar_value``) serves compiled programs, ``run_tree`` /
``run_image`` and ``@pl.jit`` calls.
"""
from __future__ import annotations

import sys
import types

import numpy as np
import pytest

import ptokit
import ptokit.language as pl
from ptokit.runtime.abi import scalar_value, to_u64
from ptokit.runtime.launcher import run_tree

import programs

from .conftest import rand, scalar_reference


@pytest.fixture(scope="module")
def loop_sum(tmp_path_factory):
    """programs.LoopSum: n (INT32) row blocks of x summed."""
    return ptokit.compile(programs.LoopSum, output_dir=tmp_path_factory.mktemp("rel_loopsum"))


@pytest.mark.parametrize("bad", [None, "2.0", 1 + 2j, np.complex64(1 + 2j), [2.0], np.array([2.0]), True,
                                 np.bool_(True), object(), 1e300])
def test_bad_float_scalar_is_type_error_naming_it(scalar_tree, bad):
    x = rand(64, 64, seed=1)
    y = np.full_like(x, 7.0)
    with pytest.raises(TypeError, match=r"\balpha\b"):
        scalar_tree(x, bad, y)
    with pytest.raises(TypeError, match=r"argument 1 \(alpha\)"):
        run_tree(scalar_tree.output_dir, [x, bad, y], quiet=True)
    assert (y == 7.0).all()          # nothing ran


@pytest.mark.parametrize("good", [2, 2.0, np.float64(2.0), np.float32(2.0), np.int32(2), np.array(2.0),
                                  np.array(2, dtype=np.int8)])
def test_real_numbers_run_for_a_float_scalar(scalar_tree, good):
    x = rand(64, 64, seed=2)
    y = np.zeros_like(x)
    scalar_tree(x, good, y)
    np.testing.assert_allclose(y, scalar_reference(x, 2.0), rtol=1e-6)


@pytest.mark.parametrize("bad, why", [(3.0, "takes an integer"), (np.float32(3), "takes an integer"),
                                      (2 ** 40, "out of the range of INT32"), (True, "takes an integer"),
                                      ("3", "expected a number"), (None, "expected a number")])
def test_bad_int_scalar_is_type_error_naming_it(loop_sum, bad, why):
    x = rand(256, 64, seed=3)
    with pytest.raises(TypeError, match=rf"\bn\b.*{why}"):
        loop_sum(x, bad, np.zeros((32, 64), np.float32))


@pytest.mark.parametrize("n", [3, np.int64(3), np.uint8(3), np.array(3)])
def test_integers_run_for_an_int_scalar(loop_sum, n):
    x = rand(256, 64, seed=4)
    y = np.zeros((32, 64), np.float32)
    loop_sum(x, n, y)
    np.testing.assert_allclose(y, x[:32] + x[32:64] + x[64:96], rtol=1e-5)


def test_jit_scalar_is_checked_with_its_name():
    @pl.jit
    def scaled(x: pl.Tensor, s: pl.Scalar[pl.FP32], y: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.mul(pl.load(x, [0, 0], [32, 64]), s), [0, 0], y)
        return y

    x = rand(32, 64, seed=5)
    for bad in (None, "2", 2j):
        with pytest.raises(TypeError, match="argument 's'"):
            scaled(x, bad)
    np.testing.assert_allclose(scaled(x, 3), x * 3, rtol=1e-6)


def test_jit_int_scalar_and_constant_reject_fractional_values():
    @pl.jit
    def rows(x: pl.Tensor, n: pl.Scalar[pl.INT32], k: pl.INT32, y: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.adds(pl.load(x, [0, 0], [32, 64]), k), [0, 0], y)
        return y

    x = rand(32, 64, seed=6)
    with pytest.raises(TypeError, match="argument 'n'.*takes an integer"):
        rows(x, 2.5, 1)
    with pytest.raises(TypeError, match="argument 'k'.*takes an integer"):
        rows(x, 2, 1.5)


def test_scalar_value_rules():
    assert scalar_value(True, "BOOL") == np.bool_(True)
    with pytest.raises(TypeError, match="BOOL parameter takes True or False"):
        scalar_value(1, "BOOL", "flag")
    assert scalar_value(-128, "INT8") == -128
    with pytest.raises(TypeError, match="out of the range of INT8"):
        scalar_value(128, "INT8")
    with pytest.raises(TypeError, match="out of the range of UINT8"):
        scalar_value(-1, "UINT8")
    with pytest.raises(TypeError, match="out of the range of FP16"):
        scalar_value(1e6, "FP16")
    assert np.isinf(scalar_value(float("inf"), "FP16"))           # inf is a real float: it stays inf
    assert scalar_value(1.5, "BF16").dtype.name == "bfloat16"
    assert scalar_value(7, "INDEX").dtype == np.int64
    with pytest.raises(TypeError, match="out of the range of FP32"):
        scalar_value(10 ** 400, "FP32")
    # unknown dtype: numpy keeps its own, Python numbers as documented (to_u64 semantics)
    assert to_u64(1.5) == 0x3FC00000 and to_u64(-1) == (1 << 64) - 1 and to_u64(True) == 1
    with pytest.raises(TypeError, match="argument 4: expected a number"):
        to_u64("1", None, "argument 4")


def test_torch_scalars_when_torch_is_imported(monkeypatch):
    class Tensor:                                   # the two methods the check uses
        def __init__(self, v, shape=()):
            self.v, self.shape = v, shape

        def dim(self):
            return len(self.shape)

        def item(self):
            return self.v

    monkeypatch.setitem(sys.modules, "torch", types.SimpleNamespace(Tensor=Tensor))
    assert scalar_value(Tensor(2.5), "FP32") == np.float32(2.5)
    with pytest.raises(TypeError, match="s: expected a number, got a tensor of shape \\(3,\\)"):
        scalar_value(Tensor(2.5, (3,)), "FP32", "s")
    with pytest.raises(TypeError, match="takes an integer"):
        scalar_value(Tensor(2.5), "INT32")
