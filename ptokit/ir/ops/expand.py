"""Broadcasts of a row or column vector across a tile, alone or combined with the tile."""
from __future__ import annotations

from ..types import PadValue, fmt_shape
from ._core import OpTypeError, P, declare, tile_of, vec_only


def _row_expand_op(op):
    def rule(ts, attrs):
        a, col = tile_of(ts[0], op), tile_of(ts[1], op, "column", "row_vec")
        vec_only(a, op)
        if col.shape != (a.rows, 1):
            raise OpTypeError(f"tile.{op} requires a [{a.rows}, 1] column tile, but got {fmt_shape(col.shape)}",
                              "row_vec")
        return a.with_(pad=PadValue.null)
    return rule


def _col_expand_op(op):
    def rule(ts, attrs):
        a, row = tile_of(ts[0], op), tile_of(ts[1], op, "row", "col_vec")
        vec_only(a, op)
        if row.shape != (1, a.cols):
            raise OpTypeError(f"tile.{op} requires a [1, {a.cols}] row tile, but got {fmt_shape(row.shape)}",
                              "col_vec")
        return a.with_(pad=PadValue.null)
    return rule


def _expand(op, want_rows: bool):
    """pypto's ``op(target, vec)``: ``target`` gives the result's shape (its values are not read),
    ``vec`` is the [rows, 1] / [1, cols] vector; ``op(src)`` alone broadcasts src's first column
    (row_expand) or first row (col_expand) of an [rows, cols] tile."""
    def rule(ts, attrs):
        target = tile_of(ts[0], op, "target", "target")
        if len(ts) == 1:
            return target.with_(pad=PadValue.null)
        vec = tile_of(ts[1], op, "vector", "row_vec" if want_rows else "col_vec")
        need = (target.rows, 1) if want_rows else (1, target.cols)
        if vec.shape != need:
            raise OpTypeError(f"tile.{op} requires a {fmt_shape(need)} vector for a {fmt_shape(target.shape)} "
                              f"target, but got {fmt_shape(vec.shape)}", "row_vec" if want_rows else "col_vec")
        return target.with_(dtype=vec.dtype, pad=PadValue.null)      # the vector's values, the target's shape
    return rule


_COMBINE = {"add": "t + v", "sub": "t - v", "mul": "t * v", "div": "t / v", "max": "max(t, v)", "min": "min(t, v)"}

for _n, _how in _COMBINE.items():
    declare(f"row_expand_{_n}", (P("tile", aliases=("lhs",)), P("row_vec", aliases=("rhs",))),
            _row_expand_op(f"row_expand_{_n}"), pto=f"pto.trowexpand{_n}", form="binary", doc=f"{_how} with v[i] of a [rows, 1] vector on row i")
    declare(f"col_expand_{_n}", (P("tile"), P("col_vec")), _col_expand_op(f"col_expand_{_n}"),
            pto=f"pto.tcolexpand{_n}", form="binary", doc=f"{_how} with v[j] of a [1, cols] vector on column j")

def _floats(rule, op):
    def checked(ts, attrs):
        t = rule(ts, attrs)
        if not t.dtype.is_float:
            raise OpTypeError(f"tile.{op} requires a floating-point tile, but got {t.dtype!r}", "tile")
        return t
    return checked


declare("row_expand_expdif", (P("tile"), P("row_vec")),
        _floats(_row_expand_op("row_expand_expdif"), "row_expand_expdif"),
        pto="pto.trowexpandexpdif", form="binary", traits={"float_only"},
        doc="exp(t - v) with v[i] of a [rows, 1] vector on row i")
declare("col_expand_expdif", (P("tile"), P("col_vec")),
        _floats(_col_expand_op("col_expand_expdif"), "col_expand_expdif"),
        pto="pto.tcolexpandexpdif", form="binary", traits={"float_only"},
        doc="exp(t - v) with v[j] of a [1, cols] vector on column j")

declare("row_expand", (P("target"), P("row_vec", "tile", None)), _expand("row_expand", True), pto="pto.trowexpand",
        form="expand", doc="a tile shaped like target with row_vec[i] ([rows, 1]) across row i; with one "
                           "argument, each row of it filled with its first element")
declare("col_expand", (P("target"), P("col_vec", "tile", None)), _expand("col_expand", False), pto="pto.tcolexpand",
        form="expand", doc="a tile shaped like target with col_vec[j] ([1, cols]) down column j; with one "
                           "argument, each column of it filled with its first element")
