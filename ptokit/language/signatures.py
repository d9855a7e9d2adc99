"""Calls of program functions: what a caller knows about a callee.

Shared by ``@pl.program`` parsing and ``@pl.jit`` helpers: ``Signature`` (its parameters and which
of them a function returns) and ``return_types``; a call is bound by the one
binder (binder.py).
"""
from __future__ import annotations

import ast
import inspect
from typing import List, Optional

from ..ir import nodes as N
from ..ir.types import INDEX, MemorySpace, ScalarType, TensorType, TileType
from .binder import Given, bind_call, parameter
from .dist_front import ctx_args, user_params

ADDED_OUTS = "added_outs"     # Function.attrs key: the Out parameters a kernel's returned tiles added


class Signature:
    """What a caller needs to know about a program function: its parameters as the binder takes
    them (a scalar parameter may have a default: ``defaults``) and which it returns."""

    def __init__(self, fn: N.Function, returns_params: List[int], declared: Optional[List[inspect.Parameter]] = None):
        self.fn = fn
        self.returns_params = returns_params   # for each returned value, the param index it is
        self.declared = declared               # the parameters as written (kinds, defaults); None: plain ones

    @property
    def params(self) -> List[inspect.Parameter]:
        """What the binder takes: the declared parameters, then the Out parameters returned tiles
        added (language/signatures.py ``returned_tile``)."""
        declared = list(self.declared) if self.declared is not None else []
        names = {p.name for p in declared}
        return declared + [parameter(p.name) for p in user_params(self.fn) if p.name not in names]


def tensor_matches(want: TensorType, got: TensorType) -> bool:
    """Same dtype and rank, and equal wherever both dimensions are static."""
    return want.dtype == got.dtype and len(want.shape) == len(got.shape) and not any(
        isinstance(x, int) and isinstance(y, int) and x != y for x, y in zip(want.shape, got.shape))


def arg_problem(got, want, pname: str, callee: str) -> Optional[str]:
    """Why an argument of type ``got`` cannot bind parameter ``pname`` (None when it can).
    ``want`` is an IR type, or the kind of a bare annotation ("tensor", "tile", "scalar")."""
    kind = want if isinstance(want, str) else "tensor" if isinstance(want, TensorType) else \
        "tile" if isinstance(want, TileType) else "scalar" if isinstance(want, ScalarType) else None
    cls = {"tensor": TensorType, "tile": TileType, "scalar": ScalarType}.get(kind)
    if cls is None:
        return None
    if not isinstance(got, cls):
        return f"argument {pname!r} of {callee} must be a {kind}, but got {got}"
    if isinstance(want, TensorType) and (not tensor_matches(want, got) or (want.window and not got.window)):
        return f"argument {pname!r} of {callee} expects {want}, but got {got}"
    if isinstance(want, TileType) and (tuple(got.shape) != tuple(want.shape) or got.dtype != want.dtype):
        return f"argument {pname!r} of {callee} expects {want}, but got {got}"
    return None


def return_types(body) -> list:
    for s in N.walk_stmts(body):
        if isinstance(s, N.Return):
            return [v.type for v in s.values]
    return []


class CallMixin:
    """Mixin of FunctionParser: ``self.f(...)`` calls of program functions."""

    def func_call(self, name: str, e: ast.Call) -> N.Expr:
        if name not in self.sigs:
            raise self.err(f"program has no function {name!r}", e.func)
        sig = self.sigs[name]
        callee = sig.fn
        added = callee.attrs.get(ADDED_OUTS, ())
        bound = bind_call(name, sig.params, e, self.err, omittable=added)
        params = user_params(callee)          # without the hidden CommContext ones (distributed/front.py)
        nodes, args, no_dep = [], [], []
        for p in params:
            node = bound.get(p.name)
            if node is None:                  # an Out parameter a returned tile added: a new tensor
                args.append(self._new_output(callee, name, p, e))
                nodes.append(e)
                continue
            if isinstance(node, Given):
                args.append(self._const(node.value, e))
                nodes.append(e)
                continue
            inner = self.no_dep_arg(node)            # self.k(pl.no_dep(x), ...) (language/tasks.py)
            if inner is not None:
                node = inner
                no_dep.append(len(args))
            args.append(self.expr(node))
            nodes.append(node)
            problem = arg_problem(args[-1].type, p.type, p.name, name)
            if problem:
                raise self.err(problem, node)
        args += ctx_args(callee, args, self.err, nodes)
        return self.inline_value(callee, self.task_call_attrs(N.FuncCall(name, args, loc=self.loc(e)), no_dep), e)

    def inline_value(self, callee: N.Function, call: N.FuncCall, e: ast.Call, what: Optional[str] = None) -> N.Expr:
        """A call of an Inline function used inside an expression (``pl.store(self.twice(t), ...)``):
        its value bound to a name of its own first, as ``u = self.twice(t)`` would be (InlineFunctions
        splices statement-level calls only); any other call as it is."""
        if callee.kind is not N.FunctionType.Inline or e is self.direct_call:
            return call
        what = what or call.callee
        if len(callee.return_types) != 1:
            raise self.err(f"{what} returns {len(callee.return_types)} values; call it as `a, b = {what}(...)`", e)
        loc = self.loc(e)
        tmp = f"__{call.callee}_{loc.line}_{loc.col}" if loc is not None else f"__{call.callee}"
        t = callee.return_types[0]
        self.env[tmp] = t
        self.pre.append(N.Assign([N.Var(tmp, type=t, loc=loc)], call, loc=loc))
        return N.Var(tmp, type=t, loc=loc)

    def returned_tile(self, value: N.Expr, i: int, node) -> N.Expr:
        """``return t`` of a tile in a kernel (pypto-parity.md F): the kernel gets an Out parameter
        ``__ret<i>`` shaped like the tile, the tile is stored there, and the parameter is returned;
        callers that leave it out get a new tensor for it."""
        t = value.type
        if t.memory not in (MemorySpace.Vec, MemorySpace.Acc):
            raise self.err(f"a kernel returns tensors: a {t.memory.name} tile cannot be stored to one (move it "
                           f"to Vec first)", node)
        name = f"__ret{i}"
        want = TensorType(tuple(t.shape), t.dtype)
        param = next((p for p in self.fn.params if p.name == name), None)
        if param is None:
            param = N.Param(name, want, N.Direction.OUT, loc=self.loc(node))
            self.fn.params.append(param)
            self.fn.attrs[ADDED_OUTS] = tuple(self.fn.attrs.get(ADDED_OUTS, ())) + (name,)
            self.env[name] = want
        elif param.type != want:
            raise self.err(f"this return gives {t} where another return of {self.fn.name} gave a "
                           f"{param.type}: every return of a kernel must return the same shapes and dtypes", node)
        zero = N.Const(0, type=INDEX, loc=self.loc(node))
        offsets = N.ListExpr([zero, zero], loc=self.loc(node))
        return self.typed_op("store", [value, N.Var(name, type=want, loc=self.loc(node)), offsets], {}, node)

    def _new_output(self, callee: N.Function, name: str, p: N.Param, e: ast.Call) -> N.Expr:
        """A new tensor for an Out parameter a returned tile added, made where the call is."""
        if not self.in_orchestration:
            raise self.err(f"{name} returns a tile, stored to a tensor the caller creates: call it from the "
                           f"orchestration, or pass the output tensor", e)
        loc = self.loc(e)
        init = self.typed_op("create_tensor", [], {"shape": list(p.type.shape), "dtype": p.type.dtype}, e)
        var = f"__{name}_{p.name}_{loc.line}_{loc.col}" if loc is not None else f"__{name}_{p.name}"
        self.env[var] = init.type
        self.pre.append(N.Assign([N.Var(var, type=init.type, loc=loc)], init, loc=loc))
        return N.Var(var, type=init.type, loc=loc)
