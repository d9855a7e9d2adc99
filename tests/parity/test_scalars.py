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


@pytest.mark.parametrize("runtime", ["tensormap_and_ringbuffer", "host_build_graph"])
@pytest.mark.parametrize("n", [1, 3, 4, 8])
def test_unroll_and_pipeline(tmp_path, runtime, n):
    x = np.random.default_rng(2).standard_normal((128, 64)).astype(np.float32)
    y = np.zeros((16, 64), np.float32)
    ptokit.compile(S.UnrollPipeline, output_dir=tmp_path / "out", runtime=runtime)(x, n, y)
    blocks = x.reshape(8, 16, 64)
    want = blocks[0] + 2 * (blocks[1] + blocks[2]) + blocks[3:n].sum(axis=0) + 3.0
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)


def test_unroll_and_pipeline_copy_the_body(tmp_path):
    """pl.unroll leaves no loop; pl.pipeline(stage=k) steps by k with k copies, then the rest."""
    ptokit.compile(S.UnrollPipeline, output_dir=tmp_path / "out")
    pto = next((tmp_path / "out").rglob("k.pto")).read_text()
    assert pto.count("pto.tload") == 1 + 2 + 3 + 1      # first load, unrolled pair, 3 pipelined copies, tail loop
    assert pto.count("scf.for") == 3                      # pipelined main and tail loop, static pipeline main loop
    assert pto.count("pto.tadds") == 3                    # two copies in the step of four, one leftover
    orch = (tmp_path / "out" / "orchestration" / "main.cpp").read_text()
    assert "for (" not in orch and orch.count("rt_submit_aiv_task(") == 2
