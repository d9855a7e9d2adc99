"""The names the contract's op tables promise (../shared/spec/pypto-parity.md sections C and F), read
from the markdown itself, and the ones ptokit does not expose as the spec says.

* C1 table: every backticked ``pl.x`` / ``pl.tile.x`` of a row's first cell ("same under
  ``pl.tile.``" adds ``pl.tile.x`` for each ``pl.x``), and -- section F: "pl.tensor has a tensor
  version of every op in C/D (same names)" -- ``pl.tensor.x`` for each of them;
* C0 paragraph: each ``name(params)`` signature: the name under ``pl.``, and each parameter a
  parameter (or keyword alias) of the op;
* F: the names its first paragraph lists (``pl.tensor.<name>``) and every backticked name of its
  table's first column.

Run it as a script to print the gaps: ``python tests/parity/spec_names.py``.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Dict, List, Optional, Tuple

SPEC_NAME = "pypto-parity.md"


def find_spec(start: Path) -> Optional[Path]:
    """``shared/spec/pypto-parity.md`` beside the repository or beside one of its parents (where a copy
    of shared/ sits next to the clone; a worktree finds it further up)."""
    for d in [start, *start.parents]:
        p = d / "shared" / "spec" / SPEC_NAME
        if p.is_file():
            return p
    return None


def _section(text: str, letter: str) -> str:
    m = re.search(rf"^## {letter}\..*?(?=^## |\Z)", text, re.S | re.M)
    if m is None:
        raise ValueError(f"{SPEC_NAME} has no section {letter}")
    return m.group(0)


def _table_rows(section: str):
    """(line number in the section, first cell) of each body row of the section's tables."""
    for n, line in enumerate(section.splitlines()):
        if not line.startswith("|") or re.match(r"^\|\s*-", line):
            continue
        cell = line.split("|")[1]
        if cell.strip().startswith("name"):
            continue                               # the header row
        yield n, cell


def _row_names(cell: str) -> List[str]:
    names = re.findall(r"`(pl\.[\w.]*\w)`", cell)
    if re.search(r"same under `pl\.tile\.`", cell):
        names += [f"pl.tile.{n[3:]}" for n in names if n.count(".") == 1]
    return names


def _short(name: str) -> str:
    return name.rsplit(".", 1)[-1]


def _params(sig: str) -> List[str]:
    out = []
    for part in sig.split(","):
        part = part.strip()
        if not part or part == "*":
            continue
        out.append(part.split("=", 1)[0].strip())
    return out


def expected(text: str) -> Tuple[Dict[str, str], Dict[str, List[str]]]:
    """(DSL name -> where the spec asks for it, op name -> parameter names C0 gives it)."""
    names: Dict[str, str] = {}
    c = _section(text, "C")
    for n, cell in _table_rows(c):
        row = _row_names(cell)
        where = f"C1 row {cell.strip()[:40]!r}"
        for name in row:
            names.setdefault(name, where)
        for short in {_short(x) for x in row}:
            names.setdefault(f"pl.tensor.{short}", where + " (section F: a tensor version of every op in C)")
    c0 = c.split("**C1.", 1)[0]
    params: Dict[str, List[str]] = {}
    for head, sig in re.findall(r"`([\w./]+)\(([^`]*)\)`", c0):
        if sig.strip() == "...":
            continue                               # `ins(...)`: part of a .pto form, not a signature
        first, *rest = head.split("/")
        prefix = first.rsplit("_", 1)[0] + "_" if "_" in first else ""     # row_sum/max/min
        for name in [first] + [prefix + r for r in rest]:
            name = name if name.startswith("pl.") else f"pl.{name}"
            names.setdefault(name, "C0")
            got = params.setdefault(name, [])
            got += [p for p in _params(sig) if p not in got]
    f = _section(text, "F")
    intro = f.split("**In orchestration**", 1)[0]
    listed = intro.split("plus", 1)[1] if "plus" in intro else ""
    for tok in re.findall(r"`([\w.]+)[`(]", listed):
        name = tok if tok.startswith("pl.") else f"pl.tensor.{tok}"
        names.setdefault(name, "F (first paragraph)")
    for tok in re.findall(r"`(pl\.tensor\.[\w.]+)`", intro):
        names.setdefault(tok, "F (first paragraph)")
    for n, cell in _table_rows(f):
        for name in _row_names(cell):
            names.setdefault(name, f"F row {cell.strip()[:40]!r}")
    return names, params


def resolve(pl, name: str):
    obj = pl
    for part in name.split(".")[1:]:
        if not hasattr(obj, part):
            return None
        obj = getattr(obj, part)
    return obj


def gaps(text: str) -> Tuple[List[str], List[str]]:
    """(names the spec asks for that ptokit does not expose, 'op: parameter' pairs C0 gives that the op
    does not take)."""
    import ptokit.language as pl
    from ptokit.ir.ops import OPS
    names, params = expected(text)
    missing = sorted(n for n in names if resolve(pl, n) is None)
    bad_params = []
    for name, ps in params.items():
        marker = resolve(pl, name)
        op = OPS.get(getattr(marker, "__pto_op__", None)) if marker is not None else None
        if op is None:
            continue                        # not an op of the table (pl.at, pl.spmd: scopes)
        for p in ps:
            try:
                op.param(p)
            except KeyError:
                bad_params.append(f"{name}: {p}")
    return missing, bad_params


if __name__ == "__main__":
    spec = find_spec(Path(__file__).resolve().parent)
    if spec is None:
        raise SystemExit(f"no shared/spec/{SPEC_NAME} beside the repository")
    missing, bad = gaps(spec.read_text())
    print("missing names:", *missing or ["(none)"], sep="\n  ")
    print("C0 parameters not taken:", *bad or ["(none)"], sep="\n  ")
