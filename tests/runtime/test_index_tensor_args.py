"""An INDEX tensor parameter (pypto's ``pl.Tensor[[k], pl.INDEX]``, read with ``pl.tensor.read``)
takes an int64 host array: INDEX is held as int64.  Other integer widths are still refused."""
import numpy as np
import pytest

import ptokit
import ptokit.language as pl


@pl.program
class RowsFromTable:
    @pl.function(type=pl.FunctionType.InCore)
    def scaled(self, x: pl.Tensor[[32, 48], pl.FP32], y: pl.Out[pl.Tensor[[32, 48], pl.FP32]],
               r: pl.Scalar[pl.INDEX], c: pl.Scalar[pl.INDEX]) -> pl.Tensor[[32, 48], pl.FP32]:
        t = pl.load(x, [0, 0], [32, 48], valid_shape=[r, c])
        y = pl.store(pl.muls(t, 3.0), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[32, 48], pl.FP32], table: pl.Tensor[[3], pl.INDEX],
             y: pl.Out[pl.Tensor[[32, 48], pl.FP32]]) -> pl.Tensor[[32, 48], pl.FP32]:
        r: pl.Scalar[pl.INDEX] = pl.tensor.read(table, [0])
        c: pl.Scalar[pl.INDEX] = pl.tensor.read(table, [2])
        y = self.scaled(x, y, r, c)
        return y


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    return ptokit.compile(RowsFromTable, output_dir=tmp_path_factory.mktemp("index_table"))


def test_int64_array_feeds_an_index_tensor(compiled):
    x = np.arange(32 * 48, dtype=np.float32).reshape(32, 48) / 7
    y = np.full((32, 48), -1.0, np.float32)
    compiled(x, np.array([20, 99, 17], np.int64), y)
    np.testing.assert_allclose(y[:20, :17], x[:20, :17] * 3.0, rtol=1e-6)


def test_int32_array_for_an_index_tensor_is_refused(compiled):
    x = np.zeros((32, 48), np.float32)
    with pytest.raises(TypeError, match=r"table.*INDEX"):
        compiled(x, np.array([1, 2, 3], np.int32), np.zeros_like(x))
