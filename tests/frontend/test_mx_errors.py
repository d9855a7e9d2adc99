"""Every rule of the a5 MX matmul family (pypto-parity.md D), broken once: a located error (the line,
a caret under the argument at fault) saying what was wrong and what was expected; the a5-only rule
when compiling for a2a3; and the annotation rules of the MX scale layouts."""
import pytest

import ptokit
from ptokit.errors import CompileError

from .test_cube_ops_errors import _module, check_located_line

PRELUDE = """\
import ptokit.language as pl


@pl.program
class Bad:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[32, 128], pl.FP8E4M3FN], sa: pl.Tensor[[32, 4], pl.FP8E8M0, pl.MX_A_ZZ],
          b: pl.Tensor[[128, 64], pl.FP8E4M3FN], sb: pl.Tensor[[4, 64], pl.FP8E8M0, pl.MX_B_NN],
          a5: pl.Tensor[[32, 128], pl.FP8E5M2], a16: pl.Tensor[[32, 128], pl.FP16], s8: pl.Tensor[[32, 4], pl.UINT8],
          a96: pl.Tensor[[32, 96], pl.FP8E4M3FN], b40: pl.Tensor[[128, 40], pl.FP8E4M3FN],
          bias: pl.Tensor[[1, 64], pl.FP32],
          y: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
        l = pl.move(pl.load(a, [0, 0], [32, 128], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        r = pl.move(pl.load(b, [0, 0], [128, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        ls = pl.move(pl.load(sa, [0, 0], [32, 4], target_memory=pl.Mem.Mat), target_memory=pl.Mem.LeftScale)
        rs = pl.move(pl.load(sb, [0, 0], [4, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.RightScale)
        l5 = pl.move(pl.load(a5, [0, 0], [32, 128], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        l16 = pl.move(pl.load(a16, [0, 0], [32, 128], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        l96 = pl.move(pl.load(a96, [0, 0], [32, 96], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        r40 = pl.move(pl.load(b40, [0, 0], [128, 40], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        l16r = pl.move(pl.load(a, [0, 0], [16, 128], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        ls16 = pl.move(pl.load(sa, [0, 0], [16, 4], target_memory=pl.Mem.Mat), target_memory=pl.Mem.LeftScale)
        acc = pl.matmul_mx(l, ls, r, rs)
        br = pl.move(pl.load(bias, [0, 0], [1, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Bias)
"""

CASES = [
    ("x = pl.matmul_mx(l5, ls, r, rs)", "requires lhs of dtype FP8E4M3FN, but got pl.FP8E5M2 (FP8E5M2 data is not "
     "an MX operand", "l5,"),
    ("x = pl.matmul_mx(l, ls, l16, rs)", "requires rhs in Right, but got a Left tile", "l16,"),
    ("x = pl.matmul_mx(l16, ls, r, rs)", "requires lhs of dtype FP8E4M3FN, but got pl.FP16", "l16,"),
    ("x = pl.matmul_mx(l96, ls, r, rs)", "lhs columns to equal rhs rows", "pl.matmul_mx"),
    ("x = pl.matmul_mx(l, ls, r40, rs)", "requires N to be a multiple of 32 (the a5 MX cube), but N = 40", "r40,"),
    ("x = pl.matmul_mx(l, rs, r, rs)", "requires lhs_scale in LeftScale (pl.move the loaded scales there), but got "
     "a RightScale tile", "rs, r"),
    ("x = pl.matmul_mx(l, ls16, r, rs)", "requires lhs_scale of shape [32, 4] (one scale per 32 of K), but got "
     "[16, 4]", "ls16,"),
    ("x = pl.matmul_mx(l16r, ls16, r, ls)", "requires rhs_scale in RightScale", "ls)"),
    ("x = pl.matmul_mx(l, l, r, rs)", "requires lhs_scale of dtype FP8E8M0", "l, r"),
    ("x = pl.matmul_mx_acc(l, l, ls, r, rs)", "tile.matmul_mx_acc requires an Acc tile [32, 64] pl.FP32", "l, l"),
    ("x = pl.matmul_mx_bias(l, ls, r, rs, pl.load(bias, [0, 0], [1, 64]))", "requires the bias in Bias",
     "pl.load(bias"),
    ("x = pl.move(pl.load(s8, [0, 0], [32, 4], target_memory=pl.Mem.Mat), target_memory=pl.Mem.LeftScale)",
     "tile.move to pl.Mem.LeftScale moves FP8E8M0 scales, but got a pl.UINT8 tile", "pl.move"),
    ("x = pl.move(pl.load(sb, [0, 0], [4, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.LeftScale)",
     "takes scales loaded from a pl.MX_A_ZZ tensor", "pl.move"),
    ("x = pl.load(sa, [0, 0], [32, 4])", "a load of MX scales (pl.MX_A_ZZ) must say target_memory=pl.Mem.Mat",
     "pl.load"),
    ("x = pl.load(sa, [8, 0], [16, 4], target_memory=pl.Mem.Mat)", "reads whole 16 x 2 boxes", "[8, 0]"),
    ("x = pl.load(sb, [0, 0], [4, 40], target_memory=pl.Mem.Mat)", "reads whole 2 x 16 boxes", "[4, 40]"),
]


@pytest.mark.parametrize("line,message,caret", CASES, ids=[c[0][4:48] for c in CASES])
def test_located_mx_rule_error(tmp_path, line, message, caret):
    check_located_line(tmp_path, PRELUDE, line, message, caret, "bad_mx_")


ANNOT_CASES = [
    ("pl.Tensor[[32, 4], pl.UINT8, pl.MX_A_ZZ]", "must hold pl.FP8E8M0, but it is pl.UINT8"),
    ("pl.Tensor[[24, 4], pl.FP8E8M0, pl.MX_A_ZZ]", "stored in 16 x 2 boxes, so its rows must be a multiple of 16"),
    ("pl.Tensor[[4, 24], pl.FP8E8M0, pl.MX_B_NN]", "so its columns must be a multiple of 16"),
    ("pl.Tensor[[32, 4], pl.FP16, pl.DN]", "tensors in the pl.DN layout are not supported"),
    ("pl.Tensor[[32, 4], pl.FP4E2M1X2]", "tensors of pl.FP4E2M1X2 are not supported: it is a packed pair"),
]


@pytest.mark.parametrize("annot,message", ANNOT_CASES, ids=[c[0] for c in ANNOT_CASES])
def test_located_scale_annotation_error(tmp_path, annot, message):
    text = ("import ptokit.language as pl\n\n\n@pl.program\nclass Bad:\n"
            "    @pl.function(type=pl.FunctionType.InCore)\n"
            f"    def k(self, s: {annot}, y: pl.Out[pl.Tensor[[1, 64], pl.FP32]]):\n        return y\n")
    mod, path = _module(tmp_path, text, "bad_mxa_")
    with pytest.raises(CompileError) as info:
        mod.Bad.ir
    err = info.value
    assert message in str(err), str(err)
    assert err.loc is not None and err.loc.file == str(path) and err.loc.line == 7, err.loc


def test_mx_matmul_is_a5_only(tmp_path):
    """Compiled for a2a3, the scale move is refused at its line (LeftScale exists on a5 only)."""
    from tests.e2e import mx_programs as mp
    with pytest.raises(CompileError) as info:
        ptokit.compile(mp.MxFamily, output_dir=tmp_path / "out", platform="a2a3sim")
    err = info.value
    assert "the MX scale buffers exist on a5 only" in str(err) or "exists on the a5 chip family only" in str(err)
    assert err.loc is not None and err.loc.file.endswith("mx_programs.py"), err.loc
