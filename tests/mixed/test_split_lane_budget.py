"""A split kernel's Vec budget is per lane, as on the device: each vector lane holds only its halves of
the vector tiles, so SplitMixed plans the vector side again at the halved sizes and puts the FIFO's
slots after that per-lane peak. This [128, 128] FP32 matmul + bias (64 KiB per whole tile) fits one
lane only so (whole tiles and a 64 KiB slot would not fit a2a3's 184 KiB Vec)."""
import re

import numpy as np
import pytest

import ptokit
import ptokit.language as pl


@pl.program
class SplitMatmulBias:
    @pl.function(type=pl.FunctionType.InCore, attrs={"split": pl.SplitMode.UP_DOWN})
    def mm_bias(self, a: pl.Tensor[[128, 128], pl.FP16], b: pl.Tensor[[128, 128], pl.FP16],
                bias: pl.Tensor[[128, 128], pl.FP32],
                y: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        ta = pl.move(pl.load(a, [0, 0], [128, 128], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        tb = pl.move(pl.load(b, [0, 0], [128, 128], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        v = pl.move(pl.matmul(ta, tb), target_memory=pl.Mem.Vec)
        y = pl.store(pl.add(v, pl.load(bias, [0, 0], [128, 128])), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[128, 128], pl.FP16], b: pl.Tensor[[128, 128], pl.FP16],
             bias: pl.Tensor[[128, 128], pl.FP32], y: pl.Out[pl.Tensor[[128, 128], pl.FP32]]):
        y = self.mm_bias(a, b, bias, y)
        return y


@pytest.mark.parametrize("runtime", ["tensormap_and_ringbuffer", "host_build_graph"])
def test_split_kernel_fits_per_lane(tmp_path, runtime):
    rng = np.random.default_rng(9)
    a = (rng.standard_normal((128, 128)) * 0.3).astype(np.float16)
    b = (rng.standard_normal((128, 128)) * 0.3).astype(np.float16)
    bias = rng.standard_normal((128, 128)).astype(np.float32)
    y = np.full((128, 128), -7, np.float32)
    ptokit.compile(SplitMatmulBias, output_dir=tmp_path / "o", runtime=runtime)(a, b, bias, y)
    want = a.astype(np.float64) @ b.astype(np.float64) + bias
    np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-4)
    pto = (tmp_path / "o" / "ptoas" / "mm_bias.pto").read_text()
    base = int(re.search(r'pto\.reserve_buffer \{name = "c2v_slot_buffer".*? base = (\d+)\}', pto).group(1))
    assert base <= 2 * 64 * 128 * 4     # after two of one lane's [64, 128] halves, not two whole 64 KiB tiles
