"""The hello-world of the language spec, at its own 128x128 FP32 size: three 64 KiB tiles
where the element-wise result reuses a dying operand's buffer to fit a2a3's UB."""
import numpy as np

import ptokit.language as pl


@pl.jit
def tile_add(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.add(pl.load(a, [0, 0], [128, 128]), pl.load(b, [0, 0], [128, 128]))
        pl.store(t, [0, 0], c)
    return c


def test_spec_hello_world_128(tmp_path, monkeypatch):
    monkeypatch.setenv("PTOKIT_CACHE_DIR", str(tmp_path / "cache"))
    rng = np.random.default_rng(0)
    a = rng.standard_normal((128, 128), dtype=np.float32)
    b = rng.standard_normal((128, 128), dtype=np.float32)
    c = np.zeros_like(a)
    tile_add(a, b, c)
    np.testing.assert_array_equal(c, a + b)
    compiled = tile_add.compile(a, b, c)
    pto = (compiled.output_dir / "ptoas" / "tile_add_incore_0.pto").read_text()
    assert pto.count("pto.alloc_tile") == 3 and pto.count("addr = %c0_i64") == 2
