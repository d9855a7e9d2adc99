"""Tensor-level vector ops in kernel code, annotated pl.Tensor or not (pypto's forms, e.g. its
TestTensorDiv), lowered by ConvertTensorToTileOps, against numpy under both runtime kinds; their
sizing from the target; and results bound to output tensors."""
import sys
from pathlib import Path

import numpy as np
import pytest

import ptokit
import ptokit.language as pl
from ptokit.errors import CompileError

from . import tensor_result_programs as T

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.passes.programs import TensorLevel, TensorLevelAsWritten  # noqa: E402  (the pass's golden programs, run here)

RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]
RNG = np.random.default_rng(28)


def _a(shape=(32, 64)):
    return RNG.standard_normal(shape).astype(np.float32)


def _divisor(shape=(32, 64)):
    return (RNG.integers(1, 8, shape) * RNG.choice([-1, 1], shape)).astype(np.float32)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_div_in_an_at_block(tmp_path, runtime):
    a, b = _a(), _divisor()
    out = np.zeros_like(a)
    ptokit.compile(T.make_div(pl.FP32), output_dir=tmp_path / "o", runtime=runtime)(a, b, out)
    np.testing.assert_allclose(out, a / b, rtol=1e-6)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_div_fp16_high_precision(tmp_path, runtime):
    a, b = _a().astype(np.float16), _divisor().astype(np.float16)
    out = np.zeros_like(a)
    ptokit.compile(T.make_div(pl.FP16, True), output_dir=tmp_path / "o", runtime=runtime)(a, b, out)
    np.testing.assert_allclose(out.astype(np.float32), (a / b).astype(np.float32), rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_log(tmp_path, runtime):
    a = np.abs(_a()) + 0.1
    out = np.zeros_like(a)
    ptokit.compile(T.make_log(pl.FP32), output_dir=tmp_path / "o", runtime=runtime)(a, out)
    np.testing.assert_allclose(out, np.log(a), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_row_expand_max_of_tensors(tmp_path, runtime):
    a, v = _a(), _a((32, 1))
    out = np.zeros_like(a)
    ptokit.compile(T.RowExpandMax, output_dir=tmp_path / "o", runtime=runtime)(a, v, out)
    assert np.array_equal(out, np.maximum(a, v))


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_row_prod_makes_its_scratch_tile(tmp_path, runtime):
    a = (RNG.random((32, 64)) * 0.5 + 0.75).astype(np.float32)
    out = np.zeros((32, 1), np.float32)
    ptokit.compile(T.RowProd, output_dir=tmp_path / "o", runtime=runtime)(a, out)
    np.testing.assert_allclose(out, np.prod(a, axis=1, keepdims=True), rtol=1e-5)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_int16_sub(tmp_path, runtime):
    a, b = (RNG.integers(-1000, 1000, (16, 128)).astype(np.int16) for _ in range(2))
    out = np.zeros_like(a)
    ptokit.compile(T.Int16Sub, output_dir=tmp_path / "o", runtime=runtime)(a, b, out)
    assert np.array_equal(out, a - b)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_window_broadcast_chain_and_reduction(tmp_path, runtime):
    a, v = _a(), _a((16, 1))
    y, r = np.zeros((16, 64), np.float32), np.zeros((16, 1), np.float32)
    ptokit.compile(TensorLevel, output_dir=tmp_path / "o", runtime=runtime)(a, v, y, r)
    e = np.exp(a[16:32] - v)
    np.testing.assert_allclose(y, e, rtol=1e-5)
    np.testing.assert_allclose(r, e.sum(axis=1, keepdims=True), rtol=1e-5)


def test_sized_from_the_target(tmp_path):
    # a [200, 256] FP32 tensor is 200 KB: within a5's 240 KB Vec buffer, over a2a3's 184 KB
    a = _a((200, 256))
    out = np.zeros_like(a)
    ptokit.compile(T.make_wide(200), output_dir=tmp_path / "a5", platform="a5sim")(a, out)
    np.testing.assert_allclose(out, np.exp(a), rtol=1e-5)
    with pytest.raises(CompileError) as info:
        ptokit.compile(T.make_wide(200), output_dir=tmp_path / "a2", platform="a2a3sim")
    msg = str(info.value)
    assert "tensor-level pl.exp loads tensor 'a' (pl.Tensor[[200, 256], pl.FP32]) as a 204800-byte tile, more than " \
           "the 188416-byte Vec buffer on a2a3" in msg
    assert "pl.exp(a)" in msg.splitlines()[1]


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("n", [0, 3])
def test_as_written_loops_branches_windows_and_outputs(tmp_path, runtime, n):
    a, v = _a(), _a((16, 1))
    y, z, w = np.zeros((16, 64), np.float32), np.zeros((16, 32), np.float32), np.zeros((16, 64), np.float32)
    ptokit.compile(TensorLevelAsWritten, output_dir=tmp_path / "o", runtime=runtime)(a, v, n, y, z, w)
    s = np.exp(a[:16]) + 2 * a[16:] - (v * 2 if n > 0 else v)
    np.testing.assert_allclose(z, s[:, :32], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(y, s + 1, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(w, (s + 1) * 2, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_result_bound_to_the_output_in_an_at_block_writes_it(tmp_path, runtime):
    x = _a()
    result, twice = np.full_like(x, 7.0), np.zeros_like(x)
    ptokit.compile(T.OutBoundInAt, output_dir=tmp_path / "o", runtime=runtime)(x, result, twice)
    np.testing.assert_allclose(result, x + 1, rtol=1e-6)
    np.testing.assert_allclose(twice, (x + 1) * np.exp(x), rtol=1e-5)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_jit_result_bound_to_the_output_writes_it(tmp_path, runtime, monkeypatch):
    from ptokit.runtime import RunConfig
    monkeypatch.setenv("PTOKIT_CACHE_DIR", str(tmp_path / "cache"))
    x = _a((16, 64))
    result = np.full_like(x, 7.0)
    T.jit_out_bound(x, result, config=RunConfig(runtime=runtime))
    np.testing.assert_allclose(result, np.exp(x) - x, rtol=1e-5, atol=1e-6)
