"""DSL op calls bound to the op table.

``pl.<op>(...)`` arguments are matched to the op's declared parameters (pypto's names,
defaults and keyword aliases), each argument is read according to its parameter kind, and the
op's type rule gives the result type.  A mixin of ``FunctionParser``, which provides ``expr``,
``err``, ``loc`` and ``_const``; front ends customise it through two hooks:
``check_op_allowed`` (where an op may appear) and ``operand_tile`` (what a ``tile`` operand may
be besides a tile, e.g. a whole tensor in tensor-level kernel code).
"""
from __future__ import annotations

import ast
from typing import Dict

from ..ir import nodes as N
from ..ir.ops import OPS, OpDef, OpTypeError, Param, infer
from ..ir.types import INDEX, AtomicType, DType, MemorySpace, PadValue, ScalarType, TileType, TupleType, dim_str

_EXAMPLE = {DType: "pl.FP32", MemorySpace: "pl.Mem.Vec", PadValue: "pl.PadValue.zero",
            AtomicType: "pl.AtomicType.Add"}
_ENUM_OF = {"dtype": DType, "memory": MemorySpace, "pad": PadValue, "atomic": AtomicType}
_ENUMS = tuple(_EXAMPLE)
# pypto's literal spellings of a pad value: 0, math.inf, -math.inf
_PAD_SUGAR = {0: PadValue.zero, float("inf"): PadValue.max, float("-inf"): PadValue.min}


class _Given:
    """A parameter's default value, standing in for an argument that was not written."""

    def __init__(self, value):
        self.value = value


class OpBinder:
    # ------------------------------------------------------------ hooks
    def check_op_allowed(self, op: OpDef, e: ast.Call) -> None:
        """Raise a located error when ``op`` may not appear here (default: anywhere)."""

    def operand_tile(self, value: N.Expr, node, op: OpDef) -> N.Expr:
        """The IR value of a ``tile`` operand (default: as written)."""
        return value

    # ------------------------------------------------------------ binding
    def bind(self, op: OpDef, e: ast.Call) -> Dict[str, object]:
        """Parameter name -> the argument's ast node (or a ``_Given`` default)."""
        names = [p.name for p in op.params]
        positional = [p.name for p in op.params if not p.keyword_only]
        if len(e.args) > len(positional):
            raise self.err(f"pl.{op.name} takes at most {len(positional)} positional arguments, got {len(e.args)}", e)
        for a in e.args:
            if isinstance(a, ast.Starred):
                raise self.err(f"pl.{op.name} does not take *arguments", a)
        bound: Dict[str, object] = dict(zip(positional, e.args))
        for kw in e.keywords:
            if kw.arg is None:
                raise self.err(f"pl.{op.name} does not take **kwargs", kw.value)
            try:
                p = op.param(kw.arg)
            except KeyError:
                raise self.err(f"pl.{op.name} has no parameter {kw.arg!r} (parameters: {', '.join(names)})",
                               kw.value) from None
            if p.name in bound:
                raise self.err(f"pl.{op.name} got two values for its {p.name!r} argument", kw.value)
            bound[p.name] = kw.value
        for p in op.params:
            if p.name not in bound:
                if p.required:
                    raise self.err(f"pl.{op.name} is missing its {p.name!r} argument", e)
                bound[p.name] = _Given(p.default)
        return bound

    def op_call(self, name: str, e: ast.Call) -> N.Expr:
        op = OPS[name]
        self.check_op_allowed(op, e)
        bound = self.bind(op, e)
        values: Dict[str, N.Expr] = {}
        attrs: Dict[str, object] = {}
        for p in op.params:
            node = bound[p.name]
            if p.is_operand:
                if isinstance(node, _Given):
                    if node.value is not None:
                        raise self.err(f"internal: operand {p.name!r} of pl.{op.name} has a non-None default", e)
                    continue
                values[p.name] = self.read_operand(op, p, node)
                if p.static_attr:
                    attrs[p.static_attr] = tuple(o.value if isinstance(o, N.Const) else None
                                                 for o in values[p.name].items)
            else:
                attrs[p.key] = node.value if isinstance(node, _Given) else self.read_attr(op, p, node)
        if op.scalar_form is not None:
            rhs = values.get(op.operand_params[1].name)
            if rhs is not None and isinstance(rhs.type, ScalarType):
                op = OPS[op.scalar_form]
        self._coerce_scalar_constants(op, values)
        args = [values[p.name] for p in op.operand_params if p.name in values]
        nodes = {p.name: bound.get(p.name) for p in op.params}
        return self.typed_op(op.name, args, attrs, e, nodes)

    def _coerce_scalar_constants(self, op: OpDef, values: Dict[str, N.Expr]) -> None:
        """A numeric literal next to a floating-point tile is that tile's kind of number (f32)."""
        tiles = [v for p in op.operand_params if p.kind == "tile" and (v := values.get(p.name)) is not None
                 and isinstance(v.type, TileType)]
        if not tiles or not tiles[0].type.dtype.is_float:
            return
        for p in op.operand_params:
            v = values.get(p.name)
            if p.kind == "scalar" and isinstance(v, N.Const) and isinstance(v.value, (int, float)) \
                    and not isinstance(v.value, bool):
                values[p.name] = N.Const(float(v.value), type=ScalarType(DType.FP32), loc=v.loc)

    # ------------------------------------------------------------ reading arguments
    def read_operand(self, op: OpDef, p: Param, node) -> N.Expr:
        if p.kind == "offsets":
            return self._index_list(node, f"pl.{op.name} {p.name}")
        v = self.expr(node)
        if p.kind == "tile":
            return self.operand_tile(v, node, op)
        return v

    def read_attr(self, op: OpDef, p: Param, node):
        what = f"pl.{op.name} {p.name}"
        if p.kind == "shape":
            return self._static_list(node, what)
        if p.kind == "dims":
            return [dim_str(d) for d in self._static_list(node, what, allow_dyn=True)]
        if p.kind == "valid":
            if isinstance(node, ast.Constant) and node.value is None:
                return None
            return tuple(v.value if isinstance(v, N.Const) else v for v in self._index_list(node, p.name).items)
        if p.kind == "pad":
            return self._pad_attr(node, what)
        if p.kind in _ENUM_OF:
            return self._static_attr(node, _ENUM_OF[p.kind], p.name)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and p.kind in ("mode", "str"):
            return node.value        # a string literal (the expression reader takes no strings)
        if p.kind == "mode":
            m = self.expr(node)
            if not isinstance(m, N.Const) or not isinstance(m.value, int) or isinstance(m.value, bool):
                raise self.err(f"{what} must be a rounding-mode name such as \"round\" or its number", node)
            return m.value
        v = self.expr(node)
        want = {"int": int, "bool": bool, "str": str}[p.kind]
        if not isinstance(v, N.Const) or not isinstance(v.value, want) or (want is int and isinstance(v.value, bool)):
            raise self.err(f"{what} must be a compile-time {want.__name__}", node)
        return v.value

    def _static_list(self, node, what, allow_dyn=False):
        """A list of static ints (or dynamic-dim names when allowed)."""
        if not isinstance(node, (ast.List, ast.Tuple)):
            raise self.err(f"{what} must be a list such as [64, 64]", node)
        out = []
        for x in node.elts:
            v = self.expr(x)
            if isinstance(v, N.Const) and isinstance(v.value, int) and not isinstance(v.value, bool):
                out.append(v.value)
            elif allow_dyn and isinstance(v, N.Var) and v.type == INDEX:
                out.append(v.name)
            else:
                raise self.err(f"{what} must be compile-time integers, but {ast.unparse(x)!r} is not", x)
        return out

    def _pad_attr(self, node, what):
        v = self.expr(node)
        if isinstance(v, N.Const) and isinstance(v.value, PadValue):
            return v.value
        if isinstance(v, N.Const) and isinstance(v.value, (int, float)) and not isinstance(v.value, bool) \
                and v.value in _PAD_SUGAR:
            return _PAD_SUGAR[v.value]
        raise self.err(f"{what} must be pl.PadValue.zero/max/min or one of 0, math.inf, -math.inf", node)

    def _static_attr(self, node, kinds, what):
        if isinstance(node, _ENUMS) or node is None:
            return node
        v = self.expr(node)
        if isinstance(v, N.Const) and isinstance(v.value, kinds):
            return v.value
        raise self.err(f"{what} must be a constant such as {_EXAMPLE.get(kinds, '...')}", node)

    def _index_list(self, node, what):
        if not isinstance(node, (ast.List, ast.Tuple)):
            raise self.err(f"{what} must be a list such as [0, 0]", node)
        items = []
        for x in node.elts:
            v = self.expr(x)
            if not isinstance(v.type, ScalarType) or v.type.dtype.is_float:
                raise self.err(f"{what} must be integers or integer scalars, but got {v.type}", x)
            items.append(v)
        return N.ListExpr(items, loc=self.loc(node))

    # ------------------------------------------------------------ typing
    def typed_op(self, name, args, attrs, node, nodes=None) -> N.OpCall:
        """An OpCall typed by its rule; a rule failure is located at the argument it names."""
        for a in args:
            if isinstance(a, N.ListExpr):
                a.type = TupleType(tuple(i.type for i in a.items))
        try:
            t = infer(name, [a.type for a in args], attrs)
        except OpTypeError as exc:
            where = (nodes or {}).get(exc.param) if exc.param else None
            if where is None or isinstance(where, _Given):
                where = node
            raise self.err(str(exc), where) from None
        return N.OpCall(name, args, attrs, type=t, loc=self.loc(node))
