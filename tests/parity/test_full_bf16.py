"""pl.full of a BF16 tile with a constant value: no texpands fills BF16 (the real assembler refuses it on
A2/A3 and A5), so ExpandComposites makes it the INT16 fill of the value's BF16 bits, seen as BF16."""
import ml_dtypes
import numpy as np
import pytest

import ptokit
import ptokit.language as pl
from ptokit.ir.ops.generate import bf16_bits


@pl.program
class FullBF16:
    @pl.function(type=pl.FunctionType.InCore)
    def fill(self, y: pl.Out[pl.Tensor[[16, 64], pl.BF16]], z: pl.Out[pl.Tensor[[16, 64], pl.BF16]]):
        y = pl.store(pl.full([16, 64], dtype=pl.BF16, value=-2.5), [0, 0], y)
        z = pl.store(pl.full([16, 64], dtype=pl.BF16, value=3.14159), [0, 0], z)
        return y, z

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, y: pl.Out[pl.Tensor[[16, 64], pl.BF16]], z: pl.Out[pl.Tensor[[16, 64], pl.BF16]]):
        y, z = self.fill(y, z)
        return y, z


@pytest.mark.parametrize("runtime", ["tensormap_and_ringbuffer", "host_build_graph"])
def test_bf16_fill_runs(tmp_path, runtime):
    y = np.zeros((16, 64), ml_dtypes.bfloat16)
    z = np.zeros((16, 64), ml_dtypes.bfloat16)
    ptokit.compile(FullBF16, output_dir=tmp_path / "o", runtime=runtime)(y, z)
    np.testing.assert_array_equal(y, np.full((16, 64), -2.5, ml_dtypes.bfloat16))
    np.testing.assert_array_equal(z, np.full((16, 64), 3.14159, ml_dtypes.bfloat16))
    pto = (tmp_path / "o" / "ptoas" / "fill.pto").read_text()
    assert "dtype=bf16" in pto and "pto.texpands ins(%cn16352_i16 : i16)" in pto


@pytest.mark.parametrize("value", [0.0, 1.0, -2.5, 3.14159, 1e-3, 65504.0, 1e30, -1e-30, float("inf")])
def test_bits_round_to_nearest_even(value):
    want = np.array([value], np.float32).astype(ml_dtypes.bfloat16).view(np.int16)[0]
    assert bf16_bits(value) == want
