"""THE printer of the PTO dialect: ``ast.Module`` -> ``.pto`` text.

PTO codegen prints the modules it builds with it, and the built-in assembler prints its
``--mlir-print-ir-*`` dumps with it, so parsing a printed module and printing it again gives
the same text.  Layout: ``func.func`` and the ops of its body are indented by two spaces,
each nested region by two more; every op takes one line with its optional
``loc("file":line:col)`` at the end.
"""
from __future__ import annotations

from typing import List

from . import dialect, events, prefetch
from .ast import Block, Clause, Func, Module, Op

INDENT = "  "


def _use(u) -> str:
    return "%" + u.name


def _loc(srcloc) -> str:
    if not srcloc:
        return ""
    f, line, col = srcloc
    return f' loc("{f}":{line}:{col})'


def attr_dict(attrs, order) -> str:
    """``{k = v, unit_attr}`` (empty string for no attributes)."""
    if not order:
        return ""
    return "{" + ", ".join(k if attrs[k].text == "unit" else f"{k} = {attrs[k].text}" for k in order) + "}"


def _types(types) -> str:
    return ", ".join(str(t) for t in types)


def _clause(c: Clause) -> str:
    if c.kind == "operand":
        return _use(c.uses[0])
    if c.kind == "indexed":
        return f"{_use(c.uses[0])}[{_use(c.uses[1])}]"
    if c.kind == "results":
        return f"{c.name} : {_types(c.types)}"
    if c.kind == "kw":
        return f"{c.name} = {_use(c.uses[0])}"
    if c.kind == "list":
        return f"{c.name} = [" + ", ".join(_use(u) for u in c.uses) + "]"
    if c.keys:
        return f"{c.name}(" + ", ".join(f"{k} = {_use(u)} : {t}" for k, u, t in zip(c.keys, c.uses, c.types)) + ")"
    at = {a[3]: attr_dict(a[1], a[2]) for a in c.attrs}    # attribute dicts written after an operand
    sep = ", " if c.axis is not None else " "              # ins(%src, {maskPattern = ...} : T, "row")
    inner = ", ".join(_use(u) + (sep + at[i + 1] if i + 1 in at else "") for i, u in enumerate(c.uses))
    if c.typed:
        inner += " : " + _types(c.types)
        if c.axis is not None:
            inner += f', "{c.axis}"'
    return f"{c.name}({inner})"


def _op_attrs(op: Op) -> str:
    """The op's own attribute dict: those written inside a clause (after an operand) print there."""
    inner = {k for c in op.clauses for a in c.attrs for k in a[2]}
    return attr_dict(op.attrs, [k for k in op.attr_order if k not in inner])


def _mlir_generic(op: Op) -> str:
    """``"pto.X"(%a, ..., %d) {attrs} : (T, ..., TD) -> ()`` (the ins, then the outs)."""
    uses = [u for c in op.clauses for u in c.uses]
    types = [t for c in op.clauses for t in c.types]
    attrs = attr_dict(op.attrs, op.attr_order)
    return (f'"{op.name}"(' + ", ".join(map(_use, uses)) + ")" + (f" {attrs}" if attrs else "")
            + f" : ({_types(types)}) -> ()")


def _generic(op: Op) -> str:
    """Clauses in order, the attr dict where it was written, then ``: types`` and ``-> types``."""
    parts: List[str] = []
    attrs = _op_attrs(op)
    pos = len(op.clauses) if op.attr_pos is None else op.attr_pos
    prev = None
    for i, c in enumerate(op.clauses):
        if i == pos and attrs:
            parts.append(attrs)
            prev = None
        if prev is not None and c.kind in ("operand", "list", "indexed") and prev.kind in ("operand", "list", "indexed"):
            parts[-1] += ","
        parts.append(_clause(c))
        prev = c
    if pos >= len(op.clauses) and attrs:
        parts.append(attrs)
    body = " ".join(parts)
    if op.colon_types:
        body += " : " + _types(op.colon_types)
    if op.arrow_types:
        body += " -> " + _types(op.arrow_types)
    # an unnamed group right after the mnemonic sticks to it: pto.tpush_to_aiv(%t : T)
    glued = (bool(op.clauses) and op.clauses[0].kind == "group" and not op.clauses[0].name
             and not (pos == 0 and attrs))
    body = body.lstrip(" ") if not glued else body        # no clauses: `pto.X -> T`, one space
    return body if glued else (" " + body if body else "")


def _body(op: Op) -> str:
    """Everything after the mnemonic (with its leading space), regions excluded."""
    name = op.name
    uses = ", ".join(map(_use, op.operands))
    form = dialect.form_of(name)
    if form == "event":                 # rows of these forms have their own syntax modules
        return events.body(op, _use, _types, attr_dict)
    if form == "prefetch":
        return prefetch.body(op, _use, _types)
    if name == "arith.constant":
        attrs = attr_dict(op.attrs, op.attr_order)
        return f" {op.extra['literal']}" + (f" {attrs}" if attrs else "") + f" : {op.colon_types[0]}"
    if name in ("arith.cmpi", "arith.cmpf"):
        return f" {op.extra['pred']}, {uses} : {op.colon_types[0]}"
    if name in dialect.ARITH_CASTS:
        return f" {_use(op.operands[0])} : {op.colon_types[0]} to {op.arrow_types[0]}"
    if name.startswith("arith."):
        return f" {uses} : {_types(op.colon_types)}"
    if name == "scf.for":
        lo, hi, st = op.operands[:3]
        text = f" %{op.extra['iv'][0]} = {_use(lo)} to {_use(hi)} step {_use(st)}"
        if op.extra["iter_args"]:
            text += " iter_args(" + ", ".join(f"%{a[0]} = {_use(u)}" for a, u in
                                             zip(op.extra["iter_args"], op.operands[3:])) + ")"
            text += " -> (" + _types(op.arrow_types) + ")"
        if op.extra.get("iv_type") is not None:
            text += f" : {op.extra['iv_type']}"
        return text
    if name == "scf.while":
        text = ""
        if op.extra["iter_args"]:
            text += " (" + ", ".join(f"%{a[0]} = {_use(u)}" for a, u in zip(op.extra["iter_args"], op.operands)) + ")"
        return text + f" : ({_types(op.colon_types)}) -> ({_types(op.arrow_types)})"
    if name == "scf.condition":
        text = f"({_use(op.operands[0])})"
        if len(op.operands) > 1:
            text += " " + ", ".join(map(_use, op.operands[1:])) + f" : {_types(op.colon_types)}"
        return text
    if name == "scf.if":
        text = f" {_use(op.operands[0])}"
        if op.arrow_types:
            text += " -> (" + _types(op.arrow_types) + ")"
        return text
    if name == "scf.yield" or name in dialect.RETURN_OPS:
        return f" {uses} : {_types(op.colon_types)}" if op.operands else ""
    return _generic(op)


def print_op(op: Op, depth: int, out: List[str]) -> None:
    pad = INDENT * depth
    res = ""
    if op.results:
        res = ", ".join("%" + r.name + (f":{r.count}" if r.count > 1 else "") for r in op.results) + " = "
    line = f"{pad}{res}{_mlir_generic(op)}" if op.extra.get("generic") else f"{pad}{res}{op.name}{_body(op)}"
    if not op.regions:
        out.append(line + _loc(op.srcloc))
        return
    out.append(line + " {")
    between = "do" if op.name == "scf.while" else "else"
    for i, region in enumerate(op.regions):
        if i:
            out.append(f"{pad}}} {between} {{")
        if region.args:
            out.append(f"{pad}^bb0(" + ", ".join(f"%{a.name}: {a.type}" for a in region.args) + "):")
        print_block(region, depth + 1, out)
    out.append(f"{pad}}}{_loc(op.srcloc)}")


def print_block(block: Block, depth: int, out: List[str]) -> None:
    for op in block.ops:
        print_op(op, depth, out)


def print_func(f: Func, out: List[str]) -> None:
    args = ", ".join(f"%{a.name}: {a.type}" for a in f.args)
    vis = f"{f.visibility} " if f.visibility else ""
    head = f"{INDENT}func.func {vis}@{f.name}({args})"
    attrs = attr_dict(f.attrs, f.attr_order)
    if attrs:
        head += " attributes " + attrs
    if f.body is None:
        out.append(head + _loc(f.srcloc))
        return
    out.append(head + " {")
    print_block(f.body, 1, out)
    out.append(INDENT + "}" + _loc(f.srcloc))


def print_module(mod: Module) -> str:
    out: List[str] = []
    head = "module"
    if mod.name:
        head += f" @{mod.name}"
    attrs = attr_dict(mod.attrs, mod.attr_order)
    if attrs:
        head += " attributes " + attrs
    out.append(head + " {")
    for f in mod.funcs:
        print_func(f, out)
    out.append("}")
    return "\n".join(out) + "\n"


__all__ = ["print_module", "print_op", "attr_dict"]
