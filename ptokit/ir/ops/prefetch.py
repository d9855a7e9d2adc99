"""Asynchronous GM -> L2 prefetch (``pl.prefetch``, pypto-parity B):

    ctx = pl.prefetch.make_context()            # a PREFETCH_CONTEXT handle
    ev = pl.prefetch.async_prefetch(x, ctx)     # start pulling tensor x into L2: an ASYNC_EVENT
    s = pl.prefetch.session(ctx)                # the context's ASYNC_SESSION
    pl.prefetch.wait(ev, s)                     # x is resident (a BOOL done flag)

A latency hint: no value changes. Kernel code only (the vector core's SDMA path); the context
reads a runtime-owned SDMA workspace that codegen passes as a hidden kernel parameter
(docs/decisions.md "pl.prefetch on the simulator").
"""
from __future__ import annotations

from ..types import BOOL, DType, ScalarType, TensorType
from ._core import OpTypeError, P, declare

CONTEXT = ScalarType(DType.PREFETCH_CONTEXT)
EVENT = ScalarType(DType.ASYNC_EVENT)
SESSION = ScalarType(DType.ASYNC_SESSION)
_NS = ("pl.prefetch",)
_KIND = {CONTEXT: "pl.prefetch.make_context()", EVENT: "pl.prefetch.async_prefetch(...)",
         SESSION: "pl.prefetch.session(ctx)"}
_WHAT = {CONTEXT: "a prefetch context", EVENT: "a prefetch event", SESSION: "a prefetch session"}
_TRAITS = {"kernel_only"}


def _handle(t, want, op, param):
    if t != want:
        raise OpTypeError(f"pl.prefetch.{op}: {param} is the handle {_KIND[want]} returns, got {_WHAT.get(t, t)}",
                          param)


def _make_context(ts, attrs):
    return CONTEXT


def _async_prefetch(ts, attrs):
    src = ts[0]
    if not isinstance(src, TensorType):
        raise OpTypeError(f"pl.prefetch.async_prefetch: src is a global tensor (a kernel parameter), got {src}", "src")
    shape = tuple(src.shape)
    if not all(isinstance(d, int) for d in shape):
        raise OpTypeError(f"pl.prefetch.async_prefetch: src needs a static shape, got {list(shape)} (the prefetched "
                          f"region is fixed when the kernel is built)", "src")
    if not shape or any(d != 1 for d in shape[:-1]):
        raise OpTypeError(f"pl.prefetch.async_prefetch: src must be a flat 1-D region: every dimension but the last "
                          f"is 1 ([N], [1, N]), got {list(shape)}", "src")
    _handle(ts[1], CONTEXT, "async_prefetch", "ctx")
    return EVENT


def _session(ts, attrs):
    _handle(ts[0], CONTEXT, "session", "ctx")
    return SESSION


def _wait(ts, attrs):
    _handle(ts[0], EVENT, "wait", "event")
    _handle(ts[1], SESSION, "wait", "session_handle")
    return BOOL


declare("prefetch.make_context", (), _make_context, form="prefetch", traits=_TRAITS, namespaces=_NS,
        pto="pto.make_prefetch_async_context",
        doc="a prefetch context over the runtime's SDMA workspace (kernel code; the workspace is a hidden parameter)")
declare("prefetch.async_prefetch", (P("src", "tensor"), P("ctx", "scalar")), _async_prefetch, form="prefetch", traits=_TRAITS,
        namespaces=_NS, pto="pto.tprefetch_async",
        doc="start pulling a flat 1-D global tensor into L2 (a hint: no value changes); returns its event")
declare("prefetch.session", (P("ctx", "scalar"),), _session, form="prefetch", traits=_TRAITS, namespaces=_NS,
        pto="pto.get_prefetch_async_session", doc="the asynchronous session of a prefetch context")
declare("prefetch.wait", (P("event", "scalar"), P("session_handle", "scalar")), _wait, form="prefetch", traits=_TRAITS,
        namespaces=_NS, pto="pto.comm.wait_async_event",
        doc="wait until the prefetch of event has landed; a BOOL done flag")
