"""An INDEX tensor parameter takes an int64 host array (INDEX is 64-bit on the device), as pypto's
harness passes one; other integer widths are still refused with the parameter's dtype."""
import numpy as np
import pytest

import ptokit
import ptokit.language as pl


@pl.program
class WindowFromIndexTensor:
    """y = x with rows >= r or columns >= c zeroed, (r, c) read from an INDEX tensor."""

    @pl.function(type=pl.FunctionType.InCore)
    def keep(self, x: pl.Tensor[[32, 64], pl.FP32], y: pl.Out[pl.Tensor[[32, 64], pl.FP32]],
             r: pl.Scalar[pl.INDEX], c: pl.Scalar[pl.INDEX]) -> pl.Tensor[[32, 64], pl.FP32]:
        t = pl.load(x, [0, 0], [32, 64], valid_shapes=[r, c])
        return pl.store(pl.fillpad(t, pad_value=pl.PadValue.zero), [0, 0], y)

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[32, 64], pl.FP32], rc: pl.Tensor[[2], pl.INDEX],
             y: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        r: pl.Scalar[pl.INDEX] = pl.tensor.read(rc, [0])
        c: pl.Scalar[pl.INDEX] = pl.tensor.read(rc, [1])
        y = self.keep(x, y, r, c)
        return y


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    return ptokit.compile(WindowFromIndexTensor, output_dir=tmp_path_factory.mktemp("index_args"))


def test_int64_array_for_an_index_tensor(compiled):
    x = np.random.default_rng(7).standard_normal((32, 64)).astype(np.float32)
    y = np.full_like(x, 9.0)
    compiled(x, np.array([20, 24], np.int64), y)
    want = np.zeros_like(x)
    want[:20, :24] = x[:20, :24]
    np.testing.assert_array_equal(y, want)


def test_int32_array_for_an_index_tensor_is_refused(compiled):
    x = np.zeros((32, 64), np.float32)
    with pytest.raises(TypeError, match=r"argument 1 \(rc\) must have dtype INDEX .*got int32"):
        compiled(x, np.array([20, 24], np.int32), np.zeros_like(x))


@pl.jit
def rows_kept(x: pl.Tensor[[16, 32], pl.FP32], nt: pl.Tensor[[1], pl.INDEX], y: pl.Out[pl.Tensor[[16, 32], pl.FP32]]):
    n: pl.Scalar[pl.INDEX] = pl.tensor.read(nt, [0])
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [16, 32], valid_shapes=[n, 32])
        y = pl.store(pl.fillpad(t, pad_value=pl.PadValue.zero), [0, 0], y)
    return y


def test_jit_int64_array_for_an_index_tensor(tmp_path, monkeypatch):
    monkeypatch.setenv("PTOKIT_CACHE_DIR", str(tmp_path / "cache"))
    x = np.random.default_rng(8).standard_normal((16, 32)).astype(np.float32)
    for n in (5, 16):
        y = np.full_like(x, 4.0)
        rows_kept(x, np.array([n], np.int64), y)
        want = x.copy()
        want[n:] = 0.0
        np.testing.assert_array_equal(y, want)
    with pytest.raises(ptokit.errors.UserError, match="argument 'nt' must be a INDEX array, but got INT32"):
        rows_kept(x, np.array([5], np.int32), np.zeros_like(x))
