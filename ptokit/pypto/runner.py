"""``ptokit pypto [OPTIONS] SCRIPT.py [ARGS...]`` / ``-m package.module [ARGS...]``: run a pypto
program unchanged, its ``import pypto...`` resolved to ptokit (``alias.install``).

The program runs as ``python SCRIPT.py`` / ``python -m package.module`` would run it
(``sys.argv``, ``sys.path[0]``, ``__main__``); its exit status is the command's.  A pypto name
ptokit does not provide ends it with one line naming the name (``ptokit pypto: error: ...``,
exit 1); a ptokit error about the program (a DSL error, a failed build or run) is one message
as for every ptokit command; any other exception of the program prints its traceback, as
Python would, and exits 1.
"""
from __future__ import annotations

import os
import runpy
import sys
import traceback
from typing import List, Optional

from ..errors import InternalError, PtokitError, UserError
from . import alias
from .missing import explain

USAGE = """usage: ptokit pypto [--no-simulate-hardware] SCRIPT.py [ARGS...]
       ptokit pypto [--no-simulate-hardware] -m package.module [ARGS...]

Run a pypto program unchanged on ptokit: inside this process `import pypto...` resolves to
ptokit's modules (pypto.language is ptokit.language).  A program that asks for a hardware
platform (a2a3, a5, or a BackendType) runs on that chip's simulator (a2a3sim, a5sim), saying so
once; device-only options (device ids, PMU, ...) are reported once as not simulated.

options:
  -m MODULE                  run a module as `python -m MODULE` does
  --no-simulate-hardware     refuse hardware platforms instead (ptokit's usual rule)
  -h, --help                 show this message
See docs/pypto.md."""


class PyptoNameMissing(UserError):
    """A name the program asked of ``pypto`` that ptokit does not provide."""


def parse_argv(argv: List[str]):
    """(simulate_hardware, module or None, script or None, program args)."""
    simulate = True
    argv = list(argv)
    while argv:
        a = argv[0]
        if a in ("-h", "--help"):
            print(USAGE)
            raise SystemExit(0)
        if a == "--no-simulate-hardware":
            simulate = False
        elif a == "--simulate-hardware":
            simulate = True
        elif a == "-m":
            if len(argv) < 2:
                raise UserError("-m needs a module name (ptokit pypto -m package.module [ARGS...])")
            return simulate, argv[1], None, argv[2:]
        elif a.startswith("-m") and len(a) > 2:
            return simulate, a[2:], None, argv[1:]
        elif a == "--":
            argv.pop(0)
            break
        elif a.startswith("-"):
            raise UserError(f"unknown option {a!r} (options come before the script; see ptokit pypto --help)")
        else:
            break
        argv.pop(0)
    if not argv:
        raise UserError("no program given: ptokit pypto SCRIPT.py [ARGS...] or ptokit pypto -m package.module")
    return simulate, None, argv[0], argv[1:]


def main(argv: List[str]) -> int:
    simulate, module, script, args = parse_argv(argv)
    if script is not None and not os.path.exists(script):
        raise UserError(f"no such file: {script}")
    alias.install(simulate_hardware=simulate)
    saved_argv, saved_path0 = sys.argv, (sys.path[0] if sys.path else None)
    try:
        if module is not None:
            sys.argv = [module, *args]            # runpy puts the module's file in argv[0]
            sys.path.insert(0, os.getcwd())
            return _run(lambda: runpy.run_module(module, run_name="__main__", alter_sys=True))
        sys.argv = [script, *args]
        sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
        return _run(lambda: runpy.run_path(script, run_name="__main__"))
    finally:
        sys.argv = saved_argv
        if sys.path and saved_path0 is not None and sys.path[0] != saved_path0:
            sys.path.pop(0)


def _run(call) -> int:
    try:
        call()
    except SystemExit as exc:                  # the program's own exit status
        code = exc.code
        if code is None or isinstance(code, int):
            return int(code or 0)
        print(code, file=sys.stderr)
        return 1
    except ImportError as exc:
        if _module_not_found(exc):
            raise UserError(str(exc)) from None
        return _failed(exc)
    except Exception as exc:  # noqa: BLE001 - every failure of the program is reported, none is a ptokit crash
        return _failed(exc)
    return 0


def _module_not_found(exc) -> bool:
    """``-m`` naming a module that is not there (runpy's ImportError), rather than the program failing."""
    return type(exc) is ImportError and str(exc).startswith("No module named") and exc.__traceback__ is not None \
        and all(f.f_globals.get("__name__") in ("runpy", __name__) for f in _frames(exc))


def _frames(exc):
    tb, out = exc.__traceback__, []
    while tb is not None:
        out.append(tb.tb_frame)
        tb = tb.tb_next
    return out


def _failed(exc: BaseException) -> int:
    message = explain(exc)
    if message is not None:
        raise PyptoNameMissing(message) from None
    if isinstance(exc, PtokitError) and not isinstance(exc, InternalError):
        raise exc                              # one message, as every ptokit command reports it
    print_program_traceback(exc)
    return 1


def print_program_traceback(exc: BaseException, file=None) -> None:
    """The traceback Python would print for the program, with its frames only: this runner's and
    runpy's frames before it and ptokit's own frames after its last one are left out (the
    program's line that called ptokit is the last shown)."""
    file = file or sys.stderr
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_globals.get("__name__") in (__name__, "runpy"):
        tb = tb.tb_next
    names, t = [], tb
    while t is not None:
        names.append(str(t.tb_frame.f_globals.get("__name__", "")))
        t = t.tb_next
    keep = len(names)
    while keep > 1 and (names[keep - 1] == "ptokit" or names[keep - 1].startswith("ptokit.")):
        keep -= 1
    traceback.print_exception(type(exc), exc, tb, limit=keep, file=file)


