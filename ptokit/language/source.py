"""The DSL source of a class or function: its ``ast``, and positions mapped back to the file.

Also ``eval_static``: the one place the front end evaluates user text (type annotations and
decorator/keyword constants), in the defining scope, never code with effects.
"""
from __future__ import annotations

import ast
import inspect
import linecache
import textwrap
from typing import Optional

from ..errors import CompileError, SourceLoc


class Source:
    """The DSL source of one class or function, and how to map ast positions back."""

    def __init__(self, obj):
        try:
            lines, start = inspect.getsourcelines(obj)
            self.file = inspect.getsourcefile(obj) or "<unknown>"
        except (OSError, TypeError) as exc:
            raise CompileError(f"cannot read the source of {obj!r}: ptokit parses DSL programs from "
                               f"their source file ({exc})") from None
        text = "".join(lines)
        dedented = textwrap.dedent(text)
        first = lines[0]
        self.indent = len(first) - len(first.lstrip()) if dedented != text else 0
        self.start = start
        self.tree = ast.parse(dedented)
        self.lines = lines

    def loc(self, node) -> Optional[SourceLoc]:
        if node is None or not hasattr(node, "lineno"):
            return None
        line = self.start + node.lineno - 1
        src = linecache.getline(self.file, line) or None
        if src is None:
            idx = node.lineno - 1
            src = self.lines[idx] if 0 <= idx < len(self.lines) else None
        return SourceLoc(self.file, line, node.col_offset + 1 + self.indent, src)


def eval_static(node, src: Source, g, what: str):
    """Evaluate a type annotation or decorator argument (never code with effects)."""
    try:
        return eval(compile(ast.Expression(node), src.file, "eval"), dict(g))  # noqa: S307
    except Exception as exc:  # noqa: BLE001 - report any failure at the annotation
        raise CompileError(f"cannot evaluate {what} {ast.unparse(node)!r}: {exc}", src.loc(node)) from None


def function_scope(fn) -> dict:
    """The names a DSL function body can see: module globals, then closure variables."""
    scope = dict(fn.__globals__)
    if fn.__closure__:
        try:
            scope.update(inspect.getclosurevars(fn).nonlocals)
        except (TypeError, ValueError):
            pass
    return scope
