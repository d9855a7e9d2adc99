"""``t = pl.write(t, indices, value)``: pypto's spelling of a scalar write whose value is the
tensor written, in kernel code (a GM element) and in orchestration code (a host write), under
both runtime kinds."""
import numpy as np
import pytest

import ptokit
import ptokit.language as pl

R, C = 8, 16
RUNTIMES = ["tensormap_and_ringbuffer", "host_build_graph"]


@pl.program
class WriteRebinds:
    @pl.function(type=pl.FunctionType.InCore)
    def fill(self, vals: pl.Tensor[[R], pl.FP32], table: pl.InOut[pl.Tensor[[R, C], pl.FP32]]):
        for k in pl.unroll(2):
            for t in pl.unroll(R):
                v: pl.Scalar[pl.FP32] = pl.read(vals, [t])
                table = pl.write(table, [t, k], v + k)
        return table

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, vals: pl.Tensor[[R], pl.FP32], table: pl.InOut[pl.Tensor[[R, C], pl.FP32]]):
        table = self.fill(vals, table)
        table = pl.write(table, [0, C - 1], 7.0)
        return table


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_write_bound_to_its_own_tensor(tmp_path, runtime):
    vals = np.arange(R, dtype=np.float32) * 0.5
    table = np.full((R, C), -1.0, np.float32)
    ptokit.compile(WriteRebinds, output_dir=tmp_path / "out", runtime=runtime)(vals, table)
    want = np.full((R, C), -1.0, np.float32)
    want[:, 0], want[:, 1] = vals, vals + 1
    want[0, C - 1] = 7.0
    np.testing.assert_array_equal(table, want)
