"""Every rule of the compare / bitwise / arith / arg-reduce / generate families and of the
parameters pypto gives existing ops, broken once: a located error (the line, a caret under the
argument at fault) saying what was wrong and what was expected."""
import hashlib
import importlib.util
import sys

import pytest

from ptokit.errors import CompileError

PRELUDE = """\
import math

import ptokit.language as pl


@pl.program
class Bad:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], a16: pl.Tensor[[16, 64], pl.FP16],
          ai: pl.Tensor[[16, 64], pl.INT32], ai16: pl.Tensor[[16, 64], pl.INT16],
          au8: pl.Tensor[[16, 64], pl.UINT8], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
          yu8: pl.Out[pl.Tensor[[16, 64], pl.UINT8]]):
        f = pl.load(a, [0, 0], [16, 64])
        small = pl.load(a, [0, 0], [8, 64])
        h = pl.load(a16, [0, 0], [16, 64])
        i = pl.load(ai, [0, 0], [16, 64])
        smalli = pl.load(ai, [0, 0], [8, 64])
        s16 = pl.load(ai16, [0, 0], [16, 64])
        u8 = pl.load(au8, [0, 0], [16, 64])
        fm = pl.load(a, [0, 0], [16, 64], target_memory=pl.Mem.Mat)
        rows8 = pl.load(a, [0, 0], [16, 64], valid_shape=[8, 64])
        cols32 = pl.load(a, [0, 0], [16, 64], valid_shape=[16, 32])
        m = pl.cmp(f, f)
        m8 = pl.tile.create_tile([1, 32], dtype=pl.UINT8)
        t = pl.tile.create_tile([16, 64], dtype=pl.FP32)
"""

# (the erroneous statement, a fragment of the message, the text the caret points at)
CASES = [
    ("x = pl.cmp(f, h)", "tile.cmp requires matching dtypes, but got pl.FP32 and pl.FP16", "h)"),
    ("x = pl.cmp(f, small)", "tile.cmp requires compatible shapes, but got [16, 64] and [8, 64]", "small)"),
    ("x = pl.cmp(f, f, cmp_type=6)", "requires cmp_type 0..5 (0 eq, 1 ne, 2 lt, 3 le, 4 gt, 5 ge), but got 6", "6)"),
    ("x = pl.tile.cmps(f, f)", "tile.cmps requires a scalar rhs", "f)"),
    ("x = pl.tile.sel(f, f, f, m8)", "tile.sel requires a UINT8 mask tile of at least [16, 8]", "f, f, f"),
    ("x = pl.tile.sel(m, u8, u8, m8)", "tile.sel requires a tile of dtype FP16, BF16, FP32, INT16, INT32, UINT16 or UINT32, but got pl.UINT8",
     "u8, u8"),
    ("x = pl.tile.sel(m, fm, fm, m8)", "runs on the vector unit and requires a Vec tile operand, but got a Mat",
     "fm, fm"),
    ("x = pl.tile.sels(m, f, m8, f)", "tile.sels requires a scalar, but got pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec]", "f)"),
    ("x = pl.and_(f, f)", "tile.and_ requires a tile of dtype INT8, INT16, INT32, UINT8, UINT16 or UINT32, but got "
     "pl.FP32", "f, f"),
    ("x = pl.and_(i, s16)", "tile.and_ requires matching dtypes, but got pl.INT32 and pl.INT16", "s16)"),
    ("x = pl.or_(i, smalli)", "tile.or_ requires compatible shapes, but got [16, 64] and [8, 64]", "smalli)"),
    ("x = pl.ands(i, 1.5)", "tile.ands requires an integer scalar rhs", "1.5)"),
    ("x = pl.xor(i, i, f)", "tile.xor requires matching dtypes, but got pl.INT32 and pl.FP32 (scratch)", "f)"),
    ("x = pl.not_(i)", "tile.not_ requires an INT16 or UINT16 tile", "i)"),
    ("x = pl.shl(i, smalli)", "tile.shl requires compatible shapes", "smalli)"),
    ("x = pl.tile.rem(u8, u8, t)", "tile.rem requires a tile of dtype FP16, FP32, INT16 or INT32, but got pl.UINT8", "u8, u8"),
    ("x = pl.fmod(i, i)", "tile.fmod requires a tile of dtype FP16 or FP32, but got pl.INT32", "i, i"),
    ("x = pl.tile.lrelu(i, 0.5)", "tile.lrelu requires a tile of dtype FP16, BF16 or FP32, but got pl.INT32", "i, 0.5"),
    ("x = pl.tile.prelu(f, h, m8)", "tile.prelu requires matching dtypes, but got pl.FP32 and pl.FP16 (slope)",
     "h, m8"),
    ("x = pl.tile.addc(f, f, h)", "tile.addc requires matching dtypes, but got pl.FP32 and pl.FP16", "h)"),
    ("x = pl.tile.addsc(f, f, f)", "tile.addsc requires a scalar rhs", "f, f)"),
    ("x = pl.part_add(rows8, cols32)", "requires one source's valid region to contain the other's, but got "
     "[8, 64] and [16, 32]", "cols32)"),
    ("x = pl.tile.sin(h)", "tile.sin requires an FP32 tile (cast with pl.cast(tile, pl.FP32) first)", "h)"),
    ("x = pl.row_prod(f, small)", "tile.row_prod requires compatible shapes, but got [16, 64] and [8, 64] "
     "(scratch)", "small)"),
    ("x = pl.row_argmax(i, i)", "tile.row_argmax requires a tile of dtype FP16 or FP32, but got pl.INT32", "i, i"),
    ("x = pl.col_argmin(f, h)", "tile.col_argmin requires matching dtypes", "h)"),
    ("x = pl.col_sum(f, small)", "tile.col_sum requires tmp_tile of the input's shape [16, 64]", "small)"),
    ("x = pl.full([16, 64, 2], pl.FP32, 1.0)", "tile.full requires a static 2-D shape", "[16, 64, 2]"),
    ("x = pl.tile.ci(0, [2, 64])", "tile.ci fills one row: it requires a shape [1, N] with N > 1, but got [2, 64]",
     "[2, 64]"),
    ("x = pl.tile.ci(0, [1, 64], dtype=pl.FP32)", "tile.ci requires dtype INT16, INT32, UINT16 or UINT32, but got pl.FP32",
     "pl.FP32)"),
    ("x = pl.tile.tri(0, [16, 64], valid_shape=[17, 64])", "tile.tri valid_shape [17, 64] exceeds the shape",
     "[17, 64]"),
    ("x = pl.random(1, 2, 3, 4, 5, 6, [16, 64], rounds=8)", "tile.random runs 7 or 10 rounds, but got rounds=8",
     "8)"),
    ("x = pl.random(1.5, 2, 3, 4, 5, 6, [16, 64])", "tile.random requires an integer scalar key0", "1.5,"),
    ("x = pl.fillpad_expand(f, [8, 64])", "tile.fillpad_expand destination [8, 64] must not be smaller than the "
     "source [16, 64]", "[8, 64]"),
    ("x = pl.tile.fillpad_inplace(f, pad_value=pl.PadValue.null)", "tile.fillpad_inplace requires "
     "pad_value=pl.PadValue.zero, .max or .min", "pl.PadValue.null"),
    ("x = pl.fillpad(f, pad_value=5)", "pad_value must be pl.PadValue.zero/max/min or one of 0, math.inf, -math.inf",
     "5)"),
    ("x = pl.expands(f, h)", "tile.expands requires a scalar, but got pl.Tile[[16, 64], pl.FP16, pl.Mem.Vec]", "h)"),
    ("x = pl.cast(f, pl.INT32, mode='nearest')", "tile.cast mode must be one of 'none', 'rint', 'round'", "'nearest'"),
    ("x = pl.cast(f, pl.INT32, mode=f)", "must be a rounding-mode name such as \"round\" or its number", "f)"),
    ("x = pl.div(i, i, high_precision=True)", "tile.div supports high_precision only for FP16 or FP32, but got "
     "pl.INT32", "True)"),
    ("x = pl.div(f, 2.0, high_precision=True)", "tile.divs high_precision requires a tile rhs", "True)"),
    ("x = pl.tile.rsqrt(f, small)", "tile.rsqrt requires tmp shaped like the input", "small)"),
    ("yu8 = pl.store(u8, [0, 0], yu8, atomic=pl.AtomicType.Add)", "tile.store atomic=pl.AtomicType.Add supports "
     "FP32, BF16, FP16, INT32, INT16 and INT8 tiles, but got pl.UINT8", "pl.AtomicType.Add)"),
    ("y = pl.store(f, [0, 0], y, atomic=1)", "atomic must be a constant such as pl.AtomicType.Add", "1)"),
    ("x = pl.tile.tri(0, [16, 64], dtype=pl.INT8)", "tile.tri requires dtype FP16, FP32, INT16, INT32, UINT16 or "
     "UINT32, but got pl.INT8", "pl.INT8)"),
    ("x = pl.random(1, 2, 3, 4, 5, 6, [16, 64], dtype=pl.FP32)", "tile.random requires dtype INT32 or UINT32",
     "pl.FP32)"),
    ("x = pl.tile.ci(0.5, [1, 64])", "tile.ci requires an integer scalar start", "0.5,"),
    ("x = pl.full([16, 64], pl.INT64, 1)", "tile.full requires dtype FP16, BF16, FP32, INT8", "pl.INT64,"),
    ("x = pl.expands(fm, 1.0)", "tile.expands runs on the vector unit and requires a Vec tile target", "fm,"),
    ("x = pl.tile.rem(f, f, small)", "tile.rem requires compatible shapes, but got [16, 64] and [8, 64] (scratch)",
     "small)"),
    ("x = pl.tile.sel(m, f, f, fm)", "tile.sel runs on the vector unit and requires a Vec tile scratch", "fm)"),
    ("x = pl.tile.sel(pl.cmp(small, small), f, f, m8)", "tile.sel requires a UINT8 mask tile of at least [16, 8]",
     "pl.cmp(small"),
    ("x = pl.shl(i, f)", "tile.shl requires a tile of dtype INT8, INT16, INT32, UINT8, UINT16 or UINT32, but got "
     "pl.FP32", "f)"),
    ("x = pl.part_add(i, f)", "tile.part_add requires matching dtypes, but got pl.INT32 and pl.FP32", "f)"),
    ("x = pl.col_argmax(f, small)", "tile.col_argmax requires compatible shapes, but got [16, 64] and [8, 64] "
     "(scratch)", "small)"),
    ("x = pl.row_expand_expdif(i, pl.row_sum(i, i))", "tile.row_expand_expdif requires a floating-point tile",
     "i, pl.row_sum"),
    ("x = pl.fillpad_expand(f, [32, 64], pad_value=pl.PadValue.null)", "tile.fillpad_expand requires "
     "pad_value=pl.PadValue.zero", "pl.PadValue.null"),
    ("x = pl.cast(f, pl.INT32, mode=9)", "tile.cast mode must be one of", "9)"),
    ("x = pl.assemble(f, small, [0, 0], atomic=pl.AtomicType.Add)", "tile.assemble atomic=pl.AtomicType.Add adds "
     "into global memory", "pl.AtomicType.Add)"),
]


def test_a_fractional_scalar_for_an_integer_tile_is_refused(tmp_path):
    """Found when PTO codegen types the scalar: the element of the tile it combines with."""
    import ptokit
    text = PRELUDE.replace("        fm = pl.load(a, [0, 0], [16, 64], target_memory=pl.Mem.Mat)\n", "")
    line = "x = pl.tile.sels(pl.cmp(i, i), i, m8, 2.5)"
    orch = """
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 64], pl.FP32], a16: pl.Tensor[[16, 64], pl.FP16],
             ai: pl.Tensor[[16, 64], pl.INT32], ai16: pl.Tensor[[16, 64], pl.INT16],
             au8: pl.Tensor[[16, 64], pl.UINT8], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
             yu8: pl.Out[pl.Tensor[[16, 64], pl.UINT8]]):
        y, yu8 = self.k(a, a16, ai, ai16, au8, y, yu8)
        return y, yu8
"""
    stores = "\n        y = pl.store(f, [0, 0], y)\n        yu8 = pl.store(u8, [0, 0], yu8)"   # the kernel writes its outputs
    prog, path, lineno = _program(tmp_path, line + stores, text, orch)
    with pytest.raises(CompileError) as info:
        ptokit.compile(prog, output_dir=tmp_path / "o")
    assert "pl.sels: 2.5 is not an integer, but this scalar is i32" in str(info.value)
    assert info.value.loc.line == lineno - 3 - orch.count("\n") and line in str(info.value)


def _program(tmp_path, line: str, prelude: str = PRELUDE, suffix: str = ""):
    text = prelude + f"        {line}\n        return y, yu8\n" + suffix
    name = "bad_" + hashlib.sha256(text.encode()).hexdigest()[:12]
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod.Bad, path, text.count("\n")


@pytest.mark.parametrize("line,message,caret", CASES, ids=[c[0][4:40] for c in CASES])
def test_located_rule_error(tmp_path, line, message, caret):
    prog, path, lineno = _program(tmp_path, line)
    with pytest.raises(CompileError) as info:
        prog.ir
    err = info.value
    assert message in str(err), str(err)
    assert err.loc is not None and err.loc.file == str(path) and err.loc.line == lineno - 1, err.loc
    shown = str(err).splitlines()[1]
    assert line in shown
    col = "        ".__len__() + line.index(caret) + 1
    assert err.loc.col == col, (err.loc.col, col, str(err))
