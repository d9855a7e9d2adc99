"""PTO codegen of one-element access (``pl.read`` / ``pl.write`` in kernel code, op form
``element``): ``pto.tgetval`` / ``pto.tsetval`` on tiles, ``pto.load_scalar`` / ``pto.store_scalar``
on a tensor parameter's pointer, each at a flat row-major offset the front end computed; and
``pl.array`` as a stack-local array (``pto.declare_local_array`` and its get / set)."""
from __future__ import annotations

from typing import Tuple

from ..errors import CompileError
from ..ir import nodes as N
from ..ir.ops import OPS
from ..ir.types import DType, TileType
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


# ---------------------------------------------------------------- pl.array in kernel code
# Every SSA version of one array (arr[i] = v rebinds it; loops carry it) names the same
# pto.declare_local_array: an update writes that storage in place, as pypto's codegen does.

def array_assign(em, target: N.Var, v: N.OpCall, b: Builder) -> None:
    """``a = pl.array.create(n, dtype)`` / ``a2 = array.update_element(a, i, v)``."""
    if isinstance(v, N.Var):                      # another name for the same array
        arr = em.values[v.name][0]
    elif not isinstance(v, N.OpCall):
        raise CompileError("an array is made by pl.array.create or an element update", target.loc)
    elif v.op == "array.create":
        t = target.type
        if t.dtype is DType.TASK_ID:
            raise CompileError("an array of task ids (pl.TASK_ID) belongs to the orchestration; a kernel's "
                               "arrays hold integers or booleans", v.loc)
        arr = b.element("pto.declare_local_array", [], em.fresh(target.name),
                        P.LocalArrayType(t.extent, t.dtype.mlir), em.srcloc(v.loc))
    elif v.op == "array.update_element":
        arr = em.values[v.args[0].name][0]
        idx = em.scalar(v.args[1], "index", b)
        b.element("pto.local_array_set", [arr, idx, em.scalar(v.args[2], target.type.dtype.mlir, b)],
                  loc=em.srcloc(v.loc))
    else:
        raise CompileError(f"pl.{v.op} does not make an array in kernel code", v.loc)
    em.values[target.name] = (arr, target.type)


def array_get(em, e: N.OpCall, b: Builder) -> Tuple[Value, str]:
    """``arr[i]``: ``%v = pto.local_array_get %a[%i] : A -> T``."""
    arr = em.values[e.args[0].name][0]
    mtype = e.type.dtype.mlir
    v = b.element("pto.local_array_get", [arr, em.scalar(e.args[1], "index", b)], em.temp(),
                  P.ScalarType(mtype), em.srcloc(e.loc))
    return v, mtype


def alias_arrays(em, pairs) -> None:
    """Loop-carried and merged arrays: ``(name, source name)`` pairs name the source's storage."""
    for name, src in pairs:
        if src in em.values:
            em.values[name] = em.values[src]
