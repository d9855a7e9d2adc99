"""IR -> DSL-like Python text (what ``passes_dump/`` holds).

The output reads like the program the user wrote, with every variable's type
visible, SSA loop-carried values spelled out and buffer addresses (after memory
planning) as comments.
"""
from __future__ import annotations

from typing import List

from . import nodes as N
from .ops import OPS, SCALAR_OPERATORS, dsl_name
from .types import DType, MemorySpace, PadValue, ScalarType, TensorType, TileType

_INFIX = {name: o.symbol for name, o in SCALAR_OPERATORS.items() if o.python is not None}
_CALLED = {name: o.symbol for name, o in SCALAR_OPERATORS.items() if o.python is None}    # min(a, b)


def fmt_type(t) -> str:
    if isinstance(t, (TensorType, TileType, ScalarType)):
        return str(t)
    return str(t)


def fmt_expr(e: N.Expr) -> str:
    if isinstance(e, N.Var):
        return e.name
    if isinstance(e, N.Const):
        v = e.value
        if isinstance(v, (DType, MemorySpace)):
            return repr(v)
        if isinstance(v, PadValue):
            return f"pl.PadValue.{v.name}"
        return repr(v)
    if isinstance(e, N.ListExpr):
        return "[" + ", ".join(fmt_expr(x) for x in e.items) + "]"
    if isinstance(e, N.OpCall):
        if e.op in _INFIX:
            return f"({fmt_expr(e.args[0])} {_INFIX[e.op]} {fmt_expr(e.args[1])})"
        if e.op == "scalar.cast":
            return f"pl.cast({fmt_expr(e.args[0])}, {e.attrs['target_type']!r})"
        if e.op == "scalar.neg":
            return f"(-{fmt_expr(e.args[0])})"
        if e.op in _CALLED:
            return f"{_CALLED[e.op]}({fmt_expr(e.args[0])}, {fmt_expr(e.args[1])})"
        if e.op == "tensor_view":
            base, offs = e.args
            parts = []
            for o, ext, full in zip(offs.items, e.attrs["shape"], base.type.shape):
                if isinstance(o, N.Const) and o.value == 0 and ext == full:
                    parts.append(":")
                elif isinstance(o, N.Const) and isinstance(ext, int):
                    parts.append(f"{o.value}:{o.value + ext}")
                else:
                    parts.append(f"{fmt_expr(o)}:{fmt_expr(o)} + {ext}")
            return f"{fmt_expr(base)}[{', '.join(parts)}]"
        if e.op == "store":
            tile, tensor, offsets = e.args
            shape = e.attrs.get("shape")      # the partition of an N-D store (given, or FlattenTileNdTo2D's)
            shapes = "" if shape is None else ", shapes=[" + ", ".join(str(d) for d in shape) + "]"
            return f"pl.store({fmt_expr(tile)}, {fmt_expr(offsets)}, {fmt_expr(tensor)}{shapes})"
        args = [fmt_expr(a) for a in e.args]
        attrs = dict(e.attrs)
        if e.op == "load":
            args.append("[" + ", ".join(str(d) for d in attrs.pop("shape")) + "]")
            if attrs.get("valid") is not None:
                attrs["valid_shape"] = attrs.pop("valid")
            else:
                attrs.pop("valid", None)
        op = OPS.get(e.op)
        flags = {q.key for q in op.params if q.keyword_only and q.kind == "bool"} if op is not None else set()
        for k, v in attrs.items():
            if k == "arch" or k.endswith("_static") or v is None or (k in flags and v is False):
                continue     # derived records, and parameters left at their defaults
            if k == "memref":     # a declared allocation: its name, and the slot when it has several
                v = v.name if v.slots == 1 else \
                    f"{v.name}[{fmt_expr(v.index) if isinstance(v.index, N.Expr) else v.index}] of {v.slots}"
                args.append(f"memref={v!r}")
                continue
            if isinstance(v, (list, tuple)):
                v = "[" + ", ".join(fmt_expr(x) if isinstance(x, N.Expr) else str(x) for x in v) + "]"
            elif isinstance(v, PadValue):
                v = f"pl.PadValue.{v.name}"
            else:
                v = repr(v)
            args.append(f"{k}={v}")
        ns = "pl" if op is None or not op.namespaces or "pl" in op.namespaces else op.namespaces[0]
        return f"{ns}.{dsl_name(e.op, ns)}({', '.join(args)})"
    if isinstance(e, N.FuncCall):
        return f"self.{e.callee}({', '.join(fmt_expr(a) for a in e.args)})"
    return f"<{type(e).__name__}>"


class _Printer:
    def __init__(self, fn: N.Function = None):
        self.lines: List[str] = []
        attrs = fn.attrs if fn is not None else {}
        self.buffer_of = attrs.get("buffer_of", {})
        self.addr = attrs.get("tile_addr", {})
        self.slot_of = attrs.get("tile_slot", {})

    def emit(self, depth, text):
        self.lines.append("    " * depth + text)

    def _placement(self, var: N.Var) -> str:
        """After memory planning: the tile's buffer (when shared) and its address."""
        rep = self.buffer_of.get(var.name, var.name)
        if rep not in self.addr:
            return ""
        shared = f" (buffer of {rep})" if rep != var.name else ""
        at = self.addr[rep]
        if rep in self.slot_of:       # a run-time slot of a pl.MemRef
            slot, index = self.slot_of[rep]
            at = f"{at}+({fmt_expr(index)})*{slot}"
        return f"  # {var.type.memory.name}@{at}{shared}"

    def body(self, stmts, depth):
        if not stmts:
            self.emit(depth, "pass")
        for s in stmts:
            self.stmt(s, depth)

    def stmt(self, s, depth):
        if isinstance(s, N.Assign):
            tgt = ", ".join(t.name for t in s.targets)
            ann = ""
            if len(s.targets) == 1 and not isinstance(s.value, N.FuncCall):   # a call's type is the callee's
                ann = f": {fmt_type(s.targets[0].type)}"
            comment = ""
            if len(s.targets) == 1 and isinstance(s.targets[0].type, TileType):
                comment = self._placement(s.targets[0])
            self.emit(depth, f"{tgt}{ann} = {fmt_expr(s.value)}{comment}")
        elif isinstance(s, N.ExprStmt):
            kinds = s.expr.attrs.get("arg_kinds") if isinstance(s.expr, N.FuncCall) else None
            self.emit(depth, fmt_expr(s.expr) + (f"  # args: {', '.join(kinds)}" if kinds else ""))
        elif isinstance(s, N.Return):
            self.emit(depth, "return " + ", ".join(fmt_expr(v) for v in s.values) if s.values else "return")
        elif isinstance(s, N.For):
            stage = f", stage={s.stage}" if s.kind == "pipeline" else ""
            rng = f"pl.{s.kind}({fmt_expr(s.start)}, {fmt_expr(s.stop)}, {fmt_expr(s.step)}{stage})"
            if s.iter_args:
                carried = ", ".join(f"{v.name}={fmt_expr(i)}" for v, i in s.iter_args)
                self.emit(depth, f"# loop-carried: {carried}; results: {', '.join(r.name for r in s.results)}")
            self.emit(depth, f"for {s.var.name} in {rng}:")
            self.body(s.body, depth + 1)
            if s.yields:
                self.emit(depth + 1, "# yield " + ", ".join(fmt_expr(y) for y in s.yields))
        elif isinstance(s, N.While):
            if s.iter_args:
                carried = ", ".join(f"{v.name}={fmt_expr(i)}" for v, i in s.iter_args)
                self.emit(depth, f"# loop-carried: {carried}; results: {', '.join(r.name for r in s.results)}")
            before, cond, rest = s.split()
            if not before and not s.iter_args:       # the test comes first: plain `while cond:` DSL
                self.emit(depth, f"while {fmt_expr(cond.cond)}:")
                self.body(rest, depth + 1)
            else:
                self.emit(depth, "while True:")
                self.body(s.body, depth + 1)
            if s.yields:
                self.emit(depth + 1, "# yield " + ", ".join(fmt_expr(y) for y in s.yields))
        elif isinstance(s, (N.Break, N.Continue)):
            self.emit(depth, type(s).__name__.lower())
        elif isinstance(s, N.Condition):
            self.emit(depth, f"pl.cond({fmt_expr(s.cond)})   # the loop ends here when false")
        elif isinstance(s, N.If):
            self.emit(depth, f"if {fmt_expr(s.cond)}:")
            self.body(s.then_body, depth + 1)
            if s.then_yields:
                self.emit(depth + 1, "# yield " + ", ".join(fmt_expr(y) for y in s.then_yields))
            if s.else_body or s.else_yields:
                self.emit(depth, "else:")
                self.body(s.else_body, depth + 1)
                if s.else_yields:
                    self.emit(depth + 1, "# yield " + ", ".join(fmt_expr(y) for y in s.else_yields))
            if s.results:
                self.emit(depth, "# merged: " + ", ".join(r.name for r in s.results))
        elif isinstance(s, N.Scope):
            if s.kind == "spmd":
                self.emit(depth, f"with pl.spmd({fmt_expr(s.attrs['block_num'])}):")
            elif s.kind == "incore":     # a block of kernel code, not yet outlined (OutlineIncoreScopes)
                self.emit(depth, f"with pl.incore():  # kernel {s.attrs.get('name')}")
            elif s.kind == "scope":        # a runtime scope: its tasks retire when it ends
                manual = s.attrs.get("mode") == "manual"
                self.emit(depth, "with pl.manual_scope():" if manual else "with pl.scope():")
            elif s.kind == "lane_guard":
                self.emit(depth, f"if pl.tile.get_subblock_idx() == {s.attrs.get('lane', 0)}:  # only this vector lane")
            else:
                extra = ", ".join(f"{k}={fmt_expr(v) if isinstance(v, N.Expr) else repr(v)}"
                                  for k, v in s.attrs.items() if k != "name")
                body = list(s.body)
                name = ""
                last = body[-1] if body else None
                if isinstance(last, N.Assign) and isinstance(last.value, N.OpCall) and last.value.op == "system.task_id":
                    name = f" as {last.targets[0].name}"      # the block's task id
                    body.pop()
                self.emit(depth, f"with pl.at({extra}){name}:")
                self.body(body, depth + 1)
                return
            self.body(s.body, depth + 1)
        else:
            self.emit(depth, f"# <{type(s).__name__}>")


def print_function(fn: N.Function, method: bool = True) -> str:
    """One function: a method of a ``@pl.program`` class (indented, ``self`` first), or with
    ``method=False`` a module-level ``@pl.function``."""
    p = _Printer(fn)
    base = 1 if method else 0
    p.emit(base, f"@pl.function(type={fn.kind!r})")
    params = ["self"] if method else []
    for prm in fn.params:
        t = fmt_type(prm.type)
        if prm.direction is N.Direction.OUT:
            t = f"pl.Out[{t}]"
        elif prm.direction is N.Direction.INOUT:
            t = f"pl.InOut[{t}]"
        params.append(f"{prm.name}: {t}")
    p.emit(base, f"def {fn.name}({', '.join(params)}):")
    for k, v in sorted(fn.attrs.items()):
        if k in ("core_type", "func_id", "uses_block", "uses_subblock"):
            p.emit(base + 1, f"# {k}: {v}")
    p.body(fn.body, base + 1)
    return "\n".join(p.lines)


def print_program(prog: N.Program) -> str:
    out = ["import ptokit.language as pl", ""]
    for name in prog.dyn_vars:
        out.append(f'{name} = pl.dynamic("{name}")')
    if prog.dyn_vars:
        out.append("")
    out.append("")
    out.append("@pl.program")
    out.append(f"class {prog.name}:")
    fns = [print_function(f) for f in prog.functions.values()]
    out.append("\n\n".join(fns))
    return "\n".join(out) + "\n"


def python_print(node) -> str:
    """pypto's ``ir.python_print``: a function or program as DSL text (its ``as_python()``)."""
    if not isinstance(node, (N.Function, N.Program)):
        raise TypeError(f"python_print takes an ir.Function or ir.Program, got {type(node).__name__}")
    return node.as_python()


N.TEXT_FORM.update(function=print_function, program=print_program)
