"""Broadcasts of a row or column vector across a tile, alone or combined with the tile."""
from __future__ import annotations

from .. import nodes as N
from ..types import AtomicType, DType, MemorySpace, PadValue, ScalarType, TensorType, TupleType, fmt_shape
from ._core import OpTypeError, P, declare, tile_of, vec_only


def _row_expand_op(op):
    def rule(ts, attrs):
        a, col = tile_of(ts[0], op), tile_of(ts[1], op, "column", "row_vec")
        vec_only(a, op)
        if col.shape != (a.rows, 1):
            raise OpTypeError(f"tile.{op} requires a [{a.rows}, 1] column tile, but got {fmt_shape(col.shape)}",
                              "row_vec")
        return a.with_(pad=PadValue.null)
    return rule


def _col_expand_op(op):
    def rule(ts, attrs):
        a, row = tile_of(ts[0], op), tile_of(ts[1], op, "row", "col_vec")
        vec_only(a, op)
        if row.shape != (1, a.cols):
            raise OpTypeError(f"tile.{op} requires a [1, {a.cols}] row tile, but got {fmt_shape(row.shape)}",
                              "col_vec")
        return a.with_(pad=PadValue.null)
    return rule


def _expand(op, want_rows: bool):
    """pypto's ``op(target, vec)``: ``target`` gives the result's shape (its values are not read),
    ``vec`` is the [rows, 1] / [1, cols] vector; ``op(src)`` alone broadcasts src's first column
    (row_expand) or first row (col_expand) of an [rows, cols] tile."""
    def rule(ts, attrs):
        target = tile_of(ts[0], op, "target", "target")
        if len(ts) == 1:
            return target.with_(pad=PadValue.null)
        vec = tile_of(ts[1], op, "vector", "row_vec" if want_rows else "col_vec")
        need = (target.rows, 1) if want_rows else (1, target.cols)
        if vec.shape != need:
            raise OpTypeError(f"tile.{op} requires a {fmt_shape(need)} vector for a {fmt_shape(target.shape)} "
                              f"target, but got {fmt_shape(vec.shape)}", "row_vec" if want_rows else "col_vec")
        return target.with_(dtype=vec.dtype, pad=PadValue.null)      # the vector's values, the target's shape
    return rule


_COMBINE = {"add": "t + v", "sub": "t - v", "mul": "t * v", "div": "t / v", "max": "max(t, v)", "min": "min(t, v)"}

def _row_expand_add(ts, attrs):
    """pypto's tile.row_expand_add: a [rows, 1] column (one scalar per row), or a row-major packed
    carrier of one 32-byte block per row ([rows, 32 / element bytes]) repeated across the columns;
    one dtype (INT8/16/32, FP16, FP32); an optional scratch tile the instruction may use."""
    a, vec = tile_of(ts[0], "row_expand_add"), tile_of(ts[1], "row_expand_add", "column", "row_vec")
    vec_only(a, "row_expand_add")
    if a.dtype not in _ROW_EXPAND_ADD_DTYPES:
        raise OpTypeError(f"tile.row_expand_add adds INT8, INT16, INT32, FP16 or FP32 tiles, but got {a.dtype!r}",
                          "tile")
    if vec.dtype != a.dtype:
        raise OpTypeError(f"tile.row_expand_add requires row_vec of the tile's dtype {a.dtype!r}, but got "
                          f"{vec.dtype!r}", "row_vec")
    packed = (a.rows, 32 // a.dtype.size)
    if vec.shape != (a.rows, 1) and not (vec.shape == packed and vec.layout is None):
        raise OpTypeError(f"tile.row_expand_add requires a [{a.rows}, 1] column tile or a row-major "
                          f"{fmt_shape(packed)} packed carrier (one 32-byte block per row), but got "
                          f"{fmt_shape(vec.shape)}", "row_vec")
    if len(ts) > 2 and ts[2] is not None:
        tile_of(ts[2], "row_expand_add", "scratch", "tmp")
    return a.with_(pad=PadValue.null)


_ROW_EXPAND_ADD_DTYPES = (DType.INT8, DType.INT16, DType.INT32, DType.FP16, DType.FP32)

for _n, _how in _COMBINE.items():
    if _n == "add":
        declare("row_expand_add", (P("tile", aliases=("lhs",)), P("row_vec", aliases=("rhs",)), P("tmp", "tile", None)),
                _row_expand_add, pto="pto.trowexpandadd", form="binary",
                doc="t + v with v[i] of a [rows, 1] vector on row i, or v[i, j % B] of a row-major packed [rows, B] "
                    "carrier (B = 32 bytes of elements); tmp: an optional scratch tile")
    else:
        declare(f"row_expand_{_n}", (P("tile", aliases=("lhs",)), P("row_vec", aliases=("rhs",))),
                _row_expand_op(f"row_expand_{_n}"), pto=f"pto.trowexpand{_n}", form="binary",
                doc=f"{_how} with v[i] of a [rows, 1] vector on row i")
    declare(f"col_expand_{_n}", (P("tile"), P("col_vec")), _col_expand_op(f"col_expand_{_n}"),
            pto=f"pto.tcolexpand{_n}", form="binary", doc=f"{_how} with v[j] of a [1, cols] vector on column j")

def _floats(rule, op):
    def checked(ts, attrs):
        t = rule(ts, attrs)
        if not t.dtype.is_float:
            raise OpTypeError(f"tile.{op} requires a floating-point tile, but got {t.dtype!r}", "tile")
        return t
    return checked


declare("row_expand_expdif", (P("tile"), P("row_vec")),
        _floats(_row_expand_op("row_expand_expdif"), "row_expand_expdif"),
        pto="pto.trowexpandexpdif", form="binary", traits={"float_only"},
        doc="exp(t - v) with v[i] of a [rows, 1] vector on row i")
declare("col_expand_expdif", (P("tile"), P("col_vec")),
        _floats(_col_expand_op("col_expand_expdif"), "col_expand_expdif"),
        pto="pto.tcolexpandexpdif", form="binary", traits={"float_only"},
        doc="exp(t - v) with v[j] of a [1, cols] vector on column j")

declare("row_expand", (P("target"), P("row_vec", "tile", None)), _expand("row_expand", True), pto="pto.trowexpand",
        form="expand", doc="a tile shaped like target with row_vec[i] ([rows, 1]) across row i; with one "
                           "argument, each row of it filled with its first element")
declare("col_expand", (P("target"), P("col_vec", "tile", None)), _expand("col_expand", False), pto="pto.tcolexpand",
        form="expand", doc="a tile shaped like target with col_vec[j] ([1, cols]) down column j; with one "
                           "argument, each column of it filled with its first element")


# ----------------------------------------------------------------- pl.expand_clone (tensor -> tensor broadcast)

def _expand_clone(ts, attrs):
    """pypto-parity.md F: ``expand_clone(src, target)``: rank-3 tensors of one dtype, every dimension of
    src equal to target's or 1 (broadcast), at most one broadcast; target is written and returned."""
    dst, src = ts                                 # IR operand order: (target, src) — target is the one written
    for t, what in ((src, "src"), (dst, "target")):
        if not isinstance(t, TensorType):
            raise OpTypeError(f"tensor.expand_clone requires a tensor {what}, but got {t}", what)
        if len(t.shape) != 3:
            raise OpTypeError(f"tensor.expand_clone requires rank-3 tensors, but {what} is {fmt_shape(t.shape)}", what)
        if not all(isinstance(d, int) for d in t.shape):
            raise OpTypeError(f"tensor.expand_clone needs static shapes, but {what} is {fmt_shape(t.shape)}", what)
    if src.dtype != dst.dtype:
        raise OpTypeError(f"tensor.expand_clone copies, so src and target share a dtype, but got {src.dtype!r} and "
                          f"{dst.dtype!r}", "target")
    grown = [i for i, (a, b) in enumerate(zip(src.shape, dst.shape)) if a != b]
    for i in grown:
        if src.shape[i] != 1:
            raise OpTypeError(f"tensor.expand_clone broadcasts only dimensions of size 1, but src dimension {i} is "
                              f"{src.shape[i]} and target's is {dst.shape[i]} ({fmt_shape(src.shape)} -> "
                              f"{fmt_shape(dst.shape)})", "src")
    if len(grown) > 1:
        raise OpTypeError(f"tensor.expand_clone broadcasts at most one dimension, but {fmt_shape(src.shape)} -> "
                          f"{fmt_shape(dst.shape)} grows dimensions {grown}", "src")
    return dst


def _index_list(values):
    items = [N.Const(v, type=ScalarType(DType.INDEX)) for v in values]
    return N.ListExpr(items, type=TupleType(tuple(e.type for e in items)))


def _expand_clone_expand(args, attrs, emit):
    """The tile ops of the broadcast (the same as pypto's lowering, unrolled over the static extent):
    none: one load and store; dim 0: the [k, n] block stored m times; dim 1: per i the [1, n] row
    col_expand-ed to [k, n]; dim 2: an [m*k, n] tile whose column 0 is loaded (valid [m, k, 1]),
    row_expand-ed from it."""
    dst, src = args
    (m, k, n), grown = dst.type.shape, [i for i, (a, b) in enumerate(zip(src.type.shape, dst.type.shape)) if a != b]
    dtype = dst.type.dtype

    def load(offs, shape, valid=None):
        return emit("load", [src, _index_list(offs)], {"shape": list(shape), "offsets_static": tuple(offs),
                                                        "target_memory": MemorySpace.Vec, "valid": valid})

    def store(tile, into, offs, shape):
        return emit("store", [tile, into, _index_list(offs)], {"shape": list(shape), "offsets_static": tuple(offs),
                                                                "atomic": AtomicType.None_})

    def blank(shape):
        return emit("create_tile", [], {"shape": shape, "dtype": dtype, "target_memory": MemorySpace.Vec})

    if not grown:
        return store(load((0, 0, 0), (m, k, n)), dst, (0, 0, 0), (m, k, n))
    if grown == [0]:
        block = load((0, 0, 0), (1, k, n))
        return [store(block, dst, (i, 0, 0), (1, k, n)) for i in range(m)][-1]
    if grown == [1]:
        return [store(emit("col_expand", [blank((k, n)), load((i, 0, 0), (1, 1, n))], {}), dst, (i, 0, 0), (1, k, n))
                for i in range(m)][-1]
    firsts = load((0, 0, 0), (m, k, n), valid=(m, k, 1))     # column 0 of each row valid
    whole = emit("set_validshape", [firsts], {"valid": (m * k, n)})   # row_expand fills the valid region
    return store(emit("row_expand", [whole], {}), dst, (0, 0, 0), (m, k, n))


declare("expand_clone", (P("src", "tensor", aliases=("input",)), P("target", "tensor")), _expand_clone,
        form="composite", namespaces=("pl", "pl.tensor"), expand=_expand_clone_expand, operands=("target", "src"),
        traits={"shares_operand0"},
        doc="target = src broadcast along its one size-1 dimension (rank-3 tensors; none broadcast: a copy); "
            "target is written and returned (a composite: loads, col_expand/row_expand, stores)")
