"""Built-in assembler: the asynchronous GM -> L2 prefetch ops (pto/prefetch.py has their syntax).

    %ctx = pto.make_prefetch_async_context(%ws : !pto.ptr<i8>) -> ...  ->  pto::PrefetchAsyncContext ctx(ws);
    %ev = pto.tprefetch_async(%pv, %ctx : PV, ...) -> !pto.async_event  ->  pto::AsyncEvent ev = TPREFETCH_ASYNC(pv, ctx);
    %s = pto.get_prefetch_async_session %ctx : ... -> !pto.async_session  ->  pto::AsyncSession s = GET_PREFETCH_ASYNC_SESSION(ctx);
    %d = pto.comm.wait_async_event(%ev, %s : ...) -> i1               ->  bool d = TWAIT_ASYNC_EVENT(ev, s);
"""
from __future__ import annotations

from ...pto.prefetch import CONTEXT, EVENT, PROJECTION, SESSION
from ...pto.types import PartitionViewType, PtrType, ScalarType

_SIGNATURE = {   # operand kinds (a type, or a class for any of it) -> result type
    "pto.make_prefetch_async_context": ((PtrType,), CONTEXT),
    "pto.tprefetch_async": ((PartitionViewType, CONTEXT), EVENT),
    PROJECTION: ((CONTEXT,), SESSION),
    "pto.comm.wait_async_event": ((EVENT, SESSION), ScalarType("i1")),
}


def _fits(want, t) -> bool:
    return isinstance(t, want) if isinstance(want, type) else t == want


def _name(want) -> str:
    return {PtrType: "a !pto.ptr<i8>", PartitionViewType: "a !pto.partition_tensor_view"}.get(want, str(want))


def check(sema, op) -> None:
    nl, nc = op.extra.get("name_tok", (op.line, op.col))

    def fail(msg, line=nl, col=nc):
        return sema.error(f"'{op.name}': {msg}", line, col)

    ins, result = _SIGNATURE[op.name]
    if len(op.operands) != len(ins) or len(op.colon_types) != len(op.operands):
        raise fail(f"takes {len(ins)} operand(s) with one type each, got {len(op.operands)} and "
                   f"{len(op.colon_types)} type(s)")
    for u, t, want in zip(op.operands, op.colon_types, ins):
        if not _fits(want, t):
            raise fail(f"operand %{u.name} must be {_name(want)}, got {t}", u.line, u.col)
        u.type = t
        sema.resolve(u)
    if op.name == "pto.make_prefetch_async_context" and op.colon_types[0].elem != "i8":
        raise fail(f"the SDMA workspace is a !pto.ptr<i8>, got {op.colon_types[0]}")
    if op.name == "pto.tprefetch_async":
        shape = op.colon_types[0].shape
        if not shape or None in shape or any(d != 1 for d in shape[:-1]):
            raise fail(f"the prefetched region must be a static flat 1-D view (every extent but the last 1), "
                       f"got {op.colon_types[0]}")
    if list(op.arrow_types) != [result]:
        raise fail(f"the result type is {result}, got {', '.join(map(str, op.arrow_types)) or 'none'}")
    sema.bind_results(op, [result])


_CXX = {str(CONTEXT): "pto::PrefetchAsyncContext", str(EVENT): "pto::AsyncEvent",
        str(SESSION): "pto::AsyncSession"}


def emit(em, op, depth: int) -> None:
    res = op.extra["result_infos"][0]
    args = [em.ex(u) for u in op.operands]
    name = em.new_name(res)
    if op.name == "pto.make_prefetch_async_context":
        line = f"pto::PrefetchAsyncContext {name}({args[0]});"
    elif op.name == "pto.tprefetch_async":
        line = f"pto::AsyncEvent {name} = TPREFETCH_ASYNC({args[0]}, {args[1]});"
    elif op.name == PROJECTION:
        line = f"pto::AsyncSession {name} = GET_PREFETCH_ASYNC_SESSION({args[0]});"
    else:
        line = f"bool {name} = TWAIT_ASYNC_EVENT({args[0]}, {args[1]});"
    em.out(depth, line + ("" if res.uses else f" (void){name};"))
