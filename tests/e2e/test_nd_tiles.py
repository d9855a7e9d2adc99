"""N-D tiles in kernels (FlattenTileNdTo2D) against numpy under both runtime kinds: batched matmuls
of N-D Mat loads (natural, transposed through transpose_view, broadcast, in a loop) and transposes
of the last two axes of 3-D and 4-D Vec tiles."""
import numpy as np
import pytest

import ptokit
import ptokit.language as pl

from . import nd_programs as P

B, M, K, N = P.B, P.M, P.K, P.N


def _rand(shape, dtype, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32).astype(dtype)


@pytest.mark.parametrize("runtime", ["tensormap_and_ringbuffer", "host_build_graph"])
@pytest.mark.parametrize("dtype", ["FP16", "FP32"])
def test_nd_tiles_match_numpy(dtype, runtime, tmp_path):
    pdt = getattr(pl, dtype)
    run = ptokit.compile(P.make_nd_program(pdt), output_dir=tmp_path / "nd", runtime=runtime)
    nd = pdt.numpy()
    a, b = _rand((B, M, K), nd, 1), _rand((B, K, N), nd, 2)
    at, bt = _rand((B, K, M), nd, 3), _rand((B, N, K), nd, 4)
    b1, b2 = _rand((1, K, N), nd, 5), _rand((K, N), nd, 6)
    a6, b6 = _rand((2 * B, M, K), nd, 7), _rand((2 * B, K, N), nd, 8)
    x3, x4 = _rand((B, M, 8), np.float32, 9), _rand((2, 2, 8, 16), np.float32, 10)
    x2 = _rand((2 * M, M), np.float32, 11)
    outs = [np.zeros((B, M, N), np.float32) for _ in range(4)] + [np.zeros((2 * B, M, N), np.float32),
                                                                   np.zeros((B, 8, M), np.float32),
                                                                   np.zeros((2, 2, 16, 8), np.float32),
                                                                   np.zeros((2, M, M), np.float32)]
    run(a, b, at, bt, b1, b2, a6, b6, x3, x4, x2, *outs)
    f = lambda x: x.astype(np.float64)   # noqa: E731
    refs = [f(a) @ f(b), np.swapaxes(f(at), 1, 2) @ np.swapaxes(f(bt), 1, 2), f(a) @ f(b1), f(a) @ f(b2),
            f(a6) @ f(b6), 2 * np.swapaxes(f(x3), 1, 2), np.swapaxes(f(x4), 2, 3),
            np.swapaxes(f(x2).reshape(2, M, M), 1, 2)]
    names = ["natural", "both transposed", "batch of one", "2-D rhs", "looped", "3-D transpose", "4-D transpose",
             "annotated 3-D transpose"]
    tol = 1e-5 if dtype == "FP32" else 1e-3
    for name, got, ref in zip(names, outs, refs):
        np.testing.assert_allclose(got, ref, rtol=tol, atol=tol * max(np.abs(ref).max(), 1.0), err_msg=name)
