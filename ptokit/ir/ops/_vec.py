"""Rule helpers of the vector families declared in compare, bitwise, arith, argreduce and generate."""
from __future__ import annotations

from typing import Iterable, Optional

from ..types import DType, MemorySpace, PadValue, ScalarType, TileType, fmt_shape
from ._core import OpTypeError

FLOATS = (DType.FP16, DType.BF16, DType.FP32)
INTS = (DType.INT8, DType.INT16, DType.INT32, DType.UINT8, DType.UINT16, DType.UINT32)
NUMERIC = FLOATS + INTS
HALF_OR_WORD = tuple(d for d in NUMERIC if d.size in (2, 4))   # 2- and 4-byte elements


def names(dtypes: Iterable[DType]) -> str:
    ds = [d.name for d in dtypes]
    return ", ".join(ds[:-1]) + " or " + ds[-1] if len(ds) > 1 else ds[0]


def vec_tile(t, op: str, param: Optional[str], what: str = "operand") -> TileType:
    """A tile in Vec (the caret goes under ``param``)."""
    if not isinstance(t, TileType):
        raise OpTypeError(f"tile.{op} requires a tile {what}, but got {t}", param)
    if t.memory is not MemorySpace.Vec:
        raise OpTypeError(f"tile.{op} runs on the vector unit and requires a Vec tile {what}, but got a "
                          f"{t.memory.name} tile", param)
    return t


def dtype_in(t: TileType, allowed, op: str, param: Optional[str], what: str = "tile") -> None:
    if t.dtype not in allowed:
        raise OpTypeError(f"tile.{op} requires a {what} of dtype {names(allowed)}, but got {t.dtype!r}", param)


def like(a: TileType, b: TileType, op: str, param: Optional[str], what: str = "operand") -> None:
    """``b`` has ``a``'s shape and dtype."""
    which = "" if what == "operand" else f" ({what})"
    if a.shape != b.shape:
        raise OpTypeError(f"tile.{op} requires compatible shapes, but got {fmt_shape(a.shape)} and "
                          f"{fmt_shape(b.shape)}{which}", param)
    if a.dtype != b.dtype:
        raise OpTypeError(f"tile.{op} requires matching dtypes, but got {a.dtype!r} and {b.dtype!r}{which}", param)


def scalar(t, op: str, param: str, ints: bool = False) -> ScalarType:
    name = "" if param == "scalar" else f" {param}"
    if not isinstance(t, ScalarType):
        raise OpTypeError(f"tile.{op} requires a scalar{name}, but got {t}", param)
    if ints and t.dtype.is_float:
        raise OpTypeError(f"tile.{op} requires an integer scalar{name}, but got {t}", param)
    return t


def result(t: TileType) -> TileType:
    """An element-wise result: the operand's shape, dtype and valid region, no pad."""
    return t.with_(pad=PadValue.null)


def static_2d(shape, op: str, param: str = "shape") -> tuple:
    if len(shape) != 2 or not all(isinstance(d, int) and d > 0 for d in shape):
        raise OpTypeError(f"tile.{op} requires a static 2-D shape of positive ints, but got {fmt_shape(shape)}", param)
    return tuple(shape)


def valid_within(valid, shape, op: str, param: str = "valid_shape"):
    """An optional valid_shape: one entry per dimension, each a scalar or an int within the shape."""
    if valid is None:
        return None
    if len(valid) != len(shape):
        raise OpTypeError(f"tile.{op} valid_shape needs {len(shape)} entries, but got {len(valid)}", param)
    for v, d in zip(valid, shape):
        if isinstance(v, int) and not 0 <= v <= d:
            raise OpTypeError(f"tile.{op} valid_shape {fmt_shape(valid)} exceeds the shape {fmt_shape(shape)}", param)
    return tuple(valid)
