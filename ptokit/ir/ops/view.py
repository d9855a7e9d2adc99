"""Views and layouts: transpose, the zero-copy views (transpose_view, reinterpret_view),
set_validshape, extract, and the layouts a tile may carry.

A tile's ``layout`` is ``None`` when it is the writer's default for its memory space and shape
(``TILE_LAYOUTS``); the other layouts the CPU tile library models are the *transposed* boxed
layout of Mat, Left and Right (a ZN Mat tile ``[K, N]`` holds the bytes of an NZ ``[N, K]``
one, which is what ``pl.tile.transpose_view`` relies on) and the flat (``none_box``) Mat tile.
"""
from __future__ import annotations

from typing import Optional, Tuple

from ..types import TILE_LAYOUTS, DType, MemorySpace, PadValue, ScalarType, TileLayout, TileType, fmt_shape
from ._core import TILE, OpTypeError, P, Scratch, declare, tile_of, vec_only

_SWAP = {"row_major": "col_major", "col_major": "row_major"}


def default_layout(memory: MemorySpace, shape) -> Tuple[str, str]:
    """(blayout, slayout) a tile of this space and shape gets when it names none."""
    bl, sl, _ = TILE_LAYOUTS[memory]
    if memory is MemorySpace.Vec and shape[1] == 1 and shape[0] > 1:
        bl = "col_major"
    return bl, sl


def transposed(layout: Tuple[str, str]) -> Optional[Tuple[str, str]]:
    """The boxed layout whose bytes hold the transpose (NZ <-> ZN); None for an unboxed one."""
    bl, sl = layout
    if sl == "none_box":
        return None
    return _SWAP[bl], _SWAP[sl]


def layout_of(t: TileType) -> Tuple[str, str]:
    return t.layout or default_layout(t.memory, t.shape)


def supported_layouts(memory: MemorySpace, shape):
    """The (blayout, slayout) pairs a tile of this space may carry, with a word for each."""
    canon = default_layout(memory, shape)
    found = {canon: "the default"}
    if memory in (MemorySpace.Mat, MemorySpace.Left, MemorySpace.Right):
        found[transposed(canon)] = "transposed"
    if memory is MemorySpace.Mat:
        found[("row_major", "none_box")] = "flat"
    return found


def normalized(memory: MemorySpace, shape, layout: Tuple[str, str], op: str, param: Optional[str] = None):
    """``layout`` checked against what the space supports; None when it is the default."""
    found = supported_layouts(memory, shape)
    if layout not in found:
        legal = "; ".join(f"({b}, {s}) {why}" for (b, s), why in found.items())
        raise OpTypeError(f"tile.{op}: a {memory.name} tile with blayout={layout[0]}, slayout={layout[1]} is not a "
                          f"layout ptokit's tile library models; {memory.name} tiles take {legal}", param)
    return None if layout == default_layout(memory, shape) else layout


def _valid_t(a: TileType):
    return (a.valid[1], a.valid[0]) if a.valid else None


# ----------------------------------------------------------------- transpose (a real one, TTRANS)

_TRANS_DTYPES = (DType.FP32, DType.FP16, DType.BF16, DType.INT8, DType.UINT8, DType.INT16, DType.UINT16,
                 DType.INT32, DType.UINT32)


def _axes(attrs):
    axes = []
    for key in ("axis1", "axis2"):
        ax = attrs[key]
        if not -2 <= ax <= 1:
            raise OpTypeError(f"tile.transpose {key}={ax} is not an axis of a 2-D tile (0, 1, -2 or -1)", key)
        axes.append(ax % 2)
    if axes[0] == axes[1]:
        raise OpTypeError(f"tile.transpose needs two different axes, but got axis1={attrs['axis1']} and "
                          f"axis2={attrs['axis2']}", "axis2")


def _nd_axes(a: TileType, attrs) -> None:
    """A transpose of an N-D tile swaps its last two axes (per batch: FlattenTileNdTo2D)."""
    rank = len(a.nd)
    got = []
    for key in ("axis1", "axis2"):
        ax = attrs[key]
        if not -rank <= ax < rank:
            raise OpTypeError(f"tile.transpose {key}={ax} is not an axis of a {rank}-D tile", key)
        got.append(ax % rank)
    if sorted(got) != [rank - 2, rank - 1]:
        raise OpTypeError(f"tile.transpose of a {rank}-D tile {fmt_shape(a.nd)} swaps its last two axes "
                          f"({rank - 2} and {rank - 1}), one matrix per batch; axis1={attrs['axis1']}, "
                          f"axis2={attrs['axis2']} moves a batch axis, which a tile cannot", "axis1")
    if a.valid is not None:
        raise OpTypeError(f"tile.transpose of a {rank}-D tile needs the whole tile valid, but its valid region is "
                          f"{fmt_shape(a.valid)}", "tile")


def _transpose(ts, attrs):
    a = tile_of(ts[0], "transpose", param="tile")
    vec_only(a, "transpose")
    if a.nd is not None:
        return _transpose_nd(a, ts, attrs)
    _axes(attrs)
    if a.dtype not in _TRANS_DTYPES:
        raise OpTypeError(f"tile.transpose moves 1-, 2- or 4-byte elements, but got {a.dtype!r}", "tile")
    if (a.rows * a.dtype.size) % 32:
        raise OpTypeError(f"tile.transpose of a {fmt_shape(a.shape)} tile gives a [{a.cols}, {a.rows}] tile, whose "
                          f"rows of {a.rows} x {a.dtype.size} bytes are not a multiple of 32 bytes", "tile")
    tmp = tile_of(ts[1], "transpose", "tmp_tile", "tmp_tile")
    if tmp.shape != a.shape or tmp.dtype != a.dtype or tmp.memory is not MemorySpace.Vec:
        raise OpTypeError(f"tile.transpose tmp_tile must be a Vec tile like the source ({a}), but got {tmp}",
                          "tmp_tile")
    return TileType((a.cols, a.rows), a.dtype, MemorySpace.Vec, _valid_t(a))


def _transpose_nd(a: TileType, ts, attrs) -> TileType:
    _nd_axes(a, attrs)
    r, c = a.nd[-2], a.nd[-1]
    if a.dtype not in _TRANS_DTYPES:
        raise OpTypeError(f"tile.transpose moves 1-, 2- or 4-byte elements, but got {a.dtype!r}", "tile")
    if (r * a.dtype.size) % 32:
        raise OpTypeError(f"tile.transpose of {fmt_shape(a.nd)} gives matrices [{c}, {r}], whose rows of {r} x "
                          f"{a.dtype.size} bytes are not a multiple of 32 bytes", "tile")
    if len(ts) > 1 and ts[1] is not None:
        tmp = tile_of(ts[1], "transpose", "tmp_tile", "tmp_tile")
        if tmp.shape != a.shape or tmp.dtype != a.dtype or tmp.memory is not MemorySpace.Vec:
            raise OpTypeError(f"tile.transpose tmp_tile must be a Vec tile like the source ({a}), but got {tmp}",
                              "tmp_tile")
    return TileType.of_nd(a.nd[:-2] + (c, r), a.dtype, MemorySpace.Vec)


declare("transpose", (P("tile", aliases=("input",)), P("axis1", "int"), P("axis2", "int"),
                      P("tmp_tile", default=Scratch("tile"))),
        _transpose, pto="pto.ttrans", form="binary", traits={"nd_swap"}, front="front_orch_transpose",
        doc="the tile with its two axes swapped, into a new tile (the scratch tile is made by the compiler); an "
            "N-D tile swaps its last two axes, one matrix per batch (of a tensor in orchestration code: a strided "
            "view of it)")


# ----------------------------------------------------------------- zero-copy views (pto.treshape)

def _transpose_view(ts, attrs):
    a = tile_of(ts[0], "transpose_view", param="tile")
    if a.memory is not MemorySpace.Mat:
        raise OpTypeError(f"tile.transpose_view swaps the fractal layout of a Mat tile (NZ <-> ZN, to feed a "
                          f"transposed operand to pl.move(..., target_memory=pl.Mem.Right) or Left); a "
                          f"{a.memory.name} tile has no such layout here, use pl.transpose for a real transpose",
                          "tile")
    swapped = transposed(layout_of(a))
    if swapped is None:
        raise OpTypeError("tile.transpose_view of a flat (slayout=none_box) Mat tile: it has no fractal layout to "
                          "swap", "tile")
    if a.nd is not None:     # per batch (FlattenTileNdTo2D re-loads each batch's matrix)
        if a.valid is not None:
            raise OpTypeError(f"tile.transpose_view of an N-D tile needs the whole tile valid, but its valid region "
                              f"is {fmt_shape(a.valid)}", "tile")
        nd = a.nd[:-2] + (a.nd[-1], a.nd[-2])
        return TileType.of_nd(nd, a.dtype, a.memory, pad=a.pad, layout=swapped)
    shape = (a.cols, a.rows)
    return TileType(shape, a.dtype, a.memory, _valid_t(a), a.pad,
                    None if swapped == default_layout(a.memory, shape) else swapped)


declare("transpose_view", (P("tile", space=MemorySpace.Mat),), _transpose_view, pto="pto.treshape", form="unary",
        traits={"shares_operand0", "nd_rebuilt"}, namespaces=("pl.tile", "pl.tensor"),
        doc="zero-copy view of a Mat tile with its two axes and its layout swapped (NZ [N, K] <-> ZN [K, N])")


def _reinterpret_view(ts, attrs):
    a = tile_of(ts[0], "reinterpret_view", param="data")
    dt: DType = attrs["dtype"]
    if not isinstance(dt, DType) or not dt.supported or dt in (DType.INDEX, DType.BOOL):
        raise OpTypeError(f"tile.reinterpret_view needs an element dtype such as pl.INT32, but got {dt!r}", "dtype")
    if dt == a.dtype:
        raise OpTypeError(f"tile.reinterpret_view needs a dtype different from the source's ({a.dtype!r})", "dtype")
    row_bytes = a.cols * a.dtype.size
    shape = attrs.get("shape")
    if shape is None:
        if row_bytes % dt.size:
            raise OpTypeError(f"tile.reinterpret_view of a {fmt_shape(a.shape)} {a.dtype!r} tile as {dt!r}: a row of "
                              f"{row_bytes} bytes is not a whole number of {dt.size}-byte elements", "dtype")
        shape = (a.rows, row_bytes // dt.size)
    else:
        if len(shape) != 2 or shape[0] * shape[1] * dt.size != a.nbytes:
            raise OpTypeError(f"tile.reinterpret_view shape {fmt_shape(shape)} of {dt!r} is not the "
                              f"{a.nbytes} bytes of the {fmt_shape(a.shape)} {a.dtype!r} source", "shape")
        shape = tuple(shape)
    valid = None
    if a.valid is not None:
        vr, vc = a.valid
        if shape[0] != a.rows:
            raise OpTypeError(f"tile.reinterpret_view with shape {fmt_shape(shape)} of a tile with a partial valid "
                              f"region: the valid rows would not map to rows of the result", "shape")
        if not isinstance(vc, int):
            if dt.size != a.dtype.size:
                raise OpTypeError("tile.reinterpret_view to a different element size needs a static valid column "
                                  "count to rescale", "data")
        elif (vc * a.dtype.size) % dt.size:
            raise OpTypeError(f"tile.reinterpret_view: {vc} valid {a.dtype!r} columns are not a whole number of "
                              f"{dt!r} columns", "data")
        else:
            vc = vc * a.dtype.size // dt.size
        valid = (vr, vc)
    return TileType(shape, dt, a.memory, valid, PadValue.null, a.layout)


declare("reinterpret_view", (P("data", aliases=("x",)), P("dtype", "dtype"),
                             P("shape", "shape", None, keyword_only=True)),
        _reinterpret_view, pto="pto.treshape", form="unary", traits={"shares_operand0"},
        doc="the same bytes seen as another dtype; the last dimension scales by the byte ratio (or shape=)")


# ----------------------------------------------------------------- set_validshape

def _set_validshape(ts, attrs):
    a = tile_of(ts[0], "set_validshape", param="tile")
    vr, vc = attrs["valid"]
    for v, dim, what in ((vr, a.rows, "valid_rows"), (vc, a.cols, "valid_cols")):
        if isinstance(v, int) and not 0 <= v <= dim:
            raise OpTypeError(f"tile.set_validshape {what}={v} is outside 0..{dim} of the {fmt_shape(a.shape)} tile",
                              what)
    return a.with_(valid=(vr, vc))


declare("set_validshape", (TILE, P("valid_rows", "dim", attr="valid"), P("valid_cols", "dim", attr="valid")),
        _set_validshape, pto="pto.set_validshape", form="validshape", traits={"shares_operand0", "accepts_acc"},
        doc="the tile with another valid region (no data moves; every holder of the buffer sees it)")


# ----------------------------------------------------------------- extract (TEXTRACT)

_EXTRACTS = {(MemorySpace.Mat, MemorySpace.Left), (MemorySpace.Mat, MemorySpace.Right),
             (MemorySpace.Acc, MemorySpace.Mat), (MemorySpace.Vec, MemorySpace.Vec)}


def _extract(ts, attrs):
    a = tile_of(ts[0], "extract", param="src")
    for t, what in ((ts[1], "index_row"), (ts[2], "index_col")):
        if not isinstance(t, ScalarType) or not t.dtype.is_int:
            raise OpTypeError(f"tile.extract {what} must be an integer, but got {t}", what)
    dst = attrs["target_memory"]
    if (a.memory, dst) not in _EXTRACTS:
        legal = ", ".join(sorted(f"{s.name}->{d.name}" for s, d in _EXTRACTS))
        raise OpTypeError(f"tile.extract {a.memory.name}->{dst.name if dst else dst} is not an extract the tile ISA "
                          f"has; legal: {legal}", "target_memory")
    shape = attrs["shape"]
    if len(shape) != 2 or shape[0] > a.rows or shape[1] > a.cols:
        raise OpTypeError(f"tile.extract shape {fmt_shape(shape)} must be a 2-D window of the {fmt_shape(a.shape)} "
                          f"source", "shape")
    for d, key in enumerate(("index_row", "index_col")):
        at = attrs.get(f"{key}_static")
        if at is not None and not 0 <= at <= a.shape[d] - shape[d]:
            raise OpTypeError(f"tile.extract of a {fmt_shape(shape)} window at {key}={at} leaves the "
                              f"{fmt_shape(a.shape)} source", key)
    return TileType(tuple(shape), a.dtype, dst)


declare("extract", (P("src"), P("index_row", "index", static_attr="index_row_static"),
                    P("index_col", "index", static_attr="index_col_static"), P("shape", "shape"),
                    P("target_memory", "memory", keyword_only=True)),
        _extract, pto="pto.textract", form="subtile", namespaces=("pl.tile", "pl.tensor"), traits={"accepts_acc"},
        doc="a copy of the shape-sized sub-tile at (index_row, index_col), in target_memory "
            "(Mat->Left/Right, Acc->Mat, Vec->Vec)")


def layout_attr(memory: MemorySpace, shape, blayout: Optional[TileLayout], slayout: Optional[TileLayout], op: str):
    """The tile layout a blayout=/slayout= pair asks for (missing halves from the default)."""
    if blayout is None and slayout is None:
        return None
    bl, sl = default_layout(memory, shape)
    want = (blayout.value if blayout is not None else bl, slayout.value if slayout is not None else sl)
    return normalized(memory, shape, want, op, "blayout" if blayout is not None else "slayout")
