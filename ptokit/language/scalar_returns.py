"""A kernel's returned scalar, bound by its caller (pypto: an InCore function with
``-> tuple[pl.Tensor[...], pl.Scalar[...]]`` whose scalar has no Out parameter behind it).

A task cannot hand a value back to the orchestration, so the caller computes it again: the
value is the callee's defining expression with the callee's scalar parameters replaced by the
call's arguments.  That works when the expression is made of the callee's scalar parameters,
constants, and scalar arithmetic (``scalar.*`` ops) through locals assigned once at the top
level of the body; anything else (a value read from a tensor or a tile, a block index, a loop
result) has no meaning in the caller, and ``call_site_value`` says why."""
from __future__ import annotations

from collections import Counter
from typing import List, Optional, Tuple

from ..ir import nodes as N
from ..ir.types import ScalarType


class _NotRebuildable(Exception):
    pass


def call_site_value(callee: N.Function, position: int, args: List[N.Expr]) -> Tuple[Optional[N.Expr], str]:
    """``(expr, "")`` for the caller-side value of the callee's returned value at ``position``,
    or ``(None, why)`` when it cannot be computed in the caller."""
    returns = [s for s in callee.body if isinstance(s, N.Return) and s.values]
    if len(returns) != 1 or any(isinstance(s, N.Return) for s in N.walk_stmts(callee.body) if s not in returns):
        return None, f"{callee.name} must return it from one `return` at the top level of its body"
    assigned = Counter(t.name for s in N.walk_stmts(callee.body) if isinstance(s, N.Assign) for t in s.targets)
    defs = {s.targets[0].name: s.value for s in callee.body if isinstance(s, N.Assign) and len(s.targets) == 1}
    params = {p.name: i for i, p in enumerate(callee.params)}

    def build(e: N.Expr) -> N.Expr:
        if isinstance(e, N.Const):
            return e
        if isinstance(e, N.Var):
            if e.name in params:
                if not isinstance(e.type, ScalarType):
                    raise _NotRebuildable(f"it depends on the non-scalar parameter `{e.name}`")
                return args[params[e.name]]
            if e.name in defs and assigned[e.name] == 1:
                return build(defs[e.name])
            raise _NotRebuildable(f"`{e.name}` is not assigned once at the top level of {callee.name}")
        if isinstance(e, N.OpCall) and e.op.startswith("scalar.") and isinstance(e.type, ScalarType):
            return N.OpCall(e.op, [build(a) for a in e.args], dict(e.attrs), type=e.type, loc=e.loc)
        what = f"`{e.op}`" if isinstance(e, N.OpCall) else type(e).__name__
        raise _NotRebuildable(f"it is computed with {what}, which the caller cannot evaluate")

    try:
        return build(returns[0].values[position]), ""
    except _NotRebuildable as why:
        return None, str(why)
