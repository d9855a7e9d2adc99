"""Splice ``Inline`` functions into their call sites and drop them from the program.

Parameters are substituted by the call's arguments; the callee's locals are
renamed ``<callee>_<name>`` (plus a counter) so they cannot collide with the
caller's names; its ``return`` becomes an assignment to the call's targets.
"""
from __future__ import annotations

import copy
import itertools
from typing import Dict, List

from ..errors import CompileError
from ..ir import nodes as N
from .rewrite import subst_body


def inline_functions(prog: N.Program, ctx) -> N.Program:
    inline = {n: f for n, f in prog.functions.items() if f.kind is N.FunctionType.Inline}
    if not inline:
        return prog
    counter = itertools.count()
    for fn in prog.functions.values():
        if fn.kind is not N.FunctionType.Inline:
            fn.body = _inline_body(fn.body, inline, counter, depth=0)
    for name in inline:
        del prog.functions[name]
    return prog


def _inline_body(body: List[N.Stmt], inline, counter, depth) -> List[N.Stmt]:
    out: List[N.Stmt] = []
    for s in body:
        call = None
        if isinstance(s, N.Assign) and isinstance(s.value, N.FuncCall) and s.value.callee in inline:
            call, targets = s.value, s.targets
        elif isinstance(s, N.ExprStmt) and isinstance(s.expr, N.FuncCall) and s.expr.callee in inline:
            call, targets = s.expr, []
        if call is None:
            for sub in N.child_bodies(s):
                sub[:] = _inline_body(sub, inline, counter, depth)
            out.append(s)
            continue
        if depth > 16:
            raise CompileError(f"inline function {call.callee} calls itself (directly or not)", s.loc)
        out.extend(_splice(call, targets, inline, counter, depth, s.loc))
    return out


def _splice(call: N.FuncCall, targets, inline, counter, depth, loc) -> List[N.Stmt]:
    callee = inline[call.callee]
    k = next(counter)
    mapping: Dict[str, N.Expr] = {p.name: a for p, a in zip(callee.params, call.args)}
    body = copy.deepcopy(callee.body)
    # rename the callee's own locals
    local_names = set()
    for st in N.walk_stmts(body):
        if isinstance(st, N.Assign):
            local_names.update(t.name for t in st.targets)
        if isinstance(st, N.For):
            local_names.add(st.var.name)
    renames = {n: N.Var(f"{callee.name}_{n}_{k}") for n in local_names if n not in mapping}
    body = subst_body(body, {**mapping, **renames}, rename_defs={n: v.name for n, v in renames.items()})
    out: List[N.Stmt] = []
    for st in body:
        if isinstance(st, N.Return):
            if targets and len(st.values) != len(targets):
                raise CompileError(f"{callee.name} returns {len(st.values)} values, but the call binds "
                                   f"{len(targets)}", loc)
            for t, v in zip(targets, st.values):
                # `y = self.f(..., y)` returning the tensor it stored into: the name already holds
                # it, and a self-assignment would make `y` loop-carried inside a loop
                if not (isinstance(v, N.Var) and v.name == t.name):
                    out.append(N.Assign([t], v, loc=loc))
            break
        out.append(st)
    return _inline_body(out, inline, counter, depth + 1)
