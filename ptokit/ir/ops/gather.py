"""Gathers and scatters: by flat element offsets (gather, scatter), by a hardware mask pattern
(gather_mask, scatter_mask), by 32-byte blocks (gatherb), between global memory and a tile
(mgather, mscatter), and whole rows by a row index (scatter_update, a composite over scatter).

Every index is checked when the kernel runs: one outside its source or destination is a run-time
error naming the instruction, the index and where it was read (the simulator adds the kernel and
the task), never a read or write of a neighbour.
"""
from __future__ import annotations

from .. import nodes as N
from ..types import (INDEX, AtomicType, DType, MaskPattern, MemorySpace, ScalarType, TensorType, TileType, TupleType,
                     fmt_shape)
from ._core import OpTypeError, P, declare, tile_of

_GATHER_DTYPES = (DType.FP16, DType.FP32, DType.INT16, DType.INT32)
_SCATTER_DTYPES = (DType.FP16, DType.FP32, DType.BF16, DType.INT8, DType.INT16, DType.INT32)


def _vec(t, op, what, param):
    t = tile_of(t, op, what, param)
    if t.memory is not MemorySpace.Vec:
        raise OpTypeError(f"tile.{op} runs on the vector unit and requires a Vec {what}, but got a {t.memory.name} "
                          f"tile", param)
    return t


def _row_bytes(shape, dtype: DType, op: str, param: str) -> None:
    if (shape[1] * dtype.size) % 32:
        raise OpTypeError(f"tile.{op} gives a {fmt_shape(shape)} {dtype!r} tile, whose rows of {shape[1]} x "
                          f"{dtype.size} bytes are not a multiple of 32 bytes", param)


def _same_width(src: TileType, out, op: str) -> DType:
    if out is None:
        return src.dtype
    if not isinstance(out, DType) or not out.supported or out.size != src.dtype.size:
        raise OpTypeError(f"tile.{op} output_dtype reinterprets the bits of the {src.dtype!r} source, so it needs a "
                          f"{src.dtype.size}-byte dtype, but got {out!r}", "output_dtype")
    return out


# ----------------------------------------------------------------- by flat element offset

def _gather(ts, attrs):
    src = _vec(ts[0], "gather", "source", "src")
    idx = _vec(ts[1], "gather", "index tile", "indices")
    _vec(ts[2], "gather", "tmp tile", "tmp")
    if src.dtype not in _GATHER_DTYPES:
        raise OpTypeError(f"tile.gather gathers FP16, FP32, INT16 or INT32 elements, but got {src.dtype!r}", "src")
    if idx.dtype is not DType.INT32 and not (idx.dtype is DType.INT16 and src.dtype.size == 2):
        raise OpTypeError(f"tile.gather indices are INT32 (or INT16 with a 16-bit source), but got {idx.dtype!r}",
                          "indices")
    _row_bytes(idx.shape, src.dtype, "gather", "indices")
    return TileType(idx.shape, src.dtype, MemorySpace.Vec, idx.valid)


declare("gather", (P("src"), P("indices"), P("tmp")), _gather, pto="pto.tgather", form="ternary",
        namespaces=("pl.tile",),
        doc="dst[i, j] = src.flat[indices[i, j]] (a flat element offset into src; out of range: run-time error)")


def _scatter(ts, attrs):
    dst = _vec(ts[0], "scatter", "destination", "dst")
    src = _vec(ts[1], "scatter", "source", "src")
    idx = _vec(ts[2], "scatter", "index tile", "indexes")
    if src.dtype != dst.dtype:
        raise OpTypeError(f"tile.scatter requires matching dtypes, but got dst {dst.dtype!r} and src {src.dtype!r}",
                          "src")
    if src.dtype not in _SCATTER_DTYPES:
        raise OpTypeError(f"tile.scatter scatters FP16, FP32, BF16, INT8, INT16 or INT32 elements, but got "
                          f"{src.dtype!r}", "src")
    want = DType.INT32 if src.dtype.size == 4 else DType.INT16
    if idx.dtype is not want:
        raise OpTypeError(f"tile.scatter of {src.dtype.size}-byte elements takes {want!r} indexes, but got "
                          f"{idx.dtype!r}", "indexes")
    if idx.shape != src.shape:
        raise OpTypeError(f"tile.scatter indexes must have the source's shape {fmt_shape(src.shape)}, but got "
                          f"{fmt_shape(idx.shape)}", "indexes")
    return dst


declare("scatter", (P("dst"), P("src"), P("indexes")), _scatter, pto="pto.tscatter", form="inplace",
        traits={"shares_operand0"}, namespaces=("pl.tile",),
        doc="dst.flat[indexes[i, j]] = src[i, j], in place (duplicates: the last in row-major order wins)")


# ----------------------------------------------------------------- by mask pattern

_MASK_ATTR = (("maskPattern", lambda a, _: a["mask_pattern"].name),)

def _gather_mask(ts, attrs):
    src = _vec(ts[0], "gather_mask", "source", "src")
    if src.dtype.size not in (2, 4):
        raise OpTypeError(f"tile.gather_mask moves 16- or 32-bit elements, but got {src.dtype!r}", "src")
    pat: MaskPattern = attrs["mask_pattern"]
    out = _same_width(src, attrs.get("output_dtype"), "gather_mask")
    shape = (src.rows, pat.count(src.cols))
    _row_bytes(shape, out, "gather_mask", "mask_pattern")
    valid = None
    if src.valid is not None:
        vr, vc = src.valid
        if not isinstance(vc, int):
            raise OpTypeError("tile.gather_mask needs a static valid column count (the result's width follows from "
                              "it)", "src")
        valid = (vr, pat.count(vc))
    return TileType(shape, out, MemorySpace.Vec, valid)


declare("gather_mask", (P("src"), P("mask_pattern", "mask_pattern"), P("output_dtype", "dtype", None,
                                                                        keyword_only=True)),
        _gather_mask, pto="pto.tgather", form="mask", namespaces=("pl.tile", "pl.tensor"), pto_attrs=_MASK_ATTR,
        doc="the columns mask_pattern marks in each row, packed left (output_dtype: same-width bit reinterpret)")


def _scatter_mask(ts, attrs):
    dst = _vec(ts[0], "scatter_mask", "destination", "dst")
    src = _vec(ts[1], "scatter_mask", "source", "src")
    if src.dtype.size != dst.dtype.size or src.dtype.size not in (2, 4):
        raise OpTypeError(f"tile.scatter_mask moves 16- or 32-bit elements of one width, but got dst {dst.dtype!r} "
                          f"and src {src.dtype!r}", "src")
    pat: MaskPattern = attrs["mask_pattern"]
    if src.rows != dst.rows or src.cols < pat.count(dst.cols):
        raise OpTypeError(f"tile.scatter_mask with {pat.name} fills {pat.count(dst.cols)} columns of each of the "
                          f"{dst.rows} rows of dst, but src is {fmt_shape(src.shape)}", "src")
    return dst


declare("scatter_mask", (P("dst"), P("src"), P("mask_pattern", "mask_pattern")), _scatter_mask,
        pto="pto.tscatter", form="inplace_mask", traits={"shares_operand0"}, namespaces=("pl.tile",),
        pto_attrs=_MASK_ATTR,
        doc="each row of src written into the columns mask_pattern marks in dst, in place; the other columns of "
            "dst's valid region become 0 (as the hardware does)")


def _scatter_mask_keep_expand(args, attrs, emit):
    """The tensor-level mask scatter keeps dst's unmarked columns (pypto's DPS contract; the
    instruction zeroes them): the source scattered into zeros, ones scattered into zeros as the
    mask of marked columns, then one select of the two -- a select, so an inf or NaN in dst
    stays itself where a multiply would not."""
    from .compare import _packed, _scratch      # the shared mask-to-select steps (tensor.sel)
    dst, src = args
    shape, dt = list(dst.type.shape), dst.type.dtype
    mdt = DType.FP32 if dt.size == 4 else DType.FP16        # a comparable dtype of the same width

    def full(dtype, shp, value):
        v = N.Const(float(value), type=ScalarType(dtype)) if dtype.is_float else N.Const(int(value), type=ScalarType(dtype))
        return emit("full", [v], {"shape": tuple(shp), "dtype": dtype})

    scattered = emit("scatter_mask", [full(dt, shape, 0), src], dict(attrs))
    marked = emit("scatter_mask", [full(mdt, shape, 0), full(mdt, src.type.shape, 1)], dict(attrs))
    return emit("sel", [_packed(marked, emit), scattered, dst, _scratch(emit)], {})


declare("tensor.scatter_mask", (P("dst"), P("src"), P("mask_pattern", "mask_pattern")), _scatter_mask,
        form="composite", expand=_scatter_mask_keep_expand, namespaces=(),
        doc="pl.tensor.scatter(input, mask_pattern=, dst=): dst with each row of input written into the columns "
            "mask_pattern marks, its other columns kept (a composite: two mask scatters into zeros, then a select)")


# ----------------------------------------------------------------- 32-byte blocks

def _gatherb(ts, attrs):
    src = _vec(ts[0], "gatherb", "source", "src")
    off = _vec(ts[1], "gatherb", "offset tile", "offset")
    if off.dtype is not DType.UINT32:
        raise OpTypeError(f"tile.gatherb offsets are UINT32 byte offsets, but got {off.dtype!r}", "offset")
    out = attrs.get("output_dtype") or src.dtype
    if not isinstance(out, DType) or not out.supported or out.size not in (1, 2, 4):
        raise OpTypeError(f"tile.gatherb output_dtype must be a 1-, 2- or 4-byte dtype, but got {out!r}",
                          "output_dtype")
    per = 32 // out.size
    valid = None
    if off.valid is not None:
        vr, vc = off.valid
        if not isinstance(vc, int):
            raise OpTypeError("tile.gatherb needs a static valid column count of offsets", "offset")
        valid = (vr, vc * per)
    return TileType((off.rows, off.cols * per), out, MemorySpace.Vec, valid)


declare("gatherb", (P("src"), P("offset"), P("output_dtype", "dtype", None, keyword_only=True)),
        _gatherb, pto="pto.tgatherb", form="binary", namespaces=("pl.tile", "pl.tensor"),
        doc="each UINT32 byte offset selects a 32-byte block of src (32 / sizeof(output_dtype) elements)")


# ----------------------------------------------------------------- global memory

_COALESCE = ("row", "elem")
_GATHER_OOB = ("undefined", "clamp", "wrap", "zero")


def _mgather(ts, attrs):
    mem = ts[0]
    if not isinstance(mem, TensorType):
        raise OpTypeError(f"tile.mgather gathers from a tensor in global memory, but got {mem}", "mem")
    if attrs.get("target_memory", MemorySpace.Vec) is not MemorySpace.Vec:
        raise OpTypeError("tile.mgather with target_memory=pl.Mem.Mat (a GM index tensor, NZ output) is not "
                          "supported yet; gather into Vec and pl.move the tile", "target_memory")
    if len(ts) > 2:
        raise OpTypeError("tile.mgather scratch= is the GM workspace of the Mat element form; the Vec form takes "
                          "none", "scratch")
    if attrs.get("valid") is not None:
        raise OpTypeError("tile.mgather valid_shape= belongs to the Mat form; a Vec result's valid region follows "
                          "from the index tile", "valid_shape")
    idx = _vec(ts[1], "mgather", "index tile", "idx")
    if idx.dtype is not DType.INT32:
        raise OpTypeError(f"tile.mgather indices are INT32, but got {idx.dtype!r}", "idx")
    if attrs["coalesce"] == "elem":
        shape, valid = idx.shape, idx.valid
    else:
        if len(mem.shape) != 2 or not isinstance(mem.shape[1], int):
            raise OpTypeError(f"tile.mgather coalesce='row' gathers rows of a 2-D tensor with a static row length, "
                              f"but got {mem}", "mem")
        if 1 not in idx.shape:
            raise OpTypeError(f"tile.mgather coalesce='row' takes a [1, R] or [R, 1] index tile, but got "
                              f"{fmt_shape(idx.shape)}", "idx")
        axis = 1 if idx.rows == 1 else 0
        shape = (idx.shape[axis], mem.shape[1])
        valid = (idx.valid[axis], mem.shape[1]) if idx.valid is not None else None
    _row_bytes(shape, mem.dtype, "mgather", "mem")
    return TileType(tuple(shape), mem.dtype, MemorySpace.Vec, valid)


declare("mgather", (P("mem", "tensor"), P("idx"), P("coalesce", "choice", "row", choices=_COALESCE),
                    P("gather_oob", "choice", "undefined", choices=_GATHER_OOB, keyword_only=True),
                    P("target_memory", "memory", MemorySpace.Vec, keyword_only=True),
                    P("scratch", "tensor", None, keyword_only=True),
                    P("valid_shape", "valid", None, attr="valid", keyword_only=True)),
        _mgather, pto="pto.mgather", form="gm_gather", namespaces=("pl.tile", "pl.tensor"),
        pto_attrs=(("coalesce", lambda a, _: a["coalesce"]),
                   ("gatherOob", lambda a, _: None if a.get("gather_oob", "undefined") == "undefined"
                    else a["gather_oob"])),
        doc="rows (coalesce='row') or elements ('elem') of a GM tensor picked by an INT32 index tile; an index "
            "out of range is a run-time error unless gather_oob is 'clamp', 'wrap' or 'zero'")


def _mscatter(ts, attrs):
    src = _vec(ts[0], "mscatter", "source", "src")
    idx = _vec(ts[1], "mscatter", "index tile", "idx")
    out = ts[2]
    if not isinstance(out, TensorType):
        raise OpTypeError(f"tile.mscatter writes into a tensor, but got {out}", "output_tensor")
    if src.dtype not in _GATHER_DTYPES:
        raise OpTypeError(f"tile.mscatter scatters FP16, FP32, INT16 or INT32 elements, but got {src.dtype!r}", "src")
    if idx.dtype is not DType.INT32 or idx.shape != src.shape:
        raise OpTypeError(f"tile.mscatter takes an INT32 index tile shaped like the source {fmt_shape(src.shape)}, "
                          f"but got {idx}", "idx")
    if out.dtype != src.dtype:
        raise OpTypeError(f"tile.mscatter requires matching dtypes, but got tile {src.dtype!r} and tensor "
                          f"{out.dtype!r}", "output_tensor")
    return out


declare("mscatter", (P("src"), P("idx"), P("output_tensor", "tensor")), _mscatter, pto="pto.mscatter",
        form="gm_scatter",
        doc="output_tensor.flat[idx[i, j]] = src[i, j] in global memory; returns the tensor (duplicates: the last "
            "in row-major order wins; out of range: run-time error)")


# ----------------------------------------------------------------- row updates (a composite over scatter)

def _scattered_data(inp: TileType, src: TileType, op: str, verb: str, what: str) -> None:
    """The source has the input's dtype, a 2- or 4-byte one of the scatter dtypes."""
    if src.dtype != inp.dtype:
        raise OpTypeError(f"{op} requires matching dtypes, but got input {inp.dtype!r} and src {src.dtype!r}", "src")
    if inp.dtype not in _SCATTER_DTYPES or inp.dtype.size == 1:
        raise OpTypeError(f"{op} {verb} FP16, FP32, BF16, INT16 or INT32 {what}, but got {inp.dtype!r}", "input")


def _scatter_update(ts, attrs):
    """pypto's 2-D form (input [rows, d], src [b * s, d]); its 4-D form (input [blocks, block_size, 1, d],
    src [b, s, 1, d]) is the same update of the tiles a load of those windows gives ([blocks * block_size,
    d] and [b * s, d]: row index // block_size, index % block_size is flat row index)."""
    if attrs.get("dim") != -2:
        raise OpTypeError(f"tile.scatter_update updates rows (dim=-2), but got dim={attrs.get('dim')!r}", "dim")
    inp = _vec(ts[0], "scatter_update", "input", "input")
    idx = _vec(ts[1], "scatter_update", "index tile", "index")
    src = _vec(ts[2], "scatter_update", "source", "src")
    _scattered_data(inp, src, "tile.scatter_update", "updates", "rows")
    if idx.dtype not in (DType.INT16, DType.INT32):
        raise OpTypeError(f"tile.scatter_update takes an INT32 or INT16 index tile, but got {idx.dtype!r}", "index")
    want = (idx.rows * idx.cols, inp.cols)
    if src.shape != want:
        raise OpTypeError(f"tile.scatter_update with a {fmt_shape(idx.shape)} index and {inp.cols}-column input "
                          f"needs a {fmt_shape(want)} src (one row per index), but got {fmt_shape(src.shape)}", "src")
    if idx.valid is not None or src.valid is not None:
        raise OpTypeError("tile.scatter_update updates whole index and src tiles (no partial valid region)", "index")
    return inp


def _scatter_update_expand(args, attrs, emit):
    """input[index.flat[k], c] = src[k, c] as one scatter: the flat offsets index.flat[k] * d + c are the
    index column repeated along each row, times d, plus the column ramp 0 .. d-1 (computed in INT32, then
    narrowed to the INT16 offsets a 2-byte scatter takes)."""
    inp, index, src = args
    b, s = index.type.shape
    d = inp.type.cols
    i32 = ScalarType(DType.INT32)
    rows = emit("row_expand", [src, emit("reshape", [index], {"shape": (b * s, 1)})], {})
    if rows.type.dtype is not DType.INT32:
        rows = emit("cast", [rows], {"target_type": DType.INT32, "mode": "rint"})
    ramp = emit("ci", [N.Const(0, type=i32)], {"shape": (1, d), "dtype": DType.INT32, "descending": False})
    flat = emit("col_expand_add", [emit("muls", [rows, N.Const(d, type=i32)], {}), ramp], {})
    if inp.type.dtype.size == 2:
        flat = emit("cast", [flat], {"target_type": DType.INT16, "mode": "rint"})
    return emit("scatter", [inp, src, flat], {})


declare("scatter_update", (P("input"), P("dim", "int", skipped_when_keyword=True), P("index"), P("src")),
        _scatter_update, form="composite", traits={"shares_operand0"}, expand=_scatter_update_expand,
        doc="input[index.flat[k], :] = src[k, :] for a [b, s] index and a [b * s, d] src, in place (dim=-2; also "
            "(input, index, src, dim=-2); 4-D [blocks, block_size, 1, d] windows load as their flat rows; a "
            "composite: the flat offsets index * d + column, then one scatter)")


# ----------------------------------------------------------------- pl.tensor.gather (torch.gather on the last axis)

def _dims(t: TileType) -> tuple:
    return t.nd if t.nd is not None else t.shape


def _take_along(ts, attrs):
    """pypto-parity.md F: the index form of ``pl.tensor.gather(input, dim, index)`` = torch.gather:
    out[..., k] = input[..., index[..., k], ...] along axis ``dim`` (tensors of rank 2 or more; INT32
    index, INT16 with a 16-bit input; the index may be smaller than the input on every axis)."""
    inp = _vec(ts[0], "tensor.gather", "input", "input")
    idx = _vec(ts[1], "tensor.gather", "index tile", "index")
    di, dx = _dims(inp), _dims(idx)
    rank = len(di)
    dim = attrs.get("dim")
    if not isinstance(dim, int) or not -rank <= dim < rank:
        raise OpTypeError(f"tensor.gather dim={dim!r} is not an axis of the {rank}-D input {fmt_shape(di)}", "dim")
    if inp.dtype not in _GATHER_DTYPES:
        raise OpTypeError(f"tensor.gather gathers FP16, FP32, INT16 or INT32 elements, but got {inp.dtype!r}", "input")
    if idx.dtype is not DType.INT32 and not (idx.dtype is DType.INT16 and inp.dtype.size == 2):
        raise OpTypeError(f"tensor.gather indices are INT32 (or INT16 with a 16-bit input), but got {idx.dtype!r}",
                          "index")
    if len(dx) != rank:
        raise OpTypeError(f"tensor.gather needs an index of the input's rank {rank}, but got {fmt_shape(dx)}", "index")
    d = dim % rank
    for a, (n_in, n_ix) in enumerate(zip(di, dx)):
        if a != d and n_ix > n_in:
            raise OpTypeError(f"tensor.gather: the index {fmt_shape(dx)} is larger than the input {fmt_shape(di)} on "
                              f"axis {a}, which is not the gathered one (dim={dim})", "index")
    if idx.valid is not None or inp.valid is not None:
        raise OpTypeError("tensor.gather takes whole input and index tiles (no partial valid region)", "index")
    _row_bytes(idx.shape, inp.dtype, "tensor.gather", "index")
    return TileType.of_nd(dx, inp.dtype, MemorySpace.Vec)


def _flat_offsets(inp, index, emit):
    """b * cols + index[b, k]: a row ramp 0 .. rows-1 as a column, times the input's columns, added along
    each row (computed in INT32, narrowed back to an INT16 index's width)."""
    rows, cols = inp.type.shape
    i32 = ScalarType(DType.INT32)
    if rows == 1:
        return index                     # one row: the index is already the flat offset
    flat = index if index.type.dtype is DType.INT32 else emit("cast", [index], {"target_type": DType.INT32,
                                                                               "mode": "rint"})
    ramp = emit("ci", [N.Const(0, type=i32)], {"shape": (1, rows), "dtype": DType.INT32, "descending": False})
    base = emit("muls", [emit("reshape", [ramp], {"shape": (rows, 1)}), N.Const(cols, type=i32)], {})
    flat = emit("row_expand_add", [flat, base], {})
    if index.type.dtype is DType.INT16:
        flat = emit("cast", [flat], {"target_type": DType.INT16, "mode": "rint"})
    return flat


_ROW_BY_ROW = 64      # at most this many index rows get offsets one row at a time


def _gather_offsets(inp, index, dim: int, emit):
    """The flat offsets into the input tile of torch.gather's picks: ``index * stride(dim)`` plus, per
    position of the index, the offset of its other coordinates.  A rank-2 gather along the last axis
    whose index has the input's rows (a multiple of 8) adds one row ramp (``_flat_offsets``); any other
    form (N-D, another axis, fewer or few rows) adds a constant per index row, one row at a time."""
    di, dx = _dims(inp.type), _dims(index.type)
    rank = len(di)
    d = dim % rank
    rows, k = index.type.shape
    if rank == 2 and d == 1 and rows == di[0] and (rows == 1 or rows % 8 == 0):
        return _flat_offsets(inp, index, emit)
    if rows > _ROW_BY_ROW:
        raise OpTypeError(f"tensor.gather of a {fmt_shape(dx)} index along axis {dim} of {fmt_shape(di)}: its "
                          f"offsets are built one index row at a time, at most {_ROW_BY_ROW} rows; gather a "
                          f"rank-2 window with the input's rows along the last axis, or split the index", "index")
    i32 = ScalarType(DType.INT32)
    strides = [1] * rank
    for a in range(rank - 2, -1, -1):
        strides[a] = strides[a + 1] * di[a + 1]
    flat = index if index.type.dtype is DType.INT32 else emit("cast", [index], {"target_type": DType.INT32,
                                                                               "mode": "rint"})
    if strides[d] != 1:
        flat = emit("muls", [flat, N.Const(strides[d], type=i32)], {})
    if d != rank - 1:      # the last axis is not the gathered one: its position k adds k
        ramp = emit("ci", [N.Const(0, type=i32)], {"shape": (1, k), "dtype": DType.INT32, "descending": False})
        flat = emit("col_expand_add", [flat, ramp], {})
    out = emit("create_tile", [], {"shape": [rows, k], "dtype": DType.INT32, "target_memory": MemorySpace.Vec})
    for r in range(rows):
        pos, rest = [], r
        for n in reversed(dx[:-1]):
            pos.append(rest % n)
            rest //= n
        pos.reverse()
        base = sum(p * strides[a] for a, p in enumerate(pos) if a != d)
        at = N.ListExpr([N.Const(r, type=INDEX), N.Const(0, type=INDEX)], type=TupleType((INDEX, INDEX)))
        row = emit("slice", [flat, at], {"shape": (1, k), "offsets_static": (r, 0)})
        if base:
            row = emit("adds", [row, N.Const(base, type=i32)], {})
        out = emit("assemble", [out, row, at], {"offsets_static": (r, 0), "atomic": AtomicType.None_})
    if index.type.dtype is DType.INT16:
        out = emit("cast", [out], {"target_type": DType.INT16, "mode": "rint"})
    return out


def _take_along_expand(args, attrs, emit):
    """The flat offsets of every pick (``_gather_offsets``), then one flat gather."""
    inp, index = args
    flat = _gather_offsets(inp, index, attrs["dim"], emit)
    tmp = emit("create_tile", [], {"shape": list(index.type.shape), "dtype": flat.type.dtype,
                                   "target_memory": MemorySpace.Vec})
    return emit("gather", [inp, flat, tmp], {})


declare("tensor.gather", (P("input"), P("dim", "int", skipped_when_keyword=True), P("index")), _take_along,
        form="composite", expand=_take_along_expand, namespaces=("pl.tensor",), dsl_aliases=("pl.gather",),
        front="front_tensor_gather",
        doc="torch.gather: out[..., k] = input[..., index[..., k]] along axis dim (rank 2 or more, any axis; "
            "mask_pattern=: pl.tile.gather_mask; a composite: flat offsets, then one gather)")


def _put_along(ts, attrs):
    """pypto-parity.md F: ``pl.tensor.scatter(input, dim, index, src)``: out = input with
    out[b, index[b, k]] = src[b, k] (rank 2, dim=-1; INT32 index for 4-byte data, INT16 for 2-byte)."""
    if attrs.get("dim") not in (-1, 1):
        raise OpTypeError(f"tensor.scatter writes along the last axis (dim=-1), but got dim={attrs.get('dim')!r}",
                          "dim")
    inp = _vec(ts[0], "tensor.scatter", "input", "input")
    idx = _vec(ts[1], "tensor.scatter", "index tile", "index")
    src = _vec(ts[2], "tensor.scatter", "source", "src")
    _scattered_data(inp, src, "tensor.scatter", "writes", "elements")
    want = DType.INT32 if inp.dtype.size == 4 else DType.INT16
    if idx.dtype is not want:
        raise OpTypeError(f"tensor.scatter of {inp.dtype!r} takes a {want.name} index, but got {idx.dtype!r}", "index")
    if idx.shape != src.shape or idx.rows != inp.rows:
        raise OpTypeError(f"tensor.scatter needs an index shaped like src with the input's {inp.rows} rows, but got "
                          f"index {fmt_shape(idx.shape)} and src {fmt_shape(src.shape)}", "index")
    if any(t.valid is not None for t in (inp, idx, src)):
        raise OpTypeError("tensor.scatter takes whole input, index and src tiles (no partial valid region)", "index")
    return inp


def _put_along_expand(args, attrs, emit):
    """The flat offsets b * cols + index[b, k] (computed in INT32), then one in-place scatter."""
    inp, index, src = args
    return emit("scatter", [inp, src, _flat_offsets(inp, index, emit)], {})


declare("tensor.scatter", (P("input"), P("dim", "int", skipped_when_keyword=True), P("index"), P("src")), _put_along,
        form="composite", traits={"shares_operand0"}, expand=_put_along_expand, namespaces=("pl.tensor",),
        dsl_aliases=("pl.scatter",), front="front_tensor_scatter",
        doc="input[b, index[b, k]] = src[b, k], in place (dim=-1; mask_pattern=, dst=: pl.tile.scatter_mask; a "
            "composite: flat offsets, then one scatter)")
