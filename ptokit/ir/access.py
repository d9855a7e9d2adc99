"""Which tensors a function body reads and writes: the one analysis, asked of the op table's traits.

The front end uses it to give outlined ``pl.at`` kernels and ``@pl.jit`` helpers their parameter
directions, and to check that an ``InCore`` kernel writes exactly its ``pl.Out`` / ``pl.InOut``
tensors.  Per op call:

* ``writes_operand0`` / ``writes_operand1``: that tensor operand is written, the others are read;
* a tensor-level op (``ops/tensor_level.py``) reads its tensor operands and writes nothing: it
  computes a new tensor;
* an op whose tensor result has the type of one of its tensor operands returns that tensor, which it
  writes (a store, a scatter); its other tensor operands are read;
* any other tensor operand (a load's source, a scalar read) is read;
* a window (a ``view`` op) is its tensor: whoever takes the window reads or writes the tensor;
* a call of a known function reads and writes what its parameters say (``pl.Out`` / ``pl.InOut``
  directions, or ``attrs["jit_uses"]`` of a ``@pl.jit`` helper).
"""
from __future__ import annotations

from typing import Dict, List, Tuple

from . import nodes as N
from .ops import OPS
from .ops.tensor_level import is_tensor_level
from .types import TensorType


def _tensor_var(a) -> bool:
    return isinstance(a, N.Var) and isinstance(a.type, TensorType)


def allocates(e) -> bool:
    """``e`` makes a new tensor that the runtime allocates where it stands (``pl.create_tensor``)."""
    return isinstance(e, N.OpCall) and e.op in OPS and OPS[e.op].has("allocates")


def assembles_tensor(e) -> bool:
    """``e`` is an assemble of a tensor into a tensor (orchestration code; in a kernel the front end
    makes it the store its row names), which FuseCreateAssembleToSlice turns into a window."""
    return isinstance(e, N.OpCall) and e.op in OPS and OPS[e.op].tensor_target is not None and \
        isinstance(e.type, TensorType)


def _is_view(e) -> bool:
    return isinstance(e, N.OpCall) and e.op in OPS and OPS[e.op].has("view")


def _base(a):
    """A window ``x[a:b, :]`` stands for its tensor ``x``: its user reads or writes ``x``."""
    return a.args[0] if _is_view(a) and a.args else a


def written_operand(e: N.OpCall):
    """The index of the tensor operand ``e`` writes, or None."""
    op = OPS.get(e.op)
    if op is not None and op.has("writes_operand1"):
        return 1 if len(e.args) > 1 and _tensor_var(e.args[1]) else None
    if op is not None and op.has("writes_operand0"):
        return 0 if e.args and _tensor_var(e.args[0]) else None
    if isinstance(e.type, TensorType) and not is_tensor_level(e):
        for i, a in enumerate(e.args):
            if _tensor_var(a) and a.type == e.type:
                return i
    return None


def tensor_accesses(body: List[N.Stmt], functions: Dict[str, N.Function]) -> Tuple[Dict[str, object], Dict[str, object]]:
    """(reads, writes): tensor names read and written in ``body``, each with the first place."""
    reads: Dict[str, object] = {}
    writes: Dict[str, object] = {}
    for _, e in N.iter_exprs(body):
        if _is_view(e):
            continue
        if isinstance(e, N.OpCall):
            written = written_operand(e)
            for i, a in enumerate(e.args):
                a = _base(a)
                if not _tensor_var(a):
                    continue
                (writes if i == written else reads).setdefault(a.name, e.loc)
        elif isinstance(e, N.FuncCall) and e.callee in functions:
            callee = functions[e.callee]
            r, w = callee.attrs.get("jit_uses", ((), ()))
            for p, a in zip(callee.params, map(_base, e.args)):
                if not _tensor_var(a) or not isinstance(p.type, TensorType):
                    continue
                if p.name in r or p.direction is N.Direction.INOUT:
                    reads.setdefault(a.name, e.loc)
                if p.name in w or p.direction is not N.Direction.IN:
                    writes.setdefault(a.name, e.loc)
    return reads, writes
