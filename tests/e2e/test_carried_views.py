"""Kernel loops that carry a tensor through an Inline helper's store (`y = self.f(..., y)`) and a
tile whose buffer was made with another shape (`m = pl.reshape(pl.full([1, r]), [r, 1])`)."""
import numpy as np

import ptokit
import ptokit.language as pl


@pl.program
class CarriedViews:
    @pl.function(type=pl.FunctionType.Inline)
    def plus_one(self, b: pl.Scalar[pl.INDEX], x: pl.Tensor[[32, 64], pl.FP32],
                 y: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
        y = pl.store(pl.adds(pl.load(x, [b * 16, 0], [16, 64]), 1.0), [b * 16, 0], y)
        return y

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[32, 64], pl.FP32], y: pl.Out[pl.Tensor[[32, 64], pl.FP32]],
          mx: pl.Out[pl.Tensor[[16, 1], pl.FP32]]):
        m = pl.reshape(pl.full([1, 16], dtype=pl.FP32, value=-1e30), [16, 1])
        for b in pl.range(2):
            y = self.plus_one(b, x, y)
            m = pl.maximum(m, pl.row_max(pl.load(x, [b * 16, 0], [16, 64])))
        mx = pl.store(m, [0, 0], mx)
        return y, mx

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[32, 64], pl.FP32], y: pl.Out[pl.Tensor[[32, 64], pl.FP32]],
             mx: pl.Out[pl.Tensor[[16, 1], pl.FP32]]):
        y, mx = self.k(x, y, mx)
        return y, mx


def test_loop_carries_inline_stores_and_reshaped_tiles(tmp_path):
    x = np.random.default_rng(23).standard_normal((32, 64)).astype(np.float32)
    y, mx = np.zeros_like(x), np.zeros((16, 1), np.float32)
    ptokit.compile(CarriedViews, output_dir=tmp_path / "o")(x, y, mx)
    np.testing.assert_array_equal(y, x + 1.0)
    np.testing.assert_array_equal(mx[:, 0], np.maximum(x[:16].max(axis=1), x[16:].max(axis=1)))
