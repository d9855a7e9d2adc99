"""SubWorkers of a distributed program: ``@pl.function(level=pl.Level.HOST, role=pl.Role.SubWorker)``.

A SubWorker is plain Python that the host runs on views of its tensors when the host function
calls it (``self.verify(f)``), after the chip dispatches that write them.  It is declared in the
program's class without ``self`` (as in pypto) and with annotated parameters, which the host
function's call is checked against.

* A body is the function itself: it runs in the calling process with its module's globals
  (``torch`` tensors sharing the host memory when the program imported torch, numpy arrays
  otherwise).
* A body of only ``...`` (a docstring allowed) is *abstract*: a runtime-bound callback point.
  ``compiled.prepare(callbacks={"verify": fn})`` binds ``fn(args)`` (``args``: the tensors, as a
  list); an abstract SubWorker left unbound is a ValueError at ``prepare`` and a RuntimeError if
  a call reaches it.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Callable, Optional

from ..errors import CompileError
from ..ir import nodes as N
from .types import Level, Role
from .units import parse_header


@dataclass
class SubWorker:
    name: str
    header: N.Function              # the parameters (kind Opaque, no body)
    fn: Optional[Callable]          # the Python function (None when abstract)

    @property
    def abstract(self) -> bool:
        return self.fn is None


@dataclass
class HostFunction:
    """``Program.get_function(name)`` of a host-level function (pypto's IR Function fields that
    apply): ptokit reads host functions when it compiles the distributed program, not as IR."""
    name: str
    level: Level
    role: Optional[Role]
    param_names: list
    requires_runtime_binding: bool        # an abstract SubWorker (`...` body)

    def __repr__(self) -> str:
        role = f", role={self.role!r}" if self.role is not None else ""
        return f"<host function {self.name}({', '.join(self.param_names)}) level={self.level!r}{role}>"


def host_function(spec, name: str) -> Optional[HostFunction]:
    """The host-level function ``name`` of program ``spec``, or None (not one, or no such name)."""
    from .units import _class_units   # lazy: the front end loads when a program is looked into
    for u in _class_units(spec):
        if u.name == name and getattr(u.decl, "level", None) == Level.HOST:
            args = [a.arg for a in u.item.args.args]
            if args and args[0] == "self":
                args = args[1:]
            return HostFunction(u.name, u.decl.level, u.decl.role, args,
                                is_sub_worker_unit(u) and is_abstract_body(u.item))
    return None


def is_sub_worker_unit(u) -> bool:
    return getattr(u.decl, "level", None) == Level.HOST and getattr(u.decl, "role", None) == Role.SubWorker


def is_abstract_body(item: ast.FunctionDef) -> bool:
    """A body of ``...`` alone (after an optional docstring)."""
    body = list(item.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and \
            isinstance(body[0].value.value, str):
        body = body[1:]
    return bool(body) and all(isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)
                              and s.value.value is Ellipsis for s in body)


def read_sub_worker(u, pyfn: Optional[Callable]) -> SubWorker:
    """The SubWorker of unit ``u`` (``pyfn``: the decorated Python function)."""
    args = u.item.args
    if args.args and args.args[0].arg == "self":
        raise CompileError(f"SubWorker {u.name} takes no self: it is plain Python run on the host, declared in the "
                           f"class for the host function to call", u.src.loc(args.args[0]))
    if args.vararg or args.kwarg or args.kwonlyargs:
        raise CompileError(f"SubWorker {u.name} takes positional parameters only (the tensors and scalars the host "
                           f"function passes)", u.src.loc(u.item))
    header = parse_header(u.item, N.FunctionType.Opaque, u.name, u.src, u.g, method=False,
                          evaluated=u.annotations)
    return SubWorker(u.name, header, None if is_abstract_body(u.item) else pyfn)


__all__ = ["SubWorker", "HostFunction", "host_function", "is_sub_worker_unit", "is_abstract_body", "read_sub_worker"]
