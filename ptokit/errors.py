"""One exception hierarchy for the whole toolchain.

* ``UserError``   -- something in the user's program or input is wrong.  When it
  has a source location the message shows ``file:line:col``, the source line and
  a caret under the column.  Kinds: ``CompileError``, ``AssemblerError``, ``ConfigError``.
* ``InternalError`` -- a bug in ptokit itself; the message says so.
* ``RuntimeFailure`` -- a simulated run failed; carries the runtime's error code
  (``DistributedRunFailure``: on one rank of a distributed run).
* ``BuildError`` -- g++ (or an external tool) failed on generated or given code.

A wrong argument to a public call (a dtype, a shape, a count) is an ``ArgumentError``: a
``UserError`` and a ``TypeError`` at once, so either ``except`` catches it.

``api_boundary`` marks the public entry points (``ptokit.compile``, a ``@pl.program``'s parse,
calling a ``@pl.jit`` function or a ``CompiledProgram``): a ``UserError`` leaving one carries a
traceback without ptokit's own frames -- the user's lines and the located message -- unless
``PTOKIT_TRACEBACK=full``.
"""
from __future__ import annotations

import functools
import os
import types
from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class SourceLoc:
    """A position in a source file (1-based line, 1-based column)."""

    file: str
    line: int
    col: int
    source_line: Optional[str] = None

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


def source_caret(loc: Optional[SourceLoc], indent: str = "    ") -> list:
    """The source line at ``loc`` and a caret under its column, each indented (none without a line)."""
    if loc is None or loc.source_line is None:
        return []
    line = loc.source_line.rstrip("\n").expandtabs(4)
    return [indent + line, indent + " " * max(loc.col - 1, 0) + "^"]


def format_located(message: str, loc: Optional[SourceLoc]) -> str:
    """Render ``file:line:col: error: message`` plus the line and a caret."""
    if loc is None:
        return message
    return "\n".join([f"{loc}: error: {message}"] + source_caret(loc))


class PtokitError(Exception):
    """Base of every error ptokit raises on purpose."""


class UserError(PtokitError):
    """An error in the user's program or inputs, optionally located in source."""

    def __init__(self, message: str, loc: Optional[SourceLoc] = None):
        self.message = message
        self.loc = loc
        super().__init__(format_located(message, loc))


class ConfigError(UserError, ValueError):
    """A bad value in a configuration the user wrote (a ``kernel_config.py`` entry); also a
    ``ValueError``, which is what such a value was reported as before."""


class ArgumentError(UserError, TypeError):
    """A wrong argument to a public call: a dtype, a shape, a count, a value of the wrong kind
    (also a ``TypeError``, what Python raises for a call's arguments)."""


class CompileError(UserError):
    """A DSL program that cannot be compiled (type, shape, capacity, ...)."""


class PartialCodegenError(CompileError):
    """A program that parses but part of which cannot be turned into code (pypto's name for it):
    e.g. a ``pl.Out`` tensor rebound so that its earlier write never reaches the output."""


class AssemblerError(UserError):
    """A .pto file the assembler cannot accept, or an external assembler failure."""


class VendorRefusal(UserError):
    """A program ptokit refuses on purpose for the vendor tools it was asked to use (pto-isa cannot run
    the cross-core FIFO under ptokit's simulator, has no bf16 with this compiler, ...): a design
    decision with its reason, not a defect of the program."""


class ToolRefusal(CompileError, VendorRefusal):
    """A program ptokit refuses at its DSL line because the assembler it writes for would refuse it:
    an op or attribute the ``ptoas_compat`` release does not know, or a form the real verifier
    rejects. A compile error, and a refusal by design when the suite runs the real tools."""


class BuildError(PtokitError):
    """A C++ build (g++) failed; the message carries the compiler's output."""


class InternalError(PtokitError):
    """A bug in ptokit: an invariant that user input should never be able to break."""

    def __init__(self, message: str):
        super().__init__(f"internal error (a ptokit bug, please report it): {message}")


class RuntimeFailure(PtokitError):
    """A simulated run failed with one of the runtime's error codes (runtime.md)."""

    def __init__(self, code: int, message: str):
        self.code = code
        self.message = message
        super().__init__(f"runtime error {code}: {message}")


class DistributedRunFailure(RuntimeFailure):
    """A distributed run failed on one rank (docs/distributed.md, "Failures and cleanup").

    ``rank`` / ``device_id``: where; ``code``: the runtime's error code (101 kernel failure --
    an expired TWAIT too --, 100 no progress, 10 a rank that could not start, ...); ``task``,
    ``kernel``, ``op``: the rank's task, kernel and comm op when known (else None).  The message is
    ``rank R (device D): `` plus the rank's own message, and for a deadlock or a stall one
    status-board line per rank."""

    def __init__(self, rank: int, device_id: int, code: int, message: str, *, task=None, kernel=None, op=None,
                 board: Optional[list] = None):
        self.rank = rank
        self.device_id = device_id
        self.task = task
        self.kernel = kernel
        self.op = op
        self.board = list(board or [])
        text = f"rank {rank} (device {device_id}): {message}"
        if self.board:
            text += "\nstatus board:\n" + "\n".join(f"  {line}" for line in self.board)
        super().__init__(code, text)


def source_loc_from_file(path: str, line: int, col: int) -> SourceLoc:
    """Build a SourceLoc, reading the source line from ``path`` when possible."""
    src = None
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for i, text in enumerate(fh, start=1):
                if i == line:
                    src = text
                    break
    except OSError:
        pass
    return SourceLoc(path, line, col, src)


# ---------------------------------------------------------------------------------------------
# tracebacks of user errors: the user's frames only
# ---------------------------------------------------------------------------------------------

TRACEBACK_ENV = "PTOKIT_TRACEBACK"
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_NOTE = f"(ptokit's own frames are left out of this traceback; {TRACEBACK_ENV}=full keeps them)"


def _is_ptokit_frame(tb) -> bool:
    return os.path.abspath(tb.tb_frame.f_code.co_filename).startswith(_PACKAGE_DIR)


def without_ptokit_frames(tb):
    """A copy of the traceback chain ``tb`` without the frames of ptokit's own modules."""
    kept = []
    while tb is not None:
        if not _is_ptokit_frame(tb):
            kept.append(tb)
        tb = tb.tb_next
    out = None
    for t in reversed(kept):
        out = types.TracebackType(out, t.tb_frame, t.tb_lasti, t.tb_lineno)
    return out


def _filter_chain(exc: BaseException) -> None:
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        exc.__traceback__ = without_ptokit_frames(exc.__traceback__)
        exc = exc.__cause__ or exc.__context__


def api_boundary(fn):
    """Decorate a public entry point: a ``UserError`` leaving it shows the user's frames only."""
    @functools.wraps(fn)
    def entry(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except UserError as exc:
            if os.environ.get(TRACEBACK_ENV, "").lower() != "full":
                _filter_chain(exc)
                if hasattr(exc, "add_note") and _NOTE not in getattr(exc, "__notes__", ()):
                    exc.add_note(_NOTE)
            raise      # a bare raise adds no frame of this wrapper
    return entry
