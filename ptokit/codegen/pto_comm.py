"""PTO codegen of the kernel-level pld ops (op forms ``comm`` / ``comm_load``, ir/ops/comm.py).

A window operand is a kernel parameter (its ``!pto.ptr``); its CommContext is the hidden
``<name>__ctx`` i64 parameter.  A peer's copy of a window is ``pto.comm.peer_ptr``; a cell is
``pto.addptr`` at the flat row-major offset; remote loads and stores are the ordinary
``pto.tload`` / ``pto.tstore`` on a tensor view made over the peer pointer.
"""
from __future__ import annotations

from ..errors import CompileError
from ..ir import nodes as N
from ..ir.ops import OPS
from ..ir.types import TensorType
from ..ir.comm import ctx_name
from ..pto import types as P
from ..pto.builder import Builder, Value
from . import pto_forms


def _window(em, e: N.Expr, what: str):
    if not isinstance(e, N.Var) or e.name not in em.values or ctx_name(e.name) not in em.values:
        raise CompileError(f"{what} must be a pld.DistributedTensor parameter of the kernel (a window), not a view "
                           f"or a local tensor", e.loc)
    return em.values[e.name][0], em.values[ctx_name(e.name)][0]


def _peer_ptr(em, w: N.Expr, peer: N.Expr, b: Builder, loc, what: str) -> Value:
    ptr, ctx = _window(em, w, what)
    pv = em.scalar(peer, "index", b)
    return b.call("pto.comm.peer_ptr", [ptr, ctx, pv], em.temp(), ptr.type, loc)


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
    ctx = em.scalar(e.args[0], "i64", b)
    return b.call(OPS[e.op].pto, [ctx], em.temp(), P.ScalarType("i32"), loc), "i32"


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
