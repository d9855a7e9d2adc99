"""Every rule of the cube op set (pypto-parity.md D), broken once: a located error (the line, a caret
under the argument at fault) saying what was wrong and what was expected; and the Bias buffer's
capacity with the numbers."""
import hashlib
import importlib.util
import sys

import numpy as np
import pytest

import ptokit
from ptokit.errors import CompileError

PRELUDE = """\
import ptokit.language as pl


@pl.program
class Bad:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[32, 64], pl.FP16], b: pl.Tensor[[64, 48], pl.FP16], bias: pl.Tensor[[1, 48], pl.FP32],
          bias16: pl.Tensor[[1, 48], pl.FP16], a8: pl.Tensor[[32, 64], pl.INT8], n: pl.Scalar[pl.INDEX],
          a3: pl.Tensor[[3, 32, 64], pl.FP16], b2x: pl.Tensor[[2, 64, 48], pl.FP16], big: pl.Tensor[[65, 16, 16], pl.FP16],
          tab: pl.Tensor[[1, 8], pl.INT32], a38: pl.Tensor[[3, 32, 64], pl.INT8], b8: pl.Tensor[[64, 48], pl.INT8],
          y: pl.Out[pl.Tensor[[32, 48], pl.FP32]]):
        l = pl.move(pl.load(a, [0, 0], [32, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        r = pl.move(pl.load(b, [0, 0], [64, 48], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        l8 = pl.move(pl.load(a8, [0, 0], [32, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        v = pl.move(pl.load(a, [0, 0], [1, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        bm = pl.load(bias, [0, 0], [1, 48], target_memory=pl.Mem.Mat)
        br = pl.move(bm, target_memory=pl.Mem.Bias)
        b16 = pl.move(pl.load(bias16, [0, 0], [1, 48], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Bias)
        b32 = pl.move(pl.load(bias, [0, 0], [1, 32], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Bias)
        acc = pl.matmul(l, r)
        kv = pl.create_l1([16, 64], pl.FP16)
        vt = pl.load(a, [0, 0], [16, 64])
"""

# (the erroneous statement, a fragment of the message, the text the caret points at)
CASES = [
    ("x = pl.matmul(l, r, b_trans=True)", "b_trans=True is not supported for tile operands", "True)"),
    ("x = pl.matmul(l, r, a_trans=True)", "pl.tile.transpose_view(mat_tile)", "True)"),
    ("x = pl.matmul(l, r, c_matrix_nz=True)", "c_matrix_nz=True is not supported", "True)"),
    ("x = pl.matmul(l, r, out_dtype=pl.INT8)", "out_dtype must be pl.FP32, pl.FP16 or pl.BF16 (pl.INT32 for INT8 "
     "inputs), but got pl.INT8", "pl.INT8)"),
    ("x = pl.matmul(l, r, pl.INT32)", "out_dtype=pl.INT32 does not fit the pl.FP32 accumulator", "pl.INT32)"),
    ("x = pl.matmul(a8, a8, b_trans=True, out_dtype=pl.FP16)", "out_dtype=pl.FP16 does not fit the pl.INT32 "
     "accumulator", "pl.FP16)"),
    ("x = pl.matmul(r, r)", "tile.matmul requires lhs in Left, but got a Right tile", "r,"),
    ("x = pl.matmul_acc(acc, l, r, a_trans=True)", "pl.matmul_acc: a_trans=True is not supported", "True)"),
    ("x = pl.matmul_acc(acc, l, r, init_cond=n)", "init_cond must be a BOOL scalar (such as k == 0)", "n)"),
    ("x = pl.matmul_acc(acc, l, r, init_cond=1.5)", "init_cond must be a BOOL scalar", "1.5)"),
    ("x = pl.matmul_acc(pl.matmul(v, r), l, r)", "tile.matmul_acc requires an Acc tile [32, 48] pl.FP32", "pl.matmul(v"),
    ("x = pl.matmul_bias(l, r, pl.load(bias, [0, 0], [1, 48]))", "requires the bias in Bias (a Mat tile is moved "
     "there), but got a Vec tile", "pl.load(bias"),
    ("x = pl.matmul_bias(l, r, b16)", "requires a pl.FP32 bias (the accumulator's dtype), but got pl.FP16", "b16)"),
    ("x = pl.matmul_bias(l, r, b32)", "tile.matmul_bias requires a bias row [1, 48], but got [1, 32]", "b32)"),
    ("x = pl.matmul_bias(l8, r, br)", "requires both inputs of one dtype among FP16, BF16, FP32, INT8", "pl.matmul_bias"),
    ("x = pl.tile.gemv(l, r)", "tile.gemv requires a one-row lhs [1, K], but got [32, 64]", "l,"),
    ("x = pl.tile.gemv(v, r, acc_phase=\"middle\")", "acc_phase must be one of 'unspecified', 'partial', 'final'",
     "\"middle\")"),
    ("x = pl.tile.gemv_acc(acc, v, r)", "tile.gemv_acc requires an Acc tile [16, 48] (or [1, 48]) pl.FP32", "acc,"),
    ("x = pl.tile.gemv_acc(pl.tile.gemv(v, r), v, r, init_cond=n)", "gemv_acc init_cond must be a BOOL scalar", "n)"),
    ("x = pl.batch_matmul(a3, b2x)", "batch dimensions [3] and [2] do not broadcast (each must match or be 1)",
     "pl.batch_matmul"),
    ("x = pl.matmul(a3, a3)", "tile.matmul requires lhs columns to equal rhs rows, but got [32, 64] and [32, 64]",
     "pl.matmul"),
    ("x = pl.batch_matmul(big, big)", "65 batches are unrolled one matmul each; at most 64", "pl.batch_matmul"),
    ("x = pl.batch_matmul(a3, b2x, b_trans=True)", "pl.batch_matmul has no parameter 'b_trans'", "True)"),
    ("x = pl.batch_matmul(pl.load(a3, [0, 0, 0], [3, 32, 64]), r)",
     "takes each N-D operand as loaded into Mat", "pl.load(a3"),
    ("x = pl.batch_matmul(pl.load(a3, [0, 0, 0], [3, 32, 64], target_memory=pl.Mem.Mat), "
     "pl.load(b2x, [0, 0, 0], [2, 64, 48], target_memory=pl.Mem.Mat))",
     "batch dimensions [3] and [2] do not broadcast", "pl.batch_matmul"),
    ("x = pl.batch_matmul_acc(pl.batch_matmul(a3, b), pl.load(a3, [0, 0, 0], [3, 32, 64], "
     "target_memory=pl.Mem.Mat), r)", "tile.batch_matmul_acc of N-D tiles is not supported", "pl.load(a3"),
    ("x = pl.transpose(pl.load(a3, [0, 0, 0], [3, 32, 64]), axis1=0, axis2=2)",
     "moves a batch axis, which a tile cannot", "0, axis2"),
    ("x = pl.batch_matmul_acc(acc, a3, b)", "the broadcast batch [3] of [32, 48] pl.FP32 products needs an Acc "
     "tile [96, 48] (batch_matmul's layout: 3 batch(es) of [32, 48] rows) of pl.FP32, but acc is", "acc,"),
    ("x = pl.batch_matmul_acc(pl.batch_matmul(a3, b), a3, b2x)", "batch dimensions [3] and [2] do not broadcast",
     "pl.batch_matmul_acc"),
    ("x = pl.batch_matmul_acc(pl.batch_matmul(a3, b), a3, a3)", "pl.batch_matmul_acc requires lhs columns to "
     "equal rhs rows, but got [32, 64] and [32, 64] per batch", "pl.batch_matmul_acc"),
    ("x = pl.batch_matmul_acc(pl.batch_matmul(a3, b), a3, b, init_cond=n)", "pl.batch_matmul_acc init_cond must "
     "be a BOOL scalar (such as k == 0)", "n)"),
    ("x = pl.tile.batch_matmul_acc(pl.batch_matmul(a3, b), a3, b, 2.0)", "init_cond must be a BOOL scalar", "2.0)"),
    ("x = pl.batch_matmul_acc(kv, a3, b)", "pl.batch_matmul_acc accumulates into an Acc tile [96, 48]", "kv,"),
    ("x = pl.matmul_acc(pl.batch_matmul(a3, b), a38, b8)", "needs an Acc tile [96, 48] (batch_matmul's layout: 3 "
     "batch(es) of [32, 48] rows) of pl.INT32, but acc is", "pl.batch_matmul(a3, b)"),
    ("x = pl.tile.batch_matmul_acc(pl.matmul(v, r), l, r)", "tile.batch_matmul_acc requires an Acc tile [32, 48]",
     "pl.matmul(v"),
    ("x = pl.batch_matmul_acc(acc, l, r, init_cond=n)", "batch_matmul_acc init_cond must be a BOOL scalar", "n)"),
    ("x = pl.gather_row(l, a, [0, 0], [0, 0], [1, 64])", "pl.gather_row writes into an L1 tile (pl.create_l1) or a "
     "Vec tile", "l,"),
    ("x = pl.gather_row(kv, vt, [0, 0], [0, 0], [1, 64])", "pl.gather_row reads a tensor in global memory", "vt,"),
    ("x = pl.gather_row(kv, a, [0, 0], [0, 0], [64])", "must give one extent per dimension of the 2-D src", "[64])"),
    ("x = pl.gather_row(kv, a, [0], [0, 0], [1, 64])", "dst_offset must be [row, col] in acc", "[0],"),
    ("x = pl.gather_row(kv, a, [16, 0], [0, 0], [1, 64])", "tile.assemble of a [1, 64] tile at offset [16, 0] exceeds",
     "pl.gather_row"),
    ("x = pl.gather_row(kv, bias, [0, 0], [0, 0], [1, 48])", "tile.assemble requires matching dtypes, but got "
     "pl.FP16 and pl.FP32", "pl.gather_row"),
    ("x = pl.create_l1([16, 64, 2], pl.FP16)", "tile.create_tile requires a static 2-D shape", "[16, 64, 2]"),
    ("x = pl.matmul(l, pl.create_tile([64, 48], pl.FP16, pl.Mem.Mat, flat_layout=True), b_trans=True)",
     "of a flat (slayout=none_box) Mat tile", "pl.create_tile"),
    ("x = pl.paged_gather(a, tab, tab, 4, 64, 8, space=pl.Mem.Left)", "space must be pl.Mem.Mat or pl.Mem.Vec",
     "pl.Mem.Left)"),
    ("x = pl.paged_gather(a, tab, tab, 4, 64, 8, space=pl.Mem.Vec, is_trans=True)", "it needs space=pl.Mem.Mat",
     "True)"),
    ("x = pl.paged_gather(a, bias, tab, 4, 64, 8)", "indices must be one row of INT32 (or INT64) entries", "bias,"),
    ("x = pl.paged_gather(a, tab, a, 4, 64, 8)", "block_table must be one row of INT32", "a, 4"),
    ("x = pl.paged_gather(a[0:16, :], tab, tab, 4, 64, 8)", "src must be a tensor parameter", "a[0:16"),
    ("x = pl.paged_gather(a, tab, tab, 4, 64, 0)", "max_indices must be positive, but got 0", "0)"),
    ("x = pl.tile.gemv_bias(v, r, b32)", "tile.gemv_bias requires a bias row [1, 48], but got [1, 32]", "b32)"),
    # valid regions (issue 13): the cube reads K from the Left tile's valid columns, M from its valid rows
    ("x = pl.matmul(l, pl.move(pl.load(b, [0, 0], [64, 48], valid_shape=[32, 48], target_memory=pl.Mem.Mat), "
     "target_memory=pl.Mem.Right))", "tile.matmul requires the rhs valid rows to cover the lhs valid columns (K), "
     "but lhs has valid region [32, 64] and rhs [32, 48]", "pl.move(pl.load(b"),
    ("x = pl.matmul_acc(pl.matmul(pl.move(pl.load(a, [0, 0], [32, 64], valid_shape=[16, 64], "
     "target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left), r), l, r)", "tile.matmul_acc: the accumulator's "
     "valid region [16, 48] does not cover the product's [32, 48]", "pl.matmul(pl.move"),
    ("x = pl.matmul(pl.move(pl.load(a, [0, 0], [32, 64], valid_shape=[0, 64], target_memory=pl.Mem.Mat), "
     "target_memory=pl.Mem.Left), r)", "tile.matmul: the lhs has no valid rows (M); the cube multiplies 1..4095 "
     "of each", "pl.move(pl.load(a"),
    ("x = pl.matmul_bias(l, r, pl.move(pl.load(bias, [0, 0], [1, 48], valid_shape=[1, 32], "
     "target_memory=pl.Mem.Mat), target_memory=pl.Mem.Bias))", "tile.matmul_bias requires the bias's valid region "
     "to cover one row of the product's 48 valid columns, but it is [1, 32]", "pl.move(pl.load(bias"),
]


def _module(tmp_path, text: str, stem: str):
    name = stem + hashlib.sha256(text.encode()).hexdigest()[:12]
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod, path


def check_located_line(tmp_path, prelude, line, message, caret, stem):
    """``line`` appended to the kernel of ``prelude`` (a program ``Bad``) fails to build with a located
    error carrying ``message``, its caret under ``caret``."""
    text = prelude + f"        {line}\n        return y\n"
    mod, path = _module(tmp_path, text, stem)
    with pytest.raises(CompileError) as info:
        mod.Bad.ir
    err = info.value
    assert message in str(err), str(err)
    assert err.loc is not None and err.loc.file == str(path) and err.loc.line == text.count("\n") - 1, err.loc
    assert line in str(err).splitlines()[1]
    assert err.loc.col == len("        ") + line.index(caret) + 1, (err.loc.col, str(err))


@pytest.mark.parametrize("line,message,caret", CASES, ids=[c[0][4:48] for c in CASES])
def test_located_rule_error(tmp_path, line, message, caret):
    check_located_line(tmp_path, PRELUDE, line, message, caret, "bad_cube_")


BIAS_OVERFLOW = """\
import ptokit.language as pl


@pl.program
class BiasOverflow:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 512], pl.FP16], bias: pl.Tensor[[1, 512], pl.FP32],
          y: pl.Out[pl.Tensor[[16, 512], pl.FP32]]):
        y = pl.store(pl.matmul_bias(a, b, bias), [0, 0], y)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 512], pl.FP16],
             bias: pl.Tensor[[1, 512], pl.FP32], y: pl.Out[pl.Tensor[[16, 512], pl.FP32]]):
        y = self.k(a, b, bias, y)
        return y
"""


@pytest.mark.parametrize("platform,fits", [("a2a3sim", False), ("a5sim", True)])
def test_bias_capacity_has_the_numbers(tmp_path, platform, fits):
    mod, _ = _module(tmp_path, BIAS_OVERFLOW, "bias_overflow_")
    if fits:       # 2048 bytes: over a2a3's 1024-byte Bias buffer, inside a5's 4096 (and right there)
        rng = np.random.default_rng(0)
        a, b = (rng.standard_normal(s).astype(np.float16) for s in ((16, 16), (16, 512)))
        bias, y = rng.standard_normal((1, 512)).astype(np.float32), np.zeros((16, 512), np.float32)
        ptokit.compile(mod.BiasOverflow, output_dir=tmp_path / "out", platform=platform)(a, b, bias, y)
        ref = a.astype(np.float64) @ b.astype(np.float64) + bias
        np.testing.assert_allclose(y, ref, rtol=1e-3, atol=1e-3 * np.abs(ref).max())
        return
    with pytest.raises(CompileError) as info:
        ptokit.compile(mod.BiasOverflow, output_dir=tmp_path / "out", platform=platform)
    err = str(info.value)
    assert "Bias" in err and "2048" in err and "1024" in err, err
    assert info.value.loc.line == 9
