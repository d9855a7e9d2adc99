"""FoldAccStoreCasts: a product narrowed to FP16 / BF16 only to be stored is stored from the f32 accumulator
(pypto HEAD's form; ptoas's verifier refuses a tstore from an f16 / bf16 Acc tile). Numbers: the e2e tests
of out_dtype (tests/e2e/test_matmul_out_dtype.py)."""
import re

import ptokit
import ptokit.language as pl
from ptokit.passes.manager import PIPELINE

M, K, N = 32, 64, 48


@pl.program
class Narrowed:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[M, K], pl.FP16], b: pl.Tensor[[K, N], pl.FP16],
          y16: pl.Out[pl.Tensor[[M, N], pl.FP16]], ybf: pl.Out[pl.Tensor[[M, N], pl.BF16]]):
        left = pl.move(pl.load(a, [0, 0], [M, K], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        right = pl.move(pl.load(b, [0, 0], [K, N], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        y16 = pl.store(pl.matmul(left, right, out_dtype=pl.FP16), [0, 0], y16)
        ybf = pl.store(pl.matmul(left, right, out_dtype=pl.BF16), [0, 0], ybf)
        return y16, ybf

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[M, K], pl.FP16], b: pl.Tensor[[K, N], pl.FP16],
             y16: pl.Out[pl.Tensor[[M, N], pl.FP16]], ybf: pl.Out[pl.Tensor[[M, N], pl.BF16]]):
        y16, ybf = self.k(a, b, y16, ybf)
        return y16, ybf


def _pto(out):
    return "".join(p.read_text() for p in (out / "ptoas").glob("*.pto"))


def test_the_store_takes_the_f32_accumulator(tmp_path):
    text = _pto(ptokit.compile(Narrowed, output_dir=tmp_path / "head").output_dir)
    assert "pto.tcvt" not in text
    assert not re.search(r"loc=acc, dtype=(f16|bf16)", text), "no f16 / bf16 Acc tile is written"
    for view in ("32x48xf16", "32x48xbf16"):
        assert re.search(r"pto\.tstore ins\(%\w+ : !pto\.tile_buf<loc=acc, dtype=f32,[^>]*>\) outs\(%\w+ : "
                         r"!pto\.partition_tensor_view<" + view + r">\)", text), view


def test_ptoas_027_form_compiles_under_compat(tmp_path):
    """Before the fold the f16 Acc store was refused under the option ('acc tstore src element type')."""
    out = ptokit.compile(Narrowed, output_dir=tmp_path / "compat", ptoas_compat="0.27").output_dir
    assert "loc=acc, dtype=f32" in _pto(out)


def test_the_pass_runs_before_memory_planning():
    names = [p.name for p in PIPELINE]
    assert names.index("InferTileMemorySpace") < names.index("FoldAccStoreCasts") < names.index("PlanMemory")
