"""pypto's tile.row_expand_add forms: a [rows, 1] column, a row-major packed carrier of one 32-byte
block per row repeated across the columns, and the optional scratch tile (tmp=); against numpy
under both runtime kinds, and the shapes that stay refused."""
import numpy as np
import pytest

import ptokit
import ptokit.language as pl
from ptokit.errors import CompileError

R, C = 32, 64
RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]


def _program(dtype, block):
    @pl.program
    class RowExpandAddForms:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: pl.Tensor[[R, C], dtype], v: pl.Tensor[[R, block], dtype], w: pl.Tensor[[R, 1], dtype],
              y: pl.Out[pl.Tensor[[R, C], dtype]], z: pl.Out[pl.Tensor[[R, C], dtype]]):
            t = pl.load(x, [0, 0], [R, C])
            packed = pl.load(v, [0, 0], [R, block])
            col = pl.load(w, [0, 0], [R, 1])
            tmp = pl.tile.create([R, C], dtype=dtype, target_memory=pl.MemorySpace.Vec)
            y = pl.store(pl.tile.row_expand_add(t, packed), [0, 0], y)
            z = pl.store(pl.tile.row_expand_add(t, col, tmp=tmp), [0, 0], z)
            return y, z

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[R, C], dtype], v: pl.Tensor[[R, block], dtype], w: pl.Tensor[[R, 1], dtype],
                 y: pl.Out[pl.Tensor[[R, C], dtype]], z: pl.Out[pl.Tensor[[R, C], dtype]]):
            y, z = self.k(x, v, w, y, z)
            return y, z
    return RowExpandAddForms


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("dtype,np_dtype,block", [(pl.FP32, np.float32, 8), (pl.FP16, np.float16, 16),
                                                  (pl.INT32, np.int32, 8)])
def test_packed_carrier_and_scratch(tmp_path, runtime, dtype, np_dtype, block):
    rng = np.random.default_rng(8)
    x, v, w = (rng.integers(-50, 50, shape).astype(np_dtype) for shape in ((R, C), (R, block), (R, 1)))
    y, z = np.zeros_like(x), np.zeros_like(x)
    ptokit.compile(_program(dtype, block), output_dir=tmp_path / "out", runtime=runtime)(x, v, w, y, z)
    np.testing.assert_array_equal(y, x + np.tile(v, (1, C // block)))
    np.testing.assert_array_equal(z, x + w)


def test_carrier_of_another_width_is_refused(tmp_path):
    with pytest.raises(CompileError) as info:
        ptokit.compile(_program(pl.FP32, 16), output_dir=tmp_path / "out")
    text = str(info.value)
    assert ("tile.row_expand_add requires a [32, 1] column tile or a row-major [32, 8] packed carrier (one 32-byte "
            "block per row), but got [32, 16]") in text, text
    assert "pl.tile.row_expand_add(t, packed)" in text.splitlines()[1]
