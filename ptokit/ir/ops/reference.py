"""The op reference of docs/language.md, rendered from the op table.

``python -m ptokit.ir.ops.reference`` prints it; ``--write FILE`` replaces the part of FILE
between the ``<!-- ops:begin -->`` and ``<!-- ops:end -->`` markers (tests/ir checks that the
docs hold exactly this text).
"""
from __future__ import annotations

import sys
from pathlib import Path

from ..types import PadValue
from ._core import OPS, OpDef, Param, dsl_name

BEGIN, END = "<!-- ops:begin -->", "<!-- ops:end -->"


def _default(v) -> str:
    return f"pl.PadValue.{v.name}" if isinstance(v, PadValue) else repr(v)   # DType, MemorySpace repr as pl.*


def _param(p: Param, aliases: bool = True) -> str:
    text = p.name if p.required else f"{p.name}={_default(p.default)}"
    if p.aliases and aliases:
        text += " (also " + ", ".join(f"`{a}=`" for a in p.aliases) + ")"
    return text


def _signature(op: OpDef, aliases: bool = True) -> str:
    """The parameter list (``aliases``: with each parameter's other keyword spellings)."""
    parts, star = [], False
    for p in op.params:
        if p.keyword_only and not star:
            parts.append("*")
            star = True
        parts.append(_param(p, aliases))
    return ", ".join(parts)


def markdown() -> str:
    rows = ["| op | where | parameters | lowers to | traits | meaning |", "|---|---|---|---|---|---|"]
    for name in sorted(OPS):
        op = OPS[name]
        if not op.namespaces:
            continue
        where = ", ".join([f"`{ns}.{dsl_name(name, ns)}`" for ns in op.namespaces] + [f"`{a}`" for a in op.dsl_aliases])
        pto = f"`{op.pto}`" if op.pto else "—"
        traits = ", ".join(sorted(op.traits)) or "—"
        doc = op.doc.replace("|", "\\|") + (f"; with a scalar rhs: `{op.scalar_form}`" if op.scalar_form else "")
        rows.append(f"| `{name}` | {where} | {_signature(op)} | {pto} | {traits} | {doc} |")
    return "\n".join(rows) + "\n"


def replace_section(text: str, body: str) -> str:
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    return text[:start] + "\n" + body + text[end:]


def main(argv) -> int:
    if len(argv) == 2 and argv[0] == "--write":
        path = Path(argv[1])
        path.write_text(replace_section(path.read_text(), markdown()))
        return 0
    if argv:
        print("usage: python -m ptokit.ir.ops.reference [--write FILE]", file=sys.stderr)
        return 2
    sys.stdout.write(markdown())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
