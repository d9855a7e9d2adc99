"""Structural checks run after each pass (when the PassContext asks for them).

A failure here is a ptokit bug, not a user error: it raises InternalError
naming the pass that broke the invariant.
"""
from __future__ import annotations

from typing import Set

from ..errors import InternalError
from . import nodes as N


def verify_program(prog: N.Program, after: str, ssa: bool) -> None:
    for fn in prog.functions.values():
        defined: Set[str] = {p.name for p in fn.params}
        defined.update(prog.dyn_vars)
        _verify_body(fn, fn.body, defined, after, ssa, set())


def _verify_body(fn, body, defined, after, ssa, seen_defs):
    for s in body:
        for e in N.stmt_exprs(s):
            for sub in N.walk_expr(e):
                if isinstance(sub, N.Var) and sub.name not in defined:
                    raise InternalError(f"after {after}: {fn.name} uses {sub.name!r} before defining it")
                if isinstance(sub, (N.OpCall, N.Var)) and sub.type is None:
                    raise InternalError(f"after {after}: {fn.name} has an untyped value {sub!r}")
        defs = []
        if isinstance(s, N.Assign):
            defs = [t.name for t in s.targets]
        if isinstance(s, N.For):
            inner = set(defined) | {s.var.name} | {p.name for p, _ in s.iter_args}
            _verify_body(fn, s.body, inner, after, ssa, seen_defs)
            defs = [r.name for r in s.results]
        elif isinstance(s, N.If):
            then_defined, else_defined = set(defined), set(defined)
            _verify_body(fn, s.then_body, then_defined, after, ssa, seen_defs)
            _verify_body(fn, s.else_body, else_defined, after, ssa, seen_defs)
            defs = [r.name for r in s.results]
            if not ssa:
                # before SSA conversion a name assigned in both arms is defined after the if
                defs += sorted((then_defined & else_defined) - defined)
        elif isinstance(s, N.Scope):
            _verify_body(fn, s.body, defined, after, ssa, seen_defs)
        for d in defs:
            if ssa and d in seen_defs:
                raise InternalError(f"after {after}: {fn.name} defines {d!r} twice (not SSA)")
            seen_defs.add(d)
            defined.add(d)
