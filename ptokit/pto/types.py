"""Types of the PTO dialect: scalars, ``!pto.ptr``, tensor and partition views, ``!pto.tile_buf``.

The one home of the dialect's type facts that both the writer (PTO codegen) and the reader
(the built-in assembler) use; the tables among them (MLIR scalar names with their C++ types and
sizes, the memory spaces with their per-space layout defaults, pad codes, buffer capacities per
architecture) are ``ptokit.pto.facts``, re-exported here.  Each type prints back to canonical
MLIR text with ``str()``; two types are equal when their canonical forms are equal.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Optional, Tuple

from .facts import (ALIGN, BLAYOUTS, CAPACITY, COMPACTS, ELEM_TYPES, FLOAT_SCALARS,  # noqa: F401 (re-exported)
                    FOUR_BIT_SCALARS, FP8_SCALARS, INT_SCALARS, LOC_DEFAULTS, PAD_NAMES, PADS, SCALARS,
                    SCALE_LAYOUTS, SLAYOUTS, TILE_LOCS, bit_width, default_layout, scale_side, tile_cxx_loc)


class TypeSyntaxError(Exception):
    """Raised by the body parsers; ``offset`` is a position inside the body."""

    def __init__(self, message: str, offset: int = 0):
        super().__init__(message)
        self.message = message
        self.offset = offset


@dataclass(frozen=True)
class ScalarType:
    name: str

    def __str__(self) -> str:
        return self.name

    @property
    def cxx(self) -> str:
        return SCALARS[self.name][0]

    @property
    def is_float(self) -> bool:
        return self.name in FLOAT_SCALARS

    @property
    def is_int(self) -> bool:
        return self.name in INT_SCALARS


@dataclass(frozen=True)
class PtrType:
    elem: str

    def __str__(self) -> str:
        return f"!pto.ptr<{self.elem}>"


def _shape_str(shape: Tuple[Optional[int], ...]) -> str:
    return "x".join("?" if d is None else str(d) for d in shape)


@dataclass(frozen=True)
class TensorViewType:
    shape: Tuple[Optional[int], ...]
    elem: str

    def __str__(self) -> str:
        return f"!pto.tensor_view<{_shape_str(self.shape)}x{self.elem}>"


@dataclass(frozen=True)
class PartitionViewType:
    shape: Tuple[Optional[int], ...]
    elem: str

    def __str__(self) -> str:
        return f"!pto.partition_tensor_view<{_shape_str(self.shape)}x{self.elem}>"


@dataclass(frozen=True)
class TileBufType:
    loc: str
    dtype: str
    rows: int
    cols: int
    v_row: Optional[int]
    v_col: Optional[int]
    blayout: str
    slayout: str
    fractal: int
    pad: int
    compact: int = 0

    @classmethod
    def of(cls, loc: str, dtype: str, rows: int, cols: int, pad: int = 0,
           v_row: Optional[int] = None, v_col: Optional[int] = None) -> "TileBufType":
        """A tile type with the writer's default layout for its space and shape."""
        bl, sl, fr = default_layout(loc, rows, cols)
        return cls(loc, dtype, rows, cols, v_row, v_col, bl, sl, fr, pad)

    def reshaped(self, rows: int, cols: int, v_row: Optional[int] = None,
                 v_col: Optional[int] = None) -> "TileBufType":
        """The same bytes seen as a ``rows x cols`` tile of the same space, dtype and pad."""
        bl, sl, fr = default_layout(self.loc, rows, cols)
        return dataclasses.replace(self, rows=rows, cols=cols, v_row=v_row, v_col=v_col,
                                   blayout=bl, slayout=sl, fractal=fr)

    @property
    def boxed(self) -> bool:
        return self.slayout != "none_box"

    def __str__(self) -> str:
        vr = "?" if self.v_row is None else str(self.v_row)
        vc = "?" if self.v_col is None else str(self.v_col)
        text = (f"!pto.tile_buf<loc={self.loc}, dtype={self.dtype}, rows={self.rows}, cols={self.cols}, "
                f"v_row={vr}, v_col={vc}, blayout={self.blayout}, slayout={self.slayout}, "
                f"fractal={self.fractal}, pad={self.pad}")
        if self.compact:
            text += f", compact={self.compact}"
        return text + ">"

    @property
    def nbytes(self) -> int:
        return self.rows * self.cols * SCALARS[self.dtype][1]

    def cxx(self) -> str:
        vr = -1 if self.v_row is None else self.v_row
        vc = -1 if self.v_col is None else self.v_col
        return (f"Tile<TileType::{tile_cxx_loc(self.loc, self.blayout)}, {SCALARS[self.dtype][0]}, {self.rows}, {self.cols}, "
                f"BLayout::{BLAYOUTS[self.blayout]}, {vr}, {vc}, SLayout::{SLAYOUTS[self.slayout]}, "
                f"{self.fractal}, PadValue::{PADS[self.pad]}, CompactMode::{COMPACTS[self.compact]}>")


@dataclass(frozen=True)
class VectorType:
    """MLIR's builtin ``vector<4xi16>`` (tmrgsort's executed counts)."""

    shape: Tuple[int, ...]
    elem: str

    def __str__(self) -> str:
        return f"vector<{_shape_str(self.shape)}x{self.elem}>"


@dataclass(frozen=True)
class LocalArrayType:
    """``!pto.local_array<16xi32>``: a small array on the core's stack (pl.array in kernel code)."""

    extent: int
    elem: str

    def __str__(self) -> str:
        return f"!pto.local_array<{self.extent}x{self.elem}>"


@dataclass(frozen=True)
class OpaqueType:
    """Any other dialect type (e.g. ``!pto.pipe<...>``), kept as text."""

    text: str

    def __str__(self) -> str:
        return self.text


# --------------------------------------------------------------------------- body parsers

_DIM_RE = re.compile(r"\s*(\?|\d+)\s*x")


def parse_shaped_body(body: str, what: str) -> Tuple[Tuple[Optional[int], ...], str]:
    """Parse ``?x?xf32`` / ``32x32xf32`` into (shape, element type)."""
    pos = 0
    shape = []
    while True:
        m = _DIM_RE.match(body, pos)
        if not m:
            break
        tok = m.group(1)
        if tok != "?" and int(tok) <= 0:
            raise TypeSyntaxError(f"{what} dimension must be positive or '?', got {tok}", m.start(1))
        shape.append(None if tok == "?" else int(tok))
        pos = m.end()
    elem = body[pos:].strip()
    if not shape:
        raise TypeSyntaxError(f"{what} needs a shape like '?x?xf32'", 0)
    if len(shape) > 5:
        raise TypeSyntaxError(f"{what} has {len(shape)} dimensions; at most 5 are supported", 0)
    if elem not in ELEM_TYPES:
        raise TypeSyntaxError(f"unknown element type {elem!r} in {what}", pos)
    return tuple(shape), elem


def _split_fields(body: str):
    """Yield (offset, text) for each comma-separated field of a body."""
    pos = 0
    for part in body.split(","):
        lead = len(part) - len(part.lstrip())
        yield pos + lead, part.strip()
        pos += len(part) + 1


def parse_tile_buf_body(body: str) -> TileBufType:
    fields = {}
    offsets = {}
    positional = []
    for off, part in _split_fields(body):
        if not part:
            raise TypeSyntaxError("empty field in tile_buf type", off)
        if "=" in part:
            key, _, val = part.partition("=")
            key = key.strip()
            val = val.strip()
            if key in fields:
                raise TypeSyntaxError(f"duplicate tile_buf field {key!r}", off)
            fields[key] = val
            offsets[key] = off
        else:
            if fields:
                raise TypeSyntaxError(f"unexpected tile_buf field {part!r}", off)
            positional.append((off, part))
    # compact form: <vec, 16x128xf32, valid=16x1, blayout=...>
    if positional:
        if len(positional) != 2:
            raise TypeSyntaxError("tile_buf needs 'loc=..., dtype=..., rows=..., cols=...'", positional[0][0])
        (loff, loc), (soff, shaped) = positional
        fields.setdefault("loc", loc)
        offsets.setdefault("loc", loff)
        try:
            shape, elem = parse_shaped_body(shaped, "tile_buf")
        except TypeSyntaxError as exc:
            raise TypeSyntaxError(exc.message, soff + exc.offset)
        if len(shape) != 2 or None in shape:
            raise TypeSyntaxError("tile_buf shape must be RxC with static sizes", soff)
        fields["dtype"], fields["rows"], fields["cols"] = elem, str(shape[0]), str(shape[1])
        for k in ("dtype", "rows", "cols"):
            offsets[k] = soff
        if "valid" in fields:
            vr, _, vc = fields.pop("valid").partition("x")
            fields["v_row"], fields["v_col"] = vr, vc
            offsets["v_row"] = offsets["v_col"] = offsets["valid"]
    known = {"loc", "dtype", "rows", "cols", "v_row", "v_col", "blayout", "slayout", "fractal", "pad", "compact"}
    for key in fields:
        if key not in known:
            raise TypeSyntaxError(f"unknown tile_buf field {key!r}", offsets[key])
    for key in ("loc", "dtype", "rows", "cols"):
        if key not in fields:
            raise TypeSyntaxError(f"tile_buf type is missing '{key}='", len(body))
    loc = fields["loc"]
    if loc not in TILE_LOCS:
        raise TypeSyntaxError(f"tile_buf loc must be one of {', '.join(TILE_LOCS)}; got {loc!r}", offsets["loc"])
    dtype = fields["dtype"]
    if dtype not in ELEM_TYPES:
        raise TypeSyntaxError(f"unknown tile_buf dtype {dtype!r}", offsets["dtype"])

    def pos_int(key: str, allow_q: bool = False, default=None):
        if key not in fields:
            return default
        val = fields[key]
        if allow_q and val == "?":
            return None
        if not re.fullmatch(r"\d+", val) or int(val) <= 0:
            raise TypeSyntaxError(f"tile_buf {key} must be a positive integer{' or ?' if allow_q else ''}; got {val!r}",
                                  offsets[key])
        return int(val)

    rows = pos_int("rows")
    cols = pos_int("cols")
    v_row = pos_int("v_row", True, rows)
    v_col = pos_int("v_col", True, cols)
    if v_row is not None and v_row > rows:
        raise TypeSyntaxError(f"tile_buf v_row={v_row} exceeds rows={rows}", offsets["v_row"])
    if v_col is not None and v_col > cols:
        raise TypeSyntaxError(f"tile_buf v_col={v_col} exceeds cols={cols}", offsets["v_col"])
    d_bl, d_sl, d_fr = LOC_DEFAULTS[loc]
    blayout = fields.get("blayout", d_bl)
    if blayout not in BLAYOUTS:
        raise TypeSyntaxError(f"tile_buf blayout must be row_major or col_major; got {blayout!r}", offsets["blayout"])
    slayout = fields.get("slayout", d_sl)
    if slayout not in SLAYOUTS:
        raise TypeSyntaxError(f"tile_buf slayout must be none_box, row_major or col_major; got {slayout!r}",
                              offsets["slayout"])
    fractal = pos_int("fractal", False, d_fr)
    pad_text = fields.get("pad", "0")
    if pad_text in PAD_NAMES:
        pad = PAD_NAMES[pad_text]
    elif re.fullmatch(r"\d+", pad_text) and int(pad_text) in PADS:
        pad = int(pad_text)
    else:
        raise TypeSyntaxError(f"tile_buf pad must be 0..3 (null, zero, max, min); got {pad_text!r}", offsets["pad"])
    comp_text = fields.get("compact", "0")
    if not re.fullmatch(r"\d+", comp_text) or int(comp_text) not in COMPACTS:
        raise TypeSyntaxError(f"tile_buf compact must be 0 or 1; got {comp_text!r}", offsets.get("compact", 0))
    return TileBufType(loc, dtype, rows, cols, v_row, v_col, blayout, slayout, fractal, pad, int(comp_text))


def parse_dialect_type(name: str, body: Optional[str]):
    """Interpret ``!name<body>``; raises TypeSyntaxError with a body offset."""
    if name == "pto.ptr":
        if body is None:
            raise TypeSyntaxError("!pto.ptr needs an element type: !pto.ptr<f32>")
        elem = body.strip()
        if elem not in ELEM_TYPES:
            raise TypeSyntaxError(f"unknown element type {elem!r} in !pto.ptr", len(body) - len(body.lstrip()))
        return PtrType(elem)
    if name in ("pto.tensor_view", "pto.partition_tensor_view"):
        if body is None:
            raise TypeSyntaxError(f"!{name} needs a shape: !{name}<?x?xf32>")
        shape, elem = parse_shaped_body(body, name[4:])
        return (TensorViewType if name == "pto.tensor_view" else PartitionViewType)(shape, elem)
    if name == "pto.local_array":
        shape, elem = parse_shaped_body(body or "", "local_array")
        if len(shape) != 1 or shape[0] is None or shape[0] <= 0:
            raise TypeSyntaxError("!pto.local_array has one static extent: !pto.local_array<16xi32>")
        return LocalArrayType(shape[0], elem)
    if name == "pto.tile_buf":
        if body is None:
            raise TypeSyntaxError("!pto.tile_buf needs its parameters: !pto.tile_buf<loc=vec, dtype=f32, ...>")
        return parse_tile_buf_body(body)
    text = "!" + name + ("" if body is None else "<" + " ".join(body.split()) + ">")
    return OpaqueType(text)
