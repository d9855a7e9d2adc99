"""PTO codegen of one-element access (``pl.read`` / ``pl.write`` in kernel code, op form
``element``): ``pto.tgetval`` / ``pto.tsetval`` on tiles, ``pto.load_scalar`` / ``pto.store_scalar``
on a tensor parameter's pointer, each at a flat row-major offset the front end computed."""
from __future__ import annotations

from typing import Tuple

from ..ir import nodes as N
from ..ir.ops import OPS
from ..ir.types import TileType
from ..pto import types as P
from ..pto.builder import Builder, Value


def _target(em, e: N.OpCall):
    """The tile operand, or the tensor parameter's pointer."""
    src = e.args[0]
    return em.tile_arg(src) if isinstance(src.type, TileType) else em.values[src.name][0]


def read(em, e: N.OpCall, b: Builder) -> Tuple[Value, str]:
    """``%r = pto.tgetval ins(%t, %off : T, index) outs : E`` / ``%r = pto.load_scalar %p[%off] : P -> E``."""
    mtype = e.type.dtype.mlir
    operands = [_target(em, e), em.scalar(e.args[1], "index", b)]
    return b.element(OPS[e.op].pto, operands, em.temp(), P.ScalarType(mtype), em.srcloc(e.loc)), mtype


def write(em, e: N.OpCall, b: Builder) -> None:
    """``pto.tsetval ins(%off, %v : index, E) outs(%t : T)`` / ``pto.store_scalar %v, %p[%off] : P, E``."""
    target, value = _target(em, e), e.args[2]
    elem = e.args[0].type.dtype.mlir
    off = em.scalar(e.args[1], "index", b)
    v = em.scalar(value, elem, b)
    loc = em.srcloc(e.loc)
    if isinstance(e.args[0].type, TileType):
        b.dps(OPS[e.op].pto, [off, v], [target], loc=loc)
    else:
        b.element(OPS[e.op].pto, [v, target, off], loc=loc)
