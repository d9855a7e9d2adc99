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
