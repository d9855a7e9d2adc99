"""Cross-core FIFO ops written in the DSL (pl.tile.tpush_to_aiv / tpop_from_aic / tfree_from_aic)."""
import numpy as np
import pytest

import ptokit
from ptokit.errors import CompileError

from . import programs as mp


@pytest.mark.parametrize("runtime", ["tensormap_and_ringbuffer", "host_build_graph"])
def test_explicit_push_pop_free_runs(runtime, tmp_path):
    c = ptokit.compile(mp.ExplicitFifo, output_dir=tmp_path, runtime=runtime)
    assert [k.core_type for k in c.config.kernels] == ["aic", "aiv"]
    pto = (c.output_dir / "ptoas" / "mm_exp.pto").read_text()
    assert "pto.tpush_to_aiv(" in pto and "pto.tpop_from_aic {split = 0}" in pto and "pto.tfree_from_aic" in pto
    rng = np.random.default_rng(0)
    a = (rng.standard_normal((64, 64)) / 8).astype(np.float16)
    b = (rng.standard_normal((64, 64)) / 8).astype(np.float16)
    y = np.zeros((64, 64), np.float32)
    c(a, b, y)
    ref = np.exp(a.astype(np.float64) @ b.astype(np.float64)) + 1
    np.testing.assert_allclose(y, ref, rtol=1e-3)


def test_pop_without_push_is_a_located_error(tmp_path):
    with pytest.raises(CompileError, match="tpop_from_aic has no matching pl.tile.tpush_to_aiv") as info:
        ptokit.compile(mp.UnpairedPop, output_dir=tmp_path)
    assert info.value.loc.file == mp.__file__


def test_push_to_cube_without_pop_is_a_located_error(tmp_path):
    with pytest.raises(CompileError, match="tpush_to_aic has no matching pl.tile.tpop_from_aiv after it") as info:
        ptokit.compile(mp.ReverseFifo, output_dir=tmp_path)
    assert info.value.loc.file == mp.__file__
