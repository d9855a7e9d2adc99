"""Tensors an Orchestration function creates and returns become its output parameters.

pypto's programs often write the orchestration as ``out = pl.create_tensor(...)``, a task that
fills ``out``, ``return out``, with no ``pl.Out`` parameter: the caller's harness passes the
output array after the inputs (or leaves it out and gets it back).  This pass turns each such
returned tensor into a ``pl.Out`` parameter appended to the function's parameters, in the order of
the ``return``, and drops its ``pl.create_tensor`` (the caller's array is the tensor).  Only a
tensor created once, at the function's top level, with a static shape and no runtime options
(``manual_dep=True`` keeps it a runtime tensor) is moved; anything else stays as written.
"""
from __future__ import annotations

from ..ir import nodes as N
from ..ir.access import allocates
from ..ir.types import TensorType


def _movable(fn: N.Function, name: str):
    """The top-level ``name = pl.create_tensor(...)`` that may become a parameter, or None."""
    creates = [s for s in N.walk_stmts(fn.body) if isinstance(s, N.Assign) and [t.name for t in s.targets] == [name]
               and allocates(s.value)]
    if len(creates) != 1 or not any(s is creates[0] for s in fn.body):
        return None
    s = creates[0]
    t = s.value.type
    if s.value.attrs.get("manual_dep") or not isinstance(t, TensorType) or \
            not all(isinstance(d, int) for d in t.shape):
        return None
    return s


def returned_outputs(prog: N.Program, ctx) -> N.Program:
    for fn in prog.of_kind(N.FunctionType.Orchestration):
        ret = fn.body[-1] if fn.body and isinstance(fn.body[-1], N.Return) else None
        if ret is None:
            continue
        params = {p.name for p in fn.params}
        for v in ret.values:
            if not isinstance(v, N.Var) or v.name in params:
                continue
            s = _movable(fn, v.name)
            if s is None:
                continue
            fn.body = [x for x in fn.body if x is not s]
            fn.params.append(N.Param(v.name, s.value.type, N.Direction.OUT, loc=s.loc))
            params.add(v.name)
    return prog
