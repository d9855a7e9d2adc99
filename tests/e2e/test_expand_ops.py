"""row_expand_max/min and col_expand_max/min against numpy, for float and integer dtypes,
under both runtime kinds (partial ties included: equal values pick either, same bits)."""
import ml_dtypes
import numpy as np
import pytest

import ptokit
import ptokit.language as pl

from ptokit.errors import CompileError

from .expand_programs import Broadcasts, BroadcastWrongVector, make_col_expand, make_expand_ops

DTYPES = {"FP32": (pl.FP32, np.float32), "FP16": (pl.FP16, np.float16), "BF16": (pl.BF16, ml_dtypes.bfloat16),
          "INT32": (pl.INT32, np.int32)}


@pytest.mark.parametrize("runtime", ["tensormap_and_ringbuffer", "host_build_graph"])
@pytest.mark.parametrize("dname", sorted(DTYPES))
def test_expand_max_min(tmp_path, dname, runtime):
    dt, npt = DTYPES[dname]
    if dname == "BF16":     # pto.trowexpandmax takes no bf16 on either platform (the real assembler's rule)
        for platform, word in (("a2a3sim", "A2/A3 trowexpandmax element type to be i16/i32/f16/f32"),
                               ("a5sim", "A5 trowexpandmax element type to be i8/i16/i32/f16/f32")):
            with pytest.raises(CompileError) as info:
                ptokit.compile(make_expand_ops(dt), output_dir=tmp_path / platform, runtime=runtime, platform=platform)
            assert info.value.message.startswith(f"'pto.trowexpandmax' op expects {word}"), info.value.message
            assert info.value.loc is not None
        return
    rng = np.random.default_rng(7)
    a = rng.integers(-50, 50, (16, 64)).astype(npt)
    r = rng.integers(-50, 50, (16, 1)).astype(npt)
    c = rng.integers(-50, 50, (1, 64)).astype(npt)
    y = np.zeros((64, 64), npt)
    ptokit.compile(make_expand_ops(dt), output_dir=tmp_path / "out", runtime=runtime)(a, r, c, y)
    want = np.concatenate([np.maximum(a, r), np.minimum(a, r), np.maximum(a, c), np.minimum(a, c)])
    assert np.array_equal(y, want)


@pytest.mark.parametrize("runtime", ["tensormap_and_ringbuffer", "host_build_graph"])
def test_row_col_expand_in_pypto_order(tmp_path, runtime):
    rng = np.random.default_rng(8)
    a, r, c = (rng.standard_normal(s).astype(np.float32) for s in ((16, 64), (16, 1), (1, 64)))
    y = np.zeros((64, 64), np.float32)
    ptokit.compile(Broadcasts, output_dir=tmp_path / "out", runtime=runtime)(a, r, c, y)
    want = np.concatenate([np.broadcast_to(r, a.shape), np.broadcast_to(c, a.shape),
                           np.broadcast_to(a[:, :1], a.shape), np.broadcast_to(a[:1, :], a.shape)])
    assert np.array_equal(y, want)


def test_row_expand_wants_a_row_vector(tmp_path):
    with pytest.raises(CompileError) as info:
        ptokit.compile(BroadcastWrongVector, output_dir=tmp_path / "out")
    assert "tile.row_expand requires a [16, 1] vector for a [16, 64] target, but got [1, 64]" in str(info.value)
    assert "pl.row_expand(t, cv)" in str(info.value).splitlines()[1]


@pytest.mark.parametrize("op", ["mul", "add", "sub", "max", "min"])
def test_col_expand_element_types_are_the_real_verifiers(tmp_path, op):
    """pto.tcolexpand<op> takes i16/i32/f16/f32 on A2/A3 and also i8 on A5, never bf16 (PTOAS's
    verifyTColExpandBinaryLikeOp): a program ptoas would refuse fails at its DSL line first."""
    for dname, platform, tag, allowed in (("BF16", "a2a3sim", "A2/A3", "i16/i32/f16/f32"),
                                          ("BF16", "a5sim", "A5", "i8/i16/i32/f16/f32"),
                                          ("INT8", "a2a3sim", "A2/A3", "i16/i32/f16/f32")):
        dt = DTYPES[dname][0] if dname in DTYPES else pl.INT8
        with pytest.raises(CompileError) as info:
            ptokit.compile(make_col_expand(dt, op), output_dir=tmp_path / f"{dname}{platform}", platform=platform)
        assert info.value.message.startswith(
            f"'pto.tcolexpand{op}' op expects {tag} tcolexpand{op} element type to be {allowed}"), info.value.message
        assert info.value.loc is not None and "y = pl.store(fn(t, cv), [0, 0], y)" in info.value.loc.source_line
    ptokit.compile(make_col_expand(pl.INT8, op), output_dir=tmp_path / "a5", platform="a5sim")   # a5 takes i8
    ptokit.compile(make_col_expand(pl.INT16, op), output_dir=tmp_path / "i16", platform="a2a3sim")
