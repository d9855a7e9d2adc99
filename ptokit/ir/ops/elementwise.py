"""Element-wise ops: tile (op) tile, tile (op) scalar, unary functions and casts."""
from __future__ import annotations

from ..types import DType, MemorySpace, PadValue, ScalarType, TileType
from ._core import LHS, RHS, TILE, OpTypeError, P, Scratch, declare, float_only, same_shape, tile_of, vec_only


def _binary(op):
    def rule(ts, attrs):
        a, b = tile_of(ts[0], op), tile_of(ts[1], op)
        same_shape(a, b, op)
        vec_only(a, op)
        return a.with_(pad=PadValue.null)
    return rule


def _scalar_op(op):
    def rule(ts, attrs):
        a = tile_of(ts[0], op)
        vec_only(a, op)
        if not isinstance(ts[1], ScalarType):
            raise OpTypeError(f"tile.{op} requires a scalar second operand, but got {ts[1]}")
        return a.with_(pad=PadValue.null)
    return rule


def _unary(op, floats: bool):
    def rule(ts, attrs):
        a = tile_of(ts[0], op)
        vec_only(a, op)
        if floats:
            float_only(a, op)
        return a.with_(pad=PadValue.null)
    return rule


def binary(name: str, pto: str, scalar: str, doc: str, scalar_ns=("pl", "pl.tile"), extra=(), **kw) -> None:
    """``name(lhs, rhs)`` on two tiles, and ``scalar(lhs, rhs)`` with a scalar rhs (``pl.name``
    with a scalar rhs selects the scalar form; an ``[M, 1]`` or ``[1, N]`` rhs next to an
    ``[M, N]`` lhs selects the row/col expand form); ``extra`` parameters follow on both."""
    rule, srule = kw.pop("rule", _binary(name)), kw.pop("scalar_rule", _scalar_op(scalar))
    declare(name, (LHS, RHS) + tuple(extra), rule, pto=f"pto.t{pto}", form="binary", traits={"elementwise"},
            scalar_form=scalar, broadcast={"row": f"row_expand_{pto}", "col": f"col_expand_{pto}"}, doc=doc, **kw)
    declare(scalar, (LHS, P("rhs", "scalar")) + tuple(extra), srule, pto=f"pto.t{pto}s", form="scalar",
            traits={"elementwise"}, doc=f"{doc}, with a scalar rhs", namespaces=scalar_ns)


_X = P("tile", aliases=("x",))      # pypto: pl.log(x, ...), pl.cast(x, ...), pl.fillpad(x, ...)


def unary(name: str, doc: str, floats: bool = False, extra=(), rule=None, aliases=(), **kw) -> None:
    traits = {"elementwise", "float_only"} if floats else {"elementwise"}
    operand = P("tile", aliases=_X.aliases + tuple(aliases)) if aliases else _X
    declare(name, (operand,) + tuple(extra), rule or _unary(name, floats), pto=f"pto.t{name}", form="unary",
            traits=traits, doc=doc, **kw)


# high_precision=True selects the real assembler's high-precision algorithm ({precisionType = ...} on the
# op); the CPU library's results are correctly rounded either way
_HIGH = (P("high_precision", "bool", False),)
_PRECISION = (("precisionType", lambda a, _: "high_precision" if a.get("high_precision") else None),)


def _precise(op, rule, floats_only=True):
    def checked(ts, attrs):
        t = rule(ts, attrs)
        if attrs.get("high_precision"):
            if not isinstance(ts[-1], TileType) and len(ts) == 2:
                raise OpTypeError(f"tile.{op} high_precision requires a tile rhs", "high_precision")
            if floats_only and t.dtype not in (DType.FP16, DType.FP32):
                raise OpTypeError(f"tile.{op} supports high_precision only for FP16 or FP32, but got {t.dtype!r}",
                                  "high_precision")
        return t
    return checked


binary("add", "add", "adds", "lhs + rhs")
binary("sub", "sub", "subs", "lhs - rhs")
binary("mul", "mul", "muls", "lhs * rhs")
binary("div", "div", "divs", "lhs / rhs (integer division by zero gives 0)", extra=_HIGH,
       rule=_precise("div", _binary("div")), scalar_rule=_precise("divs", _scalar_op("divs")), pto_attrs=_PRECISION)
binary("maximum", "max", "maximums", "max(lhs, rhs)", scalar_ns=("pl.tile", "pl.tensor"))
binary("minimum", "min", "minimums", "min(lhs, rhs)", scalar_ns=("pl.tile", "pl.tensor"))

unary("exp", "e ** x", floats=True)
unary("log", "natural logarithm", floats=True, extra=_HIGH, rule=_precise("log", _unary("log", True)),
      pto_attrs=_PRECISION)
unary("sqrt", "square root", floats=True)


def _rsqrt(ts, attrs):
    t = _unary("rsqrt", True)(ts, attrs)
    if len(ts) == 2:
        tmp = tile_of(ts[1], "rsqrt", "tmp", "tmp")
        if tmp.shape != t.shape or tmp.dtype != t.dtype:
            raise OpTypeError(f"tile.rsqrt requires tmp shaped like the input {t}, but got {tmp}", "tmp")
    return t


def _rsqrt_tmp(ts, attrs):
    """high_precision=True without a tmp: the compiler makes one shaped like x (pypto's tensor form)."""
    if not attrs.get("high_precision") or not isinstance(ts[0], TileType):
        return None
    t = ts[0]
    return TileType(t.shape, t.dtype, t.memory)


# pl.rsqrt(tile, tmp=None) (tile) and pl.rsqrt(tensor, high_precision=False) (tensor): either a tmp tile or
# high_precision=True selects the high-precision path (high_precision makes the tmp)
unary("rsqrt", "1 / sqrt(x) (a tmp tile shaped like x, or high_precision=True which makes one, selects the "
      "hardware's high-precision path)", floats=True,
      extra=(P("tmp", "tile", Scratch(make=_rsqrt_tmp)), P("high_precision", "bool", False, keyword_only=True)),
      rule=_rsqrt, aliases=("tensor", "input"))
unary("recip", "1 / x", floats=True, extra=_HIGH, rule=_precise("recip", _unary("recip", True)), pto_attrs=_PRECISION)
unary("neg", "-x")
unary("abs", "|x|")
unary("relu", "max(x, 0)")


# pypto's rounding modes, by name or number; written {rmode = #pto<round_mode NAME>} (pto.tcvt)
CAST_MODES = ("none", "rint", "round", "floor", "ceil", "trunc", "odd", "cast_rint")


def cast_mode(mode) -> str:
    """A mode as the user wrote it -> its pypto name (ValueError when it is none of them)."""
    if isinstance(mode, int) and not isinstance(mode, bool) and 0 <= mode < len(CAST_MODES):
        return CAST_MODES[mode]
    if isinstance(mode, str) and mode.lower() in CAST_MODES:
        return mode.lower()
    raise ValueError(mode)


def _cast(ts, attrs):
    a = tile_of(ts[0], "cast")
    target = attrs.get("target_type")
    if not isinstance(target, DType):
        raise OpTypeError("tile.cast requires target_type=<dtype>", "target_type")
    if a.memory not in (MemorySpace.Vec, MemorySpace.Acc):
        raise OpTypeError(f"tile.cast requires a Vec tile, but got a {a.memory.name} tile")
    try:
        cast_mode(attrs.get("mode"))
    except ValueError:
        raise OpTypeError(f"tile.cast mode must be one of {', '.join(repr(m) for m in CAST_MODES)} (or 0..7), but got "
                          f"{attrs.get('mode')!r}", "mode") from None
    return a.with_(dtype=target, pad=PadValue.null)


declare("cast", (_X, P("target_type", "dtype"), P("mode", "mode", "round")), _cast, pto="pto.tcvt", form="unary",
        traits={"elementwise", "accepts_acc"}, on_scalar="scalar.cast",
        pto_attrs=(("rmode", lambda a, _: cast_mode(a["mode"]).upper()),),
        doc="convert to target_type, rounding by mode: round (nearest, ties away from zero), rint (ties to even), "
            "floor, ceil, trunc, odd (round to odd), none, cast_rint (as rint)")
