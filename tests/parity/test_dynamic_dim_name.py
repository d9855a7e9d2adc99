"""A dynamic dimension used in a body under the Python name it is bound to, which differs from its
own name (``ROWS = pl.dynamic("rows_of_x")``, as pypto's distributed tests write
``NR = pl.dynamic("world_size")``): the body's ``ROWS`` is the dimension.  Against numpy; a
dimension no tensor parameter has is still a located error."""
import numpy as np
import pytest

import ptokit
import ptokit.language as pl
from ptokit.errors import CompileError

ROWS = pl.dynamic("rows_of_x")
OTHER = pl.dynamic("not_a_param_dim")


@pl.program
class RowCopy:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[ROWS, 32], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, 32], pl.FP32]]):
        for i in pl.range(ROWS):
            y = pl.store(pl.adds(pl.load(x, [i, 0], [1, 32]), 1.0), [i, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[ROWS, 32], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, 32], pl.FP32]]):
        y = self.k(x, y)
        return y


@pl.program
class NoSuchDim:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[ROWS, 32], pl.FP32], y: pl.Out[pl.Tensor[[ROWS, 32], pl.FP32]]):
        for i in pl.range(OTHER):                                     # mistake: no parameter has OTHER
            y = pl.store(pl.load(x, [i, 0], [1, 32]), [i, 0], y)
        return y


def test_a_dynamic_dim_under_another_name(tmp_path):
    c = ptokit.compile(RowCopy, output_dir=tmp_path / "rc")
    for n in (3, 5):
        x = np.random.default_rng(n).standard_normal((n, 32)).astype(np.float32)
        y = np.zeros_like(x)
        c(x, y)
        np.testing.assert_array_equal(y, x + np.float32(1.0))


def test_a_dim_of_no_parameter_is_located(tmp_path):
    with pytest.raises(CompileError) as info:
        ptokit.compile(NoSuchDim, output_dir=tmp_path / "bad")
    err = info.value
    assert "dynamic dimension 'not_a_param_dim' is not a dimension of any tensor parameter of k" in str(err)
    assert err.loc is not None and err.loc.file == __file__
    assert "# mistake: no parameter" in open(__file__).read().splitlines()[err.loc.line - 1]
