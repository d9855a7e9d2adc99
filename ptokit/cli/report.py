"""How a command's failure reaches the person who ran it: one message, a non-zero exit.

* an error of the user's to fix (``ptokit.errors.UserError`` and the other deliberate
  ``PtokitError`` kinds: a failed build, a failed run, a cache lock held too long) prints
  ``ptokit CMD: error: MESSAGE`` (a located error prints its ``file:line:col: error:`` text) and
  exits 1;
* an operating-system error (a file that cannot be read or written, a full disk) is reported
  the same way, naming the file;
* anything else is a bug in ptokit: one line says so and names the log file that holds the
  full traceback (under the cache folder's ``logs/``, else the temp folder); exit 70
  (``EX_SOFTWARE``).

A ``SystemExit`` becomes the return code (argparse's usage errors: 2); Ctrl-C exits 130.
"""
from __future__ import annotations

import datetime
import os
import platform
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Callable, Optional, Sequence

from .. import __version__
from ..errors import InternalError, PtokitError, UserError

USER_ERROR_EXIT = 1
INTERNAL_ERROR_EXIT = 70        # EX_SOFTWARE (sysexits.h)
INTERRUPTED_EXIT = 130


def user_message(exc: PtokitError) -> str:
    text = str(exc)
    if isinstance(exc, UserError) and exc.loc is not None:
        return text                 # already "file:line:col: error: ..." with the line and a caret
    return f"error: {text}"


def os_message(exc: OSError) -> str:
    what = exc.strerror or str(exc) or type(exc).__name__
    if exc.filename is not None:
        where = f"{exc.filename}" + (f" -> {exc.filename2}" if exc.filename2 is not None else "")
        return f"error: {where}: {what}"
    return f"error: {what}"


def _log_dirs():
    try:
        # lazy: only a failure needs the cache location, and a broken runtime package must not
        # stop the report (the temp folder is the fallback)
        from ..runtime.build import cache_path
        yield cache_path() / "logs"
    except Exception:  # noqa: BLE001 - any problem finding the cache: use the temp folder
        pass
    yield Path(tempfile.gettempdir()) / f"ptokit-logs-{os.getuid() if hasattr(os, 'getuid') else 'user'}"


def write_crash_log(command: str, argv: Sequence[str], exc: BaseException) -> Optional[Path]:
    """Write the traceback of ``exc`` to a new log file; returns its path (None if none could be written)."""
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    text = (f"ptokit {__version__} internal error\n"
            f"command: ptokit {command} {' '.join(argv)}\n"
            f"python: {sys.version.split()[0]} on {platform.platform()}\n\n"
            + "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)))
    for folder in _log_dirs():
        try:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            path = folder / f"ptokit-{command}-{stamp}-{os.getpid()}.log"
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
            return path
        except OSError:
            continue
    return None


def _one_line(text: str, limit: int = 300) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[:limit - 3] + "..."


def report_internal(prog: str, command: str, argv: Sequence[str], exc: BaseException) -> int:
    if isinstance(exc, InternalError):
        what = _one_line(str(exc))
    else:
        detail = _one_line(str(exc))
        what = f"internal error (a ptokit bug, please report it): {type(exc).__name__}" + (f": {detail}" if detail else "")
    log = write_crash_log(command, argv, exc)
    if log is not None:
        print(f"{prog}: {what} -- the full traceback is in {log}", file=sys.stderr)
    else:   # nowhere to write it: the traceback is the only record, so print it after all
        print(f"{prog}: {what} -- no log file could be written; the traceback follows", file=sys.stderr)
        traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
    return INTERNAL_ERROR_EXIT


def output_closed() -> int:
    """The reader of our output went away (``ptokit ... | head``): nothing is left to tell anyone;
    point stdout at /dev/null so the interpreter's final flush does not complain either."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return USER_ERROR_EXIT


def run_command(command: str, handler: Callable[[list], Optional[int]], argv: Sequence[str]) -> int:
    """Run ``handler(argv)`` and turn every failure into a message and an exit code."""
    prog = f"ptokit {command}"
    argv = list(argv)
    try:
        return int(handler(argv) or 0)
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            return int(exc.code or 0)
        print(f"{prog}: {exc.code}", file=sys.stderr)
        return USER_ERROR_EXIT
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return INTERRUPTED_EXIT
    except InternalError as exc:
        return report_internal(prog, command, argv, exc)
    except PtokitError as exc:
        print(f"{prog}: {user_message(exc)}", file=sys.stderr)
        return USER_ERROR_EXIT
    except BrokenPipeError:
        return output_closed()
    except OSError as exc:
        print(f"{prog}: {os_message(exc)}", file=sys.stderr)
        return USER_ERROR_EXIT
    except Exception as exc:  # noqa: BLE001 - the point: no traceback reaches the user
        return report_internal(prog, command, argv, exc)
