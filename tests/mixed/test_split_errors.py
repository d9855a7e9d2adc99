"""Located errors of split mixed kernels (docs/mixed-kernels.md, "Split transfers")."""
import numpy as np
import pytest

import ptokit
import ptokit.language as pl
from ptokit.errors import CompileError

from .split_util import SP


def _located(err, needle):
    text = str(err)
    assert err.loc is not None and err.loc.line > 0
    assert needle in text and "^" in text, text


@pytest.mark.parametrize("prog,needle,message", [
    (SP.ColSumUpDown, "pl.col_sum(v, tmp)", "col_sum reduces across the split axis (rows)"),
    (SP.RowSumLeftRight, "pl.row_sum(v, tmp)", "row_sum reduces across the split axis (columns)"),
    (SP.SliceUpDown, "pl.slice(v, [16, 64], [0, 0])", "slice depends on the position of elements"),
])
def test_whole_tile_ops_on_a_split_lane_are_located_errors(tmp_path, prog, needle, message):
    with pytest.raises(CompileError) as ei:
        ptokit.compile(prog, output_dir=tmp_path)
    assert "kernel k is split" in str(ei.value) and message in str(ei.value)
    _located(ei.value, needle)


def test_split_needs_two_halves_of_the_pushed_tile(tmp_path):
    # a [16, 1]-column... the cube's [16, 16] tile stored as one column under LEFT_RIGHT is fine; one row
    # under UP_DOWN is not: a 1-row C->V tile has no halves
    @pl.program
    class OneRow:
        @pl.function(type=pl.FunctionType.InCore, attrs={"split": pl.SplitMode.UP_DOWN})
        def k(self, a: pl.Tensor[[16, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
              y: pl.Out[pl.Tensor[[1, 64], pl.FP32]]):
            ta = pl.move(pl.load(a, [0, 0], [16, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
            tb = pl.move(pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
            tmp = pl.create_tile([16, 64], dtype=pl.FP32)
            v = pl.move(pl.matmul(ta, tb), target_memory=pl.Mem.Vec)
            m = pl.move(pl.cast(pl.col_sum(v, tmp), target_type=pl.FP16), target_memory=pl.Mem.Mat)
            y = pl.store(pl.matmul(pl.move(m, target_memory=pl.Mem.Left), tb), [0, 0], y)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[16, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
                 y: pl.Out[pl.Tensor[[1, 64], pl.FP32]]):
            y = self.k(a, b, y)
            return y

    with pytest.raises(CompileError) as ei:
        ptokit.compile(OneRow, output_dir=tmp_path)
    assert "has one row: it has no halves for the two vector lanes" in str(ei.value)
    _located(ei.value, "pl.move(pl.cast(")


@pytest.mark.parametrize("prog,message,needle", [
    (SP.OptsNotAList, "optimizations= takes a list such as [pl.split(pl.SplitMode.UP_DOWN)]", "pl.split(pl.SplitMode"),
    (SP.OptsUnknown, "unknown optimization 1; the known ones are pl.split(mode) and pl.cross_core_slot", "[1]"),
    (SP.OptsTwice, "optimizations= names pl.split(...) twice", "[pl.split(1), pl.split(2)]"),
])
def test_bad_optimizations_are_located_errors(tmp_path, prog, message, needle):
    with pytest.raises(CompileError) as ei:
        ptokit.compile(prog, output_dir=tmp_path)
    assert message in str(ei.value)
    _located(ei.value, needle)


def test_split_on_a_pure_vector_kernel_is_ignored(tmp_path):
    x = np.random.default_rng(0).standard_normal((16, 64)).astype(np.float32)
    y = np.zeros_like(x)
    ptokit.compile(SP.SplitPureVector, output_dir=tmp_path)(x, y)
    np.testing.assert_allclose(y, np.exp(x), rtol=1e-6)


def test_a_half_that_is_no_valid_tile_is_a_located_error(tmp_path):
    with pytest.raises(CompileError) as ei:
        ptokit.compile(SP.HalfTooNarrow, output_dir=tmp_path)
    assert "the lane's half of this pl.Tile[[64, 16], pl.FP16, pl.Mem.Vec] is pl.Tile[[64, 8]" in str(ei.value)
    _located(ei.value, "pl.cast(v, target_type=pl.FP16)")
