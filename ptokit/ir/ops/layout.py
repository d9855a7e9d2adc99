"""Ops that move data between tiles without arithmetic: reshape, concat, slice, assemble, fillpad."""
from __future__ import annotations

from ..types import AtomicType, DType, MemorySpace, PadValue, TensorType, TileType, fmt_shape
from ._core import TILE, OpTypeError, P, count_of, declare, tile_of


def _reshape(ts, attrs):
    a = tile_of(ts[0], "reshape")
    shape = attrs["shape"]
    if len(shape) != 2:
        raise OpTypeError(f"tile.reshape of {fmt_shape(a.shape)} to {fmt_shape(shape)}: ptokit reshapes tiles to 2-D "
                          f"shapes only (a rank-{len(shape)} tile view, e.g. for an N-D transpose, is not supported); "
                          f"work on the 2-D tile, or load the data in the layout you need")
    if shape[0] * shape[1] != a.rows * a.cols:
        raise OpTypeError(f"tile.reshape requires the same number of elements, but got {fmt_shape(a.shape)} and "
                          f"{fmt_shape(shape)}")
    return TileType(tuple(shape), a.dtype, a.memory)


declare("reshape", (TILE, P("shape", "shape")), _reshape, pto="pto.treshape", form="unary",
        traits={"shares_operand0"}, front="front_orch_reshape",
        doc="the same bytes seen with another 2-D shape (of a tensor in orchestration code: a view of it)")


def _concat(ts, attrs):
    a, b = tile_of(ts[0], "concat"), tile_of(ts[1], "concat")
    if a.rows != b.rows or a.dtype != b.dtype:
        raise OpTypeError(f"tile.concat requires equal row counts and dtypes, but got {fmt_shape(a.shape)} {a.dtype!r} "
                          f"and {fmt_shape(b.shape)} {b.dtype!r}")
    return TileType((a.rows, a.cols + b.cols), a.dtype, a.memory)


# pypto: concat(src0, src1); ptokit's earlier spelling was (lhs, rhs)
declare("concat", (P("src0", aliases=("lhs",)), P("src1", aliases=("rhs",))), _concat, pto="pto.tconcat",
        form="binary", doc="[src0 | src1] along the columns")


def _slice(ts, attrs):
    a = tile_of(ts[0], "slice")
    if count_of(ts[1]) != 2:
        raise OpTypeError("pl.slice needs two offsets [row, col]", "offset")
    shape = attrs["shape"]
    offs = attrs["offsets_static"]
    for d in range(2):
        if offs[d] is not None and offs[d] + shape[d] > a.shape[d]:
            raise OpTypeError(f"tile.slice of shape {fmt_shape(shape)} at offset {list(offs)} exceeds the tile's shape "
                              f"{fmt_shape(a.shape)}")
    return TileType(tuple(shape), a.dtype, a.memory)


# pypto spells the offsets parameter `offset`; ptokit's earlier spelling `offsets` is kept as an alias
declare("slice", (TILE, P("shape", "shape"), P("offset", "offsets", aliases=("offsets",), static_attr="offsets_static")),
        _slice, pto="pto.textract", form="slice", front="front_slice",
        doc="a copy of the [rows, cols] window at offset (of a tensor in kernel code: that window, loaded where it "
            "is used, valid_shape= the part read)")


def _assemble(ts, attrs):
    if isinstance(ts[0], TensorType):
        return _assemble_tensor(ts)
    dst, src = tile_of(ts[0], "assemble"), tile_of(ts[1], "assemble")
    if count_of(ts[2]) != 2:
        raise OpTypeError("pl.assemble needs two offsets [row, col]", "offset")
    if (src.memory, dst.memory) == (MemorySpace.Acc, MemorySpace.Mat):
        # an Acc result written into a Mat tile (the cube's next operand), narrowed on the way
        if src.dtype is not DType.FP32 or dst.dtype not in (DType.FP32, DType.FP16, DType.BF16):
            raise OpTypeError(f"tile.assemble of an Acc tile into a Mat tile writes FP32 into FP32, FP16 or BF16, "
                              f"but got {src.dtype!r} into {dst.dtype!r}")
    elif src.memory != dst.memory:
        raise OpTypeError(f"tile.assemble writes a tile into one of the same memory space (or an Acc tile into a "
                          f"Mat tile), but got {src.memory.name} into {dst.memory.name}")
    elif dst.dtype != src.dtype:
        raise OpTypeError(f"tile.assemble requires matching dtypes, but got {dst.dtype!r} and {src.dtype!r}")
    if attrs.get("atomic") is AtomicType.Add:
        raise OpTypeError("tile.assemble atomic=pl.AtomicType.Add adds into global memory: it is the form of "
                          "pl.assemble on tensors; between tiles write pl.add into a slice instead", "atomic")
    offs = attrs["offsets_static"]
    extent = [v if isinstance(v, int) else s for v, s in zip(src.valid or src.shape, src.shape)]
    for d in range(2):     # the valid region is what is written (a padded source writes fewer rows)
        if offs[d] is not None and offs[d] + extent[d] > dst.shape[d]:
            raise OpTypeError(f"tile.assemble of a {fmt_shape(src.shape)} tile at offset {list(offs)} exceeds the "
                              f"destination's shape {fmt_shape(dst.shape)}")
    return dst


def _assemble_tensor(ts):
    """pypto's ``tensor.assemble`` (orchestration code): the target tensor, the source written into it;
    FuseCreateAssembleToSlice (``passes/fuse_assemble.py``) checks the window and forms it."""
    dst, src = ts[0], ts[1]
    if not isinstance(src, TensorType):
        raise OpTypeError(f"pl.assemble into the tensor target writes a tensor there, but the source is {src}", "source")
    if src.dtype != dst.dtype:
        raise OpTypeError(f"pl.assemble requires matching dtypes, but got {dst.dtype!r} and {src.dtype!r}", "source")
    return dst


declare("assemble", (P("target"), P("source"),
                     P("offset", "offsets", aliases=("offsets",), static_attr="offsets_static"),
                     P("atomic", "atomic", AtomicType.None_, keyword_only=True)),
        _assemble, pto="pto.tinsert", form="insert", traits={"shares_operand0", "accepts_acc"},
        front="front_orch_assemble",
        tensor_target=("store", {"tile": "source", "offsets": "offset", "output_tensor": "target"}),
        doc="target with source written at offset (in place)")


def _fillpad(ts, attrs):
    a = tile_of(ts[0], "fillpad")
    pad = attrs.get("pad_value")
    if not isinstance(pad, PadValue) or pad is PadValue.null:
        raise OpTypeError("tile.fillpad requires pad_value=pl.PadValue.zero, .max or .min", "pad_value")
    return a.with_(pad=pad, valid=None)     # every element is defined now: the valid region is the whole tile


declare("fillpad", (P("tile", aliases=("x",)), P("pad_value", "pad", PadValue.zero)), _fillpad, pto="pto.tfillpad", form="unary",
        doc="the tile with every element outside its valid region set to pad_value")
