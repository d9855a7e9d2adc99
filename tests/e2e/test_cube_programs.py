"""The cube path end to end: matmul kernels (f32/f16/bf16/int8), K-loop accumulation,
and programs that mix cube and vector tasks, against numpy."""
import ml_dtypes
import numpy as np
import pytest

import ptokit
import ptokit.language as pl

import programs

_CACHE = {}


def compiled(key, make, tmp_path_factory, runtime="tensormap_and_ringbuffer"):
    if (key, runtime) not in _CACHE:
        out = tmp_path_factory.mktemp(f"{key}_{runtime}")
        _CACHE[(key, runtime)] = ptokit.compile(make(), output_dir=out, runtime=runtime)
    return _CACHE[(key, runtime)]


def rand(shape, dtype, seed):
    x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return x.astype(dtype)


@pytest.mark.parametrize("size", [(64, 64, 64), (128, 128, 128)], ids=["64", "128"])
@pytest.mark.parametrize("dtype", ["FP32", "FP16", "BF16"])
def test_matmul(size, dtype, tmp_path_factory):
    m, k, n = size
    pdt = getattr(pl, dtype)
    c_ = compiled(f"mm_{m}_{dtype}", lambda: programs.make_matmul(m, k, n, pdt), tmp_path_factory)
    a, b = rand((m, k), pdt.numpy(), 1), rand((k, n), pdt.numpy(), 2)
    c = np.zeros((m, n), np.float32)
    c_(a, b, c)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    tol = 1e-5 if dtype == "FP32" else 1e-3
    np.testing.assert_allclose(c, ref, rtol=tol, atol=tol * np.abs(ref).max())


def test_matmul_int8_accumulates_in_int32(tmp_path_factory):
    @pl.program
    class MatmulI8:
        @pl.function(type=pl.FunctionType.InCore)
        def mm(self, a: pl.Tensor[[64, 64], pl.INT8], b: pl.Tensor[[64, 64], pl.INT8],
               c: pl.Out[pl.Tensor[[64, 64], pl.INT32]]):
            ta = pl.move(pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
            tb = pl.move(pl.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
            c = pl.store(pl.matmul(ta, tb), [0, 0], c)
            return c

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[64, 64], pl.INT8], b: pl.Tensor[[64, 64], pl.INT8],
                 c: pl.Out[pl.Tensor[[64, 64], pl.INT32]]):
            c = self.mm(a, b, c)
            return c

    rng = np.random.default_rng(3)
    a = rng.integers(-128, 128, (64, 64)).astype(np.int8)
    b = rng.integers(-128, 128, (64, 64)).astype(np.int8)
    c = np.zeros((64, 64), np.int32)
    compiled("mm_i8", lambda: MatmulI8, tmp_path_factory)(a, b, c)
    assert np.array_equal(c, a.astype(np.int32) @ b.astype(np.int32))


def test_k_loop_accumulation(tmp_path_factory):
    a, b = rand((64, 256), np.float16, 4), rand((256, 64), np.float16, 5)
    c = np.zeros((64, 64), np.float32)
    compiled("kloop", lambda: programs.MatmulKLoop, tmp_path_factory)(a, b, c)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c, ref, rtol=1e-3, atol=1e-3 * np.abs(ref).max())


@pytest.mark.parametrize("runtime", ["tensormap_and_ringbuffer", "host_build_graph"])
def test_fused_linear_two_tasks(runtime, tmp_path_factory):
    x, w = rand((64, 128), np.float16, 6), rand((128, 64), np.float16, 7)
    bias = rand((1, 64), np.float32, 8)
    y = np.zeros((64, 64), np.float32)
    compiled("fused", lambda: programs.FusedLinear, tmp_path_factory, runtime)(x, w, bias, y)
    ref = np.maximum(x.astype(np.float64) @ w.astype(np.float64) + bias, 0)
    np.testing.assert_allclose(y, ref, rtol=1e-3, atol=1e-3 * np.abs(ref).max())


def test_ffn_block(tmp_path_factory):
    x = rand((64, 64), np.float16, 9)
    w1 = (rand((64, 128), np.float32, 10) / 8).astype(np.float16)
    w2 = (rand((128, 64), np.float32, 11) / 8).astype(np.float16)
    out = np.zeros((64, 64), np.float32)
    compiled("ffn", lambda: programs.FFN, tmp_path_factory)(x, w1, w2, out)
    h = x.astype(np.float64) @ w1.astype(np.float64)
    g = (h / (1 + np.exp(-1.702 * h))).astype(np.float16).astype(np.float64)
    ref = g @ w2.astype(np.float64)
    np.testing.assert_allclose(out, ref, rtol=2e-3, atol=2e-3 * np.abs(ref).max())


def test_bf16_arrays_come_from_ml_dtypes(tmp_path_factory):
    a = rand((64, 64), ml_dtypes.bfloat16, 12)
    b = rand((64, 64), ml_dtypes.bfloat16, 13)
    c = np.zeros((64, 64), np.float32)
    compiled("mm_64_BF16", lambda: programs.make_matmul(64, 64, 64, pl.BF16), tmp_path_factory)(a, b, c)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c, ref, rtol=1e-3, atol=1e-3 * np.abs(ref).max())
