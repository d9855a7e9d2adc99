"""Issue 13 remaining forms: column tiles from pl.full (and the expand ops taking them)."""
import numpy as np
import pytest

import ptokit
import ptokit.language as pl
from ptokit.errors import CompileError

from . import forms13_programs as F

RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_column_full(tmp_path, runtime):
    x = np.random.default_rng(5).standard_normal((64, 64)).astype(np.float32)
    out, cols = np.zeros((16, 64), np.float32), np.zeros((16, 1), np.float32)
    ptokit.compile(F.ColumnFull, output_dir=tmp_path / "out", runtime=runtime)(x, out, cols)
    blocks = x.reshape(4, 16, 64)
    m = blocks.max(axis=(0, 2))[:, None]
    np.testing.assert_allclose(out, blocks.sum(axis=0) * 2 - m + 3.0, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(cols, 2 * m, rtol=1e-6)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_column_full_tensor_level(tmp_path, runtime):
    x = np.random.default_rng(6).standard_normal((8, 64)).astype(np.float32)
    out, n = np.zeros_like(x), np.zeros((8, 1), np.int32)
    ptokit.compile(F.ColumnFullTensorLevel, output_dir=tmp_path / "out", runtime=runtime)(x, out, n)
    np.testing.assert_allclose(out, x * 0.5, rtol=1e-6)
    np.testing.assert_array_equal(n, np.full((8, 1), 7, np.int32))


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_expand_clone(tmp_path, runtime):
    rng = np.random.default_rng(7)
    a, b, c, d = (rng.standard_normal(s).astype(np.float32) for s in ((1, 4, 64), (3, 1, 64), (3, 4, 1), (3, 4, 64)))
    outs = [np.zeros((3, 4, 64), np.float32) for _ in range(4)]
    ptokit.compile(F.ExpandClone, output_dir=tmp_path / "out", runtime=runtime)(a, b, c, d, *outs)
    for got, src in zip(outs, (a, b, c, d)):
        np.testing.assert_array_equal(got, np.broadcast_to(src, (3, 4, 64)))


@pytest.mark.parametrize("shapes,message", [
    (([1, 1, 64], [3, 4, 64]), "tensor.expand_clone broadcasts at most one dimension, but [1, 1, 64] -> [3, 4, 64] "
                               "grows dimensions [0, 1]"),
    (([1, 64], [4, 64]), "tensor.expand_clone requires rank-3 tensors, but src is [1, 64]"),
    (([2, 4, 64], [4, 4, 64]), "tensor.expand_clone broadcasts only dimensions of size 1, but src dimension 0 is 2"),
])
def test_expand_clone_errors(tmp_path, shapes, message):
    with pytest.raises(CompileError) as info:
        ptokit.compile(F._expand_clone_program(*shapes), output_dir=tmp_path / "out")
    assert message in str(info.value), str(info.value)
    assert info.value.loc.file == "expand_clone_case.py" and "pl.expand_clone(a, o)" in str(info.value).splitlines()[1]


def test_expand_clone_in_orchestration(tmp_path):
    with pytest.raises(CompileError) as info:
        ptokit.compile(F.ExpandCloneInOrchestration, output_dir=tmp_path / "out")
    assert ("pl.expand_clone in an Orchestration function: it runs on a core (tile loads, tile ops and stores); call "
            "it inside an InCore function or a pl.at block") in str(info.value)
    assert info.value.loc.file == F.__file__ and "pl.expand_clone(a, o)" in str(info.value).splitlines()[1]


@pytest.mark.parametrize("view,message", [
    ("pl.TileView(blayout=pl.TileLayout.col_major)",
     "pl.TileView(blayout=pl.TileLayout.col_major): the Vec tile is blayout=row_major, slayout=none_box, and a view "
     "does not re-lay data out"),
    ("pl.TileView(slayout=pl.TileLayout.row_major)", "pl.TileView(slayout=pl.TileLayout.row_major): the Vec tile is"),
    ("pl.TileView(blayout=3)", "pl.TileView blayout= takes a pl.TileLayout (row_major, col_major, none_box), got 3"),
    ("pl.TileView(fractal=1024)", "pl.TileView(fractal=1024): a Vec tile's fractal is 512 on ptokit's targets"),
    ("pl.TileView(pad=pl.PadValue.max)", "pl.TileView(pad=pl.PadValue.max): the tile's pad is pl.PadValue.null, and "
                                         "a view does not fill anything; fill the invalid region with pl.tile.fillpad"),
    ("pl.TileView(start_offset=128)", "pl.TileView(start_offset=128): ptokit places every tile at the start of its "
                                      "own buffer (offset 0)"),
    ("pl.TileView(stride=[128, 1])", "pl.TileView(stride=[128, 1]): ptokit stores the tile densely and its dense "
                                     "strides are [64, 1]; a strided tile is not one of its tile forms"),
    ("pl.TileView(compact=pl.CompactMode.normal)", "pl.TileView(compact=pl.CompactMode.normal): compact tile storage "
                                                   "is not one of ptokit's tile forms"),
])
def test_tile_view_placement_refused(tmp_path, view, message):
    with pytest.raises(CompileError) as info:
        ptokit.compile(F._view_program(view), output_dir=tmp_path / "out")
    assert message in str(info.value), str(info.value)
    field = view[len("pl.TileView("):].split("=")[0]
    assert info.value.loc.file == "tileview_case.py" and field in str(info.value).splitlines()[1]


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_tensor_view_parameters(tmp_path, runtime):
    rng = np.random.default_rng(9)
    x, b = rng.standard_normal((16, 64)).astype(np.float32), rng.standard_normal((16, 64)).astype(np.float32)
    compiled = ptokit.compile(F.TensorViewParams, output_dir=tmp_path / "out", runtime=runtime)
    for rows in (16, 32):
        w = rng.standard_normal((rows, 64)).astype(np.float32)
        y, z = np.zeros_like(x), np.zeros_like(w)
        compiled(x, w, b, y, z)
        want_y, want_z = np.zeros_like(x), np.zeros_like(w)
        want_y[:10] = x[:10]
        want_z[:16, :48] = (w[:16] + b)[:, :48]
        np.testing.assert_array_equal(y, want_y)
        np.testing.assert_array_equal(z, want_z)


@pytest.mark.parametrize("annot,message", [
    ("pl.Tensor[[16, 64], pl.FP32, pl.NZ]", "tensors in the pl.NZ layout are not supported: ptokit's global tensors "
                                            "are ND"),
    ("pl.Tensor[[16, 64], pl.FP32, pl.TensorView(valid_shape=[8, 64], layout=pl.TensorLayout.DN)]",
     "tensors in the pl.DN layout are not supported"),
    ("pl.Tensor[[16, 64], pl.FP32, pl.TensorView(stride=[128, 1], layout=pl.ND)]",
     "pl.TensorView(stride=[128, 1]): a ptokit tensor parameter is dense, its strides are [64, 1]"),
    ("pl.Tensor[[16, 64], pl.FP32, pl.TensorView(pad=pl.PadValue.zero, layout=pl.ND)]",
     "a tensor view does not fill anything in ptokit"),
    ("pl.Tensor[[16, 64], pl.FP32, pl.TensorView(valid_shape=[20, 64], layout=pl.ND)]",
     "pl.TensorView valid_shape [20, 64] lies outside the tensor's shape [16, 64]"),
    ("pl.Tensor[[16, 64], pl.FP32, pl.TensorView(valid_shape=[8], layout=pl.ND)]",
     "pl.TensorView valid_shape [8] needs one entry per dimension"),
    ("pl.Tensor[[16, 64], pl.FP32, pl.TensorView(valid_shape=[8, 64])]",
     "pl.TensorView needs layout= (e.g. pl.TensorLayout.ND) when it sets any other field"),
    ("pl.Tensor[[16, 64], pl.FP32, pl.Mem.Vec]", "the third entry of pl.Tensor[shape, dtype, layout] must be a layout "
                                                 "such as pl.MX_A_ZZ, or a pl.TensorView"),
])
def test_tensor_view_refused(tmp_path, annot, message):
    with pytest.raises(CompileError) as info:
        ptokit.compile(F._tensor_view_program(annot), output_dir=tmp_path / "out")
    assert message in str(info.value), str(info.value)
    assert info.value.loc.file == "tensorview_case.py" and annot in str(info.value).splitlines()[1]


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_mixed_kernel_dynamic_valid_rows(tmp_path, runtime):
    rng = np.random.default_rng(10)
    a = rng.standard_normal((16, 32)).astype(np.float16)
    b = rng.standard_normal((32, 64)).astype(np.float16)
    prod = a.astype(np.float32) @ b.astype(np.float32)
    compiled = ptokit.compile(F.MixedDynamicValid, output_dir=tmp_path / "out", runtime=runtime)
    for n in (5, 16):
        y, z = np.full((16, 64), -7.0, np.float32), np.full((16, 64), -7.0, np.float32)
        compiled(a, b, n, y, z)
        want_y, want_z = np.full((16, 64), -7.0, np.float32), np.full((16, 64), -7.0, np.float32)
        want_y[:n] = (prod[:n] + 1) * 2 + 0.5
        want_z[:n] = np.exp(prod[:n] * 0.125)
        np.testing.assert_allclose(y, want_y, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(z, want_z, rtol=1e-4, atol=1e-4)


def test_tensor_view_tensor_level(tmp_path):
    x = np.random.default_rng(11).standard_normal((16, 64)).astype(np.float32)
    y = np.full_like(x, 9.0)
    ptokit.compile(F.TensorViewTensorLevel, output_dir=tmp_path / "out")(x, y)
    want = np.zeros_like(x)
    want[:6] = np.abs(x[:6])
    np.testing.assert_array_equal(y, want)


def test_tensor_view_valid_on_orchestration_refused(tmp_path):
    prog = pl.parse('''
import ptokit.language as pl

@pl.program
class T:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        y = pl.store(pl.load(x, [0, 0], [16, 64]), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32, pl.TensorView(valid_shape=[8, 64], layout=pl.ND)],
             y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        y = self.k(x, y)
        return y
''', filename="orch_view_case.py")
    with pytest.raises(CompileError) as info:
        ptokit.compile(prog, output_dir=tmp_path / "out")
    assert ("parameter 'x': a pl.TensorView valid_shape describes what a kernel's loads see; orchestration passes "
            "whole tensors to its tasks") in str(info.value)
    assert info.value.loc.file == "orch_view_case.py" and "pl.TensorView(valid_shape=[8, 64]" in \
        str(info.value).splitlines()[1]
