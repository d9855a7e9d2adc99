"""PTO codegen of ``pl.prefetch`` (ir/ops/prefetch.py; syntax in pto/prefetch.py):

    ctx = pl.prefetch.make_context()       %ctx = pto.make_prefetch_async_context(%argK : !pto.ptr<i8>) -> ...
    ev = pl.prefetch.async_prefetch(x, c)  %x_pview = pto.partition_view %x_view, offsets = [0, 0], sizes = [1, N]
                                           %ev = pto.tprefetch_async(%x_pview, %ctx : ...) -> !pto.async_event
    s = pl.prefetch.session(ctx)           %s = pto.get_prefetch_async_session %ctx : ... -> !pto.async_session
    pl.prefetch.wait(ev, s)                %sK = pto.comm.wait_async_event(%ev, %s : ...) -> i1

``%argK`` is the hidden SDMA workspace parameter, after the user's parameters and dynamic
dimensions and before the SPMD ones (``kernel_abi`` sets ``uses_sdma``; the wrapper passes it).
"""
from __future__ import annotations

from ..errors import CompileError
from ..ir import nodes as N
from ..ir.ops import OPS
from ..ir.types import INDEX, TensorType
from ..pto import prefetch as PF
from ..pto import types as P

MAKE_CONTEXT = "prefetch.make_context"


def uses_sdma(fn: N.Function) -> bool:
    return any(True for _ in N.walk_ops(fn.body, MAKE_CONTEXT))


def _handle(em, e: N.Expr, what: str, b):
    if isinstance(e, N.OpCall) and OPS[e.op].form == "prefetch":
        return emit(em, e, em.temp(), b)      # a nested call: wait(ev, session(ctx))
    if not isinstance(e, N.Var) or e.name not in em.values:
        raise CompileError(f"{what} must be a variable bound to its pl.prefetch op in this kernel", e.loc)
    return em.values[e.name][0]


def emit(em, v: N.OpCall, result: str, b):
    """The op of one pl.prefetch call; its result value."""
    loc = em.srcloc(v.loc)
    name = OPS[v.op].pto
    if em.fn.attrs.get("core_type") == "aic":
        raise CompileError(f"pl.{v.op} runs on a vector core (its SDMA scratch lives in the vector buffer); "
                           f"'{em.fn.name}' is a cube kernel", v.loc)
    if v.op == MAKE_CONTEXT:
        return b.prefetch(name, [em.sdma_workspace], result, PF.CONTEXT, loc)
    if v.op == "prefetch.async_prefetch":
        src, ctx = v.args
        if not isinstance(src, N.Var) or src.name not in em.views or not isinstance(src.type, TensorType):
            raise CompileError("pl.prefetch.async_prefetch: src must be a whole tensor parameter of the kernel (the "
                               "device prefetches a whole flat tensor, not a window of one)", v.loc)
        shape = list(src.type.shape)
        offsets = N.ListExpr([N.Const(0, type=INDEX) for _ in shape], loc=v.loc)
        pv = em.partition(src, offsets, shape, b, v.loc)
        return b.prefetch(name, [pv, _handle(em, ctx, "the prefetch context", b)], result, PF.EVENT, loc)
    if v.op == "prefetch.session":
        return b.prefetch(name, [_handle(em, v.args[0], "the prefetch context", b)], result, PF.SESSION, loc)
    ev = _handle(em, v.args[0], "the prefetch event", b)
    sess = _handle(em, v.args[1], "the prefetch session", b)
    return b.prefetch(name, [ev, sess], result, P.ScalarType("i1"), loc)


def assign(em, target: N.Var, v: N.OpCall, b) -> None:
    em.values[target.name] = (emit(em, v, em.fresh(target.name), b), target.type)


def stmt(em, e: N.OpCall, b) -> None:
    emit(em, e, em.temp(), b)


__all__ = ["uses_sdma", "assign", "stmt"]
