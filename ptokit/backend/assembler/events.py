"""Built-in assembler: the cross-core event and barrier ops (pto/events.py has their syntax).

    pto.sync.set <PIPE_X>, E {ffts_mode = M : i32}  ->  SYNC_SET(PIPE_X, E, M);
    pto.sync.wait <PIPE_X>, E                       ->  SYNC_WAIT(PIPE_X, E);
    pto.set_ffts %ws : !pto.ptr<i64>                ->  SET_FFTS(ws);
    pto.syncall() mode = #pto.sync_all_mode<hard>, core_type = #pto.sync_core_type<C>
                                                    ->  SYNCALL(SYNCALL_C);
    pto.syncall(%ws[, %n] : ...) mode = ...<soft>, ...  ->  SYNCALL_SOFT(SYNCALL_C, ws[, n]);
"""
from __future__ import annotations

from ...pto.types import PtrType, ScalarType

_CORE = {"mix": "SYNCALL_MIX", "aiv_only": "SYNCALL_AIV_ONLY", "aic_only": "SYNCALL_AIC_ONLY"}
# the CPU tile library's pipe enum has no FIX: an event after the FIX pipe orders like one after M
_PIPE = {"FIX": "M"}


def check(sema, op) -> None:
    nl, nc = op.extra.get("name_tok", (op.line, op.col))

    def fail(msg):
        return sema.error(f"'{op.name}': {msg}", nl, nc)

    if op.results:
        raise fail("has no results")
    if op.name in ("pto.sync.set", "pto.sync.wait"):
        for u in op.operands:
            u.type = ScalarType("index")
            sema.resolve(u)
        if op.name == "pto.sync.wait" and op.attrs:
            raise fail("takes no attributes")
        a = op.attrs.get("ffts_mode")
        if a is not None and a.value not in (0, 1, 2):
            raise fail(f"ffts_mode must be 0, 1 or 2, got {a.text}")
        return
    types = list(op.colon_types)
    if len(types) != len(op.operands):
        raise fail(f"has {len(op.operands)} operand(s) but {len(types)} type(s)")
    for u, t in zip(op.operands, types):
        u.type = t
        sema.resolve(u)
    if op.name == "pto.set_ffts":
        if not isinstance(types[0], PtrType) or types[0].elem != "i64":
            raise fail(f"the FFTS workspace is a !pto.ptr<i64>, got {types[0]}")
        return
    if op.extra["mode"] == "hard" and op.operands:
        raise fail("a hard barrier takes no operands: 'pto.syncall() mode = #pto.sync_all_mode<hard>, ...'")
    if op.extra["mode"] == "soft":
        if not op.operands or not isinstance(types[0], PtrType) or len(op.operands) > 2:
            raise fail("a soft barrier takes its GM workspace (and optionally the core count): "
                       "'pto.syncall(%ws[, %n] : !pto.ptr<i32>[, i32]) mode = #pto.sync_all_mode<soft>, ...'")


def emit(em, op, depth: int) -> None:
    if op.name in ("pto.sync.set", "pto.sync.wait"):
        pipe = "PIPE_" + _PIPE.get(op.extra["pipe"], op.extra["pipe"])
        ev = f"static_cast<int>({em.ex(op.operands[0])})" if op.operands else str(op.extra["event"])
        if op.name == "pto.sync.set":
            mode = op.attrs["ffts_mode"].value if "ffts_mode" in op.attrs else 0
            em.out(depth, f"SYNC_SET({pipe}, {ev}, {mode});")
        else:
            em.out(depth, f"SYNC_WAIT({pipe}, {ev});")
    elif op.name == "pto.set_ffts":
        em.out(depth, f"SET_FFTS({em.ex(op.operands[0])});")
    elif op.extra["mode"] == "hard":
        em.out(depth, f"SYNCALL({_CORE[op.extra['core_type']]});")
    else:
        args = ", ".join(em.ex(u) for u in op.operands)
        em.out(depth, f"SYNCALL_SOFT({_CORE[op.extra['core_type']]}, {args});")
