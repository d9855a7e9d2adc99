"""The 4-bit dtypes' rules, each broken once: a located error saying what was wrong and what to do
(arithmetic on a 4-bit tile needs a pl.cast first; an FP4 MX lhs must be cast to FP8E4M3FN; the
packed and HiFloat names hold no values)."""
import pytest

from ptokit.errors import CompileError

from .test_cube_ops_errors import _module, check_located_line

PRELUDE = """\
import ptokit.language as pl


@pl.program
class Bad:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP4], i: pl.Tensor[[16, 64], pl.INT4],
          u: pl.Tensor[[16, 64], pl.UINT4], sa: pl.Tensor[[16, 2], pl.FP8E8M0, pl.MX_A_ZZ],
          b: pl.Tensor[[64, 32], pl.FP8E4M3FN], sb: pl.Tensor[[2, 32], pl.FP8E8M0, pl.MX_B_NN],
          y: pl.Out[pl.Tensor[[16, 32], pl.FP32]]):
        t = pl.load(a, [0, 0], [16, 64])
        ti = pl.load(i, [0, 0], [16, 64])
        tu = pl.load(u, [0, 0], [16, 64])
        r = pl.move(pl.load(b, [0, 0], [64, 32], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        ls = pl.move(pl.load(sa, [0, 0], [16, 2], target_memory=pl.Mem.Mat), target_memory=pl.Mem.LeftScale)
        rs = pl.move(pl.load(sb, [0, 0], [2, 32], target_memory=pl.Mem.Mat), target_memory=pl.Mem.RightScale)
"""

CASES = [
    ("x = pl.add(t, t)", "add has no pl.FP4 form: the hardware computes nothing on 4-bit values", "pl.add"),
    ("x = pl.mul(ti, ti)", "mul has no pl.INT4 form", "pl.mul"),
    ("x = pl.sub(tu, tu)", "sub has no pl.UINT4 form", "pl.sub"),
    ("x = pl.exp(t)", "exp has no pl.FP4 form", "pl.exp"),
    ("x = pl.matmul_mx(pl.move(pl.load(a, [0, 0], [16, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left), "
     "ls, r, rs)", "an FP4 lhs must be cast to FP8E4M3FN first (pl.cast(t, pl.FP8E4M3FN))", "pl.move"),
]


@pytest.mark.parametrize("line,message,caret", CASES, ids=[c[0][4:40] for c in CASES])
def test_located_4bit_rule_error(tmp_path, line, message, caret):
    check_located_line(tmp_path, PRELUDE, line, message, caret, "bad_fp4_")


@pytest.mark.parametrize("name,why", [("FP4E2M1X2", "it is a packed pair of E2M1 values"),
                                      ("FP4E1M2", "ml_dtypes has no E1M2"), ("HF4", "HiFloat")])
def test_unsupported_4bit_names_are_located(tmp_path, name, why):
    text = ("import ptokit.language as pl\n\n\n@pl.program\nclass Bad:\n"
            "    @pl.function(type=pl.FunctionType.InCore)\n"
            f"    def k(self, s: pl.Tensor[[1, 64], pl.{name}], y: pl.Out[pl.Tensor[[1, 64], pl.FP32]]):\n"
            "        return y\n")
    mod, path = _module(tmp_path, text, "bad_fp4a_")
    with pytest.raises(CompileError) as info:
        mod.Bad.ir
    err = info.value
    assert f"tensors of pl.{name} are not supported: " in str(err) and why in str(err), str(err)
    assert err.loc is not None and err.loc.file == str(path) and err.loc.line == 7, err.loc


def test_4bit_scalars_are_located(tmp_path):
    text = ("import ptokit.language as pl\n\n\n@pl.program\nclass Bad:\n"
            "    @pl.function(type=pl.FunctionType.InCore)\n"
            "    def k(self, s: pl.Scalar[pl.INT4], y: pl.Out[pl.Tensor[[1, 64], pl.FP32]]):\n"
            "        return y\n")
    mod, path = _module(tmp_path, text, "bad_fp4s_")
    with pytest.raises(CompileError) as info:
        mod.Bad.ir
    err = info.value
    assert "scalars of pl.INT4 do not exist: 4-bit values live in tensors and tiles" in str(err), str(err)
    assert err.loc is not None and err.loc.file == str(path) and err.loc.line == 7, err.loc


def test_torch_packed_fp4_is_refused():
    """torch's float4_e2m1fn_x2 packs two values a byte; the message says how to pass unpacked codes."""
    import types

    from ptokit.errors import UserError
    from ptokit.runtime.arrays import array_info
    fake = types.SimpleNamespace(dtype="torch.float4_e2m1fn_x2", shape=(16, 32), device=types.SimpleNamespace(type="cpu"))
    fake = type("Tensor", (), {"__module__": "torch", "dtype": fake.dtype, "shape": fake.shape, "device": fake.device})()
    with pytest.raises(UserError, match="packs two FP4 values a byte.*torch.uint8"):
        array_info(fake, "argument 0 (a)")


def test_4bit_dtype_facts():
    import ptokit.language as pl
    for d in (pl.FP4, pl.FP4E2M1, pl.INT4, pl.UINT4, pl.FP4E1M2, pl.FP4E2M1X2, pl.HF4):
        assert d.get_byte() == 1
    assert pl.FP4.is_float and pl.FP4E2M1.is_float and pl.INT4.is_int and pl.UINT4.is_unsigned
    assert not pl.INT4.is_unsigned
    assert pl.FP4.mlir == pl.FP4E2M1.mlir == "f4E2M1FN" and pl.INT4.mlir == "i4" and pl.UINT4.mlir == "ui4"
