"""Remainders, fmod, leaky / parametric relu, three-operand sums, partial ops and maximums/minimums
against numpy for every dtype each takes, on a partial valid region; integer edge values (min, max,
-1, 0) check that arithmetic wraps and that a remainder by 0 or -1 is 0."""
import numpy as np
import pytest

from . import vecgen as V
from .vecgen import Op

FLOATS = ("FP32", "FP16", "BF16")
REM = ("FP32", "FP16", "INT32", "INT16")
FMOD = ("FP32", "FP16")
SUMS = FLOATS + ("INT32", "INT16", "INT8")
ALL = FLOATS + ("INT32", "INT16", "INT8", "UINT32", "UINT16", "UINT8")
# tile-and-scalar maximum / minimum (pto.tmaxs / tmins) on a2a3: 32- and 16-bit integers, f16, f32 (the
# real assembler's rule; BF16 and 8-bit tiles are refused, test_scalar_minmax_element_rule)
SCALAR_MINMAX = ("FP32", "FP16", "INT32", "INT16", "UINT32", "UINT16")


def f32(x):
    return x.astype(np.float32) if x.dtype.kind == "f" or x.dtype == V.NP["BF16"] else x


def rem(a, b):
    if a.dtype.kind in "iu":
        zero = (b == 0) | (b == -1)
        return np.where(zero, 0, np.fmod(a, np.where(zero, 1, b))).astype(a.dtype)
    x, y = f32(a), f32(b)       # pto-isa: x - trunc(x / y) * y in float, 0 when y == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        r = x - np.trunc(x / y) * y
    return np.where(y == 0, np.float32(0), r).astype(a.dtype)


def in_small(x, y, other):
    """x (+) y where d (b's smaller valid region) is valid, other elsewhere."""
    mask = np.zeros(x.shape, bool)
    mask[:V.SMALL[0], :V.SMALL[1]] = True
    return np.where(mask, y, other)


def ops(dtype):
    t = V.NP[dtype]
    out = [Op("maximums", "pl.maximum(a, 3)", lambda a, b, c: np.maximum(a, t(3))),
           Op("minimums", "pl.tile.minimums(a, 2)", lambda a, b, c: np.minimum(a, t(2)))] if dtype in SCALAR_MINMAX else []
    out += [Op("part_add", "pl.part_add(a, d)", lambda a, b, c: in_small(a, (f32(a) + f32(b)).astype(t), a)),
            Op("part_mul", "pl.tile.part_mul(d, a)", lambda a, b, c: in_small(a, (f32(a) * f32(b)).astype(t), a)),
            Op("part_max", "pl.part_max(a, d)", lambda a, b, c: in_small(a, np.maximum(a, b), a)),
            Op("part_min", "pl.part_min(src0=d, src1=a)", lambda a, b, c: in_small(a, np.minimum(a, b), a))]
    if dtype in SUMS:
        # two instructions on the device (the real assembler writes TADD/TSUB then TADD): the first
        # result is stored in the tile's type, so f16/bf16 round twice
        def sums(op, second):
            def ref(a, b, c):
                first = op(f32(a), f32(second(a, b))).astype(t)
                return (f32(first) + f32(c)).astype(t)
            return ref
        three = lambda a, b: np.full_like(a, 3)         # noqa: E731
        out += [Op("addc", "pl.tile.addc(a, b, c)", sums(np.add, lambda a, b: b)),
                Op("subc", "pl.tile.subc(a, b, c)", sums(np.subtract, lambda a, b: b)),
                Op("addsc", "pl.tile.addsc(a, 3, c)", sums(np.add, three)),
                Op("subsc", "pl.tile.subsc(a, 3, c)", sums(np.subtract, three))]
    if dtype in REM:
        out += [Op("rem", "pl.tile.rem(a, b, t)", lambda a, b, c: rem(a, b)),
                Op("rems", "pl.tile.rems(a, 3, t)", lambda a, b, c: rem(a, np.full_like(a, 3))),
                Op("rems_zero", "pl.tile.rem(a, 0, t)", lambda a, b, c: rem(a, np.zeros_like(a)))]
    if dtype in FMOD:
        out += [Op("fmod", "pl.fmod(a, b)", lambda a, b, c: np.fmod(f32(a), f32(b)).astype(t)),
                Op("fmods", "pl.tile.fmods(a, 2.5)", lambda a, b, c: np.fmod(f32(a), np.float32(2.5)).astype(t)),
                Op("fmod_dispatch", "pl.fmod(a, -4)", lambda a, b, c: np.fmod(f32(a), np.float32(-4)).astype(t))]
    if dtype in FLOATS:
        # pto.tlrelu and pto.tprelu take f16 / f32 only, on both platforms (the real assembler's element types)
        out += [] if dtype == "BF16" else [Op("lrelu", "pl.tile.lrelu(a, 0.25)",
                   lambda a, b, c: np.where(f32(a) > 0, f32(a), f32(a) * np.float32(0.25)).astype(t))]
        out += [] if dtype == "BF16" else [Op("prelu", "pl.tile.prelu(a, b, m8)",
                   lambda a, b, c: np.where(f32(a) > 0, f32(a), f32(a) * f32(b)).astype(t))]
    return out


def inputs(dtype):
    t = V.NP[dtype]
    rng = np.random.default_rng(3)
    if dtype in FLOATS:
        a = rng.uniform(-20, 20, (V.ROWS, V.COLS)).astype(t)
        b = rng.uniform(-5, 5, (V.ROWS, V.COLS)).astype(t)
        c = rng.uniform(-5, 5, (V.ROWS, V.COLS)).astype(t)
        b[0, :4] = [0, 0.5, -0.5, 3]          # fmod by 0 is NaN, rem by 0 is 0
        a[0, 4:8] = [-0.0, 7.5, -7.5, 6]
        return a, b, c
    info = np.iinfo(t)
    a = rng.integers(info.min, info.max, (V.ROWS, V.COLS), dtype=np.int64, endpoint=True).astype(t)
    b = rng.integers(info.min, info.max, (V.ROWS, V.COLS), dtype=np.int64, endpoint=True).astype(t)
    c = rng.integers(info.min, info.max, (V.ROWS, V.COLS), dtype=np.int64, endpoint=True).astype(t)
    a[0, :6] = [info.min, info.max, info.min, info.max, 7, -7 if info.min else 7]
    b[0, :6] = [-1 if info.min else 1, info.max, 0, 1, -3 if info.min else 3, 3]
    b[1, :8] = rng.integers(-9 if info.min else 0, 9, 8).astype(t)   # small divisors: nonzero remainders
    return a, b, c


_REM0 = V.pto_isa_differs("crash", "its CPU rem asserts a nonzero divisor (an int one traps); the test divides "
                                  "by 0 on purpose, the device answers 0")
_PART_U = V.pto_isa_differs("build", "its CPU TPARTMAX/TPARTMIN take no unsigned 16/32-bit tiles")


@pytest.mark.parametrize("dtype", V.params(ALL, {"FP32": _REM0, "FP16": _REM0, "INT32": _REM0, "INT16": _REM0,
                                                 "UINT32": _PART_U, "UINT16": _PART_U}))
def test_arith(tmp_path_factory, dtype):
    a, b, c = inputs(dtype)
    table = ops(dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        outs = V.run(tmp_path_factory.getbasetemp(), f"Arith{dtype}", dtype, table, a, b, c)
        V.check(table, outs, a, b, c, dtype)


@pytest.mark.parametrize("dtype, platform", [("INT8", "a2a3sim"), ("BF16", "a2a3sim"), ("UINT8", "a2a3sim")])
def test_scalar_minmax_element_rule(tmp_path, dtype, platform):
    """pl.maximum(tile, scalar) on a tile pto.tmaxs does not take on the platform is the real assembler's
    refusal, at the DSL line; a5 takes 8-bit tiles."""
    import ptokit
    from ptokit.errors import CompileError
    table = [Op("maximums", "pl.maximum(a, 3)", lambda a, b, c: a)]
    prog = V.program(tmp_path, f"MaxS{dtype}", dtype, table)
    with pytest.raises(CompileError) as info:
        ptokit.compile(prog, output_dir=tmp_path / "out", platform=platform)
    widths = "i32/i16/f16/f32"
    assert info.value.message.startswith(f"'pto.tmaxs' op expects A2/A3 tmaxs element type to be {widths}")
    assert "pl.maximum(ta, 3)" in info.value.loc.source_line
    if dtype == "INT8":
        ptokit.compile(prog, output_dir=tmp_path / "a5", platform="a5sim")
