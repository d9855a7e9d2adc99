"""Explicit split regions (pl.split_aiv, pl.aiv_shard, pl.aic_gather; pypto-parity E2): end to end
against numpy under both runtime kinds, and each region rule's located error."""
import numpy as np
import pytest

import ptokit
from ptokit.errors import CompileError

from .split_util import SP

RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]


def rand(shape, seed, scale=0.2):
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(np.float16)


def f64(x):
    return x.astype(np.float64)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_region_example(runtime, tmp_path):
    q, k, w = rand((64, 64), 1), rand((64, 64), 2), rand((64, 64), 3)
    lanes, y = np.full((64, 64), -1, np.float32), np.zeros((64, 64), np.float32)
    ptokit.compile(SP.RegionExample, output_dir=tmp_path, runtime=runtime)(q, k, w, lanes, y)
    e = f64(np.exp(f64(q) @ f64(k)).astype(np.float16))
    np.testing.assert_allclose(y, e @ f64(w), rtol=1e-4, atol=1e-4)
    # aiv_id is the lane: UP_DOWN gives lane 0 rows 0..31 and lane 1 rows 32..63
    np.testing.assert_array_equal(lanes, np.repeat([0.0, 1.0], 32)[:, None] * np.ones((1, 64)))


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_none_region_runs_on_both_lanes_and_region_in_a_loop(runtime, tmp_path):
    a, b = rand((64, 64), 4), rand((64, 64), 5)
    y, z = np.full((64, 64), -7, np.float32), np.full((64, 64), -7, np.float32)
    ptokit.compile(SP.RegionNoneAndLoop, output_dir=tmp_path, runtime=runtime)(a, b, y, z)
    m = f64(a) @ f64(b)
    np.testing.assert_allclose(y, np.exp(m), rtol=1e-5, atol=1e-6)        # stored by lane 1 only
    np.testing.assert_allclose(z, np.maximum(m, 0) + 1, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("prog,message,needle", [
    (SP.RegionCubeInside, "cube work inside a pl.split_aiv region", "mm = pl.matmul(ta, tb)"),
    (SP.RegionVectorOutside, "vector work outside the pl.split_aiv regions", "t = pl.exp(pl.load(x"),
    (SP.RegionModesDiffer, "differs from the kernel's first region (pl.SplitMode.UP_DOWN)", "pl.SplitMode.LEFT_RIGHT"),
    (SP.RegionBadCount, "pl.split_aiv(4): a cluster has 2 vector lanes", "4, mode="),
    (SP.RegionNested, "pl.split_aiv regions cannot be nested", "pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):"),
    (SP.ShardOutsideRegion, "pl.aiv_shard names a value crossing the edge of a pl.split_aiv region, but it is "
                            "not inside one", "pl.aiv_shard(pl.matmul"),
])
def test_region_rules_are_located_errors(tmp_path, prog, message, needle):
    with pytest.raises(CompileError) as ei:
        ptokit.compile(prog, output_dir=tmp_path)
    text = str(ei.value)
    assert message in text and needle in text and "^" in text, text
    assert ei.value.loc is not None and ei.value.loc.line > 0
