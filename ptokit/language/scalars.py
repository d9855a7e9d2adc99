"""Scalar forms of the DSL (pypto-parity.md A15, A16, B): typed literals (``pl.const``), scalar
``pl.min``/``pl.max`` and the builtins ``min``/``max``/``abs``, unary and boolean operators,
``pl.tensor.dim`` and ``x.shape``, and the parse-time checks ``pl.static_assert`` /
``pl.static_print`` (no IR).

A mixin of FunctionParser (uses ``expr``, ``err``, ``loc``, ``_const``, ``typed_op``,
``scalar_op``, ``env``, ``src``).
"""
from __future__ import annotations

import ast
import sys
from typing import Optional

from ..ir import nodes as N
from ..ir.printer import fmt_expr
from ..ir.types import BOOL, INDEX, DType, ScalarType, TensorType, TileType, dim_vars
from .source import eval_static
from .types import DynamicDim


class ScalarMixin:
    # ------------------------------------------------------------ calls
    def scalar_call(self, target, e: ast.Call) -> Optional[N.Expr]:
        """A call of one of this module's forms, or None when it is something else."""
        marker = getattr(target, "__pto_marker__", None)
        if marker in ("min", "max") or target in (min, max):
            name = marker or target.__name__
            if len(e.args) != 2 or e.keywords:
                raise self.err(f"{'pl.' if marker else ''}{name}() takes two scalars here", e)
            a, b = self.expr(e.args[0]), self.expr(e.args[1])
            if isinstance(a, N.Const) and isinstance(b, N.Const) and isinstance(a.value, (int, float)) \
                    and isinstance(b.value, (int, float)):
                return self._const((min if name == "min" else max)(a.value, b.value), e)
            return self.scalar_op(name, a, b, e)
        if target is abs:
            if len(e.args) != 1 or e.keywords:
                raise self.err("abs() takes one scalar", e)
            v = self.expr(e.args[0])
            if isinstance(v, N.Const) and isinstance(v.value, (int, float)):
                return self._const(abs(v.value), e)
            return self.scalar_op("max", v, self.negate(v, e), e)
        if marker == "const":
            return self._typed_const(e)
        if marker == "dim":
            return self._tensor_dim(e)
        return None

    def _typed_const(self, e: ast.Call) -> N.Expr:
        kw = {k.arg: k.value for k in e.keywords}
        args = list(e.args) + [kw.pop(k) for k in ("value", "dtype") if k in kw]
        if len(args) != 2 or kw:
            raise self.err("pl.const takes a value and a dtype: pl.const(0, pl.INT32)", e)
        v, dt = self.expr(args[0]), self.expr(args[1])
        if not isinstance(v, N.Const) or not isinstance(v.value, (bool, int, float)):
            raise self.err("pl.const needs a compile-time number", args[0])
        if not isinstance(dt, N.Const) or not isinstance(dt.value, DType) or not dt.value.supported:
            raise self.err("pl.const needs a dtype such as pl.INT32 as its second argument", args[1])
        dtype = dt.value
        value = v.value
        if dtype.is_float:
            value = float(value)
        elif dtype is DType.BOOL:
            value = bool(value)
        else:
            if isinstance(value, float) and not value.is_integer():
                raise self.err(f"pl.const({value}, {dtype!r}): {value} is not an integer", args[0])
            value = int(value)
            bits = dtype.size * 8
            lo, hi = (0, 2 ** bits - 1) if dtype.is_unsigned else (-2 ** (bits - 1), 2 ** (bits - 1) - 1)
            if not lo <= value <= hi:
                raise self.err(f"pl.const({value}, {dtype!r}): {value} does not fit {dtype.name} ({lo} .. {hi})",
                               args[0])
        return N.Const(value, type=ScalarType(dtype), loc=self.loc(e))

    def _tensor_dim(self, e: ast.Call) -> N.Expr:
        kw = {k.arg: k.value for k in e.keywords}
        args = list(e.args) + [kw.pop(k) for k in ("tensor", "axis") if k in kw]
        if len(args) != 2 or kw:
            raise self.err("pl.tensor.dim takes a tensor and an axis: pl.tensor.dim(x, 0)", e)
        t = self.expr(args[0])
        if not isinstance(t.type, (TensorType, TileType)):
            raise self.err(f"pl.tensor.dim needs a tensor, but got {t.type}", args[0])
        ax = self.expr(args[1])
        if not isinstance(ax, N.Const) or not isinstance(ax.value, int) or isinstance(ax.value, bool):
            raise self.err("the axis of pl.tensor.dim must be a compile-time integer", args[1])
        return self.shape_entry(t, ax.value, args[1])

    # ------------------------------------------------------------ shapes
    def shape_of(self, value: N.Expr, node) -> N.ListExpr:
        """``x.shape``: the dimensions of a tensor (ints, and dynamic dimensions as INDEX scalars)
        or a tile."""
        shape = value.type.shape
        return N.ListExpr([self._dim_value(d, node) for d in shape], loc=self.loc(node))

    def shape_entry(self, value: N.Expr, axis: int, node) -> N.Expr:
        shape = value.type.shape
        if not -len(shape) <= axis < len(shape):
            raise self.err(f"axis {axis} is out of range for the {len(shape)}-D {value.type}", node)
        return self._dim_value(shape[axis], node)

    def run_time_dim(self, v: N.Expr, node):
        """A tensor dimension given as a value in orchestration code (``pl.create_tensor([16, hd])``,
        ``pl.slice(x, [n, 64], ...)``): an int when it is constant, else a dynamic dimension named by
        the scalar holding it, which the runtime reads when it allocates the tensor or forms the
        view; an expression is first held in a scalar of its own."""
        if isinstance(v, N.Const) and isinstance(v.value, int) and not isinstance(v.value, bool):
            return v.value
        if not isinstance(v.type, ScalarType) or v.type.dtype.is_float or v.type.dtype is BOOL.dtype:
            raise self.err(f"a tensor dimension must be an integer or an integer scalar, but "
                           f"{ast.unparse(node)!r} is {v.type}", node)
        if isinstance(v, N.Var):
            return self.dim_locals.get(v.name, v.name)     # hd = pl.tensor.dim(x, 1): x's own dimension
        self._run_time_dims = getattr(self, "_run_time_dims", 0) + 1
        name = f"__dim{self._run_time_dims}"
        loc = self.loc(node)
        self.pre.append(N.Assign([N.Var(name, type=v.type, loc=loc)], v, loc=loc))
        self.env[name] = v.type
        return name

    def _dim_value(self, d, node) -> N.Expr:
        if isinstance(d, int):
            return self._const(d, node)
        names = dim_vars(d)
        for n in names:
            if n not in self.env:
                raise self.err(f"dimension {d!r} is not known here", node)
        if len(names) == 1 and names[0] == d:
            return N.Var(d, type=INDEX, loc=self.loc(node))
        return self.expr(ast.parse(str(d), mode="eval").body)

    # ------------------------------------------------------------ operators
    def negate(self, v: N.Expr, node) -> N.Expr:
        if isinstance(v, N.Const) and isinstance(v.value, (int, float)) and not isinstance(v.value, bool):
            return N.Const(-v.value, type=v.type, loc=self.loc(node))
        return self.typed_op("scalar.neg", [v], {}, node)

    def unary_op(self, e: ast.UnaryOp) -> N.Expr:
        v = self.expr(e.operand)
        if isinstance(e.op, ast.USub):
            return self.negate(v, e)
        if isinstance(e.op, ast.UAdd):
            return v
        if not isinstance(v.type, ScalarType):
            raise self.err(f"{ast.unparse(e)!r}: {type(e.op).__name__} needs a scalar, but got {v.type}", e)
        if isinstance(e.op, ast.Invert):
            if v.type.dtype.is_float:
                raise self.err(f"~ needs an integer, but got {v.type}", e)
            if isinstance(v, N.Const):
                return N.Const(~v.value, type=v.type, loc=self.loc(e))
            return self.scalar_op("bitxor", v, N.Const(-1, type=v.type, loc=self.loc(e)), e)
        if isinstance(e.op, ast.Not):
            if isinstance(v, N.Const):
                return N.Const(not v.value, type=BOOL, loc=self.loc(e))
            return self.scalar_op("eq", self.truth(v, e), N.Const(False, type=BOOL, loc=self.loc(e)), e)
        raise self.err(f"unsupported operator {type(e.op).__name__}", e)

    def truth(self, v: N.Expr, node) -> N.Expr:
        """A scalar as a BOOL (``x != 0``)."""
        if v.type == BOOL:
            return v
        if isinstance(v, N.Const):
            return N.Const(bool(v.value), type=BOOL, loc=self.loc(node))
        return self.scalar_op("ne", v, N.Const(0, type=v.type, loc=self.loc(node)), node)

    def bool_op(self, e: ast.BoolOp) -> N.Expr:
        """``a and b`` / ``a or b`` on scalars: both sides are evaluated (there is no short circuit
        in kernel or orchestration code), the result is a BOOL."""
        op = "bitand" if isinstance(e.op, ast.And) else "bitor"
        out = None
        for node in e.values:
            v = self.expr(node)
            if not isinstance(v.type, ScalarType):
                raise self.err(f"{'and' if op == 'bitand' else 'or'} needs scalars, but got {v.type}", node)
            v = self.truth(v, node)
            out = v if out is None else self.scalar_op(op, out, v, e)
        return out

    # ------------------------------------------------------------ parse-time statements
    def static_statement(self, s: ast.Expr) -> bool:
        """``pl.static_assert(cond, msg)`` / ``pl.static_print(*args)``: handled now, no IR."""
        call = s.value
        if not isinstance(call, ast.Call):
            return False
        marker = getattr(self._resolve(call.func), "__pto_marker__", None)
        if marker == "static_assert":
            kw = {k.arg: k.value for k in call.keywords}
            args = list(call.args) + [kw.pop(k) for k in ("cond", "msg") if k in kw]
            if not 1 <= len(args) <= 2 or kw:
                raise self.err("pl.static_assert takes a condition and an optional message", call)
            cond = self.expr(args[0])
            if not isinstance(cond, N.Const):
                raise self.err(f"pl.static_assert needs a condition known while compiling, but "
                               f"{ast.unparse(args[0])!r} is only known at run time", args[0])
            if not cond.value:
                msg = ""
                if len(args) == 2:
                    m = args[1]
                    if not (isinstance(m, ast.Constant) and isinstance(m.value, str)):
                        raise self.err("the message of pl.static_assert must be a string literal", m)
                    msg = m.value
                raise self.err(f"static assertion failed: {ast.unparse(args[0])}" + (f": {msg}" if msg else ""), call)
            return True
        if marker == "static_print":
            parts = []
            for a in call.args:
                if isinstance(a, ast.Constant) and isinstance(a.value, str):
                    parts.append(a.value)
                    continue
                v = self.expr(a)
                parts.append(f"{fmt_expr(v)}: {v.type}" if v.type is not None else fmt_expr(v))
            print(f"{self.loc(call)}: static_print: {' '.join(parts)}", file=sys.stderr)
            return True
        if isinstance(call.func, ast.Attribute) and call.func.attr == "bind_dynamic":
            self.check_bind_dynamic(call)
            return True
        return False

    def check_bind_dynamic(self, call: ast.Call) -> None:
        """``x.bind_dynamic(axis, M)``: says dimension ``axis`` of the bare ``pl.Tensor`` parameter
        ``x`` is the dynamic dimension ``M`` (``@pl.jit`` reads it before specializing: the call
        is one cache entry for every size of that axis).  Here it is only checked."""
        usage = "x.bind_dynamic(axis, M) with x a tensor parameter and M = pl.dynamic(\"M\")"
        target = call.func.value
        if len(call.args) != 2 or call.keywords or not isinstance(target, ast.Name):
            raise self.err(f"bind_dynamic takes an axis and a dynamic dimension: {usage}", call)
        t = self.env.get(target.id)
        if not isinstance(t, TensorType) or self.fn is None or target.id not in {p.name for p in self.fn.params}:
            raise self.err(f"bind_dynamic marks a dimension of a tensor parameter: {usage}", target)
        axis = self.expr(call.args[0])
        if not (isinstance(axis, N.Const) and isinstance(axis.value, int)) or not -len(t.shape) <= axis.value < len(t.shape):
            raise self.err(f"the axis of bind_dynamic must be an integer literal from {-len(t.shape)} to "
                           f"{len(t.shape) - 1} for a rank-{len(t.shape)} tensor", call.args[0])
        dim = eval_static(call.args[1], self.src, self.g, "dynamic dimension")
        if not isinstance(dim, DynamicDim):
            raise self.err(f"the second argument of bind_dynamic is a pl.dynamic(...) dimension: {usage}", call.args[1])
        got = t.shape[axis.value]
        if str(got) != dim.name:
            raise self.err(f"{target.id} is {t}, whose dimension {axis.value} is {got}, not the dynamic {dim.name}: "
                           f"bind_dynamic applies to a bare pl.Tensor parameter of a @pl.jit function", call)
