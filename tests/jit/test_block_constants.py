"""A name bound once to a compile-time number is that number inside a ``pl.at`` block too: bound in
the block (``M, N = a.shape`` of a specialised tensor) or in the orchestration before it; a name
the block assigns twice is a value, and a load shape that needs a number says so at its column."""
import numpy as np
import pytest

import ptokit
import ptokit.language as pl
from ptokit.errors import CompileError
from ptokit.runtime import RunConfig

RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]


@pl.jit
def add_shape_in_block(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        M, N = a.shape
        t = pl.add(pl.load(a, [0, 0], [M, N]), pl.load(b, [0, 0], [M, N]))
        pl.store(t, [0, 0], c)
    return c


@pl.jit
def scale_shape_before_block(a: pl.Tensor, c: pl.Out[pl.Tensor]):
    rows, cols = a.shape
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.mul(pl.load(a, [0, 0], [rows, cols]), 3.0), [0, 0], c)
    return c


@pl.jit
def reassigned_in_block(a: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP):
        M = a.shape[0]
        M = M + 0
        pl.store(pl.load(a, [0, 0], [M, 16]), [0, 0], c)
    return c


@pl.program
class OuterShape:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, a: pl.Tensor[[32, 16], pl.FP32], c: pl.Out[pl.Tensor[[32, 16], pl.FP32]]
             ) -> pl.Tensor[[32, 16], pl.FP32]:
        R, C = a.shape
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.add(pl.load(a, [0, 0], [R, C]), 1.0), [0, 0], c)
        return c


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_shape_unpacked_in_the_block(runtime):
    rng = np.random.default_rng(3)
    for shape in ((16, 32), (32, 64)):          # each shape its own specialisation
        a, b = rng.standard_normal(shape, dtype=np.float32), rng.standard_normal(shape, dtype=np.float32)
        c = np.zeros_like(a)
        add_shape_in_block(a, b, c, config=RunConfig(runtime=runtime))
        np.testing.assert_allclose(c, a + b, rtol=1e-6)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_shape_unpacked_before_the_block(runtime):
    a = np.arange(16 * 32, dtype=np.float32).reshape(16, 32)
    c = np.zeros_like(a)
    scale_shape_before_block(a, c, config=RunConfig(runtime=runtime))
    np.testing.assert_array_equal(c, a * 3.0)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_program_block_sees_the_orchestrations_constants(runtime, tmp_path):
    compiled = ptokit.compile(OuterShape, output_dir=tmp_path / "o", runtime=runtime)
    a = np.arange(32 * 16, dtype=np.float32).reshape(32, 16)
    c = np.zeros_like(a)
    compiled(a, c)
    np.testing.assert_array_equal(c, a + 1.0)


def test_a_name_assigned_twice_in_the_block_is_no_number():
    a = np.ones((16, 16), np.float32)
    with pytest.raises(CompileError, match="pl.load shapes must be compile-time integers, but 'M' is not") as info:
        reassigned_in_block(a, np.zeros_like(a))
    assert "pl.load(a, [0, 0], [M, 16])" in str(info.value) and "^" in str(info.value)
