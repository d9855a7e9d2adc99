"""Re-print the AST as PTO-dialect MLIR (for --mlir-print-ir-after-all dumps)."""
from __future__ import annotations

from typing import List

from . import optable
from .ast import Block, Clause, Func, Module, Op


def _use(u) -> str:
    return "%" + u.name


def _loc(srcloc) -> str:
    if not srcloc:
        return ""
    f, line, col = srcloc
    return f' loc("{f}":{line}:{col})'


def _attrs(op_attrs, order) -> str:
    if not order:
        return ""
    return "{" + ", ".join(k if op_attrs[k].text == "unit" else f"{k} = {op_attrs[k].text}" for k in order) + "}"


def _clause(c: Clause) -> str:
    if c.kind == "operand":
        return _use(c.uses[0])
    if c.kind == "kw":
        return f"{c.name} = {_use(c.uses[0])}"
    if c.kind == "list":
        return f"{c.name} = [" + ", ".join(_use(u) for u in c.uses) + "]"
    if c.keys:
        return f"{c.name}(" + ", ".join(f"{k} = {_use(u)} : {t}" for k, u, t in zip(c.keys, c.uses, c.types)) + ")"
    inner = ", ".join(_use(u) for u in c.uses)
    if c.typed:
        inner += " : " + ", ".join(str(t) for t in c.types)
    return f"{c.name}({inner})"


def print_op(op: Op, indent: int, out: List[str], planned=None) -> None:
    pad = "  " * indent
    res = ""
    if op.results:
        res = ", ".join("%" + r.name + (f":{r.count}" if r.count > 1 else "") for r in op.results) + " = "
    name = op.name
    if name == "arith.constant":
        body = f"{op.extra['literal']} : {op.colon_types[0]}"
    elif name in ("arith.cmpi", "arith.cmpf"):
        body = f"{op.extra['pred']}, " + ", ".join(map(_use, op.operands)) + f" : {op.colon_types[0]}"
    elif name in optable.ARITH_CASTS:
        body = f"{_use(op.operands[0])} : {op.colon_types[0]} to {op.arrow_types[0]}"
    elif name.startswith("arith."):
        body = ", ".join(map(_use, op.operands)) + " : " + ", ".join(map(str, op.colon_types))
    elif name == "scf.for":
        lo, hi, st = op.operands[:3]
        body = f"%{op.extra['iv'][0]} = {_use(lo)} to {_use(hi)} step {_use(st)}"
        if op.extra["iter_args"]:
            body += " iter_args(" + ", ".join(f"%{a[0]} = {_use(u)}" for a, u in
                                             zip(op.extra["iter_args"], op.operands[3:])) + ")"
            body += " -> (" + ", ".join(map(str, op.arrow_types)) + ")"
        if op.extra.get("iv_type") is not None:
            body += f" : {op.extra['iv_type']}"
    elif name == "scf.if":
        body = _use(op.operands[0])
        if op.arrow_types:
            body += " -> (" + ", ".join(map(str, op.arrow_types)) + ")"
    elif name == "scf.yield" or name in optable.RETURN_OPS:
        body = ""
        if op.operands:
            body = ", ".join(map(_use, op.operands)) + " : " + ", ".join(map(str, op.colon_types))
    else:
        parts = []
        prev = None
        for c in op.clauses:
            text = _clause(c)
            if name == "pto.alloc_tile" and c.kind == "kw" and c.name == "addr" and planned is not None:
                pass
            if prev is not None and c.kind in ("operand", "list") and prev.kind in ("operand", "list"):
                parts[-1] += ","
            parts.append(text)
            prev = c
        if name == "pto.alloc_tile" and planned is not None and id(op) in planned and op.group("addr") is None:
            parts.insert(0, f"addr = %__plan_{planned[id(op)]}_i64")
        body = " ".join(parts)
        attrs = _attrs(op.attrs, op.attr_order)
        if attrs:
            body += " " + attrs
        if op.colon_types:
            body += " : " + ", ".join(map(str, op.colon_types))
        if op.arrow_types:
            body += " -> " + ", ".join(map(str, op.arrow_types))
    line = f"{pad}{res}{name}" + (f" {body}" if body else "")
    if op.regions:
        out.append(line + " {")
        for i, region in enumerate(op.regions):
            if i:
                out.append(f"{pad}}} else {{")
            print_block(region, indent + 1, out, planned)
        out.append(f"{pad}}}{_loc(op.srcloc)}")
    else:
        out.append(line + _loc(op.srcloc))


def print_block(block: Block, indent: int, out: List[str], planned=None) -> None:
    for op in block.ops:
        print_op(op, indent, out, planned)


def print_func(f: Func, out: List[str], planned=None) -> None:
    args = ", ".join(f"%{a.name}: {a.type}" for a in f.args)
    vis = f"{f.visibility} " if f.visibility else ""
    head = f"  func.func {vis}@{f.name}({args})"
    attrs = _attrs(f.attrs, f.attr_order)
    if attrs:
        head += " attributes " + attrs
    if f.body is None:
        out.append(head + _loc(f.srcloc))
        return
    out.append(head + " {")
    if planned:
        addrs = sorted({a for k, a in planned.items() if k in _alloc_ids(f)})
        for a in addrs:
            out.append(f"    %__plan_{a}_i64 = arith.constant {a} : i64")
    print_block(f.body, 2, out, planned)
    out.append("  }" + _loc(f.srcloc))


def _alloc_ids(f: Func):
    ids = set()

    def walk(block: Block):
        for op in block.ops:
            if op.name == "pto.alloc_tile" and op.group("addr") is None:
                ids.add(id(op))
            for r in op.regions:
                walk(r)

    if f.body is not None:
        walk(f.body)
    return ids


def print_module(mod: Module, planned=None) -> str:
    out: List[str] = []
    head = "module"
    if mod.name:
        head += f" @{mod.name}"
    attrs = _attrs(mod.attrs, mod.attr_order)
    if attrs:
        head += " attributes " + attrs
    out.append(head + " {")
    for f in mod.funcs:
        print_func(f, out, planned)
    out.append("}")
    return "\n".join(out) + "\n"
