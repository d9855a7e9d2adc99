"""Kernel-level ops of distributed programs (``import ptokit.language.distributed as pld``).

Each window operand is a ``pld.DistributedTensor`` parameter of the kernel; its hidden
CommContext scalar (``<name>__ctx``) is found by codegen (codegen/pto_comm.py), so the IR
arguments are only what the program wrote.  Signals are int32 cells of a window.
``pld.tensor.put`` / ``get`` are composites: staged through Vec tiles of at most 16 KiB
(``remote_store`` / ``remote_load`` plus local ``load`` / ``store``).
"""
from __future__ import annotations

from math import prod

from ..comm import CHUNK_BYTES, NotifyOp, WaitCmp
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
declare("rank", (P("ctx", "scalar"),), _ctx_query("rank"), pto="pto.comm.rank", form="comm", namespaces=K,
        doc="the executing rank's id, 0 .. nranks-1, from a CommContext")
declare("nranks", (P("ctx", "scalar"),), _ctx_query("nranks"), pto="pto.comm.nranks", form="comm", namespaces=K,
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


def _chunks(shape, dtype: DType, chunk_rows: int, chunk_cols: int):
    """(row offset, col offset, rows, cols) pieces of a [.., R, C] region (leading dims 1), each at
    most CHUNK_BYTES unless chunk_rows/chunk_cols say otherwise."""
    lead = prod(shape[:-2]) if len(shape) > 2 else 1
    if lead != 1:
        raise OpTypeError(f"pld.tensor.put/get of a region {fmt_shape(shape)} with leading extents > 1 is not "
                          f"supported yet", "shape")
    rows, cols = (shape[-2], shape[-1]) if len(shape) >= 2 else (1, shape[0])
    if not all(isinstance(d, int) for d in (rows, cols)):
        raise OpTypeError(f"pld.tensor.put/get needs a static region shape, got {fmt_shape(shape)}", "shape")
    per = max(1, CHUNK_BYTES // dtype.size)
    cc = chunk_cols or min(cols, per)
    cr = chunk_rows or max(1, min(rows, per // cc))
    for r0 in range(0, rows, cr):
        for c0 in range(0, cols, cc):
            yield r0, c0, min(cr, rows - r0), min(cc, cols - c0)


def _staged(direction: str):
    """put: load the local src piece, remote_store it; get: remote_load the peer's src piece, store it."""
    def expand(args, attrs, emit):
        dst, peer, src = args[:3]
        if len(args) == 5:
            d_off, s_off, shape = list(args[3].items), list(args[4].items), list(attrs["shape"])
        else:
            shape = list(src.type.shape)
            d_off = [N.Const(0, type=ScalarType(DType.INDEX)) for _ in dst.type.shape]
            s_off = [N.Const(0, type=ScalarType(DType.INDEX)) for _ in src.type.shape]
        last = None
        for r0, c0, nr, nc in _chunks(shape, src.type.dtype, attrs.get("chunk_rows", 0), attrs.get("chunk_cols", 0)):
            piece = ([1] * (len(shape) - 2) + [nr, nc]) if len(shape) >= 2 else [nc]

            def at(offs, r0=r0, c0=c0):
                out = list(offs)
                shift = [r0, c0] if len(out) >= 2 else [c0]
                for k, s in zip(range(len(out) - len(shift), len(out)), shift):
                    if s:
                        out[k] = N.OpCall("scalar.add", [out[k], N.Const(s, type=ScalarType(DType.INDEX))], {},
                                          type=out[k].type if isinstance(out[k].type, ScalarType)
                                          else ScalarType(DType.INDEX))
                return N.ListExpr(out)
            so, do = at(s_off), at(d_off)
            so.type, do.type = _tuple_of(so), _tuple_of(do)
            if direction == "put":
                t = emit("load", [src, so], {"shape": piece, "offsets_static": _static(so)})
                last = emit("tile.remote_store", [t, dst, peer, do],
                            {"atomic": attrs.get("atomic", AtomicType.None_), "offsets_static": _static(do)})
            else:
                t = emit("tile.remote_load", [src, peer, so], {"shape": piece, "offsets_static": _static(so)})
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
        _put, form="composite", namespaces=("pld.tensor",), expand=_staged("put"),
        doc="copy local src (a window or tensor) into rank peer's window dst, whole or a region; "
            "atomic=pl.AtomicType.Add accumulates; returns when the data landed")
declare("tensor.get", (P("dst", "tensor"), P("peer", "index"), P("src", "tensor")) + _REGION + _CHUNK,
        _get, form="composite", namespaces=("pld.tensor",), expand=_staged("get"),
        doc="copy rank peer's window src into local dst (a window or tensor), whole or a region")


# ----------------------------------------------------------------- kernel collectives

def _mesh_signal(t, op: str) -> int:
    """The row count W of a kernel collective's mesh signal: an INT32 [W, 1] (or [W]) window, W static."""
    t = _signal(t, f"tensor.{op}", "signal")
    shape = list(t.shape)
    if not (len(shape) in (1, 2) and (len(shape) == 1 or shape[1] == 1) and isinstance(shape[0], int)):
        raise OpTypeError(f"pld.tensor.{op} in kernel code needs an INT32 [W, 1] signal window with a static W "
                          f"(one row per rank), got {t}", "signal")
    return shape[0]


def _barrier(ts, attrs):
    _mesh_signal(ts[0], "barrier")
    return ts[0]


def _idx(v: int) -> N.Const:
    return N.Const(v, type=ScalarType(DType.INT32))


def _cell(signal, row):
    """The offsets [row, 0] (or [row]) of a signal cell."""
    items = [row] + ([_idx(0)] * (len(signal.type.shape) - 1))
    lst = N.ListExpr(items)
    lst.type = _tuple_of(lst)
    return lst


def mesh_rounds(signal, rounds: int, emit, between=None):
    """The reusable-signal protocol (spec section 1.4) unrolled over the W - 1 peers of a static [W, 1]
    signal: in round g every rank adds 1 to its own row in every peer's signal and waits until every
    peer's row in its own signal is >= g; ``between(g)`` emits the work after round g; finally each
    non-self row of the rank's own signal gets -rounds (it reads zero again).  Returns the rank id."""
    w = len(signal.type.shape) and signal.type.shape[0]
    ctx = emit("get_comm_ctx", [signal], {})
    r = emit("rank", [ctx], {})
    n = emit("nranks", [ctx], {})
    peers = [emit("scalar.mod", [emit("scalar.add", [r, _idx(k)], {}), n], {}) for k in range(1, w)]
    for g in range(1, rounds + 1):
        for p in peers:
            emit("system.notify", [signal, p, _cell(signal, r), _idx(1)], {"op": NotifyOp.AtomicAdd})
        for p in peers:
            emit("system.wait", [signal, _cell(signal, p), _idx(g)], {"cmp": WaitCmp.Ge})
        if between is not None:
            between(g, r, n)
    for p in peers:
        emit("system.notify", [signal, r, _cell(signal, p), _idx(-rounds)], {"op": NotifyOp.AtomicAdd})
    return r


def _expand_barrier(args, attrs, emit):
    mesh_rounds(args[0], 1, emit)
    return args[0]


declare("tensor.barrier", (P("signal", "tensor"),), _barrier, form="composite", namespaces=("pld.tensor",),
        expand=_expand_barrier,
        doc="rendezvous of all ranks on an INT32 [W, 1] signal window (W static); reusable: the signal reads "
            "zero again afterwards; returns signal")
