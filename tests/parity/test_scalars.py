"""A15, A16, B: pl.const, scalar pl.min/pl.max/min/max/abs, shifts and bit operators, ~ not and or,
pl.cast of a scalar, x.shape and pl.tensor.dim, pl.static_assert; against Python's arithmetic."""
import numpy as np
import pytest

import ptokit
from ptokit.errors import CompileError

from . import scalar_programs as S


@pytest.mark.parametrize("runtime", ["tensormap_and_ringbuffer", "host_build_graph"])
@pytest.mark.parametrize("s", [5, 40])
def test_scalar_forms(tmp_path, runtime, s):
    x = np.random.default_rng(0).standard_normal((48, 64)).astype(np.float32)
    y = np.zeros_like(x)
    ptokit.compile(S.Scalars, output_dir=tmp_path / "out", runtime=runtime)(x, s, y)
    bits = (s << 2) | 1
    f = float((bits & 0xFF ^ 0) + max(s, 16) + min(s, 3) + abs(~s + 1))
    np.testing.assert_allclose(y, x + f, rtol=1e-6)


@pytest.mark.parametrize("program,message,needle", [
    (S.StaticAssertFails, "static assertion failed: x.shape[0] % 32 == 0: rows come in 32s", "pl.static_assert(x.shape"),
    (S.ConstTooBig, "pl.const(300, pl.INT8): 300 does not fit INT8 (-128 .. 127)", "pl.const(300"),
])
def test_scalar_errors(tmp_path, program, message, needle):
    with pytest.raises(CompileError) as info:
        ptokit.compile(program, output_dir=tmp_path / "out")
    assert message in str(info.value)
    assert info.value.loc.file == S.__file__ and needle in str(info.value).splitlines()[1]


@pytest.mark.parametrize("runtime", ["tensormap_and_ringbuffer", "host_build_graph"])
@pytest.mark.parametrize("n", [2, 4])
def test_yield_and_init_values(tmp_path, runtime, n):
    x = np.random.default_rng(1).standard_normal((64, 64)).astype(np.float32)
    y, z = np.zeros((16, 64), np.float32), np.zeros((16, 64), np.float32)
    ptokit.compile(S.YieldLoops, output_dir=tmp_path / "out", runtime=runtime)(x, n, y, z)
    blocks = x.reshape(4, 16, 64)
    np.testing.assert_allclose(y, blocks.sum(axis=0) * 3, rtol=1e-5)
    np.testing.assert_array_equal(z, np.maximum(blocks[0], blocks[:n].max(axis=0)))
