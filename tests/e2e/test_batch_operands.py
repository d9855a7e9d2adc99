"""A batched matmul whose b_trans operand the kernel computes (batch_operand_programs.py) against
numpy under both runtime kinds: the mixed kernel's vector half adds, its cube half multiplies each
batch's row band."""
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
