"""Syntax of the asynchronous GM -> L2 prefetch ops (``pl.prefetch``), read and written here:

    %ctx = pto.make_prefetch_async_context(%ws : !pto.ptr<i8>) -> !pto.prefetch_async_context
    %ev = pto.tprefetch_async(%pv, %ctx : !pto.partition_tensor_view<256xf32>, !pto.prefetch_async_context)
        -> !pto.async_event
    %s = pto.get_prefetch_async_session %ctx : !pto.prefetch_async_context -> !pto.async_session
    %done = pto.comm.wait_async_event(%ev, %s : !pto.async_event, !pto.async_session) -> i1

The session projection has no parentheses (a pure projection of the context); the others do.
"""
from __future__ import annotations

from .ast import Op
from .types import OpaqueType

CONTEXT = OpaqueType("!pto.prefetch_async_context")
EVENT = OpaqueType("!pto.async_event")
SESSION = OpaqueType("!pto.async_session")
PROJECTION = "pto.get_prefetch_async_session"


def parse(p, op: Op) -> None:
    """Read the op's body after its name (``p`` is the .pto Parser)."""
    if op.name == PROJECTION:
        op.operands = [p.parse_use()]
        p.expect(":", "before the context's type")
        op.colon_types = [p.parse_type()]
    else:
        p.expect("(", f"after {op.name}")
        op.operands = p.parse_operand_list()
        p.expect(":", "before the operand types")
        op.colon_types = p.parse_type_list()
        p.expect(")", f"to close {op.name}'s operands")
    p.expect("->", "before the result type")
    op.arrow_types = [p.parse_type()]


def body(op: Op, use, types) -> str:
    """The op's text after its mnemonic (the printer's helpers passed in)."""
    uses = ", ".join(map(use, op.operands))
    if op.name == PROJECTION:
        return f" {uses} : {types(op.colon_types)} -> {op.arrow_types[0]}"
    return f"({uses} : {types(op.colon_types)}) -> {op.arrow_types[0]}"
