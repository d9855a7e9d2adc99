"""The PTO dialect's facts as tables: MLIR scalar names with their C++ types and sizes, the
memory spaces with their per-space layout defaults (artifacts.md), pad and compact codes, and the
buffer capacities and address alignment per architecture.

``ptokit.pto.types`` (the dialect's type classes) re-exports every name here; the tables are their
own module so that what needs only them (the IR's dtypes, and with them ``import ptokit.language``)
does not load the type classes.
"""
from __future__ import annotations

from typing import Tuple

from ..targets import BUFFER_CAPACITY

# MLIR scalar type -> (C++ type, size in bytes)
SCALARS = {
    "f32": ("float", 4),
    "f16": ("half", 2),
    "bf16": ("bfloat16_t", 2),
    "f64": ("double", 8),
    "i1": ("bool", 1),
    "i8": ("int8_t", 1),
    "i16": ("int16_t", 2),
    "i32": ("int32_t", 4),
    "i64": ("int64_t", 8),
    "ui8": ("uint8_t", 1),
    "ui16": ("uint16_t", 2),
    "ui32": ("uint32_t", 4),
    "ui64": ("uint64_t", 8),
    "index": ("int64_t", 8),
    # the a5 MX formats (storage types of the CPU tile library, pto/cpu/types.hpp)
    "f8E4M3FN": ("float8_e4m3_t", 1),
    "f8E5M2": ("float8_e5m2_t", 1),
    "f8E8M0": ("float8_e8m0_t", 1),
    # the 4-bit formats: one value a byte, in its low four bits (docs/decisions.md "4-bit storage")
    "f4E2M1FN": ("float4_e2m1_t", 1),
    "i4": ("int4b_t", 1),
    "ui4": ("uint4b_t", 1),
}
FP8_SCALARS = {"f8E4M3FN", "f8E5M2", "f8E8M0"}
FOUR_BIT_SCALARS = {"f4E2M1FN", "i4", "ui4"}
FLOAT_SCALARS = {"f32", "f16", "bf16", "f64", "f4E2M1FN"} | FP8_SCALARS
INT_SCALARS = set(SCALARS) - FLOAT_SCALARS


def bit_width(name: str) -> int:
    """Bits of an MLIR scalar type (``i1`` is 1 bit, the 4-bit formats 4, ``index`` 64)."""
    return 1 if name == "i1" else 4 if name in FOUR_BIT_SCALARS else SCALARS[name][1] * 8


# element types a tile or tensor may hold
ELEM_TYPES = {"f32", "f16", "bf16", "i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "i1"} | FP8_SCALARS | \
    FOUR_BIT_SCALARS

TILE_LOCS = {"vec": "Vec", "mat": "Mat", "left": "Left", "right": "Right", "acc": "Acc", "bias": "Bias",
             "scaling": "Scaling"}
# loc=scaling holds both MX scale tiles (a5); the layout says which: the left operand's scales are
# row_major/row_major, the right operand's col_major/col_major (fractal 32 both)
SCALE_LAYOUTS = {"left_scale": ("row_major", "row_major", 32), "right_scale": ("col_major", "col_major", 32)}


def scale_side(blayout: str) -> str:
    """'left_scale' or 'right_scale': the buffer a loc=scaling tile of this blayout lives in."""
    return "left_scale" if blayout == "row_major" else "right_scale"


def tile_cxx_loc(loc: str, blayout: str) -> str:
    """The C++ TileType of a tile_buf's loc (loc=scaling: ScaleLeft or ScaleRight by its layout)."""
    if loc == "scaling":
        return "ScaleLeft" if blayout == "row_major" else "ScaleRight"
    return TILE_LOCS[loc]


BLAYOUTS = {"row_major": "RowMajor", "col_major": "ColMajor"}
SLAYOUTS = {"none_box": "NoneBox", "row_major": "RowMajor", "col_major": "ColMajor"}
PADS = {0: "Null", 1: "Zero", 2: "Max", 3: "Min"}
PAD_NAMES = {"null": 0, "zero": 1, "max": 2, "min": 3}
COMPACTS = {0: "Null", 1: "Normal"}
# default (blayout, slayout, fractal) per memory space (artifacts.md)
LOC_DEFAULTS = {
    "vec": ("row_major", "none_box", 512),
    "mat": ("col_major", "row_major", 512),
    "left": ("col_major", "row_major", 512),
    "right": ("row_major", "col_major", 512),
    "acc": ("col_major", "row_major", 1024),
    "bias": ("row_major", "none_box", 512),
    "scaling": SCALE_LAYOUTS["left_scale"],
    "left_scale": SCALE_LAYOUTS["left_scale"],
    "right_scale": SCALE_LAYOUTS["right_scale"],
}
# bytes per memory space (the one table is ptokit.targets.BUFFER_CAPACITY) and the alignment of planned addresses
CAPACITY = BUFFER_CAPACITY
ALIGN = {"vec": 128, "mat": 128, "acc": 128, "left": 64, "right": 64, "bias": 64, "left_scale": 32,
         "right_scale": 32}


def default_layout(loc: str, rows: int, cols: int) -> Tuple[str, str, int]:
    """(blayout, slayout, fractal) a writer gives a ``rows x cols`` tile in ``loc``.

    The per-space defaults, except that a column vector (``[r, 1]`` Vec tile, r > 1) is
    ``col_major``: the tile ISA wants a row-major row to be a multiple of 32 bytes, which a
    single column never is (docs/decisions.md).  Readers fill missing fields from
    ``LOC_DEFAULTS`` alone.
    """
    bl, sl, fr = LOC_DEFAULTS[loc]
    if loc == "vec" and cols == 1 and rows > 1:
        bl = "col_major"
    return bl, sl, fr
