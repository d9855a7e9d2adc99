"""pl.tile.ci / pl.arange of UINT16 and UINT32 rows (pto.tci takes 16- and 32-bit integers of
either signedness), wrapping as unsigned arithmetic does, and a signed array of the same width
standing for an unsigned tensor (its bit patterns: torch has neither uint16 nor uint32)."""
import numpy as np
import pytest

import ptokit
import ptokit.language as pl
from ptokit.errors import ArgumentError

C = 64


@pl.program
class UnsignedCi:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, start: pl.Scalar[pl.UINT32], y32: pl.Out[pl.Tensor[[1, C], pl.UINT32]],
          y16: pl.Out[pl.Tensor[[1, C], pl.UINT16]]):
        y32 = pl.store(pl.arange(pl.cast(start, pl.UINT32), [1, C], dtype=pl.UINT32, descending=True), [0, 0], y32)
        y16 = pl.store(pl.tile.ci(65500, [1, C], dtype=pl.UINT16), [0, 0], y16)
        return y32, y16

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, start: pl.Scalar[pl.UINT32], y32: pl.Out[pl.Tensor[[1, C], pl.UINT32]],
             y16: pl.Out[pl.Tensor[[1, C], pl.UINT16]]):
        y32, y16 = self.k(start, y32, y16)
        return y32, y16


@pytest.mark.parametrize("runtime", ["tensormap_and_ringbuffer", "host_build_graph"])
def test_unsigned_rows_wrap(tmp_path, runtime):
    c = ptokit.compile(UnsignedCi, output_dir=tmp_path / "o", runtime=runtime)
    y32, y16 = np.zeros((1, C), np.uint32), np.zeros((1, C), np.uint16)
    c(10, y32, y16)
    np.testing.assert_array_equal(y32[0], (np.uint32(10) - np.arange(C, dtype=np.uint32)))    # 10 .. 0, 2**32 - 1 ..
    np.testing.assert_array_equal(y16[0], (np.uint16(65500) + np.arange(C, dtype=np.uint16)))  # past 65535: 0, 1, ..
    s32, s16 = np.zeros((1, C), np.int32), np.zeros((1, C), np.int16)
    c(10, s32, s16)                          # same-width signed arrays: the bit patterns
    np.testing.assert_array_equal(s32.view(np.uint32), y32)
    np.testing.assert_array_equal(s16.view(np.uint16), y16)


def test_other_arrays_are_still_refused(tmp_path):
    c = ptokit.compile(UnsignedCi, output_dir=tmp_path / "o")
    with pytest.raises(ArgumentError, match=r"argument 1 \(y32\) must have dtype UINT32"):
        c(10, np.zeros((1, C), np.int16), np.zeros((1, C), np.uint16))
    with pytest.raises(ArgumentError, match=r"argument 2 \(y16\) must have dtype UINT16"):
        c(10, np.zeros((1, C), np.uint32), np.zeros((1, C), np.float16))
