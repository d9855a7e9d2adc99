"""One element of a tile or of a tensor in kernel code: what ``pl.read`` / ``pl.write`` (and
``t[i, j]``) lower to there.  The front end turns the indices into one flat row-major offset:
over the tile's physical rows x cols for a tile, over the tensor's shape for a tensor.
"""
from __future__ import annotations

from ..types import DType, ScalarType, TensorType
from ._core import OpTypeError, P, declare, tile_of


def _offset(t, what):
    if not isinstance(t, ScalarType) or t.dtype.is_float or t.dtype is DType.TASK_ID:
        raise OpTypeError(f"{what} takes an integer element offset, but got {t}", "offset")


def _value(t, elem: DType, what):
    if not isinstance(t, ScalarType) or t.dtype is DType.TASK_ID:
        raise OpTypeError(f"{what} writes a number into a {elem.name} element, but got {t}", "value")


def _holder(t, on_tile: bool, what: str):
    if on_tile:
        return tile_of(t, what)
    if not isinstance(t, TensorType):
        raise OpTypeError(f"{what} needs a tensor, but got {t}", "tensor")
    return t


def _reader(on_tile: bool):
    def rule(ts, attrs):
        t = _holder(ts[0], on_tile, "pl.read")
        _offset(ts[1], "pl.read")
        return ScalarType(t.dtype)
    return rule


def _writer(on_tile: bool):
    def rule(ts, attrs):
        t = _holder(ts[0], on_tile, "pl.write")
        _offset(ts[1], "pl.write")
        _value(ts[2], t.dtype, "pl.write")
        return t          # the tile written in place, or the tensor written (like store)
    return rule


_OFF = P("offset", "scalar")
declare("getval", (P("tile"), _OFF), _reader(True), pto="pto.tgetval", form="element", namespaces=(),
        doc="one element of a tile, at a flat row-major offset")
declare("setval", (P("tile"), _OFF, P("value", "scalar")), _writer(True), pto="pto.tsetval", form="element",
        namespaces=(), doc="write one element of a tile, in place")
declare("load_scalar", (P("tensor", "tensor"), _OFF), _reader(False), pto="pto.load_scalar", form="element",
        namespaces=(), doc="one element of a tensor, at a flat row-major offset")
declare("store_scalar", (P("tensor", "tensor"), _OFF, P("value", "scalar")), _writer(False), pto="pto.store_scalar",
        form="element", namespaces=(), doc="write one element of a tensor")
