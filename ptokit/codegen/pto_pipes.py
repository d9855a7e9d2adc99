"""PTO codegen of hand-written pipes (pypto-parity E3) and cross-core events (E4).

Called by ``pto._Emitter`` for the ops of ``ir/ops/pipes.py`` and the ``id=`` forms of the FIFO
ops in hand-written AIC/AIV functions (docs/mixed-kernels.md, "Hand-written pipes and events"):

    %b = pto.reserve_buffer {name = "c2v", size = 4096, location = #pto.address_space<vec>, auto = false, base = 8192} -> i32
    %p = pto.import_reserved_buffer {name = "c2v", peer_func = @vector_fn} -> i32
    pto.aic_initialize_pipe {id = 0, dir_mask = 1, slot_size = 2048[, slot_num = N, local_slot_num = L]}
        ([gm_slot_buffer = %gm : !pto.ptr<ui8>,] c2v_consumer_buf = %p : i32, v2c_consumer_buf = %c0_i32 : i32)
    pto.sync.set <PIPE_MTE3>, 0 {ffts_mode = 2 : i32}      pto.sync.wait <PIPE_MTE2>, 0
    pto.set_ffts %ws : !pto.ptr<i64>
    pto.syncall() mode = #pto.sync_all_mode<hard>, core_type = #pto.sync_core_type<mix>

On a2a3 each pipe's GM ring is its own part of the group's ``__gm_pipe_buffer`` (pipe k at the
byte offset HandPipes gave it, ``pto.addptr``).
"""
from __future__ import annotations

from ..ir import nodes as N
from ..ir.ops import OPS
from ..pto.ast import Attr

_SPACE = {"aiv": "vec", "aic": "mat"}


def setup_assign(em, target: N.Var, v: N.OpCall, b) -> None:
    """``%b = pto.reserve_buffer ...`` / ``%p = pto.import_reserved_buffer ...`` (an i32 address)."""
    loc = em.srcloc(v.loc)
    if v.op == "reserve_buffer":
        attrs = {"name": Attr.string(v.attrs["name"]), "size": Attr.int(v.attrs["size"]),
                 "location": Attr.dialect("pto.address_space", _SPACE[em.fn.attrs["fifo"]["role"]]),
                 "auto": Attr.bool(False), "base": Attr.int(v.attrs["base_at"])}
    else:
        attrs = {"name": Attr.string(v.attrs["name"]), "peer_func": Attr.symbol(v.attrs["peer_func"])}
    val = b.reserve(OPS[v.op].pto, em.fresh(target.name), attrs, loc)
    em.values[target.name] = (val, target.type)


def init_pipe(em, e: N.OpCall, b) -> None:
    fifo = em.fn.attrs["fifo"]
    pid = e.attrs.get("id") or 0
    geo = fifo["pipes"][pid]
    attrs = {"id": Attr.int(pid), "dir_mask": Attr.int(e.attrs["dir_mask"]), "slot_size": Attr.int(e.attrs["slot_size"])}
    for k in ("slot_num", "local_slot_num"):
        if e.attrs.get(k) is not None:
            attrs[k] = Attr.int(e.attrs[k])
    operands = []
    gm = getattr(em, "gm_pipe", None)
    if gm is not None:
        if geo["gm_offset"]:
            gm = b.call("pto.addptr", [gm, em.const(geo["gm_offset"], "index")], em.temp(), gm.type, em.srcloc(e.loc))
        operands.append(("gm_slot_buffer", gm))
    operands += [("c2v_consumer_buf", em.scalar(e.args[0], "i32", b)),
                 ("v2c_consumer_buf", em.scalar(e.args[1], "i32", b))]
    b.initialize_pipe(OPS[e.op].pto, attrs, operands, em.srcloc(e.loc))


def pipe_id(em, e: N.OpCall):
    """The ``id`` a hand-written FIFO op prints (None: the plain ``{split = N}`` form)."""
    if not em.fn.attrs.get("fifo", {}).get("hand"):
        return None
    return e.attrs.get("id")


def pop_valid(em, t, b) -> list:
    """The valid-size operands of a pop whose tile has a valid region other than its shape (static
    extents become index constants)."""
    if not t.valid or tuple(t.valid) == tuple(t.shape):
        return []
    return [em.const(d, "index") if isinstance(d, int) else em.scalar(d, "index", b) for d in t.valid]


def event(em, e: N.OpCall, b) -> None:
    """sync_set / sync_wait / set_ffts / syncall."""
    loc = em.srcloc(e.loc)
    if e.op in ("sync_set", "sync_wait"):
        ev = e.args[0].value if isinstance(e.args[0], N.Const) else em.scalar(e.args[0], "index", b)
        attrs = {}
        if e.op == "sync_set" and e.attrs.get("ffts_mode") is not None:
            attrs["ffts_mode"] = Attr(f"{int(e.attrs['ffts_mode'])} : i32", int(e.attrs["ffts_mode"]))
        b.sync_event(OPS[e.op].pto, e.attrs["pipe"], ev, attrs, loc)
    elif e.op == "set_ffts":
        b.set_ffts(em.values[e.args[0].name][0], loc)
    else:
        args = []
        if e.attrs.get("mode") == "soft":
            args = [em.values[e.args[0].name][0]]
            if len(e.args) > 1:
                args.append(em.scalar(e.args[1], "i32", b))
        b.syncall(e.attrs["mode"], e.attrs["core_type"], args, loc)


__all__ = ["setup_assign", "init_pipe", "pipe_id", "pop_valid", "event"]
