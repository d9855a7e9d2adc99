"""Calls of program functions: what a caller knows about a callee, and argument checks.

Shared by ``@pl.program`` parsing and ``@pl.jit`` helpers: ``Signature`` (which parameters a
function returns), ``returned_params``, ``return_types`` and ``check_arg``.
"""
from __future__ import annotations

import ast
from typing import List

from ..ir import nodes as N
from ..ir.types import ScalarType, TensorType, TileType
from .dist_front import ctx_args, user_params


class Signature:
    """What a caller needs to know about a program function."""

    def __init__(self, fn: N.Function, returns_params: List[int]):
        self.fn = fn
        self.returns_params = returns_params   # for each returned value, the param index it is


def returned_params(item: ast.FunctionDef, fn: N.Function) -> List[int]:
    """Which parameters a function returns (``return out`` / ``return a, b``); -1 for others."""
    names = [p.name for p in fn.params]
    result: List[int] = []
    for node in ast.walk(item):
        if isinstance(node, ast.Return) and node.value is not None:
            vals = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
            result = [names.index(v.id) if isinstance(v, ast.Name) and v.id in names else -1 for v in vals]
    return result


def return_types(body) -> list:
    for s in N.walk_stmts(body):
        if isinstance(s, N.Return):
            return [v.type for v in s.values]
    return []


def tensor_matches(want: TensorType, got: TensorType) -> bool:
    """Same dtype and rank, and equal wherever both dimensions are static."""
    return want.dtype == got.dtype and len(want.shape) == len(got.shape) and not any(
        isinstance(x, int) and isinstance(y, int) and x != y for x, y in zip(want.shape, got.shape))


def arg_problem(a: N.Expr, pt, pname: str, callee: str):
    """Why argument ``a`` cannot bind parameter ``pname`` of type ``pt`` (None when it can)."""
    at = a.type
    if isinstance(pt, TensorType):
        if not isinstance(at, TensorType):
            return f"argument {pname!r} of {callee} must be a tensor, but got {at}"
        if not tensor_matches(pt, at):
            return f"argument {pname!r} of {callee} expects {pt}, but got {at}"
    elif isinstance(pt, ScalarType):
        if not isinstance(at, ScalarType):
            return f"argument {pname!r} of {callee} must be a scalar, but got {at}"
    elif isinstance(pt, TileType):
        if not isinstance(at, TileType) or at.shape != pt.shape or at.dtype != pt.dtype:
            return f"argument {pname!r} of {callee} expects {pt}, but got {at}"
    return None


class CallMixin:
    """Mixin of FunctionParser: ``self.f(...)`` calls of program functions."""

    def func_call(self, name: str, e: ast.Call) -> N.Expr:
        if name not in self.sigs:
            raise self.err(f"program has no function {name!r}", e.func)
        if e.keywords:
            raise self.err("program functions are called with positional arguments", e)
        callee = self.sigs[name].fn
        nodes, no_dep = list(e.args), []
        for j, a in enumerate(nodes):
            inner = self.no_dep_arg(a)            # self.k(pl.no_dep(x), ...) (language/tasks.py)
            if inner is not None:
                nodes[j] = inner
                no_dep.append(j)
        args = [self.expr(a) for a in nodes]
        params = user_params(callee)          # without the hidden CommContext ones (distributed/front.py)
        if len(args) != len(params):
            raise self.err(f"{name} takes {len(params)} arguments, but {len(args)} were given", e)
        for a, p, node in zip(args, params, nodes):
            problem = arg_problem(a, p.type, p.name, name)
            if problem:
                raise self.err(problem, node)
        args += ctx_args(callee, args, self.err, nodes)
        return self.task_call_attrs(N.FuncCall(name, args, loc=self.loc(e)), no_dep)
