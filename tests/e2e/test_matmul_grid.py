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


TM, TK, TN = 200, 300, 136       # fp16: a grid of 112 x 128 tiles with edges (88 rows, 8 columns), K tiles 128 + 44
SM, SK, SN = 48, 1100, 64        # fits Acc, not Left / Right: a K loop only (K tiles of 320 and a rest of 140)


@pl.program
class GridForms:
    """The grid under pl.store's shapes= (2-D, and the [1, M, N] window of a 3-D output), atomic=Add
    (onto what the output held), and transposed operands (a_trans, b_trans) in the grid and in a
    K loop alone."""

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[TM, TK], pl.FP16], b: pl.Tensor[[TK, TN], pl.FP16],
          at: pl.Tensor[[TK, TM], pl.FP16], bt: pl.Tensor[[TN, TK], pl.FP16],
          sa: pl.Tensor[[SK, SM], pl.FP16], sb: pl.Tensor[[SN, SK], pl.FP16],
          ys: pl.Out[pl.Tensor[[TM, TN], pl.FP32]], y3: pl.Out[pl.Tensor[[2, TM, TN], pl.FP32]],
          yadd: pl.InOut[pl.Tensor[[TM, TN], pl.FP32]], yat: pl.Out[pl.Tensor[[TM, TN], pl.FP32]],
          ybt: pl.Out[pl.Tensor[[TM + 4, TN], pl.FP32]], yst: pl.Out[pl.Tensor[[SM, SN], pl.FP32]]):
        ys = pl.store(pl.matmul(a, b), [0, 0], ys, shapes=[TM, TN])
        y3 = pl.store(pl.matmul(a, b), [1, 0, 0], y3, [1, TM, TN])
        yadd = pl.store(pl.matmul(a, b), [0, 0], yadd, atomic=pl.AtomicType.Add)
        yat = pl.store(pl.matmul(at, b, a_trans=True), [0, 0], yat)
        ybt[4:, :] = pl.matmul(a, bt, b_trans=True)
        yst = pl.store(pl.matmul(sa, sb, a_trans=True, b_trans=True), [0, 0], yst)
        return ys, y3, yadd, yat, ybt, yst

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[TM, TK], pl.FP16], b: pl.Tensor[[TK, TN], pl.FP16],
             at: pl.Tensor[[TK, TM], pl.FP16], bt: pl.Tensor[[TN, TK], pl.FP16],
             sa: pl.Tensor[[SK, SM], pl.FP16], sb: pl.Tensor[[SN, SK], pl.FP16],
             ys: pl.Out[pl.Tensor[[TM, TN], pl.FP32]], y3: pl.Out[pl.Tensor[[2, TM, TN], pl.FP32]],
             yadd: pl.InOut[pl.Tensor[[TM, TN], pl.FP32]], yat: pl.Out[pl.Tensor[[TM, TN], pl.FP32]],
             ybt: pl.Out[pl.Tensor[[TM + 4, TN], pl.FP32]], yst: pl.Out[pl.Tensor[[SM, SN], pl.FP32]]):
        ys, y3, yadd, yat, ybt, yst = self.k(a, b, at, bt, sa, sb, ys, y3, yadd, yat, ybt, yst)
        return ys, y3, yadd, yat, ybt, yst


@pytest.mark.parametrize("runtime", ["tensormap_and_ringbuffer", "host_build_graph"])
def test_grid_store_forms_and_transposed_operands(tmp_path, runtime):
    run = ptokit.compile(GridForms, output_dir=tmp_path / "out", runtime=runtime)
    rng = np.random.default_rng(9)
    r = lambda *s: rng.standard_normal(s).astype(np.float16)   # noqa: E731
    a, b, at, bt, sa, sb = r(TM, TK), r(TK, TN), r(TK, TM), r(TN, TK), r(SK, SM), r(SN, SK)
    ys, y3 = np.zeros((TM, TN), np.float32), np.full((2, TM, TN), 3.0, np.float32)
    yadd = rng.standard_normal((TM, TN)).astype(np.float32)
    yat, ybt, yst = np.zeros((TM, TN), np.float32), np.full((TM + 4, TN), 2.0, np.float32), np.zeros((SM, SN), np.float32)
    before = yadd.copy()
    run(a, b, at, bt, sa, sb, ys, y3, yadd, yat, ybt, yst)
    f = lambda x: x.astype(np.float64)   # noqa: E731
    ab = f(a) @ f(b)
    ref3 = np.full((2, TM, TN), 3.0)
    ref3[1] = ab
    refbt = np.full((TM + 4, TN), 2.0)
    refbt[4:] = f(a) @ f(bt).T
    refs = {"ys": (ys, ab), "y3": (y3, ref3), "yadd": (yadd, before + ab), "yat": (yat, f(at).T @ f(b)),
            "ybt": (ybt, refbt), "yst": (yst, f(sa).T @ f(sb).T)}
    for name, (got, ref) in refs.items():
        try:
            np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-3 * np.abs(ref).max())
        except AssertionError as exc:
            raise AssertionError(f"{name}: {exc}") from None


@pl.program
class GridWrongShapes:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[M, K], pl.FP16], b: pl.Tensor[[K, N], pl.FP16],
          y: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
        y = pl.store(pl.matmul(a, b), [0, 0], y, shapes=[M, N - 8])
        return y


@pl.program
class GridNdWithoutShapes:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[M, K], pl.FP16], b: pl.Tensor[[K, N], pl.FP16],
          y: pl.Out[pl.Tensor[[2, M, N], pl.FP32]]):
        y = pl.store(pl.matmul(a, b), [0, 0, 0], y)
        return y


@pl.program
class GridNdWrongWindow:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[M, K], pl.FP16], b: pl.Tensor[[K, N], pl.FP16],
          y: pl.Out[pl.Tensor[[2, M, N], pl.FP32]]):
        y = pl.store(pl.matmul(a, b), [0, 0, 0], y, shapes=[2, M // 2, N])
        return y


@pl.program
class GridTransposedMismatch:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[M, K], pl.FP16], b: pl.Tensor[[K, N], pl.FP16],
          y: pl.Out[pl.Tensor[[M, N], pl.FP32]]):
        y = pl.store(pl.matmul(a, b, a_trans=True), [0, 0], y)
        return y


@pytest.mark.parametrize("program,message,line", [
    (GridWrongShapes, "pl.store shapes [300, 512]: a pl.matmul result [300, 520] larger than Acc is stored as its "
     "window [300, 520] of the 2-D output", "[M, N - 8])"),
    (GridNdWithoutShapes, "(an N-D one with shapes=[1, ..., 1, M, N]), but this target is", "y)"),
    (GridNdWrongWindow, "is stored as its window [1, 300, 520] of the 3-D output", "[2, M // 2, N])"),
    (GridTransposedMismatch, "pl.matmul requires lhs columns to equal rhs rows, but got lhs [700, 300] (a_trans=True) "
     "and rhs [700, 520]", "pl.matmul(a, b, a_trans=True)"),
], ids=["shapes", "nd_no_shapes", "nd_window", "a_trans_mismatch"])
def test_grid_misuse_is_a_located_error(tmp_path, program, message, line):
    with pytest.raises(ptokit.errors.UserError) as info:
        ptokit.compile(program, output_dir=tmp_path / "out")
    err = info.value
    assert message in str(err), str(err)
    src = open(err.loc.file).read().splitlines()[err.loc.line - 1]
    assert src[err.loc.col - 1:].startswith(line), (src, err.loc)
