"""A floating-point scalar operand of an integer tile op takes the tile's dtype, truncated toward
zero when the kernel runs (pypto's rule for tile-scalar ops: ``subs(int16 tile, 2.0)``)."""
import numpy as np
import pytest

import ptokit
import ptokit.language as pl

R, C = 16, 64


@pl.program
class FloatScalars:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[R, C], pl.INT16], f: pl.Scalar[pl.FP32], y: pl.Out[pl.Tensor[[R, C], pl.INT16]],
          z: pl.Out[pl.Tensor[[R, C], pl.INT32]]):
        t = pl.load(x, [0, 0], [R, C])
        y = pl.store(pl.subs(t, pl.const(2.0, pl.FP32)), [0, 0], y)
        z = pl.store(pl.adds(pl.cast(t, target_type=pl.INT32), f), [0, 0], z)
        return y, z

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[R, C], pl.INT16], f: pl.Scalar[pl.FP32], y: pl.Out[pl.Tensor[[R, C], pl.INT16]],
             z: pl.Out[pl.Tensor[[R, C], pl.INT32]]):
        y, z = self.k(x, f, y, z)
        return y, z


@pytest.mark.parametrize("runtime", ["tensormap_and_ringbuffer", "host_build_graph"])
def test_float_scalars_are_narrowed_toward_zero(tmp_path, runtime):
    c = ptokit.compile(FloatScalars, output_dir=tmp_path / "o", runtime=runtime)
    x = np.random.default_rng(7).integers(-100, 100, (R, C)).astype(np.int16)
    for f in (2.7, -2.7):
        y, z = np.zeros_like(x), np.zeros((R, C), np.int32)
        c(x, f, y, z)
        np.testing.assert_array_equal(y, x - np.int16(2))
        np.testing.assert_array_equal(z, x.astype(np.int32) + np.int32(np.trunc(f)))     # 2 and -2
