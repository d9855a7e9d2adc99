"""ptoas 0.27 has no lowering for arith.addf (its C++ pass stops with "failed to legalize operation
'arith.addf'"): under ptoas_compat="0.27" PTO codegen writes a scalar float sum as x - (-y), the same
bits; pypto HEAD's mode keeps arith.addf."""
import numpy as np

import ptokit
import ptokit.language as pl


@pl.program
class ScalarSum:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], s: pl.Scalar[pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        t = pl.load(a, [0, 0], [16, 64])
        y = pl.store(pl.add(t, s + 0.25), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 64], pl.FP32], s: pl.Scalar[pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        y = self.k(a, s, y)
        return y


def _pto(out):
    return "".join(p.read_text() for p in sorted((out / "ptoas").glob("*.pto")))


def test_a_scalar_float_sum_is_written_without_addf_for_027(tmp_path):
    head = ptokit.compile(ScalarSum, output_dir=tmp_path / "head")
    assert "arith.addf" in _pto(tmp_path / "head")
    old = ptokit.compile(ScalarSum, output_dir=tmp_path / "027", ptoas_compat="0.27")
    text = _pto(tmp_path / "027")
    assert "arith.addf" not in text and "arith.negf" in text and "arith.subf" in text
    a = np.random.default_rng(5).standard_normal((16, 64)).astype(np.float32)
    for prog in (head, old):
        y = np.zeros_like(a)
        prog(a, np.float32(-0.25), y)
        assert np.array_equal(y, a + (np.float32(-0.25) + np.float32(0.25)))
