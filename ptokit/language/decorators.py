"""Decorators and markers: ``@pl.program``, ``@pl.function``, ``pl.range`` ...

A decorated program is never executed as Python.  ``@pl.program`` records the
class and where its source lives; ``ptokit.compile`` parses that source.
"""
from __future__ import annotations

import inspect
from typing import Optional

from ..ir.nodes import FunctionType
from .parser import parse_program


class ProgramSpec:
    """What ``@pl.program`` returns: the class plus its parsed IR (cached)."""

    def __init__(self, cls):
        self.cls = cls
        self.name = cls.__name__
        self.__doc__ = cls.__doc__
        self._ir = None

    @property
    def ir(self):
        if self._ir is None:
            self._ir = parse_program(self)
        return self._ir

    def __repr__(self) -> str:
        return f"<ptokit program {self.name}>"


def program(cls):
    """Mark a class whose ``@pl.function`` methods form one program."""
    if not inspect.isclass(cls):
        raise TypeError("@pl.program decorates a class")
    return ProgramSpec(cls)


def function(fn=None, *, type: FunctionType = FunctionType.InCore, name: Optional[str] = None):
    """Mark a method as a program function of the given ``pl.FunctionType``."""
    def mark(f):
        f.__pto_function__ = type
        f.__pto_name__ = name or f.__name__
        return f
    if fn is not None:
        return mark(fn)
    return mark


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
at = _not_executable("at")
spmd = _not_executable("spmd")
