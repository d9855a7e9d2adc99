"""Bitwise ops and shifts on integer tiles (a tile rhs, or a scalar rhs through the ``*s`` forms).

Semantics are the hardware's (docs/tile-api.md): bits of the element's unsigned type, shift amounts
taken modulo the element width, ``shr`` arithmetic on signed elements and logical on unsigned ones.
"""
from __future__ import annotations

from ..types import DType
from ._core import LHS, RHS, OpTypeError, P, declare
from ._vec import INTS, dtype_in, like, result, scalar, vec_tile

_TMP = P("tmp")
_SRHS = P("rhs", "scalar")


def _int_tile(t, op, param):
    a = vec_tile(t, op, param)
    dtype_in(a, INTS, op, param, "tile")
    return a


def _tile_rhs(op, shift=False, tmp=False):
    def rule(ts, attrs):
        a = _int_tile(ts[0], op, "lhs")
        b = _int_tile(ts[1], op, "rhs")
        if shift:       # the amount may be any integer dtype of the same shape
            if b.shape != a.shape:
                like(a, b, op, "rhs", "shift amounts")
        else:
            like(a, b, op, "rhs")
        if tmp:
            like(a, vec_tile(ts[2], op, "tmp", "scratch"), op, "tmp", "scratch")
        return result(a)
    return rule


def _scalar_rhs(op, tmp=False):
    def rule(ts, attrs):
        a = _int_tile(ts[0], op, "lhs")
        scalar(ts[1], op, "rhs", ints=True)
        if tmp:
            like(a, vec_tile(ts[2], op, "tmp", "scratch"), op, "tmp", "scratch")
        return result(a)
    return rule


for _name, _pto, _what in (("and_", "and", "lhs & rhs"), ("or_", "or", "lhs | rhs"),
                           ("shl", "shl", "lhs << rhs (amount modulo the element width)"),
                           ("shr", "shr", "lhs >> rhs (arithmetic on signed, logical on unsigned; amount modulo "
                                          "the element width)")):
    _s = _pto + "s"
    declare(_name, (LHS, RHS), _tile_rhs(_name, shift=_pto in ("shl", "shr")), pto=f"pto.t{_pto}", form="binary",
            traits={"elementwise"}, scalar_form=_s, doc=f"{_what}, integer tiles")
    declare(_s, (LHS, _SRHS), _scalar_rhs(_s), pto=f"pto.t{_pto}s", form="scalar",
            traits={"elementwise"} if _pto in ("shl", "shr") else (), doc=f"{_what}, with an integer scalar rhs")

declare("xor", (LHS, RHS, _TMP), _tile_rhs("xor", tmp=True), pto="pto.txor", form="dps", scalar_form="xors",
        doc="lhs ^ rhs, integer tiles (tmp: the hardware's scratch, shaped like lhs)")
declare("xors", (LHS, _SRHS, _TMP), _scalar_rhs("xors", tmp=True), pto="pto.txors", form="dps",
        doc="lhs ^ rhs with an integer scalar rhs (tmp: the hardware's scratch, shaped like lhs)")


def _not(ts, attrs):
    a = vec_tile(ts[0], "not_", "tile")
    if a.dtype not in (DType.INT16, DType.UINT16):
        raise OpTypeError(f"tile.not_ requires an INT16 or UINT16 tile (the vector unit's NOT is 16-bit), but got "
                          f"{a.dtype!r}", "tile")
    return result(a)


declare("not_", (P("tile", aliases=("input",)),), _not, pto="pto.tnot", form="unary", traits={"elementwise"},
        doc="~tile, INT16/UINT16 tiles")
