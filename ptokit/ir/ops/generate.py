"""Tiles made from scalars (expands, full, ci/arange, tri, random) and the pad-filling copies
(fillpad_expand into a larger tile, fillpad_inplace in the input's own buffer).

``random`` is Philox-4x32 (7 or 10 rounds) over the valid region numbered row-major: element n is word
n % 4 of the block of counter (counter0 + n // 4, counter1, counter2, counter3) under key (key0, key1);
the same seeds give the same tile on every run (docs/tile-api.md).
"""
from __future__ import annotations

import struct

from .. import nodes as N
from ..types import DType, MemorySpace, PadValue, ScalarType, TileType, fmt_shape
from ._core import OpTypeError, P, declare
from ._vec import NUMERIC, dtype_in, names, result, scalar, static_2d, valid_within, vec_tile


def _expands(ts, attrs):
    t = vec_tile(ts[0], "expands", "target", "target")
    dtype_in(t, NUMERIC, "expands", "target")
    scalar(ts[1], "expands", "scalar")
    return result(t)


declare("expands", (P("target"), P("scalar", "scalar")), _expands, pto="pto.texpands", form="fill",
        doc="a tile shaped like target, every valid element set to scalar")


def _dtype(attrs, allowed, op, param="dtype") -> DType:
    d = attrs.get(param)
    if d not in allowed:
        raise OpTypeError(f"tile.{op} requires dtype {names(allowed)}, but got {d!r}", param)
    return d


def _full(ts, attrs):
    shape = static_2d(attrs["shape"], "full")
    scalar(ts[0], "full", "value")
    return TileType(shape, _dtype(attrs, NUMERIC, "full"), MemorySpace.Vec)


def bf16_bits(value: float) -> int:
    """The BF16 encoding of ``value`` (float32 rounded to nearest even), as a signed 16-bit integer."""
    u = struct.unpack("<I", struct.pack("<f", value))[0]
    if (u & 0x7F800000) == 0x7F800000 and u & 0x007FFFFF:
        b = (u >> 16) | 0x40                  # a NaN stays a (quiet) NaN
    else:
        b = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF
    return b - 0x10000 if b >= 0x8000 else b


def _full_expand(args, attrs, emit):
    # no texpands fills a BF16 tile (the real assembler takes i16/i32/f16/f32 on A2/A3, i8 too on A5):
    # a constant BF16 fill is the INT16 fill of its bits, seen as BF16; anything else is the plain op
    v = args[0]
    if attrs.get("dtype") is not DType.BF16 or not isinstance(v, N.Const) or isinstance(v.value, bool) or \
            not isinstance(v.value, (int, float)):
        return None
    bits = N.Const(bf16_bits(float(v.value)), type=ScalarType(DType.INT16), loc=v.loc)
    filled = emit("full", [bits], {**attrs, "dtype": DType.INT16})
    return emit("reinterpret_view", [filled], {"dtype": DType.BF16, "shape": None})


declare("full", (P("shape", "shape"), P("dtype", "dtype"), P("value", "scalar")), _full, pto="pto.texpands",
        form="fill", expand=_full_expand,
        doc="a Vec tile of shape and dtype filled with value (BF16 with a constant value: the INT16 fill of "
            "its bits, seen as BF16)")


_CI_DTYPES = (DType.INT16, DType.INT32, DType.UINT16, DType.UINT32)     # pto.tci: 16- and 32-bit integers


def _ci(op):
    def rule(ts, attrs):
        shape = static_2d(attrs["shape"], op)
        if shape[0] != 1 or shape[1] == 1:
            raise OpTypeError(f"tile.{op} fills one row: it requires a shape [1, N] with N > 1, but got "
                              f"{fmt_shape(shape)}", "shape")
        scalar(ts[0], op, "start", ints=True)
        return TileType(shape, _dtype(attrs, _CI_DTYPES, op), MemorySpace.Vec)
    return rule


for _n in ("ci", "arange"):          # pypto: arange = ci
    declare(_n, (P("start", "scalar"), P("shape", "shape"), P("dtype", "dtype", DType.INT32),
                 P("descending", "bool", False)), _ci(_n), pto="pto.tci", form="fill",
            pto_attrs=(("descending", lambda a, _: bool(a["descending"])),),
            namespaces=("pl", "pl.tile") if _n == "arange" else ("pl.tile", "pl.tensor"),
            doc="[1, N] row start + k (descending: start - k), INT16/INT32/UINT16/UINT32 (unsigned wraps)")

_TRI_DTYPES = (DType.FP16, DType.FP32, DType.INT16, DType.INT32, DType.UINT16, DType.UINT32)


def _tri(ts, attrs):
    shape = static_2d(attrs["shape"], "tri")
    scalar(ts[0], "tri", "diagonal", ints=True)
    valid = valid_within(attrs.get("valid"), shape, "tri")
    return TileType(shape, _dtype(attrs, _TRI_DTYPES, "tri"), MemorySpace.Vec, valid)


declare("tri", (P("diagonal", "scalar"), P("shape", "shape"), P("valid_shape", "valid", None, attr="valid"),
                P("dtype", "dtype", DType.INT32), P("upper", "bool", False)), _tri, pto="pto.ttri", form="fill_i32",
        pto_attrs=(("upperOrLower", lambda a, _: int(bool(a["upper"]))),), namespaces=("pl.tile", "pl.tensor"),
        doc="1 where col <= row + diagonal (upper: col >= row + diagonal), else 0, over the valid region")


def _random(ts, attrs):
    shape = static_2d(attrs["shape"], "random")
    for t, p in zip(ts, ("key0", "key1", "counter0", "counter1", "counter2", "counter3")):
        scalar(t, "random", p, ints=True)
    if attrs.get("rounds") not in (7, 10):
        raise OpTypeError(f"tile.random runs 7 or 10 rounds, but got rounds={attrs.get('rounds')!r}", "rounds")
    valid = valid_within(attrs.get("valid"), shape, "random")
    return TileType(shape, _dtype(attrs, (DType.INT32, DType.UINT32), "random"), MemorySpace.Vec, valid)


declare("random", tuple(P(n, "scalar") for n in ("key0", "key1", "counter0", "counter1", "counter2", "counter3"))
        + (P("shape", "shape"), P("valid_shape", "valid", None, attr="valid"), P("dtype", "dtype", DType.UINT32),
           P("rounds", "int", 10)), _random, pto="pto.trandom", form="fill_i32",
        pto_attrs=(("rounds", lambda a, _: None if a["rounds"] == 10 else a["rounds"]),),
        doc="counter-based random words (Philox-4x32, 7 or 10 rounds), INT32/UINT32, reproducible from the seeds")


def _pad(attrs, op) -> PadValue:
    pad = attrs.get("pad_value")
    if not isinstance(pad, PadValue) or pad is PadValue.null:
        raise OpTypeError(f"tile.{op} requires pad_value=pl.PadValue.zero, .max or .min (or 0, math.inf, "
                          f"-math.inf)", "pad_value")
    return pad


def _fillpad_expand(ts, attrs):
    a = vec_tile(ts[0], "fillpad_expand", "tile")
    shape = static_2d(attrs["shape"], "fillpad_expand")
    if shape[0] < a.rows or shape[1] < a.cols:
        raise OpTypeError(f"tile.fillpad_expand destination {fmt_shape(shape)} must not be smaller than the source "
                          f"{fmt_shape(a.shape)}", "shape")
    return TileType(shape, a.dtype, MemorySpace.Vec, None, _pad(attrs, "fillpad_expand"))


declare("fillpad_expand", (P("tile", aliases=("value",)), P("shape", "shape"), P("pad_value", "pad", PadValue.zero)),
        _fillpad_expand,
        pto="pto.tfillpad_expand", form="unary",
        doc="a larger tile of shape: the source's valid region top-left, pad_value everywhere else")


def _fillpad_inplace(ts, attrs):
    a = vec_tile(ts[0], "fillpad_inplace", "tile")
    return a.with_(valid=None, pad=_pad(attrs, "fillpad_inplace"))


declare("fillpad_inplace", (P("tile"), P("pad_value", "pad", PadValue.zero)), _fillpad_inplace, pto="pto.tfillpad",
        form="unary", traits={"shares_operand0"}, namespaces=("pl.tile", "pl.tensor"),
        doc="the tile, in its own buffer, with every element outside its valid region set to pad_value")
