"""A [r, 1] column seen as a [1, r] row (pto.treshape) has one valid region everywhere: with a run-time
valid region the view's is set explicitly (pto.set_validshape to (1, r')), since ptoas 0.27 gives a
dynamic view the column's own (r', 1) sizes while ptokit's library gives it the whole row (a tile with
a constant valid region is written with `v_row=?` and its size operands too, so the same holds)."""
import re

import numpy as np

import ptokit
import ptokit.language as pl


@pl.program
class RowSumExp:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[32, 64], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[32, 1], pl.FP32]]):
        t = pl.load(x, [0, 0], [32, 64], valid_shape=[n, 64])
        tmp = pl.create_tile([32, 64], dtype=pl.FP32)
        y = pl.store(pl.exp(pl.row_sum(t, tmp)), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[32, 64], pl.FP32], n: pl.Scalar[pl.INDEX], y: pl.Out[pl.Tensor[[32, 1], pl.FP32]]):
        y = self.k(x, n, y)
        return y


@pl.program
class RowSumExpStatic:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[32, 64], pl.FP32], y: pl.Out[pl.Tensor[[32, 1], pl.FP32]]):
        t = pl.load(x, [0, 0], [32, 64], valid_shape=[20, 64])
        tmp = pl.create_tile([32, 64], dtype=pl.FP32)
        y = pl.store(pl.exp(pl.row_sum(t, tmp)), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[32, 64], pl.FP32], y: pl.Out[pl.Tensor[[32, 1], pl.FP32]]):
        y = self.k(x, y)
        return y


def test_a_run_time_valid_column_view_sets_its_valid_region(tmp_path):
    c = ptokit.compile(RowSumExp, output_dir=tmp_path / "dyn")
    text = (c.output_dir / "ptoas" / "k.pto").read_text()
    views = re.findall(r"%(\w+) = pto\.treshape %\w+ : [^\n]*rows=32, cols=1, v_row=\?[^\n]*-> [^\n]*rows=1, cols=32", text)
    assert views, text
    for view in views:     # each view's next line sets (1, n): n is the kernel's valid-rows argument
        assert re.search(rf"pto\.set_validshape %{view}, %c1_index, %arg\d+ :", text), view
    x = np.random.default_rng(0).standard_normal((32, 64)).astype(np.float32)
    y = np.full((32, 1), 7, np.float32)
    c(x, 20, y)
    ref = np.exp(x[:20].astype(np.float64).sum(1))
    assert np.allclose(y[:20, 0], ref, rtol=1e-5) and np.all(y[20:] == 7)


def test_a_constant_valid_column_view_sets_it_too(tmp_path):
    c = ptokit.compile(RowSumExpStatic, output_dir=tmp_path / "static")
    text = (c.output_dir / "ptoas" / "k.pto").read_text()
    views = re.findall(r"%(\w+) = pto\.treshape %\w+ : [^\n]*rows=32, cols=1,[^\n]*-> [^\n]*rows=1, cols=32", text)
    assert views, text
    for view in views:
        assert re.search(rf"pto\.set_validshape %{view}, %c1_index, %c20_index :", text), view
    x = np.random.default_rng(1).standard_normal((32, 64)).astype(np.float32)
    y = np.full((32, 1), 7, np.float32)
    c(x, y)
    assert np.allclose(y[:20, 0], np.exp(x[:20].astype(np.float64).sum(1)), rtol=1e-5) and np.all(y[20:] == 7)
