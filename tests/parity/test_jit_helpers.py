"""A10: pl.at blocks inside @pl.jit.inline helpers (spliced into the calling orchestration, each
block one kernel), nested helper calls, and the same helper used as kernel code."""
import numpy as np
import pytest

import ptokit.language as pl


@pl.jit.inline
def scale_rows(x: pl.Tensor, y: pl.Out[pl.Tensor], nblk, factor):
    for i in pl.range(nblk):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [i * 16, 0], [16, 64])
            y = pl.store(pl.muls(t, factor), [i * 16, 0], y)
    return y


@pl.jit.inline
def scale_twice(x: pl.Tensor, y: pl.Out[pl.Tensor], z: pl.Out[pl.Tensor]):
    y = scale_rows(x, y, 4, 2.0)
    z = scale_rows(y, z, 2, 3.0)          # only the first two blocks
    return y, z


@pl.jit.inline
def plus_one(t):
    u = pl.adds(t, 1.0)
    return u


def entry(x: pl.Tensor, y: pl.Out[pl.Tensor], z: pl.Out[pl.Tensor], w: pl.Out[pl.Tensor]):
    y, z = scale_twice(x, y, z)
    with pl.at(level=pl.Level.CORE_GROUP):
        w = pl.store(plus_one(pl.load(x, [0, 0], [16, 64])), [0, 0], w)   # the same kind of helper, as kernel code
    return y, z, w


ENTRIES = {rt: pl.jit(runtime=rt)(entry) for rt in ("tensormap_and_ringbuffer", "host_build_graph")}


@pytest.mark.parametrize("runtime", sorted(ENTRIES))
def test_pl_at_inside_inline_helpers(runtime):
    x = np.random.default_rng(5).standard_normal((64, 64)).astype(np.float32)
    y, z, w = np.zeros_like(x), np.zeros_like(x), np.zeros((16, 64), np.float32)
    jitted = ENTRIES[runtime]
    jitted(x, y, z, w)
    np.testing.assert_allclose(y, 2 * x)
    want_z = np.zeros_like(x)
    want_z[:32] = 6 * x[:32]
    np.testing.assert_allclose(z, want_z)
    np.testing.assert_allclose(w, x[:16] + 1)
    compiled = list(jitted._cache.values())[-1]
    kernels = sorted(p.name for p in (compiled.output_dir / "kernels").rglob("*.cpp"))
    assert len(kernels) == 3, kernels      # two specializations of scale_rows' block, one for w


@pl.jit.opaque
def add_blocks(x: pl.Tensor, y: pl.Out[pl.Tensor], v):
    for i in pl.range(2):
        with pl.at(level=pl.Level.CORE_GROUP):
            y = pl.store(pl.adds(pl.load(x, [i * 16, 0], [16, 64]), v), [i * 16, 0], y)
    return y


@pl.jit.opaque
def negate(x: pl.Tensor, y: pl.Out[pl.Tensor]):
    y = pl.store(pl.neg(pl.load(x, [0, 0], [16, 64])), [0, 0], y)     # no pl.at: a kernel of its own
    return y


@pl.jit
def opaque_entry(x: pl.Tensor, y: pl.Out[pl.Tensor], z: pl.Out[pl.Tensor]):
    y = add_blocks(x, y, 5.0)
    z = negate(x, z)
    return y, z


def test_opaque_helpers_are_orchestration_or_kernels():
    x = np.random.default_rng(6).standard_normal((32, 64)).astype(np.float32)
    y, z = np.zeros_like(x), np.zeros((16, 64), np.float32)
    opaque_entry(x, y, z)
    np.testing.assert_allclose(y, x + 5)
    np.testing.assert_allclose(z, -x[:16])
    compiled = list(opaque_entry._cache.values())[-1]
    assert sorted(p.stem for p in (compiled.output_dir / "kernels").rglob("*.cpp"))[-1] == "negate"
