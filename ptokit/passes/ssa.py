"""Flattening and SSA conversion.

``flatten``: nested tile-op calls become temporaries (``_t0 = pl.add(a, b)``),
so every tile value has a name (and later a buffer); copying a tile variable
(``y = x``) becomes an explicit ``pl.move`` so that two names never share a
buffer by accident.

``to_ssa``: every name is defined once.  A name rebound inside a loop body that
existed before the loop becomes loop-carried (``For.iter_args`` / ``yields`` /
``results``); a name assigned in an ``if`` arm that existed before, or in both
arms, is merged (``If.results`` / ``then_yields`` / ``else_yields``).
"""
from __future__ import annotations

import itertools
from typing import Dict, List, Set

from ..errors import CompileError
from ..ir import nodes as N
from ..ir.types import INDEX, TileType
from .rewrite import subst_expr, subst_type


def flatten(prog: N.Program, ctx) -> N.Program:
    for fn in prog.functions.values():
        counter = itertools.count()
        fn.body = _flatten_body(fn.body, counter)
    return prog


def _flatten_body(body, counter) -> List[N.Stmt]:
    out: List[N.Stmt] = []
    for s in body:
        pre: List[N.Stmt] = []

        def hoist(e: N.Expr, top: bool) -> N.Expr:
            if isinstance(e, N.OpCall):
                args = [hoist(a, False) for a in e.args]
                attrs = dict(e.attrs)
                if attrs.get("valid"):
                    attrs["valid"] = tuple(hoist(v, False) if isinstance(v, N.Expr) else v for v in attrs["valid"])
                e = N.OpCall(e.op, args, attrs, type=e.type, loc=e.loc)
                if not top and isinstance(e.type, TileType):
                    tmp = N.Var(f"_t{next(counter)}", type=e.type, loc=e.loc)
                    pre.append(N.Assign([tmp], e, loc=e.loc))
                    return N.Var(tmp.name, type=tmp.type, loc=e.loc)
                return e
            if isinstance(e, N.ListExpr):
                return N.ListExpr([hoist(a, False) for a in e.items], type=e.type, loc=e.loc)
            if isinstance(e, N.FuncCall):
                return N.FuncCall(e.callee, [hoist(a, False) for a in e.args], dict(e.attrs), type=e.type, loc=e.loc)
            return e

        if isinstance(s, N.Assign):
            value = hoist(s.value, True)
            if isinstance(value, N.Var) and isinstance(value.type, TileType):
                value = N.OpCall("move", [value], {"target_memory": value.type.memory}, type=value.type, loc=s.loc)
            s = N.Assign(s.targets, value, loc=s.loc)
        elif isinstance(s, N.ExprStmt):
            s = N.ExprStmt(hoist(s.expr, True), loc=s.loc)
        elif isinstance(s, N.Return):
            s = N.Return([hoist(v, True) for v in s.values], loc=s.loc)
        elif isinstance(s, N.For):
            s.start, s.stop, s.step = (hoist(x, True) for x in (s.start, s.stop, s.step))
            s.body = _flatten_body(s.body, counter)
        elif isinstance(s, N.While):
            s.body = _flatten_body(s.body, counter)
        elif isinstance(s, N.Condition):
            s = N.Condition(hoist(s.cond, True), loc=s.loc)
        elif isinstance(s, N.If):
            s.cond = hoist(s.cond, True)
            s.then_body = _flatten_body(s.then_body, counter)
            s.else_body = _flatten_body(s.else_body, counter)
        elif isinstance(s, N.Scope):
            s.body = _flatten_body(s.body, counter)
        out.extend(pre)
        out.append(s)
    return out


class _Namer:
    def __init__(self, taken):
        self.count: Dict[str, int] = {}
        self.taken: Set[str] = set(taken)

    def fresh(self, name: str) -> str:
        if name not in self.taken:
            self.taken.add(name)
            return name
        k = self.count.get(name, 0)
        while True:
            k += 1
            cand = f"{name}_{k}"
            if cand not in self.taken:
                self.count[name] = k
                self.taken.add(cand)
                return cand


def _assigned(body) -> List[str]:
    names: List[str] = []
    for s in N.walk_stmts(body):
        if isinstance(s, N.Assign):
            for t in s.targets:
                if t.name not in names:
                    names.append(t.name)
        elif isinstance(s, (N.For, N.While, N.If)):
            for r in s.results:
                if r.name not in names:
                    names.append(r.name)
    return names


def to_ssa(prog: N.Program, ctx) -> N.Program:
    for fn in prog.functions.values():
        namer = _Namer([p.name for p in fn.params])
        env: Dict[str, N.Var] = {p.name: N.Var(p.name, type=p.type) for p in fn.params}
        fn.body = _ssa_body(fn.body, env, namer)
    return prog


def _ssa_body(body, env: Dict[str, N.Var], namer: _Namer) -> List[N.Stmt]:
    out: List[N.Stmt] = []
    for s in body:
        if isinstance(s, N.Assign):
            value = subst_expr(s.value, env)
            targets = []
            for t in s.targets:
                # the type's run-time valid extents name scalars as they are now (SSA names)
                v = N.Var(namer.fresh(t.name), type=subst_type(t.type, env), loc=t.loc)
                env[t.name] = v
                targets.append(v)
            out.append(N.Assign(targets, value, loc=s.loc))
        elif isinstance(s, N.ExprStmt):
            out.append(N.ExprStmt(subst_expr(s.expr, env), loc=s.loc))
        elif isinstance(s, N.Return):
            out.append(N.Return([subst_expr(v, env) for v in s.values], loc=s.loc))
        elif isinstance(s, N.For):
            start, stop, step = (subst_expr(x, env) for x in (s.start, s.stop, s.step))
            carried = [n for n in _assigned(s.body) if n in env]
            inner = dict(env)
            loop_var = N.Var(namer.fresh(s.var.name), type=s.var.type, loc=s.var.loc)
            inner[s.var.name] = loop_var
            iter_args = []
            for n in carried:
                p = N.Var(namer.fresh(n), type=env[n].type, loc=s.loc)
                iter_args.append((p, env[n]))
                inner[n] = p
            body_out = _ssa_body(s.body, inner, namer)
            yields = [inner[n] for n in carried]
            for (p, init), y in zip(iter_args, yields):
                _check_same(p.type, y.type, p.name, s.loc, "loop")
            results = []
            for n in carried:
                r = N.Var(namer.fresh(n), type=env[n].type, loc=s.loc)
                env[n] = r
                results.append(r)
            out.append(N.For(loop_var, start, stop, step, body_out, kind=s.kind, iter_args=iter_args,
                             yields=yields, results=results, loc=s.loc))
        elif isinstance(s, N.While):
            # carried values enter every round at the test; the loop's results are the values the
            # test saw last (the front end keeps assignments to carried names after the test)
            carried = [n for n in _assigned(s.body) if n in env]
            inner = dict(env)
            iter_args = []
            for n in carried:
                p = N.Var(namer.fresh(n), type=env[n].type, loc=s.loc)
                iter_args.append((p, env[n]))
                inner[n] = p
            body_out = _ssa_body(s.body, inner, namer)
            yields = [inner[n] for n in carried]
            for (p, _), y in zip(iter_args, yields):
                _check_same(p.type, y.type, p.name, s.loc, "loop")
            results = []
            for n in carried:
                r = N.Var(namer.fresh(n), type=env[n].type, loc=s.loc)
                env[n] = r
                results.append(r)
            out.append(N.While(body_out, iter_args=iter_args, yields=yields, results=results, loc=s.loc))
        elif isinstance(s, N.Condition):
            out.append(N.Condition(subst_expr(s.cond, env), loc=s.loc))
        elif isinstance(s, N.If):
            cond = subst_expr(s.cond, env)
            then_env, else_env = dict(env), dict(env)
            then_body = _ssa_body(s.then_body, then_env, namer)
            else_body = _ssa_body(s.else_body, else_env, namer)
            names = []
            for n in _assigned(s.then_body) + _assigned(s.else_body):
                if n in names:
                    continue
                in_then, in_else = then_env.get(n), else_env.get(n)
                if in_then is not None and in_else is not None and (in_then is not env.get(n) or in_else is not env.get(n)):
                    names.append(n)
            results, ty, ey = [], [], []
            extra = []        # (result, then value, else value) of a merged tile's path-dependent valid extent
            for n in names:
                _check_same(then_env[n].type, else_env[n].type, n, s.loc, "if")
                r = N.Var(namer.fresh(n), type=_merged_valid(n, then_env[n].type, else_env[n].type, extra, namer,
                                                             s.loc), loc=s.loc)
                results.append(r)
                ty.append(then_env[n])
                ey.append(else_env[n])
                env[n] = r
            for r, tv, ev in extra:
                results.append(r)
                ty.append(tv)
                ey.append(ev)
            out.append(N.If(cond, then_body, else_body, results=results, then_yields=ty, else_yields=ey, loc=s.loc))
        elif isinstance(s, N.Scope):
            attrs = {k: subst_expr(v, env) if isinstance(v, N.Expr) else v for k, v in s.attrs.items()}
            out.append(N.Scope(s.kind, _ssa_body(s.body, env, namer), attrs, loc=s.loc))
        else:
            out.append(s)
    return out


def _valid_key(v):
    return v if isinstance(v, int) else repr(v)


def _merged_valid(name, a, b, extra, namer, loc):
    """The type of a tile merged after an ``if``: where the arms give it different valid extents,
    each such extent becomes a scalar result of the ``if`` (the then arm's or the else arm's), so
    the merged tile's valid region is the one of the path taken."""
    if not isinstance(a, TileType) or not isinstance(b, TileType):
        return a
    va = tuple(a.valid) if a.valid else a.shape
    vb = tuple(b.valid) if b.valid else b.shape
    if [_valid_key(x) for x in va] == [_valid_key(x) for x in vb]:
        return a
    merged = []
    for i, (x, y) in enumerate(zip(va, vb)):
        if _valid_key(x) == _valid_key(y):
            merged.append(x)
            continue
        r = N.Var(namer.fresh(f"{name}__valid{i}"), type=INDEX, loc=loc)
        extra.append((r, _as_expr(x, loc), _as_expr(y, loc)))
        merged.append(N.Var(r.name, type=INDEX, loc=loc))
    return a.with_(valid=tuple(merged))


def _as_expr(v, loc):
    return N.Const(v, type=INDEX, loc=loc) if isinstance(v, int) else v


def _check_same(a, b, name, loc, where):
    if isinstance(a, TileType) and isinstance(b, TileType):
        if a.shape != b.shape or a.dtype != b.dtype or a.memory != b.memory:
            raise CompileError(f"{name!r} is {a} on one path and {b} on another ({where}); a merged "
                               f"tile must keep its shape, dtype and memory space", loc)
    elif type(a) is not type(b):
        raise CompileError(f"{name!r} is {a} on one path and {b} on another ({where})", loc)
