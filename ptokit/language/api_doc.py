"""docs/api.md, generated: every ``pl.*`` name of the DSL -- the language's own names (types,
dtypes, decorators, control flow) and every op of the op table with its signature, where it is
spelled, the dtypes its type rule accepts, what it lowers to and a call.

``python -m ptokit.language.api_doc`` prints the page; ``--write docs/api.md`` writes it
(``tests/ir/test_api_doc.py`` checks the committed page is exactly this text). Nothing here is
hand-kept per op: the dtypes are found by asking each op's type rule, the example is made from its
parameters.
"""
from __future__ import annotations

import enum
import inspect
import sys
from pathlib import Path
from typing import List, Optional

from ..ir.kinds import DType
from ..ir.ops import OPS, OpDef, OpTypeError, infer
from ..ir.ops._core import dsl_name
from ..ir.ops.reference import _signature
from ..ir.types import TileType

TITLE = "# API reference (generated)"
# the dtypes probed for ops whose operands are all tiles, in the order the page lists them
PROBE = ("FP32", "FP16", "BF16", "INT32", "INT16", "INT8", "UINT32", "UINT16", "UINT8", "INT64", "BOOL")
# names the example of an op gives its operands, by parameter kind
_EXAMPLE_ARG = {"tile": "t", "tensor": "x", "scalar": "s", "shape": "[64, 64]", "offsets": "[0, 0]",
                "dtype": "pl.FP32", "int": "1", "index": "0", "dims": "[64, 64]", "dim": "0", "bool": "False"}


def _spellings(op: OpDef) -> List[str]:
    return [f"{ns}.{dsl_name(op.name, ns)}" for ns in op.namespaces] + list(op.dsl_aliases)


def accepted_dtypes(op: OpDef) -> Optional[List[str]]:
    """The dtypes for which the op's type rule accepts [16, 16] Vec tiles as every operand, when all its
    required parameters are tiles (None: the rule takes other operands; see the op's meaning)."""
    required = [p for p in op.params if p.required]
    if not required or any(p.kind != "tile" for p in required) or op.cube:
        return None
    out = []
    for name in PROBE:
        dt = getattr(DType, name)
        args = [TileType((16, 16), dt) for _ in op.operand_params if _ in required]
        try:
            infer(op.name, args, {})
        except (OpTypeError, KeyError, TypeError, ValueError, AttributeError, IndexError):
            continue
        out.append(name)
    return out or None


def _example(op: OpDef, spelling: str) -> str:
    args = []
    tiles = iter("abcdefgh")
    for p in op.params:
        if not p.required:
            continue
        if p.kind == "tile":
            args.append(next(tiles))
        else:
            args.append(_EXAMPLE_ARG.get(p.kind, p.name))
    return f"{spelling}({', '.join(args)})"


def _op_section(op: OpDef) -> List[str]:
    names = _spellings(op)
    lines = [f"### `{names[0]}`", "", "```python", f"{names[0]}({_signature(op, aliases=False)})", "```", ""]
    facts = [f"meaning: {op.doc}"] if op.doc else []
    if op.scalar_form:
        facts.append(f"with a scalar second operand: `{op.scalar_form}`")
    aliases = [f"`{a}=` for `{p.name}=`" for p in op.params for a in p.aliases]
    if aliases:
        facts.append("keywords also spelled " + ", ".join(aliases))
    if len(names) > 1:
        facts.append("also " + ", ".join(f"`{n}`" for n in names[1:]))
    dts = accepted_dtypes(op)
    facts.append("dtypes: " + (", ".join(f"`pl.{d}`" for d in dts) if dts else "as the meaning says"))
    facts.append(f"lowers to `{op.pto}`" if op.pto else "lowered by the passes (no one dialect op)")
    if op.traits:
        facts.append("traits: " + ", ".join(sorted(op.traits)))
    lines += ["- " + f for f in facts] + ["", f"Example: `y = {_example(op, names[0])}`", ""]
    return lines


def _describe(obj) -> str:
    """One line saying what a language name is: its own docstring's first line, else its kind."""
    if isinstance(obj, DType):
        try:
            return "dtype (4-bit, one value a byte)" if obj.is_4bit else f"dtype (numpy {obj.numpy()})"
        except KeyError:
            return "dtype"
    if isinstance(obj, enum.Enum):
        return f"`pl.{type(obj).__name__}.{obj.name}`"
    if isinstance(obj, enum.EnumMeta):
        own = obj.__dict__.get("__doc__")
        head = " ".join(inspect.cleandoc(own).split("\n\n")[0].split()) if own and "name/value pairs" not in own \
            else "an enum"
        return f"{head} ({', '.join(m.name for m in obj)})".replace("``", "`")
    own = obj.__doc__ if (inspect.isfunction(obj) or inspect.isclass(obj) or callable(obj)) else None
    text = ""
    if own and own != type(obj).__doc__:
        text = " ".join(inspect.cleandoc(own).split("\n\n")[0].split()).replace("``", "`")
    if inspect.isfunction(obj):
        sig = f"`{inspect.signature(obj)}`"
        return f"{sig} {text}".strip()
    return text or type(obj).__name__


def _language_names() -> List[str]:
    from .. import language as pl   # lazy: this module is a part of the package it documents
    ops = set(pl._ops_names()["OPS"])
    rows = ["| name | what |", "|---|---|"]
    for name in pl._ALL:
        if name not in ops:
            rows.append(f"| `pl.{name}` | {_describe(getattr(pl, name)).replace('|', chr(92) + '|')} |")
    return rows


def markdown() -> str:
    lines = [TITLE, "",
             "Generated by `python -m ptokit.language.api_doc --write docs/api.md` from the op table",
             "(`ptokit/ir/ops/`) and the names of `ptokit.language`; do not edit by hand. Guides:",
             "[language.md](language.md) (how programs are written), [jit.md](jit.md) (`@pl.jit`),",
             "[adding-an-op.md](adding-an-op.md) (declaring an op). \"dtypes\" lists the element types the",
             "op's type rule accepts when every operand is a tile of that type; an op taking other",
             "operands says in its meaning what it takes.", "",
             "## Language names", ""]
    lines += _language_names() + ["", "## Ops", ""]
    by_ns = {}
    for name in sorted(OPS):
        op = OPS[name]
        if op.namespaces:
            by_ns.setdefault(op.namespaces[0], []).append(op)
    for ns in sorted(by_ns, key=lambda n: (n != "pl", n)):
        lines += [f"### Index of `{ns}.*`", "",
                  ", ".join(f"[`{_spellings(op)[0]}`](#{_anchor(_spellings(op)[0])})" for op in by_ns[ns]), ""]
    for ns in sorted(by_ns, key=lambda n: (n != "pl", n)):
        lines += [f"## `{ns}.*`", ""]
        for op in by_ns[ns]:
            lines += _op_section(op)
    return "\n".join(lines).rstrip("\n") + "\n"


def _anchor(heading: str) -> str:
    """The anchor a markdown renderer gives ``### `heading` ``: lower case, punctuation but - and _ dropped."""
    return "".join(c for c in heading.lower() if c.isalnum() or c in "-_")


def main(argv) -> int:
    if len(argv) == 2 and argv[0] == "--write":
        Path(argv[1]).write_text(markdown())
        return 0
    if argv:
        print("usage: python -m ptokit.language.api_doc [--write FILE]", file=sys.stderr)
        return 2
    sys.stdout.write(markdown())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
