"""Tensor-level pl.matmul whose [M, N] result does not fit Acc (pypto-parity.md D, "large pl.matmul"):
stored directly, it is computed as a grid of output tiles (each its own K loop), edge tiles by valid
shapes when M, N are not multiples of the tile, and each tile stored at its place in the output
(window offsets added).  Checked against numpy on a2a3 and a5; misuse gives a located error."""
import numpy as np
import pytest

import ptokit
import ptokit.errors
import ptokit.language as pl

M, K, N = 300, 700, 520          # fp16: 3 x 4 tiles of 128 x 128 with edges of 44 x 8, K tiles of 128 + 60
M2, K2, N2 = 200, 40, 90         # fp32, K smaller than one K tile, N under 128: tiles of 160 x 96 (60 KB) and an edge row of 40


@pl.program
class Grid:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[M, K], pl.FP16], b: pl.Tensor[[K, N], pl.FP16],
          a2: pl.Tensor[[M2, K2], pl.FP32], b2: pl.Tensor[[K2, N2], pl.FP32],
          y: pl.Out[pl.Tensor[[M, N], pl.FP32]], y2: pl.Out[pl.Tensor[[M2 + 8, N2 + 16], pl.FP32]],
          y3: pl.Out[pl.Tensor[[M - 100, N], pl.FP16]]):
        y = pl.store(pl.matmul(a, b), [0, 0], y)
        y2 = pl.store(pl.matmul(a2, b2), [8, 16], y2)          # at an offset of a larger output
        y3[:, :] = pl.matmul(a[100:, :], b, out_dtype=pl.FP16)  # a window of a; FP16 out
        return y, y2, y3

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[M, K], pl.FP16], b: pl.Tensor[[K, N], pl.FP16],
             a2: pl.Tensor[[M2, K2], pl.FP32], b2: pl.Tensor[[K2, N2], pl.FP32],
             y: pl.Out[pl.Tensor[[M, N], pl.FP32]], y2: pl.Out[pl.Tensor[[M2 + 8, N2 + 16], pl.FP32]],
             y3: pl.Out[pl.Tensor[[M - 100, N], pl.FP16]]):
        y, y2, y3 = self.k(a, b, a2, b2, y, y2, y3)
        return y, y2, y3


@pytest.mark.parametrize("platform", ["a2a3sim", "a5sim"])
def test_matmul_larger_than_acc_is_a_grid(tmp_path, platform):
    out = tmp_path / "out"
    run = ptokit.compile(Grid, output_dir=out, platform=platform)
    pto = (out / "ptoas" / "k.pto").read_text()
    assert pto.count("scf.for") >= 3 and "pto.tmatmul.acc" in pto
    rng = np.random.default_rng(5)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    a2 = rng.standard_normal((M2, K2)).astype(np.float32)
    b2 = rng.standard_normal((K2, N2)).astype(np.float32)
    y = np.zeros((M, N), np.float32)
    y2 = np.full((M2 + 8, N2 + 16), 7.0, np.float32)
    y3 = np.zeros((M - 100, N), np.float16)
    run(a, b, a2, b2, y, y2, y3)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-3 * np.abs(ref).max())
    ref2 = np.full_like(y2, 7.0, dtype=np.float64)
    ref2[8:, 16:] = a2.astype(np.float64) @ b2.astype(np.float64)
    np.testing.assert_array_equal(y3, y[100:].astype(np.float16))
    np.testing.assert_allclose(y2, ref2, rtol=1e-4, atol=1e-4 * np.abs(ref2).max())


@pl.program        # refused while the kernel is read: no orchestration needed
class GridAsTile:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[M, K], pl.FP16], b: pl.Tensor[[K, N], pl.FP16],
          y: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
        c = pl.matmul(a, b)
        y = pl.store(c, [0, 0], y)
        return y


def test_matmul_larger_than_acc_as_a_tile_is_refused(tmp_path):
    with pytest.raises(ptokit.errors.UserError) as info:
        ptokit.compile(GridAsTile, output_dir=tmp_path / "out")
    text = str(info.value)
    assert "the [300, 520] result does not fit the Acc buffer" in text
    assert "pl.store(pl.matmul(a, b), offsets, out)" in text
    assert "c = pl.matmul(a, b)" in text.splitlines()[1] and "^" in text.splitlines()[2]


@pl.program
class GridWrongWindow:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[M, K], pl.FP16], b: pl.Tensor[[K, N], pl.FP16],
          y: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
        y[0:M, 0:N - 8] = pl.matmul(a, b)
        return y


def test_matmul_grid_into_a_window_of_another_shape_is_refused(tmp_path):
    with pytest.raises(ptokit.errors.UserError) as info:
        ptokit.compile(GridWrongWindow, output_dir=tmp_path / "out")
    text = str(info.value)
    assert "the window is [300, 512] but the pl.matmul result is [300, 520]" in text
    assert "y[0:M, 0:N - 8] = pl.matmul(a, b)" in text.splitlines()[1]
