"""``break`` and ``continue``, rewritten into flags before a loop body is parsed.

A loop body with ``continue`` or ``break`` inside an ``if`` becomes straight-line code over two
boolean scalars, so the IR needs no jumps:

* ``skip`` is cleared at the top of every iteration and set where the iteration ends early; the
  statements after an ``if`` that may set it run under ``if not skip:``;
* ``stop`` (only with ``break``) is cleared before the loop and set by ``break``: a ``while`` loop
  tests ``cond and not stop``, a ``for`` loop runs its whole body under ``if not stop:`` (the
  remaining iterations do nothing).

A ``continue`` or ``break`` at the top level of the body simply ends it there.  Nested loops keep
their own ``break`` and ``continue``.  The rewrite works on the Python syntax tree, so the parser
sees ordinary assignments and ``if`` statements, and every rewritten node keeps the location of
the statement it came from.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import List, Optional


class EscapeError(Exception):
    """A break/continue the rewrite cannot express; ``node`` is the statement to point at."""

    def __init__(self, node: ast.AST, message: str):
        super().__init__(message)
        self.node = node


@dataclass
class Lowered:
    body: List[ast.stmt]
    stop: Optional[str] = None        # the break flag's name, when the body breaks


def _escapes(stmts, kinds) -> Optional[ast.stmt]:
    """The first break/continue (of ``kinds``) in ``stmts`` that belongs to this loop."""
    for s in stmts:
        if isinstance(s, kinds):
            return s
        if isinstance(s, ast.If):
            hit = _escapes(s.body, kinds) or _escapes(s.orelse, kinds)
            if hit is not None:
                return hit
        elif isinstance(s, (ast.With,)):
            hit = _escapes(s.body, kinds)
            if hit is not None:
                return hit
    return None


def find_escape(stmts, kinds=(ast.Break, ast.Continue)) -> Optional[ast.stmt]:
    return _escapes(stmts, kinds)


def _at(node: ast.AST, new: ast.AST) -> ast.AST:
    """Give the nodes made here (those without a location) the location of ``node``."""
    for n in ast.walk(new):
        if "lineno" in n._attributes and getattr(n, "lineno", None) is None:
            ast.copy_location(n, node)
            n.end_lineno = getattr(node, "end_lineno", None)
            n.end_col_offset = getattr(node, "end_col_offset", None)
    return new


def _set(name: str, value: bool, node) -> ast.stmt:
    return _at(node, ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=ast.Constant(value=value)))


def _not(name: str, node) -> ast.expr:
    return _at(node, ast.UnaryOp(op=ast.Not(), operand=ast.Name(id=name, ctx=ast.Load())))


def lower_loop_body(body: List[ast.stmt], loop: ast.stmt) -> Lowered:
    """Rewrite ``body`` (of ``loop``) without ``break``/``continue``; see the module docstring."""
    if find_escape(body) is None:
        return Lowered(list(body))
    tag = f"{loop.lineno}_{loop.col_offset}"
    skip, stop = f"_pl_skip_{tag}", f"_pl_stop_{tag}"
    uses_stop = find_escape(body, (ast.Break,)) is not None
    state = {"skip": False}

    def end_here(s) -> List[ast.stmt]:
        return [_set(stop, True, s)] if isinstance(s, ast.Break) else []

    def block(stmts: List[ast.stmt], top: bool) -> List[ast.stmt]:
        out: List[ast.stmt] = []
        for k, s in enumerate(stmts):
            if isinstance(s, (ast.Break, ast.Continue)):
                out.extend(end_here(s))
                if not top:
                    out.append(_set(skip, True, s))
                    state["skip"] = True
                return out
            if isinstance(s, ast.With) and find_escape([s]) is not None:
                hit = find_escape([s])
                word = "break" if isinstance(hit, ast.Break) else "continue"
                raise EscapeError(hit, f"`{word}` inside a `with` block: the block is its own task or scope, "
                                       f"so it cannot end the loop around it; put the test outside the block")
            if isinstance(s, ast.If) and find_escape([s]) is not None:
                s2 = _copy_shallow(s)
                s2.body = block(s.body, False)
                s2.orelse = block(s.orelse, False)
                out.append(s2)
                rest = stmts[k + 1:]
                if rest:
                    guarded = _at(s, ast.If(test=_not(skip, s), body=block(rest, False), orelse=[]))
                    out.append(guarded)
                return out
            out.append(s)
        return out

    new = block(list(body), True)
    if state["skip"]:
        new = [_set(skip, False, loop)] + new
    return Lowered(new, stop if uses_stop else None)


def _copy_shallow(s: ast.stmt) -> ast.stmt:
    fields = {f: getattr(s, f) for f in s._fields}
    new = type(s)(**fields)
    return ast.copy_location(new, s)


def guard(body: List[ast.stmt], stop: str, loop: ast.stmt) -> List[ast.stmt]:
    """A ``for`` body that may break: it runs only while ``stop`` is clear."""
    test = _not(stop, loop)
    return [_at(loop, ast.If(test=test, body=list(body) or [_at(loop, ast.Pass())], orelse=[]))]


def clear(stop: str, loop: ast.stmt) -> ast.stmt:
    return _set(stop, False, loop)


def and_not(test: ast.expr, stop: str) -> ast.expr:
    return _at(test, ast.BoolOp(op=ast.And(), values=[test, _not(stop, test)]))
