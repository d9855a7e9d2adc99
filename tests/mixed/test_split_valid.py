"""Run-time valid shapes across the two vector lanes of a split kernel (issue 13), under both
runtime kinds: valid extents that fall in lane 0 only, straddle the halves, fill both, or are 0."""
import numpy as np
import pytest

import ptokit

from . import split_valid_programs as SV

RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]
EXTENTS = (20, 32, 40, 1, 0, 64)     # lane 0 only, lane 0 exactly, straddling, one, none, full
_CACHE = {}


def compiled(prog, tmp_path_factory, runtime):
    key = (id(prog), runtime)
    if key not in _CACHE:
        _CACHE[key] = ptokit.compile(prog, output_dir=tmp_path_factory.mktemp(f"splitv_{runtime[:4]}"),
                                     runtime=runtime)
    return _CACHE[key]


def rand(shape, dtype, seed, scale=0.2):
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(dtype)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_left_right_run_time_valid_cols(runtime, tmp_path_factory):
    a, b, x = rand((64, 64), np.float16, 1), rand((64, 64), np.float16, 2), rand((64, 64), np.float32, 3, 1.0)
    k = compiled(SV.SplitAtValidCols, tmp_path_factory, runtime)
    full = np.exp(x.astype(np.float64)) + a.astype(np.float64) @ b.astype(np.float64)
    for nc in EXTENTS:
        y = np.full((64, 64), -7, np.float32)
        k(a, b, x, nc, y)
        ref = np.full((64, 64), -7.0)
        ref[:, :nc] = full[:, :nc]
        np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-6, err_msg=f"nc={nc}")


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("mode", ["UP_DOWN", "LEFT_RIGHT"])
def test_matmul_valid_extent_halved(mode, runtime, tmp_path_factory):
    a, b = rand((64, 64), np.float16, 4), rand((64, 64), np.float16, 5)
    k = compiled(SV.SPLIT_MATMUL[mode], tmp_path_factory, runtime)
    full = 2 * (a.astype(np.float64) @ b.astype(np.float64))
    for n in (e for e in EXTENTS if e):      # the cube takes 1..4095 rows / columns (test_matmul_valid)
        y = np.full((64, 64), -7, np.float32)
        k(a, b, n, y)
        ref = np.full((64, 64), -7.0)
        if mode == "UP_DOWN":
            ref[:n] = full[:n]
        else:
            ref[:, :n] = full[:, :n]
        np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-6, err_msg=f"n={n}")


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_pushed_halves_with_run_time_valid_rows(runtime, tmp_path_factory):
    x, b = rand((64, 64), np.float16, 6, 0.5), rand((64, 64), np.float16, 7)
    k = compiled(SV.SplitPushValidRows, tmp_path_factory, runtime)
    full = np.exp(x.astype(np.float32)).astype(np.float16).astype(np.float64) @ b.astype(np.float64)
    for n in (e for e in EXTENTS if e):
        y = np.full((64, 64), -7, np.float32)
        k(x, b, n, y)
        ref = np.full((64, 64), -7.0)
        ref[:n] = full[:n]
        np.testing.assert_allclose(y, ref, rtol=2e-3, atol=2e-3, err_msg=f"n={n}")
