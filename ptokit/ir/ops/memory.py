"""Moving data: global memory <-> tiles (load/store), tile allocation, on-chip moves."""
from __future__ import annotations

from math import prod

from ..types import (TILE_LAYOUTS, AtomicType, DType, MemorySpace, PadValue, TensorLayout, TensorType, TileType,
                     fmt_shape)
from ...targets import Target
from . import view
from ._core import TILE, OpTypeError, P, count_of, declare, tile_of


def _load(ts, attrs):
    t = ts[0]
    if not isinstance(t, TensorType):
        raise OpTypeError(f"tile.load requires a tensor, but got {t}", "tensor")
    shape = attrs["shape"]
    valid = attrs.get("valid")
    if valid is not None and len(valid) != len(shape):
        raise OpTypeError("valid_shape needs one entry per dimension", "valid_shape")
    if count_of(ts[1]) != len(shape):
        raise OpTypeError(f"pl.load got {count_of(ts[1])} offsets but {len(shape)} shapes")
    if len(shape) != len(t.shape):
        raise OpTypeError(f"tile.load requires {len(t.shape)} offsets and shapes for a {len(t.shape)}-D tensor, but "
                          f"got {len(shape)}")
    mem = attrs.get("target_memory", MemorySpace.Vec)
    if mem not in (MemorySpace.Vec, MemorySpace.Mat):
        raise OpTypeError(f"tile.load can move data DDR->Vec or DDR->Mat only, but got target_memory={mem!r}")
    if t.layout is not None and t.layout.is_mx:
        return _load_mx_scales(t, attrs, shape, valid, mem)
    lead = prod(shape[:-2]) if len(shape) > 2 else 1
    if lead > 1:
        # an N-D window: its leading axes merge into the tile's rows, in row-major order (A5); the tile
        # keeps the written shape (``nd``) until FlattenTileNdTo2D (a Mat one feeds pl.batch_matmul)
        if valid is not None and list(valid[:-1]) != list(shape[:-1]):
            raise OpTypeError(f"an N-D window {fmt_shape(shape)} may leave only its last dimension partly valid, "
                              f"but valid_shape is {fmt_shape(valid)}", "valid_shape")
    tile_shape = (lead * shape[-2], shape[-1]) if len(shape) >= 2 else (1, shape[0])
    extent = valid if valid is not None else shape
    for d_t, d_s in zip(t.shape, extent):
        if isinstance(d_t, int) and isinstance(d_s, int) and d_s > d_t:
            what = "valid region" if valid is not None else "window"
            raise OpTypeError(f"tile.load {what} {fmt_shape(extent)} exceeds the tensor's shape {fmt_shape(t.shape)}"
                              f"{_CLAMP_HINT}")
    _check_window("tile.load", "reads", t, attrs.get("offsets_static"), extent,
                  "valid region" if valid is not None else "window", _CLAMP_HINT)
    tile_valid = None
    if valid is not None:
        tile_valid = ((valid[-2] if lead == 1 else lead * valid[-2]), valid[-1]) if len(valid) >= 2 else (1, valid[0])
    return TileType(tile_shape, t.dtype, mem, tile_valid, nd=tuple(shape) if lead > 1 else None)


MAT_ND_REFUSAL = ("needs the leading extents to be 1 (a Mat tile is loaded from one contiguous 2-D block); an N-D "
                  "Mat tile may only feed pl.batch_matmul (directly or through pl.tile.transpose_view), which "
                  "loads one block per batch")


_CLAMP_HINT = "; give valid_shape= for the part inside it, or clamp=True to cut the window at the tensor's edge"

# the Mat layout of loaded MX scales: the left operand's (MX_A_ZZ) and the right operand's (MX_B_NN)
MX_SCALE_LAYOUT = {TensorLayout.MX_A_ZZ: ("row_major", "row_major"), TensorLayout.MX_B_NN: ("col_major", "col_major")}


def _load_mx_scales(t: TensorType, attrs, shape, valid, mem) -> TileType:
    """A window of an MX scale tensor (pl.MX_A_ZZ / pl.MX_B_NN): whole boxes, into Mat, for a
    pl.move to LeftScale / RightScale."""
    lay = t.layout
    if mem is not MemorySpace.Mat:
        raise OpTypeError(f"a load of MX scales ({lay!r}) must say target_memory=pl.Mem.Mat (they reach "
                          f"LeftScale / RightScale through pl.move), but got target_memory={mem!r}", "target_memory")
    if valid is not None or attrs.get("clamp"):
        raise OpTypeError(f"a load of MX scales ({lay!r}) reads whole {lay!r} boxes: valid_shape= and clamp= are "
                          f"not supported", "valid_shape" if valid is not None else "clamp")
    box = (16, 2) if lay is TensorLayout.MX_A_ZZ else (2, 16)
    offs = attrs.get("offsets_static") or (None, None)
    for axis, (n, o, b) in enumerate(zip(shape, offs, box)):
        if not isinstance(o, int):
            raise OpTypeError(f"a load of MX scales ({lay!r}) needs constant offsets (the window must start on a "
                              f"{box[0]} x {box[1]} box), but offset {axis} is not constant", "offsets")
        if n % b or o % b:
            raise OpTypeError(f"a load of MX scales ({lay!r}) reads whole {box[0]} x {box[1]} boxes: the window "
                              f"{fmt_shape(shape)} at {list(offs)} must have extents and offsets that are "
                              f"multiples of {list(box)}", "shapes" if n % b else "offsets")
    _check_window("tile.load", "reads", t, offs, shape, "window")
    return TileType(tuple(shape), t.dtype, MemorySpace.Mat, layout=MX_SCALE_LAYOUT[lay])


def _check_window(op: str, verb: str, tensor: TensorType, offsets, extent, what: str, hint: str = "") -> None:
    """A window at constant offsets must lie inside a tensor of static shape (compile time);
    dynamic offsets or dimensions are checked when the kernel runs."""
    if offsets is None:
        return
    for axis, (off, n, dim) in enumerate(zip(offsets, extent, tensor.shape)):
        if isinstance(off, int) and off < 0:
            raise OpTypeError(f"{op} offset {off} on axis {axis} is negative", "offsets")
        if isinstance(off, int) and isinstance(n, int) and isinstance(dim, int) and off + n > dim:
            raise OpTypeError(f"{op} {verb} indices {off}..{off + n - 1} of axis {axis} ({what} "
                              f"{fmt_shape(extent)} at offsets {list(offsets)}), but the tensor has {dim} there "
                              f"(shape {fmt_shape(tensor.shape)}){hint}", "offsets")


declare("load", (P("tensor", "tensor"), P("offsets", "offsets", static_attr="offsets_static"),
                 P("shapes", "shape", attr="shape"),
                 P("valid_shape", "valid", None, attr="valid", aliases=("valid_shapes",)),
                 P("target_memory", "memory", MemorySpace.Vec),
                 P("clamp", "bool", False, attr="clamp", keyword_only=True)),
        _load, pto="pto.tload", form="load", traits={"clamp", "nd_rebuilt"},
        doc="copy a window of a tensor into a Vec or Mat tile (clamp=True: the part of the window outside the "
            "tensor is cut off the tile's valid region, at run time for dynamic offsets)")


# the dtypes the cube's fix-pipe converts an Acc tile into on its way to global memory (pypto's
# AccToGmStoreValid: FP32/FP16/BF16 from an FP32 accumulator; an INT32 one is stored as it is)
ACC_STORE_NARROWS = {DType.FP32: (DType.FP16, DType.BF16)}


def _store(ts, attrs):
    tile, tensor = tile_of(ts[0], "store"), ts[1]
    if not isinstance(tensor, TensorType):
        raise OpTypeError(f"tile.store requires a tensor destination, but got {tensor}", "output_tensor")
    if count_of(ts[2]) != len(tensor.shape):
        raise OpTypeError(f"pl.store got {count_of(ts[2])} offsets for a {len(tensor.shape)}-D tensor")
    if tile.dtype != tensor.dtype and not (tile.memory is MemorySpace.Acc and
                                           tensor.dtype in ACC_STORE_NARROWS.get(tile.dtype, ())):
        narrows = ACC_STORE_NARROWS.get(tile.dtype) if tile.memory is MemorySpace.Acc else None
        hint = (f" (the cube's fix-pipe writes a {tile.dtype!r} Acc tile into "
                f"{' or '.join(repr(d) for d in (tile.dtype,) + narrows)} only; pl.cast the tile on the "
                f"vector side for another dtype)") if narrows else ""
        raise OpTypeError(f"tile.store requires matching dtypes, but got tile {tile.dtype!r} and tensor "
                          f"{tensor.dtype!r}{hint}")
    if tile.memory not in (MemorySpace.Vec, MemorySpace.Acc):
        raise OpTypeError(f"tile.store can move data Vec->DDR or Acc->DDR only, but got a {tile.memory.name} tile")
    shape = attrs.get("shape")
    if shape is not None and len(shape) == len(tensor.shape):
        extent = tuple(shape)
    elif len(tensor.shape) == 2:
        extent = tuple(tile.valid) if tile.valid is not None else tile.shape
    elif len(tensor.shape) == 1 and tile.rows == 1:
        extent = ((tile.valid[1] if tile.valid is not None else tile.cols),)
    else:
        extent = None
    if extent is not None:
        _check_window("tile.store", "writes", tensor, attrs.get("offsets_static"), extent, "the tile's valid region")
    if attrs.get("atomic") is AtomicType.Add and tile.dtype not in _ATOMIC_DTYPES:
        raise OpTypeError(f"tile.store atomic=pl.AtomicType.Add supports FP32, BF16, FP16, INT32, INT16 and INT8 "
                          f"tiles, but got {tile.dtype!r}", "atomic")
    return tensor


_ATOMIC_DTYPES = (DType.FP32, DType.BF16, DType.FP16, DType.INT32, DType.INT16, DType.INT8)


# IR operand order: (tile, tensor, offsets) — the DSL order is (tile, offsets, output_tensor)
declare("store", (TILE, P("offsets", "offsets", static_attr="offsets_static"), P("output_tensor", "tensor"), P("shapes", "shape", None, attr="shape"),
                  P("atomic", "atomic", AtomicType.None_, keyword_only=True)), _store, pto="pto.tstore",
        form="store", operands=("tile", "output_tensor", "offsets"), traits={"accepts_acc"},
        dsl_aliases=("pl.l0c_store", "pl.tile.l0c_store"),   # pypto's older name of a store from Acc
        pto_attrs=(("atomicType", lambda a, _: "atomic_add" if a.get("atomic") is AtomicType.Add else None),),
        doc="copy a tile's valid region into a tensor at offsets (atomic=pl.AtomicType.Add: tensor += tile, "
            "atomically); returns the tensor")


def _create_tile(ts, attrs):
    shape = attrs["shape"]
    if len(shape) != 2 or not all(isinstance(d, int) and d > 0 for d in shape):
        raise OpTypeError(f"tile.create_tile requires a static 2-D shape, but got {fmt_shape(shape)}", "shape")
    mem = attrs.get("target_memory", MemorySpace.Vec)
    layout = None
    for key, want in (("transpose", "the transposed (ZN) Mat layout"), ("flat_layout", "a flat (none_box) Mat tile")):
        if attrs.get(key) and mem is not MemorySpace.Mat:
            raise OpTypeError(f"tile.create_tile {key}=True allocates {want}; it needs target_memory=pl.Mem.Mat, "
                              f"but got {mem!r}", key)
    if attrs.get("transpose") and attrs.get("flat_layout"):
        raise OpTypeError("tile.create_tile: transpose=True and flat_layout=True exclude each other", "flat_layout")
    if attrs.get("transpose"):
        layout = view.transposed(view.default_layout(mem, shape))
    elif attrs.get("flat_layout"):
        layout = ("row_major", "none_box")
    return TileType(tuple(shape), attrs["dtype"], mem, layout=layout)


declare("create_tile", (P("shape", "shape", aliases=("shapes",)), P("dtype", "dtype", DType.FP32),
                        P("target_memory", "memory", MemorySpace.Vec), P("transpose", "bool", None),
                        P("flat_layout", "bool", None, keyword_only=True)),
        _create_tile, form="alloc", dsl_aliases=("pl.tile.create",),
        doc="an uninitialised tile (transpose=True: the transposed ZN Mat layout; flat_layout=True: a flat Mat tile)")

# legal on-chip moves: the target's (``Target.can_move``); Acc->Vec crosses cores and goes through the
# FIFO.  The type rule runs twice: in the front end, which does not know the target (moves legal on
# every chip family; scale moves assumed possible), and in InferMemorySpace with ``attrs["target"]``.
_ANY_TARGET = Target.of_arch("a2a3")       # the family whose moves every family has
_SCALE_SPACES = {MemorySpace.LeftScale: TensorLayout.MX_A_ZZ, MemorySpace.RightScale: TensorLayout.MX_B_NN}


def _move_scales(a: TileType, dst: MemorySpace, attrs) -> TileType:
    """Mat -> LeftScale / RightScale (a5): MX scales loaded from a tensor of the matching layout."""
    want = _SCALE_SPACES[dst]
    target = attrs.get("target")
    if target is not None and not target.mx_scales:
        raise OpTypeError(f"tile.move to {dst!r}: the MX scale buffers exist on a5 only (platform a5sim / a5), "
                          f"not on {target.arch}", "target_memory")
    if a.memory is not MemorySpace.Mat:
        raise OpTypeError(f"tile.move to {dst!r} takes a Mat tile of scales, but got a {a.memory.name} tile")
    if a.dtype is not DType.FP8E8M0:
        raise OpTypeError(f"tile.move to {dst!r} moves FP8E8M0 scales, but got a {a.dtype!r} tile")
    if a.layout != MX_SCALE_LAYOUT[want]:
        raise OpTypeError(f"tile.move to {dst!r} takes scales loaded from a {want!r} tensor (pl.Tensor[[...], "
                          f"pl.FP8E8M0, {want!r}]), but this tile is not one")
    if attrs.get("blayout") is not None or attrs.get("slayout") is not None:
        raise OpTypeError(f"tile.move to {dst!r}: scale tiles have one layout; blayout=/slayout= do not apply",
                          "blayout" if attrs.get("blayout") is not None else "slayout")
    return a.with_(memory=dst, layout=None, pad=PadValue.null)


def _move(ts, attrs):
    a = tile_of(ts[0], "move")
    dst = attrs.get("target_memory")
    target = attrs.get("target") or _ANY_TARGET
    if dst in _SCALE_SPACES:
        return _move_scales(a, dst, attrs)
    layout = None
    if isinstance(dst, MemorySpace) and dst in TILE_LAYOUTS:
        layout = view.layout_attr(dst, a.shape, attrs.get("blayout"), attrs.get("slayout"), "move")
    crossing = ((MemorySpace.Acc, MemorySpace.Vec), (MemorySpace.Mat, MemorySpace.Vec), (MemorySpace.Vec, MemorySpace.Mat))
    if layout is not None and (a.memory, dst) in crossing:
        raise OpTypeError(f"tile.move {a.memory.name}->{dst.name} crosses between the cube and the vector core, "
                          f"and the FIFO delivers the default layout; move the received tile again for another one",
                          "blayout" if attrs.get("blayout") is not None else "slayout")
    if a.memory in (MemorySpace.Acc, MemorySpace.Mat) and dst is MemorySpace.Vec:
        # crosses from the cube core to a vector core: the kernel becomes a mixed AIC+AIV group and
        # the split pass (passes/split_mixed.py) turns this move into a TPUSH/TPOP pair (C2V)
        return a.with_(memory=dst, pad=PadValue.null, layout=layout)
    if (a.memory, dst) == (MemorySpace.Vec, MemorySpace.Mat):
        # a vector tile handed to the cube: a kernel holding it does vector and cube work, so it is
        # mixed, and the split pass turns the move into the V2C TPUSH/TPOP pair on every platform
        # (also on a5, whose same-core Vec->Mat path is not used by split kernels)
        return a.with_(memory=dst, pad=PadValue.null, layout=layout)
    if not isinstance(dst, MemorySpace) or not target.can_move(a.memory, dst):
        legal = ", ".join(sorted(f"{MemorySpace(s).name}->{MemorySpace(d).name}" for s, d in target.moves))
        raise OpTypeError(f"tile.move {a.memory.name}->{dst.name if dst else dst} is not a legal move on {target.arch}; "
                          f"legal moves: {legal}")
    return a.with_(memory=dst, layout=layout)


declare("move", (TILE, P("target_memory", "memory"), P("blayout", "layout", None), P("slayout", "layout", None)),
        _move, pto="pto.tmov", form="unary", traits={"cube"},
        doc="copy a tile into another memory space (legal moves depend on the platform); blayout=/slayout= give "
            "the destination a layout the space supports")
