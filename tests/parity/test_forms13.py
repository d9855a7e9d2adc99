"""Issue 13 remaining forms: column tiles from pl.full (and the expand ops taking them)."""
import numpy as np
import pytest

import ptokit

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
