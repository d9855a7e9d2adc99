"""The op AST of a ``.pto`` module: module, functions, ops, regions, attributes.

The parser builds it from text, the builder (``ptokit.pto.builder``) builds it for writers,
and the printer turns it back into text; sema and the emitter of the built-in assembler
annotate it.  Attribute values keep their MLIR text; the factories below make them from
Python values so no writer formats attribute text itself.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple


@dataclass
class Attr:
    """An attribute value: its MLIR text and, when simple, a Python value."""

    text: str
    value: Any = None

    # ------------------------------------------------------------ factories (writers)
    @staticmethod
    def string(s: str) -> "Attr":
        esc = s.replace("\\", "\\\\").replace('"', '\\"')
        return Attr(f'"{esc}"', s)

    @staticmethod
    def int(v: int) -> "Attr":
        return Attr(str(int(v)), int(v))

    @staticmethod
    def bool(v: bool) -> "Attr":
        return Attr("true" if v else "false", bool(v))

    @staticmethod
    def symbol(name: str) -> "Attr":
        return Attr(f"@{name}", ("@", name))

    @staticmethod
    def dialect(name: str, body: str) -> "Attr":
        """``#name<body>``, e.g. ``#pto.kernel_kind<vector>`` or ``#pto<round_mode CAST_RINT>``."""
        return Attr(f"#{name}<{body}>", (name, body))


@dataclass
class Use:
    """A use of an SSA value, with the type written at the use (if any)."""

    name: str                 # without '%'; "r#1" for result 1 of %r
    line: int
    col: int
    type: Any = None          # written type at this use, or None
    value: Any = None         # resolved ValueInfo (set by sema)


@dataclass
class ResultDef:
    name: str
    count: int
    line: int
    col: int


@dataclass
class Clause:
    """One syntactic piece of a generic (pto.*) op."""

    kind: str                 # "group" | "kw" | "list" | "operand" | "attrs" | "indexed" (%p[%i]) | "results" (outs : T)
    name: str = ""
    uses: List[Use] = field(default_factory=list)
    types: List[Any] = field(default_factory=list)
    line: int = 0
    col: int = 0
    typed: bool = False       # a group with ': types'
    attrs: list = field(default_factory=list)   # attr dicts written after an operand
    keys: List[str] = field(default_factory=list)   # keyword operands '(key = %v : T, ...)'
    # a string after the types, ``ins(%a, {maskPattern = ...} : T, "row")`` (the attr dict then follows a comma)
    axis: Optional[str] = None


@dataclass
class BlockArg:
    name: str
    type: Any
    line: int
    col: int


@dataclass
class Block:
    args: List[BlockArg] = field(default_factory=list)
    ops: List["Op"] = field(default_factory=list)
    end_line: int = 0
    end_col: int = 0


@dataclass
class Op:
    name: str
    line: int
    col: int
    results: List[ResultDef] = field(default_factory=list)
    operands: List[Use] = field(default_factory=list)      # every use, in order
    attrs: Dict[str, Attr] = field(default_factory=dict)
    attr_order: List[str] = field(default_factory=list)
    regions: List[Block] = field(default_factory=list)
    srcloc: Optional[Tuple[str, int, int]] = None          # loc("file.py":line:col)
    clauses: List[Clause] = field(default_factory=list)    # generic form
    attr_pos: Optional[int] = None     # generic form: the attr dict stands before clauses[attr_pos]
    colon_types: List[Any] = field(default_factory=list)
    arrow_types: List[Any] = field(default_factory=list)
    result_types: List[Any] = field(default_factory=list)
    extra: Dict[str, Any] = field(default_factory=dict)

    def set_attr(self, key: str, attr: Attr) -> None:
        if key not in self.attrs:
            self.attr_order.append(key)
        self.attrs[key] = attr

    def group(self, name: str) -> Optional[Clause]:
        for c in self.clauses:
            if c.kind in ("group", "list", "kw") and c.name == name:
                return c
        return None


@dataclass
class Func:
    name: str
    line: int
    col: int
    args: List[BlockArg]
    attrs: Dict[str, Attr]
    attr_order: List[str]
    body: Optional[Block]
    visibility: str = ""
    srcloc: Optional[Tuple[str, int, int]] = None


@dataclass
class Module:
    attrs: Dict[str, Attr]
    attr_order: List[str]
    funcs: List[Func]
    name: str = ""
    type_aliases: Dict[str, Any] = field(default_factory=dict)
