"""Small rewriting helpers shared by passes: substitute variables in expressions
and statement bodies."""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional

from ..ir import nodes as N
from ..ir.types import TileType


def subst_expr(e: N.Expr, env: Dict[str, N.Expr]) -> N.Expr:
    if isinstance(e, N.Var):
        rep = env.get(e.name)
        if rep is None:
            return e
        if isinstance(rep, N.Var):
            return N.Var(rep.name, type=e.type if rep.type is None else rep.type, loc=e.loc)
        return rep
    if isinstance(e, N.OpCall):
        attrs = dict(e.attrs)
        if "valid" in attrs and attrs["valid"] is not None:
            attrs["valid"] = tuple(subst_expr(v, env) if isinstance(v, N.Expr) else v for v in attrs["valid"])
        ref = attrs.get("memref")
        if ref is not None and isinstance(ref.index, N.Expr):     # a run-time slot (language/memrefs.py)
            attrs["memref"] = dataclasses.replace(ref, index=subst_expr(ref.index, env))
        out = N.OpCall(e.op, [subst_expr(a, env) for a in e.args], attrs, type=e.type, loc=e.loc)
        return out
    if isinstance(e, N.FuncCall):
        return N.FuncCall(e.callee, [subst_expr(a, env) for a in e.args], dict(e.attrs), type=e.type, loc=e.loc)
    if isinstance(e, N.ListExpr):
        return N.ListExpr([subst_expr(a, env) for a in e.items], type=e.type, loc=e.loc)
    return e


def subst_type(t, env: Dict[str, N.Expr]):
    """A tile type whose run-time valid extents name substituted scalars: the same type over the new
    names (a scalar renamed by SSA, or a copy of an unrolled body, keeps its tiles' valid regions)."""
    if not isinstance(t, TileType) or not t.valid or all(not isinstance(v, N.Expr) for v in t.valid):
        return t
    return t.with_(valid=tuple(subst_expr(v, env) if isinstance(v, N.Expr) else v for v in t.valid))


def subst_body(body: List[N.Stmt], env: Dict[str, N.Expr],
               rename_defs: Optional[Dict[str, str]] = None) -> List[N.Stmt]:
    """Substitute uses everywhere; with ``rename_defs``, also rename definitions."""
    rd = rename_defs or {}

    def var(v: N.Var) -> N.Var:
        return N.Var(rd.get(v.name, v.name), type=v.type, loc=v.loc)

    out: List[N.Stmt] = []
    for s in body:
        if isinstance(s, N.Assign):
            out.append(N.Assign([var(t) for t in s.targets], subst_expr(s.value, env), loc=s.loc))
        elif isinstance(s, N.ExprStmt):
            out.append(N.ExprStmt(subst_expr(s.expr, env), loc=s.loc))
        elif isinstance(s, N.Return):
            out.append(N.Return([subst_expr(v, env) for v in s.values], loc=s.loc))
        elif isinstance(s, N.For):
            out.append(N.For(var(s.var), subst_expr(s.start, env), subst_expr(s.stop, env),
                             subst_expr(s.step, env), subst_body(s.body, env, rd), kind=s.kind, stage=s.stage,
                             iter_args=[(var(v), subst_expr(i, env)) for v, i in s.iter_args],
                             yields=[subst_expr(y, env) for y in s.yields],
                             results=[var(r) for r in s.results], loc=s.loc))
        elif isinstance(s, N.While):
            out.append(N.While(subst_body(s.body, env, rd),
                               iter_args=[(var(v), subst_expr(i, env)) for v, i in s.iter_args],
                               yields=[subst_expr(y, env) for y in s.yields],
                               results=[var(r) for r in s.results], loc=s.loc))
        elif isinstance(s, N.Condition):
            out.append(N.Condition(subst_expr(s.cond, env), loc=s.loc))
        elif isinstance(s, N.If):
            out.append(N.If(subst_expr(s.cond, env), subst_body(s.then_body, env, rd),
                            subst_body(s.else_body, env, rd), results=[var(r) for r in s.results],
                            then_yields=[subst_expr(y, env) for y in s.then_yields],
                            else_yields=[subst_expr(y, env) for y in s.else_yields], loc=s.loc))
        elif isinstance(s, N.Scope):
            attrs = {k: subst_expr(v, env) if isinstance(v, N.Expr) else v for k, v in s.attrs.items()}
            out.append(N.Scope(s.kind, subst_body(s.body, env, rd), attrs, loc=s.loc))
        else:
            out.append(s)
    return out
