"""More element-wise arithmetic: leaky / parametric relu, remainders, three-operand sums, partial ops,
and sin/cos (composites: the ExpandComposites pass rewrites them into muls/adds/mul/sub/cast).

Hardware semantics (docs/tile-api.md): integer arithmetic wraps; an integer remainder by zero is 0;
``rem`` on floats is x - trunc(x / y) * y in float, ``fmod`` is C's fmod; ``subc`` is
lhs - rhs + rhs2 and ``subsc`` lhs - rhs + rhs2 with a scalar rhs (pto-isa's TSUBC / TSUBSC).
"""
from __future__ import annotations

import math

from .. import nodes as N
from ..types import DType, MemorySpace, ScalarType, TileType, fmt_shape
from ._core import LHS, RHS, TILE, OpTypeError, P, Scratch, declare
from ._vec import FLOATS, NUMERIC, dtype_in, like, result, scalar, vec_tile

_SRHS = P("rhs", "scalar")
_TMP = P("tmp")
_REM_DTYPES = (DType.FP16, DType.FP32, DType.INT16, DType.INT32)
_FMOD_DTYPES = (DType.FP16, DType.FP32)
_SUM_DTYPES = FLOATS + (DType.INT8, DType.INT16, DType.INT32)


def _two_tiles(op, dtypes, tmp=False, names=("lhs", "rhs")):
    def rule(ts, attrs):
        a = vec_tile(ts[0], op, names[0])
        dtype_in(a, dtypes, op, names[0])
        like(a, vec_tile(ts[1], op, names[1]), op, names[1])
        if tmp:
            like(a, vec_tile(ts[2], op, "tmp", "scratch"), op, "tmp", "scratch")
        return result(a)
    return rule


def _tile_scalar(op, dtypes, tmp=False, first="lhs", second="rhs"):
    def rule(ts, attrs):
        a = vec_tile(ts[0], op, first)
        dtype_in(a, dtypes, op, first)
        scalar(ts[1], op, second)
        if tmp:
            like(a, vec_tile(ts[2], op, "tmp", "scratch"), op, "tmp", "scratch")
        return result(a)
    return rule


declare("lrelu", (TILE, P("slope", "scalar")), _tile_scalar("lrelu", FLOATS, first="tile", second="slope"),
        pto="pto.tlrelu", form="scalar", traits={"elementwise", "float_only"}, namespaces=("pl.tile", "pl.tensor"),
        doc="x > 0 ? x : slope * x with a scalar slope (max(x, slope * x) for 0 <= slope <= 1)")


def _prelu(ts, attrs):
    a = vec_tile(ts[0], "prelu", "tile")
    dtype_in(a, FLOATS, "prelu", "tile")
    like(a, vec_tile(ts[1], "prelu", "slope", "slope"), "prelu", "slope", "slope")
    vec_tile(ts[2], "prelu", "tmp", "scratch")
    return result(a)


def _prelu_tmp(ts, attrs):
    """prelu's scratch when omitted: UINT8, one row more than the tile, ceil(cols / 8) columns rounded up to 32
    (the a2a3 hardware's least: rows >= vR + 1, cols >= ceil(vC / 8))."""
    a = ts[0]
    if not isinstance(a, TileType) or len(a.shape) != 2:
        return None                               # the rule reports the operand
    return TileType((a.rows + 1, -(-((a.cols + 7) // 8) // 32) * 32), DType.UINT8, MemorySpace.Vec)


declare("prelu", (TILE, P("slope"), P("tmp", default=Scratch(make=_prelu_tmp))), _prelu, pto="pto.tprelu",
        form="dps", traits={"float_only"}, namespaces=("pl.tile", "pl.tensor"),
        doc="x > 0 ? x : slope * x with a slope tile (tmp: the hardware's scratch, made by the compiler when "
            "omitted)")

declare("rem", (LHS, RHS, _TMP), _two_tiles("rem", _REM_DTYPES, tmp=True), pto="pto.trem", form="dps",
        scalar_form="rems", namespaces=("pl.tile",),
        doc="lhs % rhs, truncating (integer % 0 gives 0; tmp: the hardware's scratch)")
declare("rems", (LHS, _SRHS, _TMP), _tile_scalar("rems", _REM_DTYPES, tmp=True), pto="pto.trems", form="dps",
        namespaces=("pl.tile",),
        doc="lhs % rhs with a scalar rhs, truncating (integer % 0 gives 0)")
declare("fmod", (LHS, RHS), _two_tiles("fmod", _FMOD_DTYPES), pto="pto.tfmod", form="binary", scalar_form="fmods",
        traits={"float_only"}, doc="C fmod(lhs, rhs): the remainder has the sign of lhs")
declare("fmods", (LHS, _SRHS), _tile_scalar("fmods", _FMOD_DTYPES), pto="pto.tfmods", form="scalar",
        traits={"float_only"}, doc="C fmod(lhs, rhs) with a scalar rhs")


def _three(op):
    def rule(ts, attrs):
        a = vec_tile(ts[0], op, "lhs")
        dtype_in(a, _SUM_DTYPES, op, "lhs")
        like(a, vec_tile(ts[1], op, "rhs"), op, "rhs")
        like(a, vec_tile(ts[2], op, "rhs2"), op, "rhs2")
        return result(a)
    return rule


def _tile_scalar_tile(op):
    def rule(ts, attrs):
        a = vec_tile(ts[0], op, "lhs")
        dtype_in(a, _SUM_DTYPES, op, "lhs")
        scalar(ts[1], op, "rhs")
        like(a, vec_tile(ts[2], op, "rhs2"), op, "rhs2")
        return result(a)
    return rule


_RHS2 = P("rhs2")
declare("addc", (LHS, RHS, _RHS2), _three("addc"), pto="pto.taddc", form="ternary", traits={"elementwise"},
        namespaces=("pl.tile",),
        doc="lhs + rhs + rhs2")
declare("subc", (LHS, RHS, _RHS2), _three("subc"), pto="pto.tsubc", form="ternary", traits={"elementwise"},
        namespaces=("pl.tile",),
        doc="lhs - rhs + rhs2 (the hardware's TSUBC)")
declare("addsc", (LHS, _SRHS, _RHS2), _tile_scalar_tile("addsc"), pto="pto.taddsc", form="dps",
        traits={"elementwise"}, namespaces=("pl.tile",), doc="lhs + rhs + rhs2 with a scalar rhs")
declare("subsc", (LHS, _SRHS, _RHS2), _tile_scalar_tile("subsc"), pto="pto.tsubsc", form="dps",
        traits={"elementwise"}, namespaces=("pl.tile",),
        doc="lhs - rhs + rhs2 with a scalar rhs (the hardware's TSUBSC)")


def _covers(a, b) -> bool:
    """Valid region a contains valid region b (unknown when a dynamic extent is involved)."""
    return all(isinstance(x, int) and isinstance(y, int) and x >= y for x, y in zip(a, b))


def _part(op):
    def rule(ts, attrs):
        a = vec_tile(ts[0], op, "src0")
        dtype_in(a, NUMERIC, op, "src0")
        b = vec_tile(ts[1], op, "src1")
        like(a, b, op, "src1")
        va, vb = a.valid or a.shape, b.valid or b.shape
        if _covers(vb, va) and not _covers(va, vb):
            return result(b)
        if not _covers(va, vb) and all(isinstance(x, int) for x in tuple(va) + tuple(vb)):
            raise OpTypeError(f"tile.{op} requires one source's valid region to contain the other's, but got "
                              f"{fmt_shape(va)} and {fmt_shape(vb)}", "src1")
        return result(a)     # dynamic extents: checked when the kernel runs
    return rule


for _n, _how in (("add", "+"), ("mul", "*"), ("max", "max"), ("min", "min")):
    declare(f"part_{_n}", (P("src0", aliases=("lhs",)), P("src1", aliases=("rhs",))), _part(f"part_{_n}"),
            pto=f"pto.tpart{_n}", form="binary",
            doc=f"src0 {_how} src1 where both are valid, the valid one elsewhere (result: the larger valid region)")


# ----------------------------------------------------------------- sin / cos (composites)
_F32 = ScalarType(DType.FP32)
_INV_PI = 0.31830987334251404                 # float32(1 / pi)
# pi = A + B + C + D; A, B, C carry 12 significant bits, so k * A, k * B, k * C are exact for |k| < 2^12
_PI_PARTS = (3.1416015625, -8.907169103622437e-06, -1.7412276065442711e-09, 1.2434497875801753e-13)
# sin(r) = r * (1 + r^2 * P(r^2)) on [-pi/2, pi/2]: the Taylor terms through r^13 (error < 7e-10)
_SIN_TERMS = tuple((-1) ** n / math.factorial(2 * n + 1) for n in range(6, 0, -1))


def _f(v: float) -> N.Const:
    return N.Const(float(v), type=_F32)


def _sincos(cos: bool):
    def expand(args, attrs, emit):
        x = args[0]
        k = emit("cast", [emit("muls", [x, _f(_INV_PI)], {}) if not cos else
                          emit("adds", [emit("muls", [x, _f(_INV_PI)], {}), _f(-0.5)], {})],
                 {"target_type": DType.INT32, "mode": "rint"})
        kf = emit("cast", [k], {"target_type": DType.FP32, "mode": "rint"})      # n, exact
        m = emit("adds", [kf, _f(0.5)], {}) if cos else kf                      # x = m * pi + r
        r = x
        for part in _PI_PARTS:
            r = emit("sub", [r, emit("muls", [m, _f(part)], {})], {})
        # (-1)^n from the parity of n: p = n - 2 * floor(n / 2)
        half = emit("cast", [emit("cast", [emit("muls", [kf, _f(0.5)], {})], {"target_type": DType.INT32,
                                                                            "mode": "floor"})],
                    {"target_type": DType.FP32, "mode": "rint"})
        p = emit("sub", [kf, emit("muls", [half, _f(2.0)], {})], {})
        # sin: (-1)^n = 1 - 2p; cos(x) = -(-1)^n sin(r) = 2p - 1
        sign = emit("adds", [emit("muls", [p, _f(2.0 if cos else -2.0)], {}), _f(-1.0 if cos else 1.0)], {})
        r2 = emit("mul", [r, r], {})
        poly = emit("muls", [r2, _f(_SIN_TERMS[0])], {})
        for c in _SIN_TERMS[1:]:
            poly = emit("mul", [emit("adds", [poly, _f(c)], {}), r2], {})
        s = emit("mul", [emit("adds", [poly, _f(1.0)], {}), r], {})
        return emit("mul", [s, sign], {})
    return expand


def _fp32_only(op):
    def rule(ts, attrs):
        a = vec_tile(ts[0], op, "tile")
        if a.dtype is not DType.FP32:
            raise OpTypeError(f"tile.{op} requires an FP32 tile (cast with pl.cast(tile, pl.FP32) first), but got "
                              f"{a.dtype!r}", "tile")
        return result(a)
    return rule


for _n, _cos in (("sin", False), ("cos", True)):
    declare(_n, (TILE,), _fp32_only(_n), form="composite", traits={"float_only"}, expand=_sincos(_cos),
            namespaces=("pl.tile", "pl.tensor"),
            doc=f"{_n}(x) in radians, FP32 (range reduction by pi and an odd polynomial in muls/adds/mul/sub/cast; "
                f"|x| < 2^31)")
