"""pypto's ``pypto.pypto_core`` (its C++ extension) at the same path in ptokit: the dtype
(``DataType``), the log-level switch and ``log_*``, and the submodules ``ir`` (core kinds, memory
spaces) and ``passes`` (configuration enums, the L0 tile chooser).  pypto's IR builder, visitors
and pass objects have no counterpart: asking for one is an ``AttributeError`` naming it."""
import enum
import sys

from ..ir.kinds import DType as DataType
from . import ir, passes  # noqa: F401


class LogLevel(enum.IntEnum):
    """pypto's log levels; ptokit's own messages are errors, notices and progress, so the level
    only filters the ``log_*`` calls below."""

    DEBUG = 0
    INFO = 1
    WARN = 2
    ERROR = 3
    FATAL = 4
    EVENT = 5
    NONE = 6


_level = [LogLevel.WARN]


def set_log_level(level: LogLevel) -> None:
    _level[0] = LogLevel(level)


def get_log_level() -> LogLevel:
    return _level[0]


def _logger(level):
    def log(message: str) -> None:
        if level >= _level[0] and _level[0] is not LogLevel.NONE:
            print(f"[{level.name}] {message}", file=sys.stderr)
    log.__name__ = f"log_{level.name.lower()}"
    return log


log_debug, log_info, log_warn, log_error, log_fatal, log_event = (
    _logger(lv) for lv in (LogLevel.DEBUG, LogLevel.INFO, LogLevel.WARN, LogLevel.ERROR, LogLevel.FATAL,
                           LogLevel.EVENT))
