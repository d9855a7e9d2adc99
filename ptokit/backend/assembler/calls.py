"""The C++ call of a destination-passing tile op: outs, then ins, then the attributes its row lowers to
arguments, with the template arguments its row names (``pto.tstore {atomicType = ...}`` ->
``TSTORE<decltype(t), decltype(g), AtomicType::AtomicAdd>(g, t)``)."""
from __future__ import annotations

from typing import Callable, List, Optional

from ...errors import AssemblerError
from ...pto import dialect
from ...pto.ast import Op


def _cxx_attr(a: dialect.AttrSpec, op: Op) -> Optional[str]:
    """The C++ spelling of attribute ``a`` of ``op`` (its default when absent; None: no default either)."""
    got = op.attrs.get(a.name)
    if got is None:
        return a.cxx_default
    word = dialect.attr_word(a, got)
    if a.cxx_values is not None:
        for value, text in a.cxx_values:
            if value == word and type(value) is type(word):
                return text
        raise AssemblerError(f"internal: no C++ spelling for {op.name} {a.name} = {got.text}")
    return str(word)


def tile_call(spec: dialect.OpSpec, op: Op, ins, outs, ex: Callable) -> str:
    args: List[str] = [ex(u) for u in outs] + [ex(u) for u in ins]
    for a in spec.attrs:
        if a.cxx == "arg":
            text = _cxx_attr(a, op)
            if text is not None:
                args.append(text)
    head = spec.cxx
    if spec.template and (spec.template_if is None or spec.template_if in op.attrs):
        by_role = {o.role: u for o, u in zip(spec.ins, ins)}
        by_role.update({o.role: u for o, u in zip(spec.outs, outs)})
        targs = []
        for item in spec.template:
            kind, _, name = item.partition(":")
            if kind == "A":
                targs.append(_cxx_attr(spec.attr(name), op))
            elif kind == "T":
                targs.append(f"decltype({ex(by_role[name])})")
            else:   # "E": the element type of a tile operand
                targs.append(f"typename decltype({ex(by_role[name])})::DType")
        head += "<" + ", ".join(targs) + ">"
    return f"{head}({', '.join(args)});"
