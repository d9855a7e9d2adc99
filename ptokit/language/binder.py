"""The one binder: a signature plus a call -> bound arguments.

Python's own rules (``inspect.Signature.bind``) decide which argument binds which parameter:
positional arguments fill the positional parameters in order, keywords name any parameter that is
not positional-only, a parameter with a default may be left out.  The same rules and the same
messages serve every call ptokit binds:

* DSL call sites (``call_nodes``): ``pl.<op>(...)`` (language/binding.py), ``self.f(...)`` of
  program functions (language/signatures.py), ``@pl.jit`` helpers (jit/frontend.py), chip and
  SubWorker calls of host functions (language/host.py), host collectives; an error points at the
  argument (or the call) with file:line:col and a caret;
* run-time values (``bind_values``): a ``@pl.jit`` call, ``compile``/``lower``/``parse`` and a
  ``@pl.jit.host`` call; an error points at the caller's line.

The one check that a bound argument's type fits its parameter is ``signatures.arg_problem``.
"""
from __future__ import annotations

import ast
import inspect
import os
import sys
from typing import Callable, Dict, Iterable, Optional, Sequence

from ..errors import ArgumentError, CompileError, SourceLoc, source_loc_from_file
from .source import eval_static

EMPTY = inspect.Parameter.empty
POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


class Given:
    """A parameter's default value, standing in for an argument that was not written."""

    def __init__(self, value):
        self.value = value

    def __repr__(self) -> str:
        return f"Given({self.value!r})"


def parameter(name: str, default=EMPTY, keyword_only: bool = False) -> inspect.Parameter:
    kind = inspect.Parameter.KEYWORD_ONLY if keyword_only else inspect.Parameter.POSITIONAL_OR_KEYWORD
    return inspect.Parameter(name, kind, default=default)


def header_args(item: ast.FunctionDef, src, g, method: bool) -> list:
    """(ast.arg, inspect.Parameter) of a DSL function's parameters, defaults evaluated; ``self`` of
    a method left out, ``*args`` / ``**kwargs`` refused (each parameter is one value)."""
    a = item.args
    star = a.vararg or a.kwarg
    if star is not None:
        raise CompileError(f"{item.name}: parameter {'*' if star is a.vararg else '**'}{star.arg} is not supported: "
                           f"each parameter of a DSL function is one tensor, tile or value", src.loc(star))
    pos = a.posonlyargs + a.args
    defaults = [None] * (len(pos) - len(a.defaults)) + list(a.defaults) + list(a.kw_defaults)
    kinds = [inspect.Parameter.POSITIONAL_ONLY] * len(a.posonlyargs) + \
        [inspect.Parameter.POSITIONAL_OR_KEYWORD] * len(a.args) + [inspect.Parameter.KEYWORD_ONLY] * len(a.kwonlyargs)
    out = []
    for arg, d, kind in zip(pos + a.kwonlyargs, defaults, kinds):
        default = inspect.Parameter.empty if d is None else eval_static(d, src, g, "default value")
        out.append((arg, inspect.Parameter(arg.arg, kind, default=default)))
    if method:
        if not out or out[0][0].arg != "self":
            raise CompileError(f"program function {item.name} must take self first", src.loc(item))
        out = out[1:]
    return out


def bind(name: str, params: Sequence[inspect.Parameter], args: list, kwargs: Dict[str, object],
         fail: Callable[[str, object], Exception], omittable: Iterable[str] = (), hint: str = "") -> Dict[str, object]:
    """Parameter name -> argument, in parameter order, by Python's rules.  A parameter left out
    binds ``Given(default)``; one in ``omittable`` (an output the caller makes) is absent.
    ``fail(message, at)`` makes the error: ``at`` is the index of a positional argument, the name
    of a keyword, or None (the call)."""
    positional = [p for p in params if p.kind in POSITIONAL]
    if len(args) > len(positional):
        raise fail(f"{name} takes {len(positional)} positional argument{'s' * (len(positional) != 1)}, but "
                   f"{len(args)} were given", len(positional))
    bound: Dict[str, object] = {p.name: a for p, a in zip(positional, args)}
    by_name = {p.name: p for p in params}
    for key, value in kwargs.items():
        p = by_name.get(key)
        if p is None:
            raise fail(f"{name} has no parameter {key!r} (parameters: {', '.join(by_name)})", key)
        if p.kind is p.POSITIONAL_ONLY:
            raise fail(f"{name} takes its {key!r} argument by position only", key)
        if key in bound:
            raise fail(f"{name} got two values for its {key!r} argument", key)
        bound[key] = value
    omit = set(omittable)
    out: Dict[str, object] = {}
    for p in params:
        if p.name in bound:
            out[p.name] = bound[p.name]
        elif p.default is not EMPTY:
            out[p.name] = Given(p.default)
        elif p.name not in omit:
            raise fail(f"{name} is missing its {p.name!r} argument{hint}", None)
    return out


# ---------------------------------------------------------------- DSL call sites

def call_nodes(e: ast.Call, err, what: str, skip: Iterable[str] = ()):
    """(positional argument nodes, {keyword: value node}) of a DSL call; keywords in ``skip``
    (``device=`` of a chip call) are left for the caller.  ``*x`` / ``**x`` are refused."""
    for a in e.args:
        if isinstance(a, ast.Starred):
            raise err(f"{what} does not take *arguments", a)
    kwargs = {}
    for kw in e.keywords:
        if kw.arg is None:
            raise err(f"{what} does not take **kwargs", kw.value)
        if kw.arg in kwargs:            # two spellings of one parameter (a keyword and its alias)
            raise err(f"{what} got two values for its {kw.arg!r} argument", kw.value)
        if kw.arg not in skip:
            kwargs[kw.arg] = kw.value
    return list(e.args), kwargs


def bind_call(name: str, params: Sequence[inspect.Parameter], e: ast.Call, err, omittable: Iterable[str] = (),
              skip: Iterable[str] = ()) -> Dict[str, object]:
    """``bind`` for a DSL call ``e``: parameter name -> argument node (or ``Given``); errors are
    ``err(message, node)``, located at the argument they are about."""
    args, kwargs = call_nodes(e, err, name, skip)

    def fail(msg, at):
        node = args[at] if isinstance(at, int) and at < len(args) else kwargs.get(at, e) if isinstance(at, str) else e
        return err(msg, node)
    return bind(name, params, args, kwargs, fail, omittable)


# ---------------------------------------------------------------- run-time values

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def caller_loc() -> Optional[SourceLoc]:
    """Where the user's code called into ptokit: the innermost frame outside the package."""
    f = sys._getframe(1)
    while f is not None and os.path.abspath(f.f_code.co_filename).startswith(_PACKAGE):
        f = f.f_back
    if f is None:
        return None
    line, col = f.f_lineno, 1
    try:
        pos = list(f.f_code.co_positions())[f.f_lasti // 2]
        if pos[0] == line and pos[2] is not None:
            col = pos[2] + 1
    except (AttributeError, IndexError, ValueError):
        pass
    return source_loc_from_file(f.f_code.co_filename, line, col)


def bind_values(name: str, params: Sequence[inspect.Parameter], args: tuple, kwargs: dict,
                omittable: Iterable[str] = (), hint: str = "") -> Dict[str, object]:
    """``bind`` for run-time values; an error is an ``ArgumentError`` at the caller's line."""
    def fail(msg, at):
        return ArgumentError(msg, caller_loc())
    return bind(name, params, list(args), kwargs, fail, omittable, hint)
