"""Tensor-level code inside kernels (A11, A12, F), N-D windows (A5), loads past the edge (A7),
under both runtime kinds, against numpy."""
import numpy as np
import pytest

import ptokit
from ptokit.errors import CompileError
from ptokit.runtime import RunConfig

from . import tensor_programs as T

RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]


def rand(*shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


@pytest.fixture(params=RUNTIMES)
def runtime(request):
    return request.param


def run(prog, runtime, tmp_path, *args):
    ptokit.compile(prog, output_dir=tmp_path / "out", runtime=runtime)(*args)


def test_tensor_operands_windows_scratch_and_broadcast(runtime, tmp_path):
    x, w, c = rand(32, 64), rand(32, 1, seed=1), rand(1, 64, seed=2)
    out = np.zeros_like(x)
    run(T.TensorOps, runtime, tmp_path, x, w, c, out)
    z = np.abs(x) + x
    want = (z - z.sum(axis=1, keepdims=True, dtype=np.float64).astype(np.float32)) * w + c
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-4)


def test_column_windows_tile_slices_and_assembles(runtime, tmp_path):
    x = rand(32, 64, seed=3)
    out = np.zeros_like(x)
    run(T.WindowsAndSlices, runtime, tmp_path, x, out)
    want = np.zeros_like(x)
    want[:, 32:] = np.exp(x[:, :32])
    want[:16, :32] = x[:16, :32] + 1
    want[16:, :32] = -x[:16, :32]
    want[31, 32:] = x[3, :32] * 10
    np.testing.assert_allclose(out, want, rtol=1e-6)


def test_matmul_on_tensors_then_vector_work(runtime, tmp_path):
    a, b = rand(16, 32, seed=4, dtype=np.float16), rand(32, 16, seed=5, dtype=np.float16)
    out = np.zeros((16, 16), np.float32)
    run(T.MatmulThenVector, runtime, tmp_path, a, b, out)
    want = np.exp((a.astype(np.float32) @ b.astype(np.float32)) * 0.125)
    np.testing.assert_allclose(out, want, rtol=1e-3)


def test_nd_windows_flatten_leading_axes(runtime, tmp_path):
    x = rand(4, 16, 64, seed=6)
    y = np.zeros_like(x)
    run(T.NdWindows, runtime, tmp_path, x, y)
    np.testing.assert_allclose(y, x * 2, rtol=1e-6)


def test_load_past_the_edge_with_valid_shape(runtime, tmp_path):
    x = rand(48, 64, seed=7)
    y = np.full((64, 64), 9.0, np.float32)
    run(T.PastTheEdge, runtime, tmp_path, x, y)
    want = np.ones((64, 64), np.float32)
    want[:48] += x
    np.testing.assert_allclose(y, want, rtol=1e-6)


def test_jit_tensor_level_windows(runtime, tmp_path, monkeypatch):
    monkeypatch.setenv("PTOKIT_CACHE_DIR", str(tmp_path / "cache"))
    x = rand(16, 64, seed=8)
    out = np.zeros_like(x)
    T.jit_tensor_level(x, out, config=RunConfig(runtime=runtime))
    np.testing.assert_allclose(out[:, :32], np.exp(x[:, 32:]), rtol=1e-6)
    np.testing.assert_allclose(out[:, 32:], x[:, :32] - x[:, :32].max(axis=1, keepdims=True), rtol=1e-6)


def test_tensor_compares_are_one_zero_values(runtime, tmp_path):
    a, b = rand(16, 64), rand(16, 64, seed=1)
    i = np.random.default_rng(3).integers(-2, 8, (16, 64)).astype(np.int32)
    gt, le, pick = np.full_like(a, 7), np.full_like(i, 7), np.zeros_like(a)
    run(T.TensorCompares, runtime, tmp_path, a, b, i, gt, le, pick)
    np.testing.assert_array_equal(gt, (a > b).astype(np.float32))
    np.testing.assert_array_equal(le, (i <= 3).astype(np.int32))
    np.testing.assert_array_equal(pick, np.minimum(a, b))
    pto = (tmp_path / "out" / "ptoas" / "k.pto").read_text()
    assert pto.count("pto.tsels") == 2 and "pto.tcmps" in pto and "pto.tsel " in pto


def test_returned_tiles_are_stored_to_added_outputs(runtime, tmp_path):
    a = rand(16, 64)
    y, z = np.zeros_like(a), np.zeros_like(a)
    run(T.ReturnedTiles, runtime, tmp_path, a, y, z)
    np.testing.assert_array_equal(y, np.abs(a) + 1)
    np.testing.assert_array_equal(z, np.abs(a) + 1)
    kc = (tmp_path / "out" / "kernel_config.py").read_text()
    assert '"absval"' in kc and '"signature": ["IN", "OUT"]' in kc


def test_returns_of_different_types_are_an_error(tmp_path):
    with pytest.raises(CompileError) as info:
        ptokit.compile(T.ReturnsDisagree, output_dir=tmp_path / "out")
    msg = str(info.value)
    assert "every return of a kernel must return the same shapes and dtypes" in msg
    assert "return pl.cast(pl.abs(a), pl.FP16)" in msg.splitlines()[1]


def test_tensor_gathers(runtime, tmp_path):
    rng = np.random.default_rng(5)
    x, h = rand(8, 64), rand(8, 64, seed=1, dtype=np.float16)
    idx = rng.integers(0, 64, (8, 16)).astype(np.int32)
    i16 = rng.integers(0, 64, (8, 16)).astype(np.int16)
    y, yh, ym = np.zeros((8, 16), np.float32), np.zeros((8, 16), np.float16), np.zeros((8, 32), np.float32)
    # INT16 gather indices are an a5 form (a2a3's pto.tgather takes i32 indices: the real assembler's rule)
    ptokit.compile(T.TensorGathers, output_dir=tmp_path / "out", runtime=runtime, platform="a5sim")(
        x, idx, h, i16, y, yh, ym)
    np.testing.assert_array_equal(y, np.take_along_axis(x, idx, -1))
    np.testing.assert_array_equal(yh, np.take_along_axis(h, i16.astype(np.int64), -1))
    np.testing.assert_array_equal(ym, x[:, ::2])


def test_tensor_gathers_on_any_axis(runtime, tmp_path):
    rng = np.random.default_rng(7)
    x, x3 = rand(4, 16), rand(2, 4, 8, seed=1)
    i2, i2s = rng.integers(0, 16, (4, 8)).astype(np.int32), rng.integers(0, 16, (2, 8)).astype(np.int32)
    i2r = rng.integers(0, 4, (3, 16)).astype(np.int32)
    i30, i31, i32 = (rng.integers(0, n, (2, 3, 8)).astype(np.int32) for n in (2, 4, 8))
    outs = [np.zeros(s, np.float32) for s in ((4, 8), (2, 8), (3, 16), (2, 3, 8), (2, 3, 8), (2, 3, 8))]
    run(T.TensorGathersNd, runtime, tmp_path, x, i2, i2s, i2r, x3, i30, i31, i32, *outs)
    # torch.gather: the index's own coordinates on the other axes (numpy's needs equal extents there)
    want = [np.take_along_axis(x, i2, -1), np.take_along_axis(x[:2], i2s, 1), np.take_along_axis(x, i2r, 0),
            np.take_along_axis(x3[:, :3], i30, 0), np.take_along_axis(x3, i31, 1),
            np.take_along_axis(x3[:, :3], i32, 2)]
    for k, (got, ref) in enumerate(zip(outs, want)):
        np.testing.assert_array_equal(got, ref, err_msg=f"output {k}")


@pytest.mark.parametrize("program,message", [
    (T.GatherBadAxis, "tensor.gather dim=2 is not an axis of the 2-D input [8, 64]"),
    (T.GatherBigIndex, "tensor.gather: the index [8, 16] is larger than the input [4, 64] on axis 0"),
    (T.GatherCompareForm, "pl.tensor.gather's compare form (cmp_mode=, kvalue=, out_cols=) is not supported: which matches it keeps"),
])
def test_tensor_gather_errors(tmp_path, program, message):
    with pytest.raises(CompileError) as info:
        ptokit.compile(program, output_dir=tmp_path / "out")
    assert message in str(info.value)
    assert "pl.tensor.gather(x" in str(info.value).splitlines()[1]


def test_tensor_scatters_and_ci(runtime, tmp_path):
    rng = np.random.default_rng(6)
    x, s, m = rand(8, 64), rand(8, 16, seed=1), rand(8, 32, seed=2)
    x[0, 1], x[1, 3] = np.inf, np.nan       # kept as they are in the mask form's unmarked columns
    h, sh = rand(8, 64, seed=3, dtype=np.float16), rand(8, 16, seed=4, dtype=np.float16)
    idx = np.stack([rng.permutation(64)[:16] for _ in range(8)]).astype(np.int32)     # distinct per row
    i16 = np.stack([rng.permutation(64)[:16] for _ in range(8)]).astype(np.int16)
    y, yh, ym = np.zeros_like(x), np.zeros_like(h), np.zeros_like(x)
    r = np.zeros((1, 64), np.int32)
    run(T.TensorScatters, runtime, tmp_path, x, idx, s, h, i16, sh, m, y, yh, ym, r)
    want = x.copy()
    np.put_along_axis(want, idx.astype(np.int64), s, -1)
    np.testing.assert_array_equal(y, want)
    want_h = h.copy()
    np.put_along_axis(want_h, i16.astype(np.int64), sh, -1)
    np.testing.assert_array_equal(yh, want_h)
    want_m = x.copy()             # pypto's tensor-level mask scatter keeps dst's other columns
    want_m[:, ::2] = m
    np.testing.assert_array_equal(ym, want_m)
    np.testing.assert_array_equal(r, np.arange(5, 69, dtype=np.int32)[None])


def test_one_row_gather_and_scatter(runtime, tmp_path):
    x, s = rand(1, 64), rand(1, 16, seed=1)
    idx = np.random.default_rng(7).permutation(64)[:16].astype(np.int32)[None]
    g, y = np.zeros((1, 16), np.float32), np.zeros_like(x)
    run(T.OneRowGatherScatter, runtime, tmp_path, x, idx, s, g, y)
    np.testing.assert_array_equal(g, np.take_along_axis(x, idx.astype(np.int64), -1))
    want = x.copy()
    np.put_along_axis(want, idx.astype(np.int64), s, -1)
    np.testing.assert_array_equal(y, want)
