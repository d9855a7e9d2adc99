"""``@pl.jit.incore`` / ``@pl.jit.inline`` helpers and the name scope of a Python function."""
from __future__ import annotations

import inspect

from ..ir.kinds import FunctionType
from ..language.source import Source, function_scope  # noqa: F401  (re-exported)


class JitHelper:
    """A helper function called by bare name from a ``@pl.jit`` body (or another helper).

    It is never executed: the caller's compile specializes it from the argument
    types at each call site (bare ``pl.Tensor`` parameters take the argument's
    shape and dtype; unannotated numbers are folded).
    """

    def __init__(self, fn, kind: FunctionType):
        if not inspect.isfunction(fn):
            raise TypeError(f"@pl.jit.{kind.name.lower()} decorates a function, got {fn!r}")
        self.fn = fn
        self.kind = kind
        self.__name__ = fn.__name__
        self.__qualname__ = fn.__qualname__
        self.__module__ = fn.__module__
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn
        self._src = None

    def source(self):
        if self._src is None:
            self._src = Source(self.fn)
        return self._src

    def scope(self) -> dict:
        return function_scope(self.fn)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"{self.__name__} is a @pl.jit.{self.kind.name.lower()} helper: it describes kernel code "
                           f"and can only be called from a @pl.jit function")

    def __repr__(self) -> str:
        return f"<ptokit jit {self.kind.name} helper {self.__qualname__}>"


def incore(fn):
    """``@pl.jit.incore``: a kernel (InCore function) called from a ``@pl.jit`` body; each call is one task."""
    return JitHelper(fn, FunctionType.InCore)


def opaque(fn):
    """``@pl.jit.opaque``: orchestration code of its own (loops around ``pl.at`` blocks, kernel
    calls), spliced into the calling orchestration; one that submits no work is a kernel."""
    return JitHelper(fn, FunctionType.Opaque)


def inline(fn):
    """``@pl.jit.inline``: a function spliced into its call sites (kernel code or orchestration)."""
    return JitHelper(fn, FunctionType.Inline)
