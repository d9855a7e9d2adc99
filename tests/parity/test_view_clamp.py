"""An orchestration window whose run-time extent reaches past its tensor's end is cut at the end, as
a Python slice is and as pypto's orchestration ``tensor.slice`` is (a fixed-width index window near
the end of a table: the kernel reads only the entries it is told are there)."""
import numpy as np
import pytest

import ptokit
import ptokit.language as pl


@pl.program
class IndexWindowNearEnd:
    @pl.function(type=pl.FunctionType.InCore)
    def gather(self, src: pl.Tensor[[16, 64], pl.FP32], idx: pl.Tensor[[8], pl.INT32], n: pl.Scalar[pl.INDEX],
               out: pl.Out[pl.Tensor[[8, 64], pl.FP32]]) -> pl.Tensor[[8, 64], pl.FP32]:
        for i in pl.range(n):
            r = pl.tensor.read(idx, [i])
            out = pl.store(pl.load(src, [r, 0], [1, 64]), [i, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, src: pl.Tensor[[16, 64], pl.FP32], table: pl.Tensor[[20], pl.INT32],
             out: pl.Out[pl.Tensor[[24, 64], pl.FP32]]) -> pl.Tensor[[24, 64], pl.FP32]:
        for h in pl.range(3):
            n = pl.min(8, 20 - h * 8)
            # the third window of `table` is entries 16..24 of 20: four are there
            out = self.gather(src, pl.slice(table, [8], [h * 8]), n, out[h * 8:h * 8 + 8, :])
        return out


@pytest.mark.parametrize("runtime", ["tensormap_and_ringbuffer", "host_build_graph"])
def test_window_past_the_end_is_cut(tmp_path, runtime):
    rng = np.random.default_rng(7)
    src = rng.standard_normal((16, 64)).astype(np.float32)
    table = rng.integers(0, 16, 20).astype(np.int32)
    out = np.full((24, 64), -1.0, np.float32)
    ptokit.compile(IndexWindowNearEnd, output_dir=tmp_path / "o", runtime=runtime)(src, table, out)
    want = np.full_like(out, -1.0)
    want[:20] = src[table]
    np.testing.assert_array_equal(out, want)
