"""Kernel-level ops of distributed programs (``import ptokit.language.distributed as pld``).

Each window operand is a ``pld.DistributedTensor`` parameter of the kernel; its hidden
CommContext scalar (``<name>__ctx``) is found by codegen (codegen/pto_comm.py), so the IR
arguments are only what the program wrote.  Signals are int32 cells of a window.
``pld.tensor.put`` / ``get`` are composites: staged through Vec tiles of at most 16 KiB
(``remote_store`` / ``remote_load`` plus local ``load`` / ``store``).
"""
from __future__ import annotations

import itertools
from math import prod

from ..comm import CHUNK_BYTES, NotifyOp, ReduceOp, WaitCmp
from .. import nodes as N
from ..types import AtomicType, DType, ScalarType, TensorType, TupleType, fmt_shape
from ._core import TILE, OpTypeError, P, count_of, declare, tile_of
from .memory import _load, _store

K = ("pld",)


def window_of(t, op: str, param: str) -> TensorType:
    """A window operand: window-only ops reject a plain pl.Tensor."""
    if not isinstance(t, TensorType):
        raise OpTypeError(f"pld.{op} needs a pld.DistributedTensor {param}, but got {t}", param)
    if not t.window:
        raise OpTypeError(f"pld.{op} {param} must be a window (a pld.DistributedTensor parameter), but got {t}: a "
                          f"pl.Tensor lives on one rank only", param)
    return t


def _signal(t, op, param):
    t = window_of(t, op, param)
    if t.dtype is not DType.INT32:
        raise OpTypeError(f"pld.{op} {param} must be an INT32 signal window, but got {t}", param)
    return t


def _int_scalar(t, op, param):
    if not isinstance(t, ScalarType) or t.dtype.is_float:
        raise OpTypeError(f"pld.{op} {param} must be an integer, but got {t}", param)


def _offsets(t, n, op, param="offsets"):
    if count_of(t) != n:
        raise OpTypeError(f"pld.{op} got {count_of(t)} {param} for a {n}-D window", param)


def _get_comm_ctx(ts, attrs):
    window_of(ts[0], "get_comm_ctx", "t")
    return ScalarType(DType.INT64)


def _ctx_query(name):
    def rule(ts, attrs):
        if not isinstance(ts[0], ScalarType) or ts[0].dtype is not DType.INT64:
            raise OpTypeError(f"pld.{name} takes a CommCtx (pld.get_comm_ctx(t)), but got {ts[0]}", "ctx")
        return ScalarType(DType.INT32)
    return rule


def _notify(ts, attrs):
    t = _signal(ts[0], "system.notify", "target")
    _int_scalar(ts[1], "system.notify", "peer")
    _offsets(ts[2], len(t.shape), "system.notify")
    _int_scalar(ts[3], "system.notify", "value")
    if not isinstance(attrs.get("op"), NotifyOp):
        raise OpTypeError(f"pld.system.notify op must be a pld.NotifyOp (AtomicAdd or Set), got {attrs.get('op')!r}",
                          "op")
    return ScalarType(DType.INT32)          # a statement; the value is not used


def _wait(ts, attrs):
    t = _signal(ts[0], "system.wait", "signal")
    _offsets(ts[1], len(t.shape), "system.wait")
    _int_scalar(ts[2], "system.wait", "expected")
    if not isinstance(attrs.get("cmp"), WaitCmp):
        raise OpTypeError(f"pld.system.wait cmp must be a pld.WaitCmp (Eq or Ge), got {attrs.get('cmp')!r}", "cmp")
    return ScalarType(DType.INT32)


def _remote_load(ts, attrs):
    window_of(ts[0], "tile.remote_load", "target")
    _int_scalar(ts[1], "tile.remote_load", "peer")
    return _load([ts[0], ts[2]], attrs)


def _remote_store(ts, attrs):
    tile_of(ts[0], "remote_store")
    window_of(ts[1], "tile.remote_store", "target")
    _int_scalar(ts[2], "tile.remote_store", "peer")
    return _store([ts[0], ts[1], ts[3]], attrs)


declare("get_comm_ctx", (P("t", "tensor"),), _get_comm_ctx, form="comm", namespaces=K,
        doc="the CommContext of window t (its hidden comm_ctx parameter)")
declare("rank", (P("ctx", "scalar"),), _ctx_query("rank"), pto="pto.load_scalar", form="comm", namespaces=K,
        doc="the executing rank's id, 0 .. nranks-1, from a CommContext")
declare("nranks", (P("ctx", "scalar"),), _ctx_query("nranks"), pto="pto.load_scalar", form="comm", namespaces=K,
        doc="the number of ranks W, from a CommContext")
declare("system.notify", (P("target", "tensor"), P("peer", "index"), P("offsets", "offsets"), P("value", "index"),
                          P("op", "int", NotifyOp.AtomicAdd, keyword_only=True)),
        _notify, pto="pto.comm.tnotify", form="comm", namespaces=("pld.system",),
        doc="set cell target[offsets] on rank peer: NotifyOp.AtomicAdd adds value atomically, Set stores it; "
            "the core's earlier writes are visible first")
declare("system.wait", (P("signal", "tensor"), P("offsets", "offsets"), P("expected", "index"),
                        P("cmp", "int", WaitCmp.Eq, keyword_only=True)),
        _wait, pto="pto.comm.twait", form="comm", namespaces=("pld.system",),
        doc="block until the local cell signal[offsets] == expected (WaitCmp.Eq) or >= (Ge), bounded by "
            "0.9 x RunConfig.timeout")
declare("tile.remote_load", (P("target", "tensor"), P("peer", "index"),
                             P("offsets", "offsets", static_attr="offsets_static"),
                             P("shape", "shape", attr="shape"),
                             P("valid_shape", "valid", None, attr="valid")),
        _remote_load, pto="pto.tload", form="comm_load", namespaces=("pld.tile",), dsl_aliases=("pld.remote_load",),
        doc="a Vec tile of a region of rank peer's slice of window target")
declare("tile.remote_store", (TILE, P("target", "tensor"), P("peer", "index"),
                              P("offsets", "offsets", static_attr="offsets_static"),
                              P("atomic", "atomic", AtomicType.None_, keyword_only=True)),
        _remote_store, pto="pto.tstore", form="comm", namespaces=("pld.tile",), dsl_aliases=("pld.remote_store",),
        traits={"accepts_acc"}, doc="write a tile into rank peer's slice of window target at offsets "
                                    "(atomic=pl.AtomicType.Add: accumulate)")


# ----------------------------------------------------------------- put / get: staged copies

_ATOMIC_DTYPES = (DType.FP32, DType.FP16, DType.BF16, DType.INT32, DType.INT16, DType.INT8)


def _region(ts, attrs, op):
    """(dst type, src type, shape) of a put/get; the region args come all three or none."""
    dst, src = ts[0], ts[2]
    n_off = len(ts) - 3
    shape = attrs.get("shape")
    if n_off not in (0, 2) or (n_off == 2) != (shape is not None):
        raise OpTypeError(f"pld.tensor.{op} takes dst_offsets, src_offsets and shape together or none of them",
                          "shape")
    if not isinstance(dst, TensorType) or not isinstance(src, TensorType):
        raise OpTypeError(f"pld.tensor.{op} copies between tensors, but got {dst} and {src}")
    if dst.dtype != src.dtype:
        raise OpTypeError(f"pld.tensor.{op} needs one dtype on both sides, but got {dst.dtype!r} and {src.dtype!r}")
    if shape is None:
        if not src.is_static or not dst.is_static:
            raise OpTypeError(f"pld.tensor.{op} of a whole tensor needs static shapes; give dst_offsets, src_offsets "
                              f"and shape", "shape")
        if prod(src.shape) != prod(dst.shape) or len(src.shape) != len(dst.shape):
            raise OpTypeError(f"pld.tensor.{op} copies the whole tensor: {fmt_shape(src.shape)} into "
                              f"{fmt_shape(dst.shape)} needs equal shapes, or a region")
        shape = list(src.shape)
    else:
        _offsets(ts[3], len(dst.shape), f"tensor.{op}", "dst_offsets")
        _offsets(ts[4], len(src.shape), f"tensor.{op}", "src_offsets")
        if len(shape) != len(dst.shape) or len(shape) != len(src.shape):
            raise OpTypeError(f"pld.tensor.{op} shape {fmt_shape(shape)} needs one entry per dimension", "shape")
    for k in ("chunk_rows", "chunk_cols"):
        v = attrs.get(k, 0)
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise OpTypeError(f"pld.tensor.{op} {k} must be a static int >= 0, got {v!r}", k)
    if attrs.get("pipeline") and not (attrs.get("chunk_rows", 0) > 0 and attrs.get("chunk_cols", 0) > 0):
        raise OpTypeError(f"pld.tensor.{op} pipeline=True needs chunk_rows > 0 and chunk_cols > 0", "pipeline")
    return dst, src, shape


def _put(ts, attrs):
    window_of(ts[0], "tensor.put", "dst")
    _int_scalar(ts[1], "tensor.put", "peer")
    dst, src, _ = _region(ts, attrs, "put")
    if attrs.get("atomic") is AtomicType.Add and dst.dtype not in _ATOMIC_DTYPES:
        raise OpTypeError(f"pld.tensor.put atomic=Add accumulates {', '.join(d.name for d in _ATOMIC_DTYPES)}, "
                          f"not {dst.dtype!r}", "atomic")
    return ScalarType(DType.INT32)


def _get(ts, attrs):
    window_of(ts[2], "tensor.get", "src")
    _int_scalar(ts[1], "tensor.get", "peer")
    _region(ts, attrs, "get")
    return ScalarType(DType.INT32)


def padded_cols(cols: int, dtype: DType) -> int:
    """A tile's column count for ``cols`` valid columns: rows of a multiple of 32 bytes (the tail of a
    row is a padded tile with valid_shape)."""
    per = max(1, 32 // dtype.size)
    return -(-cols // per) * per


def _chunks(shape, dtype: DType, chunk_rows: int, chunk_cols: int):
    """(offset shifts per dimension, piece extents) of a region, one piece per leading index and
    [R, C] block of at most CHUNK_BYTES (unless chunk_rows/chunk_cols say otherwise)."""
    if not all(isinstance(d, int) for d in shape):
        raise OpTypeError(f"pld.tensor.put/get needs a static region shape, got {fmt_shape(shape)}", "shape")
    lead = list(shape[:-2])
    rows, cols = (shape[-2], shape[-1]) if len(shape) >= 2 else (1, shape[0])
    per = max(1, CHUNK_BYTES // dtype.size)
    cc = chunk_cols or min(cols, per)
    cc = min(cc, per) if padded_cols(cc, dtype) * dtype.size > CHUNK_BYTES else cc
    cr = chunk_rows or max(1, min(rows, per // padded_cols(cc, dtype)))
    for li in itertools.product(*(range(d) for d in lead)):
        for r0 in range(0, rows, cr):
            for c0 in range(0, cols, cc):
                block = [r0, c0] if len(shape) >= 2 else [c0]
                ext = [min(cr, rows - r0), min(cc, cols - c0)] if len(shape) >= 2 else [min(cc, cols - c0)]
                yield list(li) + block, [1] * len(lead) + ext


def _staged(direction: str):
    """put: load the local src piece, remote_store it; get: remote_load the peer's src piece, store it.
    A piece whose rows are not a multiple of 32 bytes is a padded tile with valid_shape."""
    def expand(args, attrs, emit):
        dst, peer, src = args[:3]
        if len(args) == 5:
            d_off, s_off, shape = list(args[3].items), list(args[4].items), list(attrs["shape"])
        else:
            shape = list(src.type.shape)
            d_off = [N.Const(0, type=ScalarType(DType.INDEX)) for _ in dst.type.shape]
            s_off = [N.Const(0, type=ScalarType(DType.INDEX)) for _ in src.type.shape]
        dtype = src.type.dtype
        last = None
        for shift, ext in _chunks(shape, dtype, attrs.get("chunk_rows", 0), attrs.get("chunk_cols", 0)):
            piece = ext[:-1] + [padded_cols(ext[-1], dtype)]
            valid = {"valid": tuple(ext)} if piece != ext else {}

            def at(offs, shift=shift):
                out = list(offs)
                for k, sh in enumerate(shift):
                    if sh:
                        out[k] = N.OpCall("scalar.add", [out[k], N.Const(sh, type=ScalarType(DType.INDEX))], {},
                                          type=out[k].type if isinstance(out[k].type, ScalarType)
                                          else ScalarType(DType.INDEX))
                return N.ListExpr(out)
            so, do = at(s_off), at(d_off)
            so.type, do.type = _tuple_of(so), _tuple_of(do)
            if direction == "put":
                t = emit("load", [src, so], {"shape": piece, "offsets_static": _static(so), **valid})
                last = emit("tile.remote_store", [t, dst, peer, do],
                            {"atomic": attrs.get("atomic", AtomicType.None_), "offsets_static": _static(do)})
            else:
                t = emit("tile.remote_load", [src, peer, so], {"shape": piece, "offsets_static": _static(so), **valid})
                last = emit("store", [t, dst, do], {"offsets_static": _static(do), "atomic": AtomicType.None_})
        return last
    return expand


def _tuple_of(lst):
    return TupleType(tuple(e.type for e in lst.items))


def _static(lst):
    return tuple(e.value if isinstance(e, N.Const) else None for e in lst.items)


_REGION = (P("dst_offsets", "offsets", None), P("src_offsets", "offsets", None), P("shape", "shape", None))
_CHUNK = (P("chunk_rows", "int", 0, keyword_only=True), P("chunk_cols", "int", 0, keyword_only=True),
          P("pipeline", "bool", False, keyword_only=True))
declare("tensor.put", (P("dst", "tensor"), P("peer", "index"), P("src", "tensor")) + _REGION
        + (P("atomic", "atomic", AtomicType.None_, keyword_only=True),) + _CHUNK,
        _put, form="composite", namespaces=("pld.tensor",), expand=_staged("put"), traits={"writes_operand0"},
        doc="copy local src (a window or tensor) into rank peer's window dst, whole or a region; "
            "atomic=pl.AtomicType.Add accumulates; returns when the data landed")
declare("tensor.get", (P("dst", "tensor"), P("peer", "index"), P("src", "tensor")) + _REGION + _CHUNK,
        _get, form="composite", namespaces=("pld.tensor",), expand=_staged("get"), traits={"writes_operand0"},
        doc="copy rank peer's window src into local dst (a window or tensor), whole or a region")


# ----------------------------------------------------------------- kernel collectives
#
# Composites unrolled over the W - 1 peers of a static [W, 1] signal (spec section 1.4): the
# reusable-signal protocol in rounds, data moved by remote_load / store in column pieces of at most
# CHUNK_BYTES, reductions folded in rank order 0, 1, ..., W-1 in the element dtype (identical bits on
# every rank).  Each returns its target (or signal) window: ``target = pld.tensor.allreduce(target, sig)``.

_REDUCE = {ReduceOp.Sum: "add", ReduceOp.Max: "maximum", ReduceOp.Min: "minimum", ReduceOp.Prod: "mul"}
_REDUCE_DTYPES = (DType.FP32, DType.FP16)


def _mesh_signal(t, op: str) -> int:
    """The row count W of a kernel collective's mesh signal: an INT32 [W, 1] (or [W]) window, W static."""
    t = _signal(t, f"tensor.{op}", "signal")
    shape = list(t.shape)
    if not (len(shape) in (1, 2) and (len(shape) == 1 or shape[1] == 1) and isinstance(shape[0], int)):
        raise OpTypeError(f"pld.tensor.{op} in kernel code needs an INT32 [W, 1] signal window with a static W "
                          f"(one row per rank), got {t}", "signal")
    return shape[0]


def _data_window(t, op, param, rows=None) -> TensorType:
    t = window_of(t, f"tensor.{op}", param)
    if len(t.shape) != 2 or not t.is_static or (rows is not None and t.shape[0] != rows):
        want = "[1, n]" if rows == 1 else ("[W, n]" if rows is not None else "2-D")
        raise OpTypeError(f"pld.tensor.{op} {param} must be a static {want} window"
                          + (f" (W = {rows}, the signal's rows)" if rows not in (None, 1) else "") + f", got {t}",
                          param)
    return t


def _barrier(ts, attrs):
    _mesh_signal(ts[0], "barrier")
    return ts[0]


def _ring_signal(t, n: int) -> int:
    """W of a ring allreduce's signal: an INT32 [2(W-1), W] window (kernel) or [2(W-1)+1, W] (the host
    form's), W >= 2 static; the data length must split into W equal chunks."""
    t = _signal(t, "tensor.allreduce", "signal")
    shape = list(t.shape)
    ok = len(shape) == 2 and all(isinstance(d, int) for d in shape) and shape[1] >= 2 \
        and shape[0] in (2 * (shape[1] - 1), 2 * (shape[1] - 1) + 1)
    if not ok:
        raise OpTypeError(f"pld.tensor.allreduce mode='ring' needs an INT32 [2(W-1), W] signal window with a static "
                          f"W >= 2, got {t}", "signal")
    w = shape[1]
    if n % w:
        raise OpTypeError(f"pld.tensor.allreduce mode='ring' splits the data into W = {w} equal chunks: {n} "
                          f"elements do not", "target")
    return w


def _allreduce(ts, attrs):
    t = _data_window(ts[0], "allreduce", "target", 1)
    if attrs.get("mode", "mesh") == "ring":
        _ring_signal(ts[1], t.shape[1])
        if attrs.get("op", ReduceOp.Sum) != ReduceOp.Sum:
            raise OpTypeError("pld.tensor.allreduce mode='ring' reduces with op=pld.ReduceOp.Sum only", "op")
    else:
        _mesh_signal(ts[1], "allreduce")
    op = attrs.get("op", ReduceOp.Sum)
    if not isinstance(op, int) or op not in list(ReduceOp):
        raise OpTypeError(f"pld.tensor.allreduce op must be a pld.ReduceOp (Sum Max Min Prod), got {op!r}", "op")
    if t.dtype not in _REDUCE_DTYPES:
        raise OpTypeError(f"pld.tensor.allreduce reduces FP32 or FP16, got {t.dtype.name}", "target")
    if attrs.get("core_num", 1) != 1:
        raise OpTypeError(f"pld.tensor.allreduce core_num={attrs['core_num']!r} is not supported yet", "core_num")
    return ts[0]


def _data_source(t, op, param, rows) -> TensorType:
    """The source of allgather / all_to_all: a window (pulled by the peers) or a plain tensor of this
    rank (pushed into the peers' targets), static 2-D with ``rows`` rows."""
    if isinstance(t, TensorType) and not t.window:
        if len(t.shape) != 2 or not t.is_static or t.shape[0] != rows:
            want = "[1, n]" if rows == 1 else f"[W, n] (W = {rows}, the signal's rows)"
            raise OpTypeError(f"pld.tensor.{op} {param} must be a static {want} tensor or window, got {t}", param)
        return t
    return _data_window(t, op, param, rows)


def _allgather(ts, attrs):
    w = _mesh_signal(ts[2], "allgather")
    local = _data_source(ts[0], "allgather", "local", 1)
    target = _data_window(ts[1], "allgather", "target", w)
    if local.dtype != target.dtype or local.shape[1] != target.shape[1]:
        raise OpTypeError(f"pld.tensor.allgather gathers [1, n] rows into [W, n]: {local} and {target} differ", "target")
    return ts[1]


def _all_to_all(ts, attrs):
    w = _mesh_signal(ts[2], "all_to_all")
    a = _data_source(ts[0], "all_to_all", "input", w)
    b = _data_window(ts[1], "all_to_all", "target", w)
    if a.dtype != b.dtype or a.shape != b.shape:
        raise OpTypeError(f"pld.tensor.all_to_all needs input and target of one shape and dtype, got {a} and {b}",
                          "target")
    return ts[1]


def _reduce_scatter(ts, attrs):
    w = _mesh_signal(ts[1], "reduce_scatter")
    t = _data_window(ts[0], "reduce_scatter", "target", w)
    if attrs.get("op", ReduceOp.Sum) != ReduceOp.Sum:
        raise OpTypeError("pld.tensor.reduce_scatter reduces with op=pld.ReduceOp.Sum only", "op")
    if t.dtype not in _REDUCE_DTYPES:
        raise OpTypeError(f"pld.tensor.reduce_scatter reduces FP32 or FP16, got {t.dtype.name}", "target")
    return ts[0]


def _broadcast(ts, attrs):
    _mesh_signal(ts[1], "broadcast")
    _data_window(ts[0], "broadcast", "target", 1)
    _int_scalar(ts[2], "tensor.broadcast", "root")
    return ts[0]


def _idx(v: int) -> N.Const:
    return N.Const(v, type=ScalarType(DType.INT32))


def _list(items) -> N.ListExpr:
    lst = N.ListExpr(list(items))
    lst.type = _tuple_of(lst)
    return lst


class _Mesh:
    """One kernel collective's expansion: rank id, the static peer list, protocol rounds, pieces."""

    def __init__(self, signal, emit):
        self.signal, self.emit, self.g = signal, emit, 0
        self.w = signal.type.shape[0]
        ctx = emit("get_comm_ctx", [signal], {})
        self.r = emit("rank", [ctx], {})
        n = emit("nranks", [ctx], {})
        self.peers = [emit("scalar.mod", [emit("scalar.add", [self.r, _idx(k)], {}), n], {}) for k in range(1, self.w)]

    def cell(self, row):
        return _list([row] + [_idx(0)] * (len(self.signal.type.shape) - 1))

    def round(self):
        """Round g: add 1 to this rank's row in every peer's signal, wait until every peer's row here is >= g."""
        self.g += 1
        for p in self.peers:
            self.emit("system.notify", [self.signal, p, self.cell(self.r), _idx(1)], {"op": NotifyOp.AtomicAdd})
        for p in self.peers:
            self.emit("system.wait", [self.signal, self.cell(p), _idx(self.g)], {"cmp": WaitCmp.Ge})

    def reset(self):
        """-rounds into each non-self row of the own signal: it reads zero again."""
        for p in self.peers:
            self.emit("system.notify", [self.signal, self.r, self.cell(p), _idx(-self.g)], {"op": NotifyOp.AtomicAdd})

    @staticmethod
    def pieces(cols: int, dtype: DType):
        """(first column, columns) pieces of a row of ``cols`` elements, each at most CHUNK_BYTES."""
        per = max(1, CHUNK_BYTES // dtype.size)
        per -= per % max(1, 32 // dtype.size)
        return [(c0, min(per, cols - c0)) for c0 in range(0, cols, per)]

    def load(self, w, peer, row, c0, cols):
        offs = _list([row, _idx(c0)])
        padded = padded_cols(cols, w.type.dtype)
        valid = {"valid": (1, cols)} if padded != cols else {}
        return self.emit("tile.remote_load", [w, peer, offs], {"shape": [1, padded], "offsets_static": _static(offs),
                                                                **valid})

    def store(self, t, w, row, c0):
        offs = _list([row, _idx(c0)])
        self.emit("store", [t, w, offs], {"offsets_static": _static(offs), "atomic": AtomicType.None_})

    def fold(self, w, row, c0, cols, op):
        """The reduction over ranks 0, 1, ..., W-1 (in that order) of row ``row`` of window w."""
        acc = self.load(w, _idx(0), row, c0, cols)
        for s in range(1, self.w):
            acc = self.emit(_REDUCE[op], [acc, self.load(w, _idx(s), row, c0, cols)], {})
        return acc


def _expand_barrier(args, attrs, emit):
    m = _Mesh(args[0], emit)
    m.round()
    m.reset()
    return args[0]


def _expand_reduce(rows_of_rank: bool, param_signal: int):
    """allreduce (row 0 on every rank) and reduce_scatter (row r on rank r)."""
    def expand(args, attrs, emit):
        target, signal = args[0], args[param_signal]
        m = _Mesh(signal, emit)
        row = m.r if rows_of_rank else _idx(0)
        for c0, cols in m.pieces(target.type.shape[1], target.type.dtype):
            m.round()                                  # every rank's data is in its window
            acc = m.fold(target, row, c0, cols, ReduceOp(attrs.get("op", ReduceOp.Sum)))
            m.round()                                  # every rank has read this piece
            m.store(acc, target, row, c0)
        m.reset()
        return target
    return expand


def _expand_allreduce(args, attrs, emit):
    if attrs.get("mode", "mesh") == "ring":
        return _expand_ring(args, attrs, emit)
    return _expand_reduce(False, 1)(args, attrs, emit)


def _expand_ring(args, attrs, emit):
    """Ring allreduce (Sum): W chunks of n / W; W - 1 reduce-scatter steps (chunk (r-k-1) += the left
    rank's partial of it), then W - 1 allgather steps (chunk (r-j) = the left rank's final one), each
    pulled with remote_load.  Signal cell [0, s] of rank r counts rank s's (the left neighbour's)
    progress: +1 once staged, +1 after each step; cell [1, s] is set by the right neighbour s when it has
    read everything.  Both are waited for and reset (to zero) at the end."""
    target, signal = args
    w = signal.type.shape[1]
    n, dtype = target.type.shape[1], target.type.dtype
    cs = n // w
    ctx = emit("get_comm_ctx", [signal], {})
    r = emit("rank", [ctx], {})
    nr = emit("nranks", [ctx], {})
    left = emit("scalar.mod", [emit("scalar.add", [r, _idx(w - 1)], {}), nr], {})
    right = emit("scalar.mod", [emit("scalar.add", [r, _idx(1)], {}), nr], {})

    def cell(row, col):
        return _list([_idx(row), col])

    def forward():
        emit("system.notify", [signal, right, cell(0, r), _idx(1)], {"op": NotifyOp.AtomicAdd})

    def wait_left(count):
        emit("system.wait", [signal, cell(0, left), _idx(count)], {"cmp": WaitCmp.Ge})

    def chunk_step(back: int, add: bool):
        """Chunk c = (r - back) mod W: add the left rank's copy to ours, or take it."""
        c = emit("scalar.mod", [emit("scalar.add", [r, _idx(w * 2 - back)], {}), nr], {})
        base = emit("scalar.mul", [c, _idx(cs)], {})
        for p0, cols in _Mesh.pieces(cs, dtype):
            col = emit("scalar.add", [base, _idx(p0)], {})
            offs = _list([_idx(0), col])
            padded = padded_cols(cols, dtype)
            valid = {"valid": (1, cols)} if padded != cols else {}
            shape = {"shape": [1, padded], "offsets_static": _static(offs), **valid}
            t = emit("tile.remote_load", [target, left, offs], shape)
            if add:
                t = emit("add", [emit("load", [target, offs], shape), t], {})
            emit("store", [t, target, offs], {"offsets_static": _static(offs), "atomic": AtomicType.None_})

    forward()                                         # staged
    for k in range(w - 1):
        wait_left(k + 1)
        chunk_step(k + 1, True)
        forward()
    for j in range(w - 1):
        wait_left(w + j)
        chunk_step(j, False)
        forward()
    emit("system.notify", [signal, left, cell(1, r), _idx(1)], {"op": NotifyOp.AtomicAdd})   # done reading left
    emit("system.wait", [signal, cell(1, right), _idx(1)], {"cmp": WaitCmp.Ge})
    wait_left(2 * w - 1)
    emit("system.notify", [signal, r, cell(0, left), _idx(1 - 2 * w)], {"op": NotifyOp.AtomicAdd})
    emit("system.notify", [signal, r, cell(1, right), _idx(-1)], {"op": NotifyOp.AtomicAdd})
    return target


def _expand_broadcast(args, attrs, emit):
    target, signal, root = args
    m = _Mesh(signal, emit)
    for c0, cols in m.pieces(target.type.shape[1], target.type.dtype):
        m.round()
        t = m.load(target, root, _idx(0), c0, cols)
        m.round()
        m.store(t, target, _idx(0), c0)
    m.reset()
    return target


def _push_gather(m: _Mesh, src, target, all_to_all: bool):
    """A plain-tensor source (it lives on this rank only): write it into row r of every rank's target,
    then one round; after it every peer's row has landed here (a notify follows the core's writes)."""
    for c0, cols in m.pieces(src.type.shape[1], src.type.dtype):
        padded = padded_cols(cols, src.type.dtype)
        valid = {"valid": (1, cols)} if padded != cols else {}
        t = None
        for peer in [None] + m.peers:                  # None: this rank's own row
            if all_to_all or t is None:                # allgather sends its one row to everyone
                offs = _list([(m.r if peer is None else peer) if all_to_all else _idx(0), _idx(c0)])
                t = m.emit("load", [src, offs], {"shape": [1, padded], "offsets_static": _static(offs), **valid})
            if peer is None:
                m.store(t, target, m.r, c0)
            else:
                dst = _list([m.r, _idx(c0)])
                m.emit("tile.remote_store", [t, target, peer, dst],
                       {"offsets_static": _static(dst), "atomic": AtomicType.None_})
    m.round()
    m.reset()
    return target


def _expand_gather(all_to_all: bool):
    """allgather: target[s] = rank s's local[0]; all_to_all: target[s] = rank s's input[r].  A window
    source is pulled by every rank; a plain tensor is pushed (_push_gather)."""
    def expand(args, attrs, emit):
        src, target, signal = args
        m = _Mesh(signal, emit)
        if not src.type.window:
            return _push_gather(m, src, target, all_to_all)
        m.round()
        for s in range(m.w):
            for c0, cols in m.pieces(src.type.shape[1], src.type.dtype):
                t = m.load(src, _idx(s), m.r if all_to_all else _idx(0), c0, cols)
                m.store(t, target, _idx(s), c0)
        m.round()                                      # every rank has read our src
        m.reset()
        return target
    return expand


_OP = P("op", "int", ReduceOp.Sum, keyword_only=True)
declare("tensor.barrier", (P("signal", "tensor"),), _barrier, form="composite", namespaces=("pld.tensor",),
        expand=_expand_barrier,
        doc="rendezvous of all ranks on an INT32 [W, 1] signal window (W static); reusable: the signal reads "
            "zero again afterwards; returns signal")
declare("tensor.allreduce", (P("target", "tensor"), P("signal", "tensor"), _OP,
                             P("mode", "choice", "mesh", keyword_only=True, choices=("mesh", "ring")),
                             P("core_num", "int", 1, keyword_only=True)),
        _allreduce, form="composite", namespaces=("pld.tensor",), expand=_expand_allreduce,
        doc="every rank's [1, n] target becomes the element-wise reduction over ranks (Sum Max Min Prod; FP32, "
            "FP16), folded in rank order; signal INT32 [W, 1]; mode='ring' (Sum): signal [2(W-1), W], "
            "n a multiple of W, a fixed ring schedule; returns target")
declare("tensor.allgather", (P("local", "tensor"), P("target", "tensor"), P("signal", "tensor")),
        _allgather, form="composite", namespaces=("pld.tensor",), expand=_expand_gather(False),
        traits={"writes_operand1"},
        doc="target[s, :] = rank s's local [1, n] (target [W, n], distinct buffers; local a window, pulled, or "
            "a plain tensor, pushed); returns target")
declare("tensor.all_to_all", (P("input", "tensor"), P("target", "tensor"), P("signal", "tensor")),
        _all_to_all, form="composite", namespaces=("pld.tensor",), expand=_expand_gather(True),
        traits={"writes_operand1"},
        doc="on rank r, target[s, :] = rank s's input[r, :] ([W, n], distinct buffers; input a window, pulled, "
            "or a plain tensor, pushed); returns target")
declare("tensor.reduce_scatter", (P("target", "tensor"), P("signal", "tensor"), _OP),
        _reduce_scatter, form="composite", namespaces=("pld.tensor",), expand=_expand_reduce(True, 1),
        doc="target [W, n]: row r on rank r becomes the Sum over ranks of their row r; returns target")
declare("tensor.broadcast", (P("target", "tensor"), P("signal", "tensor"), P("root", "index", keyword_only=True)),
        _broadcast, form="composite", namespaces=("pld.tensor",), expand=_expand_broadcast,
        doc="every rank's [1, n] target becomes rank root's (0 <= root < W); returns target")
