"""`with pl.spmd(n):` around a `pl.at` block in a @pl.jit function launches the outlined
kernel as n blocks, each reading its own block index."""
import numpy as np

import ptokit.language as pl


@pl.jit
def rows_plus_block(x: pl.Tensor, y: pl.Out[pl.Tensor]):
    with pl.spmd(4):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="blk"):
            b = pl.tile.get_block_idx()
            t = pl.adds(pl.load(x, [b * 32, 0], [32, 64]), 1.0)
            pl.store(t, [b * 32, 0], y)
    return y


def test_spmd_around_at(tmp_path, monkeypatch):
    monkeypatch.setenv("PTOKIT_CACHE_DIR", str(tmp_path / "cache"))
    x = np.random.default_rng(0).standard_normal((128, 64)).astype(np.float32)
    y = np.zeros_like(x)
    rows_plus_block(x, y)
    np.testing.assert_array_equal(y, x + 1)
    c = rows_plus_block.compile(x, y)
    orch = next((c.output_dir / "orchestration").glob("*.cpp")).read_text()
    assert "launch_spec.set_block_num(4)" in orch
    assert "__pypto_spmd_block_idx" in (c.output_dir / "ptoas" / "blk.pto").read_text()
