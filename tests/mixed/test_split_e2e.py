"""Split mixed kernels end to end on the simulator against numpy, under both runtime kinds: both
vector lanes work, each on its half of every vector tile (docs/mixed-kernels.md, "Split transfers").
Every case stores each lane's half separately, so a lane that did not do its share leaves the
initial fill in its rows and the comparison fails."""
import numpy as np
import pytest

import ptokit

from .split_util import SP

RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]
_CACHE = {}


def compiled(prog, tmp_path_factory, runtime):
    key = (prog.cls.__name__ if hasattr(prog, "cls") else id(prog), runtime)
    if key not in _CACHE:
        _CACHE[key] = ptokit.compile(prog, output_dir=tmp_path_factory.mktemp(f"split_{runtime[:4]}"), runtime=runtime)
    return _CACHE[key]


def rand(shape, dtype, seed, scale=0.2):
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(dtype)


def f64(x):
    return x.astype(np.float64)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_matmul_softmax_up_down(runtime, tmp_path_factory):
    a, b = rand((64, 64), np.float16, 1, 0.5), rand((64, 64), np.float16, 2, 0.5)
    y = np.full((64, 64), -7, np.float32)
    compiled(SP.SplitSoftmax, tmp_path_factory, runtime)(a, b, y)
    m = f64(a) @ f64(b)
    e = np.exp(m - m.max(axis=1, keepdims=True))
    np.testing.assert_allclose(y, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_vector_to_cube_left_right(runtime, tmp_path_factory):
    x, w = rand((64, 64), np.float32, 3, 1.0), rand((64, 64), np.float16, 4)
    y = np.full((64, 64), -7, np.float32)
    compiled(SP.SplitV2CLeftRight, tmp_path_factory, runtime)(x, w, y)
    ref = f64(np.maximum(x, 0).astype(np.float16)) @ f64(w)
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_both_directions_up_down(runtime, tmp_path_factory):
    x, w1, w2 = rand((64, 64), np.float16, 5), rand((64, 64), np.float16, 6), rand((64, 64), np.float16, 7)
    y = np.full((64, 64), -7, np.float32)
    compiled(SP.SplitMlp, tmp_path_factory, runtime)(x, w1, w2, y)
    h = f64(np.maximum(f64(x) @ f64(w1), 0).astype(np.float16))
    np.testing.assert_allclose(y, h @ f64(w2), rtol=1e-4, atol=1e-4)


def test_spmd_split_kernel(tmp_path_factory):
    a, w = rand((256, 64), np.float16, 8), rand((64, 64), np.float16, 9)
    y = np.full((256, 64), -7, np.float32)
    compiled(SP.SplitSpmd, tmp_path_factory, RUNTIMES[0])(a, w, y)
    ref = np.exp(f64(a) @ f64(w)) + np.repeat(np.arange(4), 64)[:, None]
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-6)


def test_at_optimizations_split_left_right(tmp_path_factory):
    a, b = rand((64, 64), np.float16, 10), rand((64, 64), np.float16, 11)
    y = np.full((64, 64), -7, np.float32)
    compiled(SP.SplitAt, tmp_path_factory, RUNTIMES[1])(a, b, y)
    np.testing.assert_allclose(y, 2 * (f64(a) @ f64(b)), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_valid_rows_clamped_per_lane_and_odd_rows(runtime, tmp_path_factory):
    a, b = rand((64, 64), np.float16, 12), rand((64, 64), np.float16, 13)
    x, x2 = rand((64, 64), np.float32, 14, 1.0), rand((63, 64), np.float32, 15, 1.0)
    k = compiled(SP.SplitValidRows, tmp_path_factory, runtime)
    for n in (40, 20, 32, 1, 0, 64):       # lane 1 empty (n <= 32), lane 0 full, both partial
        y, z = np.full((64, 64), -7, np.float32), np.full((63, 64), -7, np.float32)
        k(a, b, x, x2, n, y, z)
        ref = np.full((64, 64), -7.0)
        ref[:n] = (np.exp(f64(x)) + f64(a) @ f64(b))[:n]
        np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-6, err_msg=f"n={n}")
        np.testing.assert_allclose(z, 2 * f64(x2), rtol=1e-6, err_msg=f"n={n}")
