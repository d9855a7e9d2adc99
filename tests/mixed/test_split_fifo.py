"""The cross-core FIFO written out with pypto's names (pl.tpush_to_aiv / pl.tpop_from_aic /
pl.tfree_to_aic, pl.tpush_to_aic / pl.tpop_from_aiv / pl.system.tfree_to_aiv) and split=: a split
kernel end to end under both runtime kinds, and the split= errors."""
import numpy as np
import pytest

import ptokit
from ptokit.errors import CompileError

from .split_util import SP


@pytest.mark.parametrize("runtime", ["tensormap_and_ringbuffer", "host_build_graph"])
def test_explicit_split_push_pop_both_directions(runtime, tmp_path):
    rng = np.random.default_rng(0)
    a, b = [(rng.standard_normal((64, 64)) * 0.2).astype(np.float16) for _ in range(2)]
    y = np.full((64, 64), -7, np.float32)
    c = ptokit.compile(SP.ExplicitSplitFifo, output_dir=tmp_path, runtime=runtime)
    c(a, b, y)
    e = np.exp(a.astype(np.float64) @ b.astype(np.float64)).astype(np.float16).astype(np.float64)
    np.testing.assert_allclose(y, e @ b.astype(np.float64), rtol=1e-4, atol=1e-4)
    aiv = (c.output_dir / "ptoas" / "k.pto").read_text().split("func.func @k_aiv")[1]
    assert "pto.tpop_from_aic {split = 1} -> !pto.tile_buf<loc=vec, dtype=f32, rows=32, cols=64" in aiv
    assert "rows=32, cols=64" in aiv.split("pto.tpush_to_aic(")[1].split("\n")[0]


@pytest.mark.parametrize("prog,message,needle", [
    (SP.ExplicitSplitMismatch, "pl.tpop_from_aic(split=2) pairs with a pl.tpush_to_aiv(split=1)", "split=2)"),
    (SP.ExplicitSplitBadCode, "pl.tpush_to_aiv: split=3; the split modes are 0 (NONE), 1 (UP_DOWN) and 2", "split=3)"),
])
def test_split_fifo_errors_are_located(tmp_path, prog, message, needle):
    with pytest.raises(CompileError) as ei:
        ptokit.compile(prog, output_dir=tmp_path)
    text = str(ei.value)
    assert message in text and needle in text and "^" in text, text
