"""Decorators and markers: ``@pl.program``, ``@pl.function``, ``pl.range`` ...

A decorated program is never executed as Python.  ``@pl.program`` records the
class and where its source lives; ``ptokit.compile`` parses that source.
"""
from __future__ import annotations

import inspect
from typing import Optional

from ..errors import ArgumentError, api_boundary
from ..ir.kinds import FunctionType
from .types import FunctionDecl


class ProgramSpec:
    """What ``@pl.program`` returns: the class plus its parsed IR (cached).

    Parsing is lazy: the first use of ``ir``, ``functions``, ``get_function``, ``prog[name]`` or
    ``as_python()`` parses the class, once.  ``ptokit.compile(spec)`` compiles it."""

    def __init__(self, cls):
        self.cls = cls
        self.name = cls.__name__
        self.__doc__ = cls.__doc__
        self._ir = None
        for member in vars(cls).values():
            if getattr(member, "__pto_function__", None) is not None:
                member.__pto_program__ = self      # its as_python() prints it from this program

    @property
    @api_boundary
    def ir(self):
        if self._ir is None:
            from .parser import parse_program   # lazy: the front end loads when a program is parsed
            self._ir = parse_program(self)
        return self._ir

    @property
    def functions(self) -> dict:
        """``{GlobalVar: ir.Function}`` in definition order (a ``GlobalVar`` is the name, with ``.name``)."""
        return self.ir.functions

    def get_function(self, name: str):
        """The IR function named ``name``, or None.  A host-level function of a distributed
        program is described (name, level, role, params, ``requires_runtime_binding``), not
        parsed: it is compiled with the program (``ptokit.compile(..., distributed_config=)``)."""
        from .sub_workers import host_function   # lazy: as in ir
        found = host_function(self, name)
        return found if found is not None else self.ir.get_function(name)

    def __getitem__(self, name: str):
        return self.ir[name]

    def as_python(self) -> str:
        """The parsed program as DSL text: a module with its ``@pl.program`` class, which parses
        again to the same program."""
        return self.ir.as_python()

    def __repr__(self) -> str:
        return f"<ptokit program {self.name}>"


@api_boundary
def program(cls=None, *, strict_ssa: bool = False):
    """Mark a class whose ``@pl.function`` methods form one program (``strict_ssa=True``: every
    function of it is written in SSA form, each name assigned once)."""
    def make(c):
        if not inspect.isclass(c):
            raise ArgumentError(f"@pl.program decorates a class, got {c!r}")
        spec = ProgramSpec(c)
        spec.strict_ssa = bool(strict_ssa)
        return spec
    if cls is not None:
        return make(cls)
    return make


def function(fn=None, *, type: FunctionType = FunctionType.Opaque, name: Optional[str] = None, level=None,
             role=None, attrs: Optional[dict] = None, auto_scope: Optional[bool] = None, strict_ssa: bool = False,
             external_source=None):
    """Mark a function (a program method, or a module-level function a program calls by name) as
    a DSL function of the given ``pl.FunctionType``.  pypto's default is ``Opaque``: such a
    function is the orchestration when it submits work (``pl.at`` blocks, task calls), and a
    kernel otherwise."""
    decl = FunctionDecl(type, name, level, role, dict(attrs) if attrs is not None else None, auto_scope,
                        bool(strict_ssa), external_source)

    def mark(f):
        f.__pto_function__ = type
        f.__pto_name__ = name or f.__name__
        f.__pto_decl__ = decl
        f.as_python = lambda: function_text(f)
        return f
    if fn is not None:
        return mark(fn)
    return mark


def inline(fn=None, **options):
    """``@pl.inline``: ``@pl.function(type=pl.FunctionType.Inline)``, a helper spliced into its callers."""
    return function(fn, type=FunctionType.Inline, **options)


def function_text(f) -> str:
    """``fn.as_python()`` of a ``@pl.function``: a method of a ``@pl.program`` as its program
    parsed it; any other function parsed alone (with the module-level functions it calls)."""
    spec = getattr(f, "__pto_program__", None)
    if spec is not None:
        return spec.ir[f.__pto_name__].as_python()
    from ..ir.printer import print_function   # lazy: the front end loads when a function is parsed
    from .parser import FunctionParser
    from .units import function_units, parse_program
    units = function_units(f)
    prog = parse_program(None, FunctionParser, units=units, name=f.__pto_name__)
    return prog[f.__pto_name__].as_python() if units[0].method else print_function(prog[f.__pto_name__], method=False)


def dsl_marker(name: str, attr: str = "__pto_marker__"):
    """A DSL name the parser recognises by ``attr``; calling it as Python explains why not."""
    def marker(*args, **kwargs):
        raise RuntimeError(f"pl.{name} describes kernel code and is only meaningful inside a function "
                           f"compiled by ptokit; it cannot be called as Python")
    marker.__name__ = name
    marker.__qualname__ = name
    setattr(marker, attr, name)
    return marker


def _not_executable(name):
    return dsl_marker(name)


range = _not_executable("range")          # noqa: A001 - DSL name
parallel = _not_executable("parallel")
unroll = _not_executable("unroll")
pipeline = _not_executable("pipeline")      # pl.range with a software-pipelining hint (stage=)
yield_ = _not_executable("yield_")           # `v = pl.yield_(x)`: loop-carried / if-merged values
while_ = _not_executable("while_")           # `for (x,) in pl.while_(init_values=(0,)):` a while loop
cond = _not_executable("cond")               # `pl.cond(x < n)`: the test, first statement of a pl.while_ body
at = _not_executable("at")
# `with pl.incore(split=pl.SplitMode.NONE, *, name_hint=""):` is pypto's InCore scope, another
# spelling of `with pl.at(level=pl.Level.CORE_GROUP, ...)`: every rule about pl.at blocks applies to it
# (it is marked "at"), and the parser reads its arguments with scopes.parse_incore
incore = dsl_marker("incore")
incore.__pto_marker__ = "at"
incore.__pto_incore__ = True
spmd = _not_executable("spmd")
split_aiv = _not_executable("split_aiv")     # `for aiv_id in pl.split_aiv(2, mode=...)` (language/regions.py)
func_attr = _not_executable("func_attr")   # `pl.func_attr({...})` as a function's first statement
scope = _not_executable("scope")             # `with pl.scope(mode=pl.ScopeMode.MANUAL):` in orchestration
manual_scope = _not_executable("manual_scope")
cluster = _not_executable("cluster")         # `with pl.cluster():` co-schedules the tasks inside
submit = _not_executable("submit")           # `out, tid = pl.submit(self.k, *args, deps=[...])`
const = _not_executable("const")             # `pl.const(0, pl.INT32)`: a typed literal
min = _not_executable("min")                 # noqa: A001 - `pl.min(a, b)` on scalars
max = _not_executable("max")                 # noqa: A001
static_assert = _not_executable("static_assert")   # checked while parsing; no IR
static_print = _not_executable("static_print")
