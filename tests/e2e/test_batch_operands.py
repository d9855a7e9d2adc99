"""Batched b_trans matmuls of rank-3 tensors (batch_operand_programs.py) against numpy under both
runtime kinds: an operand the kernel computes (the mixed kernel's vector half adds, its cube half
multiplies each batch's row band), and a stack of products larger than Acc (stored per batch, each
tiled for L0 from the transposed Mat tile)."""
import numpy as np
import pytest

import ptokit

from . import batch_operand_programs as P


@pytest.mark.parametrize("runtime", ["tensormap_and_ringbuffer", "host_build_graph"])
def test_computed_b_trans_operand_matches_numpy(runtime, tmp_path):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((P.B, P.M, P.K)).astype(np.float32)
    b0, b1 = (rng.standard_normal((P.B, P.N, P.K)).astype(np.float32) for _ in range(2))
    c = np.zeros((P.B, P.M, P.N), np.float32)
    ptokit.compile(P.ComputedBTrans, output_dir=tmp_path / "out", runtime=runtime)(a, b0, b1, c)
    ref = a.astype(np.float64) @ np.swapaxes(b0.astype(np.float64) + b1, 1, 2)
    np.testing.assert_allclose(c, ref, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("runtime", ["tensormap_and_ringbuffer", "host_build_graph"])
def test_batched_b_trans_larger_than_acc_matches_numpy(runtime, tmp_path):
    rng = np.random.default_rng(4)
    a = rng.standard_normal((P.LB, P.LM, P.LK)).astype(np.float32)
    b = rng.standard_normal((P.LB, P.LN, P.LK)).astype(np.float32)
    c = np.zeros((P.LB, P.LM, P.LN), np.float32)
    ptokit.compile(P.LargeBTrans, output_dir=tmp_path / "out", runtime=runtime)(a, b, c)
    ref = a.astype(np.float64) @ np.swapaxes(b.astype(np.float64), 1, 2)
    np.testing.assert_allclose(c, ref, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("runtime", ["tensormap_and_ringbuffer", "host_build_graph"])
def test_large_2d_b_trans_tiled_by_the_pass_matches_numpy(runtime, tmp_path):
    rng = np.random.default_rng(5)
    a = rng.standard_normal((P.TM, P.TK)).astype(np.float32)
    b = rng.standard_normal((P.TN, P.TK)).astype(np.float32)
    c = np.zeros((P.TM, P.TN), np.float32)
    ptokit.compile(P.LargeBTrans2d, output_dir=tmp_path / "out", runtime=runtime)(a, b, c)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64).T, rtol=1e-5, atol=1e-4)
