"""A kernel returning ``tuple[Tensor, Scalar]``: the caller binds the scalar to the callee's
defining expression over the call's arguments (language/scalar_returns.py)."""
import numpy as np
import pytest

import ptokit
from ptokit.errors import CompileError

from . import scalar_return_programs as P


def test_returned_scalar_is_recomputed_at_the_call_site(tmp_path):
    compiled = ptokit.compile(P.WidthFromKernel, output_dir=tmp_path / "w")
    x = np.random.default_rng(3).standard_normal((8, 64)).astype(np.float32)
    y, z = np.zeros_like(x), np.full_like(x, 7.0)
    compiled(x, np.array([2, 9], np.int64), y, z)     # cols = (9 - 2) * 4 + 3 = 31
    np.testing.assert_allclose(y, x + 1.0, rtol=1e-6)
    np.testing.assert_allclose(z[:, :31], (x[:, :31] + 1.0) * 2.0, rtol=1e-6)


@pytest.mark.parametrize("program, why", [
    (P.ScalarFromBlockIndex, r"`get_block_idx`, which the caller cannot evaluate"),
    (P.ScalarFromLoop, r"`acc` is not assigned once at the top level of k"),
])
def test_scalar_the_caller_cannot_compute_is_a_located_error(program, why):
    with pytest.raises(CompileError, match=why) as e:
        program.ir
    assert "scalar_return_programs.py" in str(e.value) and "cannot be bound here" in str(e.value)
