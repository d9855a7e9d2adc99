"""Products and arg-reductions over a tile's valid region: row_* reduce the last axis to ``[rows, 1]``,
col_* the first to ``[1, cols]``.

Arg-reductions give INT32 indices: the first maximum / minimum wins a tie, and a NaN counts as both
the largest and the smallest value (the first NaN is the answer), as numpy's argmax / argmin do.
"""
from __future__ import annotations

from ..types import DType, MemorySpace, TileType
from ._core import P, Scratch, declare
from ._vec import dtype_in, like, vec_tile

_PROD_DTYPES = (DType.FP16, DType.FP32, DType.INT16, DType.INT32)
_ARG_DTYPES = (DType.FP16, DType.FP32)


def _reduced(a: TileType, rows: bool, dtype: DType) -> TileType:
    if rows:
        return TileType((a.rows, 1), dtype, MemorySpace.Vec, (a.valid[0], 1) if a.valid else None)
    return TileType((1, a.cols), dtype, MemorySpace.Vec, (1, a.valid[1]) if a.valid else None)


def _rule(op, rows: bool, dtypes, index: bool, tmp: bool):
    def rule(ts, attrs):
        a = vec_tile(ts[0], op, "tile")
        dtype_in(a, dtypes, op, "tile")
        if tmp:
            like(a, vec_tile(ts[1], op, "tmp_tile", "scratch"), op, "tmp_tile", "scratch")
        return _reduced(a, rows, DType.INT32 if index else a.dtype)
    return rule


_TILE = P("tile", aliases=("input",))
_TMP = P("tmp_tile", default=Scratch(like="tile", tensor_level_only=True))
declare("row_prod", (_TILE, _TMP), _rule("row_prod", True, _PROD_DTYPES, False, True), pto="pto.trowprod",
        form="reduce_tmp", doc="product of each row -> [rows, 1] (integers wrap)")
declare("col_prod", (_TILE,), _rule("col_prod", False, _PROD_DTYPES, False, False), pto="pto.tcolprod",
        form="unary", doc="product of each column -> [1, cols] (integers wrap)")
for _axis, _rows in (("row", True), ("col", False)):
    for _k, _what in (("max", "maximum"), ("min", "minimum")):
        _n = f"{_axis}_arg{_k}"
        declare(_n, (_TILE, _TMP), _rule(_n, _rows, _ARG_DTYPES, True, True), pto=f"pto.t{_axis}arg{_k}",
                form="reduce_tmp",
                doc=f"INT32 index of the first {_what} of each {_axis} -> "
                    f"{'[rows, 1]' if _rows else '[1, cols]'} (a NaN wins)")
