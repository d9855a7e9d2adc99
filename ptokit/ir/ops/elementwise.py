"""Element-wise ops: tile (op) tile, tile (op) scalar, unary functions and casts."""
from __future__ import annotations

from ..types import DType, MemorySpace, PadValue, ScalarType
from ._core import LHS, RHS, TILE, OpTypeError, P, declare, float_only, same_shape, tile_of, vec_only


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


def binary(name: str, pto: str, scalar: str, doc: str) -> None:
    """``name(lhs, rhs)`` on two tiles, and ``scalar(lhs, rhs)`` with a scalar rhs (``pl.name``
    with a scalar rhs selects the scalar form; an ``[M, 1]`` or ``[1, N]`` rhs next to an
    ``[M, N]`` lhs selects the row/col expand form)."""
    declare(name, (LHS, RHS), _binary(name), pto=f"pto.t{pto}", form="binary", traits={"elementwise"},
            scalar_form=scalar, broadcast={"row": f"row_expand_{pto}", "col": f"col_expand_{pto}"}, doc=doc)
    declare(scalar, (LHS, P("rhs", "scalar")), _scalar_op(scalar), pto=f"pto.t{pto}s", form="scalar",
            traits={"elementwise"}, doc=f"{doc}, with a scalar rhs")


def unary(name: str, doc: str, floats: bool = False) -> None:
    traits = {"elementwise", "float_only"} if floats else {"elementwise"}
    declare(name, (TILE,), _unary(name, floats), pto=f"pto.t{name}", form="unary", traits=traits, doc=doc)


binary("add", "add", "adds", "lhs + rhs")
binary("sub", "sub", "subs", "lhs - rhs")
binary("mul", "mul", "muls", "lhs * rhs")
binary("div", "div", "divs", "lhs / rhs (integer division by zero gives 0)")
binary("maximum", "max", "maxs", "max(lhs, rhs)")
binary("minimum", "min", "mins", "min(lhs, rhs)")

unary("exp", "e ** x", floats=True)
unary("log", "natural logarithm", floats=True)
unary("sqrt", "square root", floats=True)
unary("rsqrt", "1 / sqrt(x)", floats=True)
unary("recip", "1 / x", floats=True)
unary("neg", "-x")
unary("abs", "|x|")
unary("relu", "max(x, 0)")


def _cast(ts, attrs):
    a = tile_of(ts[0], "cast")
    target = attrs.get("target_type")
    if not isinstance(target, DType):
        raise OpTypeError("tile.cast requires target_type=<dtype>", "target_type")
    if a.memory not in (MemorySpace.Vec, MemorySpace.Acc):
        raise OpTypeError(f"tile.cast requires a Vec tile, but got a {a.memory.name} tile")
    return a.with_(dtype=target, pad=PadValue.null)


declare("cast", (TILE, P("target_type", "dtype"), P("mode", "mode", None)), _cast, pto="pto.tcvt", form="unary",
        traits={"elementwise", "accepts_acc"}, on_scalar="scalar.cast", doc="convert to target_type, rounding by mode (CAST_RINT when omitted)")
