"""PTO codegen of the kernel-level pld ops (op forms ``comm`` / ``comm_load``, ir/ops/comm.py).

A window operand is a kernel parameter (its ``!pto.ptr``); its CommContext is the hidden
``<name>__ctx`` parameter, a ``!pto.ptr<i64>``.  As pypto HEAD writes them (``pto_ops_distributed.cpp``):
``pld.rank`` / ``pld.nranks`` are the low / high half of the context's slot 2 (``pto.load_scalar`` +
``arith.trunci``, ``arith.shrui``); a peer's copy of a window is ``pto.addptr`` of the local pointer by
``(windowsIn[peer] - windowsIn[rank]) / element size`` elements; a cell is ``pto.addptr`` at the flat
row-major offset; remote loads and stores are the ordinary ``pto.tload`` / ``pto.tstore`` on a tensor
view made over the peer pointer.
"""
from __future__ import annotations

from ..errors import CompileError
from ..ir import nodes as N
from ..ir.ops import OPS
from ..ir.types import TensorType
from ..ir.comm import CTX_RANK_SLOT, CTX_WINDOWS_IN_SLOT, ctx_name
from ..pto import types as P
from ..pto.builder import Builder, Value
from . import pto_forms

_I32, _I64, _INDEX = P.ScalarType("i32"), P.ScalarType("i64"), P.ScalarType("index")


def _window(em, e: N.Expr, what: str):
    if not isinstance(e, N.Var) or e.name not in em.values or ctx_name(e.name) not in em.values:
        raise CompileError(f"{what} must be a pld.DistributedTensor parameter of the kernel (a window), not a view "
                           f"or a local tensor", e.loc)
    return em.values[e.name][0], em.values[ctx_name(e.name)][0]


def _ctx_slot(em, ctx: Value, slot: Value, b: Builder, loc) -> Value:
    """``%v = pto.load_scalar %ctx[%slot] : !pto.ptr<i64> -> i64``."""
    return b.element("pto.load_scalar", [ctx, slot], em.temp(), _I64, loc)


def _rank_i32(em, ctx: Value, b: Builder, loc) -> Value:
    pair = _ctx_slot(em, ctx, em.const(CTX_RANK_SLOT, "index"), b, loc)
    return b.cast("arith.trunci", pair, _I32, em.temp(), loc)


def _nranks_i32(em, ctx: Value, b: Builder, loc) -> Value:
    pair = _ctx_slot(em, ctx, em.const(CTX_RANK_SLOT, "index"), b, loc)
    high = b.arith("arith.shrui", [pair, em.const(32, "i64")], _I64, em.temp(), loc)
    return b.cast("arith.trunci", high, _I32, em.temp(), loc)


def _peer_ptr(em, w: N.Expr, peer: N.Expr, b: Builder, loc, what: str) -> Value:
    """The local window pointer moved to rank ``peer``'s copy: ``pto.addptr`` by
    ``(windowsIn[peer] - windowsIn[rank]) / sizeof(element)``."""
    ptr, ctx = _window(em, w, what)
    pv = em.scalar(peer, "index", b)
    win = em.const(CTX_WINDOWS_IN_SLOT, "index")
    rank = b.cast("arith.index_cast", _rank_i32(em, ctx, b, loc), _INDEX, em.temp(), loc)
    local = _ctx_slot(em, ctx, b.arith("arith.addi", [win, rank], _INDEX, em.temp(), loc), b, loc)
    remote = _ctx_slot(em, ctx, b.arith("arith.addi", [win, pv], _INDEX, em.temp(), loc), b, loc)
    delta = b.arith("arith.subi", [remote, local], _I64, em.temp(), loc)
    elems = b.arith("arith.divsi", [delta, em.const(w.type.dtype.size, "i64")], _I64, em.temp(), loc)
    offset = b.cast("arith.index_cast", elems, _INDEX, em.temp(), loc)
    return b.call("pto.addptr", [ptr, offset], em.temp(), ptr.type, loc)


def _flat(em, t: TensorType, offsets: N.ListExpr, b: Builder) -> Value:
    strides = em._strides(t.shape)
    acc = None
    for o, st in zip(offsets.items, strides):
        v = em.scalar(o, "index", b)
        term = b.arith("arith.muli", [v, st], P.ScalarType("index"), em.temp())
        acc = term if acc is None else b.arith("arith.addi", [acc, term], P.ScalarType("index"), em.temp())
    return acc if acc is not None else em.const(0, "index")


def _cell(em, w: N.Expr, peer, offsets: N.ListExpr, b: Builder, loc, what: str) -> Value:
    if peer is None:
        ptr, _ = _window(em, w, what)
    else:
        ptr = _peer_ptr(em, w, peer, b, loc, what)
    return b.call("pto.addptr", [ptr, _flat(em, w.type, offsets, b)], em.temp(), ptr.type, loc)


def scalar(em, e: N.OpCall, b: Builder):
    """``pld.rank(ctx)`` / ``pld.nranks(ctx)`` / ``pld.get_comm_ctx(t)``."""
    loc = em.srcloc(e.loc)
    if e.op == "get_comm_ctx":
        return _window(em, e.args[0], "pld.get_comm_ctx's t")[1], "i64"
    ctx = em.scalar(e.args[0], "i64", b)      # the context's value (a !pto.ptr<i64>, typed INT64 in the IR)
    return (_rank_i32 if e.op == "rank" else _nranks_i32)(em, ctx, b, loc), "i32"


def stmt(em, e: N.OpCall, b: Builder, partition_sizes) -> None:
    loc = em.srcloc(e.loc)
    if e.op == "system.notify":
        target, peer, offsets, value = e.args
        cell = _cell(em, target, peer, offsets, b, loc, "pld.system.notify's target")
        b.call("pto.comm.tnotify", [cell, em.scalar(value, "i32", b), em.const(int(e.attrs["op"]), "i32")], loc=loc)
    elif e.op == "system.wait":
        signal, offsets, expected = e.args
        cell = _cell(em, signal, None, offsets, b, loc, "pld.system.wait's signal")
        b.call("pto.comm.twait", [cell, em.scalar(expected, "i32", b), em.const(int(e.attrs["cmp"]), "i32")],
               loc=loc)
    elif e.op == "tile.remote_store":
        tile, target, peer, offsets = e.args
        view = _peer_view(em, target, peer, b, e.loc)
        sizes = partition_sizes(None, tile.type, len(target.type.shape))
        pv = _partition(em, target, view, offsets, sizes, b, e.loc)
        b.dps(OPS["store"].pto, [em.tile_arg(tile)], [pv], pto_forms.pto_attrs(OPS["store"], e), loc=loc)
    else:
        raise CompileError(f"pld.{e.op} here computes a value that nothing uses", e.loc)


def remote_load(em, target: N.Var, v: N.OpCall, b: Builder, loc, sizes, dst_type) -> None:
    """``t = pld.tile.remote_load(w, peer, offsets, shape)``: a tload from the peer's view (``sizes``:
    the partition sizes, ``dst_type``: the tile's tile_buf type, both from the caller)."""
    w, peer, offsets = v.args
    view = _peer_view(em, w, peer, b, v.loc)
    pv = _partition(em, w, view, offsets, sizes, b, v.loc)
    dst = em.alloc(target, b, v.loc)
    b.dps(OPS["load"].pto, [pv], [Value(dst.name, dst_type)], loc=loc)


def _peer_view(em, w: N.Var, peer: N.Expr, b: Builder, loc) -> Value:
    ptr = _peer_ptr(em, w, peer, b, em.srcloc(loc), "the window")
    shape = [em._dim_value(d) for d in w.type.shape]
    return b.make_tensor_view(em.fresh(f"{w.name}_peer_view"), ptr, shape, em._strides(w.type.shape),
                              P.TensorViewType((None,) * len(shape), w.type.dtype.mlir), loc=em.srcloc(loc))


def _partition(em, w: N.Var, view: Value, offsets, sizes, b: Builder, loc) -> Value:
    saved = em.views.get(w.name)
    em.views[w.name] = view
    try:
        return em.partition(w, offsets, sizes, b, loc)
    finally:
        if saved is None:
            em.views.pop(w.name, None)
        else:
            em.views[w.name] = saved
