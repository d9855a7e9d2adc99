"""Reductions over the last axis (row_*) or the first (col_*)."""
from __future__ import annotations

from ..types import MemorySpace, TileType, fmt_shape
from ._core import OpTypeError, P, Scratch, declare, tile_of, vec_only


def _row_reduce(op):
    def rule(ts, attrs):
        a, tmp = tile_of(ts[0], op), tile_of(ts[1], op, "tmp", "tmp_tile")
        vec_only(a, op)
        # pypto takes a scratch at least the input's shape (a larger one is fine: its tensor lowering
        # pads short rows), or of the result's [rows, 1] (its row-softmax kernels pass both); the CPU
        # tile library does not read it (docs/decisions.md)
        if tmp.shape != (a.rows, 1) and not (tmp.rows >= a.rows and tmp.cols >= a.cols):
            raise OpTypeError(f"tile.{op} requires tmp of at least the input's shape {fmt_shape(a.shape)} or of "
                              f"the result's shape {fmt_shape((a.rows, 1))}, but got {fmt_shape(tmp.shape)}",
                              "tmp_tile")
        valid = (a.valid[0], 1) if a.valid else None
        return TileType((a.rows, 1), a.dtype, MemorySpace.Vec, valid)
    return rule


def _col_reduce(op):
    def rule(ts, attrs):
        a = tile_of(ts[0], op)
        vec_only(a, op)
        if len(ts) == 2:
            tmp = tile_of(ts[1], op, "tmp", "tmp_tile")
            if tmp.shape != a.shape or tmp.dtype != a.dtype:
                raise OpTypeError(f"tile.{op} requires tmp_tile of the input's shape {fmt_shape(a.shape)} and dtype "
                                  f"{a.dtype!r}, but got {tmp}", "tmp_tile")
        valid = (1, a.valid[1]) if a.valid else None
        return TileType((1, a.cols), a.dtype, MemorySpace.Vec, valid)
    return rule


for _kind, _what in (("sum", "sum"), ("max", "maximum"), ("min", "minimum")):
    # pypto: pl.row_sum(input, tmp_tile) / pl.tile.row_sum(tile, tmp_tile)
    declare(f"row_{_kind}", (P("tile", aliases=("input",)), P("tmp_tile", default=Scratch("tile"))),
            _row_reduce(f"row_{_kind}"),
            pto=f"pto.trow{_kind}", form="reduce_tmp", doc=f"{_what} of each row -> [rows, 1]")
    if _kind == "sum":   # pl.col_sum(tile, tmp_tile=None): a tmp tile selects the binary-tree sum (isBinary)
        declare("col_sum", (P("tile", aliases=("input", "x")), P("tmp_tile", "tile", None)), _col_reduce("col_sum"),
                pto="pto.tcolsum", form="unary", pto_attrs=(("isBinary", lambda a, args: True if len(args) == 2
                                                             else None),),
                doc="sum of each column -> [1, cols] (a tmp_tile shaped like the input selects the binary-tree "
                    "order)")
        continue
    declare(f"col_{_kind}", (P("tile", aliases=("input",)),), _col_reduce(f"col_{_kind}"),
            pto=f"pto.tcol{_kind}", form="unary", doc=f"{_what} of each column -> [1, cols]")
