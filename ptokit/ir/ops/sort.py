"""Sorting: sort32 (each 32-element block of a row, descending, into (value, index) records) and
mrgsort (merging sorted runs of such records, format 1, or 2-4 sorted lists, format 2).

A record is 8 bytes: the value, then the 32-bit index (FP32: 2 elements; FP16: the value, two
bytes of zero and the index, 4 elements).  Ordering, ties and NaN: docs/language.md, "Sorting".
"""
from __future__ import annotations

from ..types import DType, MemorySpace, ScalarType, TileType, fmt_shape
from ._core import OpTypeError, P, Scratch, declare, tile_of

_SORT_DTYPES = (DType.FP16, DType.FP32)


def record_elems(dtype: DType) -> int:
    """Elements per 8-byte (value, index) record."""
    return 8 // dtype.size


def _vec(t, op, what, param):
    t = tile_of(t, op, what, param)
    if t.memory is not MemorySpace.Vec:
        raise OpTypeError(f"tile.{op} runs on the vector unit and requires a Vec {what}, but got a {t.memory.name} "
                          f"tile", param)
    return t


def _static_cols(t: TileType, op: str, param: str):
    if t.valid is not None and not isinstance(t.valid[1], int):
        raise OpTypeError(f"tile.{op} needs a static valid column count (the result's width follows from it)", param)
    return t.valid[1] if t.valid is not None else t.cols


def _sort32(ts, attrs):
    src = _vec(ts[0], "sort32", "source", "src")
    idx = _vec(ts[1], "sort32", "index tile", "idx")
    if src.dtype not in _SORT_DTYPES:
        raise OpTypeError(f"tile.sort32 sorts FP16 or FP32 values, but got {src.dtype!r}", "src")
    if src.cols % 32:
        raise OpTypeError(f"tile.sort32 sorts blocks of 32 elements, so the source's {src.cols} columns must be a "
                          f"multiple of 32", "src")
    if idx.dtype is not DType.UINT32 or idx.shape not in (src.shape, (1, src.cols)):
        raise OpTypeError(f"tile.sort32 idx is a UINT32 tile shaped like the source {fmt_shape(src.shape)} (or one "
                          f"[1, {src.cols}] row for every row), but got {idx}", "idx")
    if len(ts) > 2:
        tile_of(ts[2], "sort32", "tmp", "tmp")
    k = record_elems(src.dtype)
    vc = _static_cols(src, "sort32", "src")
    valid = (src.valid[0], vc * k) if src.valid is not None else None
    return TileType((src.rows, src.cols * k), src.dtype, MemorySpace.Vec, valid)


declare("sort32", (P("src"), P("idx"), P("tmp", default=None, keyword_only=True)), _sort32,
        pto="pto.tsort32", form="binary",
        doc="each 32-element block of a row sorted descending into (value, idx) records: FP32 2 elements each, "
            "FP16 4 (ties: smaller idx first; NaN first)")


def _mrgsort_tmp(ts, attrs):
    """Format 2 without tmp=: a compiler-made workspace shaped like the result."""
    tiles = [t for t in ts if isinstance(t, TileType)]
    if any(isinstance(t, ScalarType) for t in ts) or len(tiles) < 2:
        return None
    return TileType((1, sum(t.cols for t in tiles)), tiles[0].dtype, MemorySpace.Vec)


def _format1(src: TileType, attrs):
    k = record_elems(src.dtype)
    bl = attrs.get("block_len_static")
    vc = _static_cols(src, "mrgsort", "src0")
    if bl is not None:
        if bl <= 0 or bl % 64:
            raise OpTypeError(f"tile.mrgsort block_len={bl} must be a positive multiple of 64 elements (32 FP32 "
                              f"records)", "block_len")
        if vc % (4 * bl):
            raise OpTypeError(f"tile.mrgsort merges groups of 4 runs of block_len={bl}, so the source's {vc} valid "
                              f"columns must be a multiple of {4 * bl}", "block_len")
    if vc % k:
        raise OpTypeError(f"tile.mrgsort: {vc} columns are not whole {k}-element records", "src0")
    return TileType(src.shape, src.dtype, MemorySpace.Vec, src.valid)


def _mrgsort(ts, attrs):
    srcs = []
    for i, t in enumerate(ts):
        if isinstance(t, ScalarType):
            if i != 1 or len(ts) != 2:
                raise OpTypeError("mrgsort() format 1 (block_len=...) and format 2 (src1, ..., tmp) exclude each "
                                  "other; do not pass format 2 arguments with block_len", "block_len")
            if not t.dtype.is_int:
                raise OpTypeError(f"tile.mrgsort block_len must be an integer, but got {t}", "block_len")
            continue
        srcs.append(_vec(t, "mrgsort", "source", f"src{i}" if i < 4 else "tmp"))
    for t in srcs:
        if t.rows != 1:
            raise OpTypeError(f"tile.mrgsort merges one-row tiles of records, but got {fmt_shape(t.shape)}", "src0")
        if t.dtype not in _SORT_DTYPES or t.dtype != srcs[0].dtype:
            raise OpTypeError(f"tile.mrgsort merges FP16 or FP32 records of one dtype, but got {t.dtype!r}", "src0")
    if len(srcs) == 1 and len(ts) == 2:
        return _format1(srcs[0], attrs)
    if len(srcs) < 3:
        raise OpTypeError("mrgsort() needs either block_len=<int> (format 1) or 2-4 sorted tiles (format 2)", "src1")
    *lists, tmp = srcs
    k = record_elems(lists[0].dtype)
    width = sum(t.cols for t in lists)
    valid_cols = sum(_static_cols(t, "mrgsort", f"src{i}") for i, t in enumerate(lists))
    for i, t in enumerate(lists):
        if t.cols % k:
            raise OpTypeError(f"tile.mrgsort src{i}: {t.cols} columns are not whole {k}-element records", f"src{i}")
    if tmp.cols < width:
        raise OpTypeError(f"tile.mrgsort tmp must hold the {width}-column result, but got {fmt_shape(tmp.shape)}",
                          "tmp")
    return TileType((1, width), lists[0].dtype, MemorySpace.Vec, None if valid_cols == width else (1, valid_cols))


declare("mrgsort", (P("src0"), P("src1", default=None), P("src2", default=None), P("src3", default=None),
                    P("tmp", default=Scratch(make=_mrgsort_tmp)), P("exhausted", "bool", False),
                    P("block_len", "index", None, keyword_only=True, static_attr="block_len_static")),
        _mrgsort, pto="pto.tmrgsort", form="merge",
        # format 2 writes {exhausted} always; format 1 (a block_len scalar last) has no such attribute
        pto_attrs=(("exhausted", lambda a, args: None if isinstance(args[-1].type, ScalarType)
                    else bool(a.get("exhausted"))),),
        doc="format 1 (block_len=): each group of 4 sorted runs of block_len elements merged; format 2 (2-4 "
            "sorted one-row tiles, tmp): merged into one, descending (exhausted=True: stop when a list runs out)")
