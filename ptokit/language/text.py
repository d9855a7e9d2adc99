"""``pl.parse(code, filename="<string>")`` and ``pl.loads(path)``: DSL text -> the program (a
``@pl.program``, which ``ptokit.compile`` takes) or the one function it defines, parsed (an
``ir.Function``: ``name``, ``params``, ``return_types``, ``as_python()``), as pypto's do
(pypto-parity.md G).  As in pypto, a text without exactly one of them is a ``ValueError`` and a text
that is not Python a ``SyntaxError`` (both also ``UserError``: one located message).

The front end reads DSL code from its source, so the text is given a module of its own whose
``__file__`` is ``filename`` and whose lines are in ``linecache``: errors then point into the text
with file, line, column and a caret, as they do for a ``.py`` file. The text runs as Python (it is
the user's own program, as an imported module would be), with ``pl`` already bound to this package.
"""
from __future__ import annotations

import itertools
import linecache
import sys
import types
from pathlib import Path

from ..errors import UserError
from .decorators import ProgramSpec

_COUNTER = itertools.count()


class TextError(UserError, ValueError):
    """The text defines no program or function, or more than one (pypto: ValueError)."""


class TextSyntaxError(UserError, SyntaxError):
    """The text is not Python (pypto: SyntaxError)."""

    def __str__(self):
        return self.message


def parse(code: str, filename: str = "<string>"):
    """The ``@pl.program`` that ``code`` defines, else its one ``@pl.function``."""
    if not isinstance(code, str):
        raise TypeError(f"pl.parse takes DSL text (a str), got {type(code).__name__}")
    pl = sys.modules[__package__]      # ptokit.language itself (loaded: this function is one of its names)
    name = f"_ptokit_text_{next(_COUNTER)}"
    # a file name of its own per call, so linecache never serves one text's lines for another's
    file = filename if filename != "<string>" else f"<ptokit text {name}>"
    lines = code.splitlines(keepends=True)
    linecache.cache[file] = (len(code), None, lines, file)
    module = types.ModuleType(name)
    module.__file__ = file
    module.pl = pl
    sys.modules[name] = module
    try:
        exec(compile(code, file, "exec"), module.__dict__)  # noqa: S102 - the user's own program text
    except SyntaxError as exc:
        raise TextSyntaxError(f"{file}:{exc.lineno}:{exc.offset}: {exc.msg}") from None
    found = [v for v in vars(module).values() if isinstance(v, ProgramSpec)]
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        raise TextError(f"{file} defines {len(found)} programs ({', '.join(p.cls.__name__ for p in found)}); "
                        f"pl.parse returns one: put each in its own text")
    funcs = [v for v in vars(module).values() if callable(v) and hasattr(v, "__pto_decl__")]
    if len(funcs) == 1:
        return _parsed_function(funcs[0])
    raise TextError(f"{file} defines no @pl.program and {len(funcs)} @pl.function functions; pl.parse returns a "
                    f"program, or the one function of a text without one")


def loads(path):
    """``pl.parse`` of a file's text, with the file's name in every error."""
    p = Path(path)
    try:
        code = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"cannot read {p}: {exc}") from None
    return parse(code, filename=str(p))


def _parsed_function(f):
    """A ``@pl.function`` defined alone, parsed on its own (with the module-level functions it calls)."""
    from .parser import FunctionParser   # lazy: the front end loads when a text is parsed
    from .units import function_units, parse_program
    return parse_program(None, FunctionParser, units=function_units(f), name=f.__pto_name__)[f.__pto_name__]
