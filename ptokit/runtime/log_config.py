"""pypto's ``pypto.runtime.configure_log`` / ``log_level`` (``pypto.runtime.log_config``): pypto sets
its runtime library's log threshold with them.  ptokit's runtime writes no log files and prints
only errors, notices and progress, so the level set here is kept and reported by ``log_level()``
and changes nothing else."""
from __future__ import annotations

from typing import Optional, Union

_level: list = [None]


def configure_log(level: Union[int, str, None] = None, *, sync_pypto: bool = False) -> None:
    """Record the runtime log level (pypto's ``configure_log``); ``sync_pypto`` is pypto's switch to
    mirror it into its C++ core's logger, which ptokit does not have."""
    if isinstance(level, bool) or not isinstance(level, (int, str, type(None))):
        raise TypeError(f"configure_log: level must be an int or a level name, got {level!r}")
    if level is not None:
        _level[0] = level


def current_level() -> Optional[Union[int, str]]:
    """The level last given to ``configure_log`` (None before any)."""
    return _level[0]


__all__ = ["configure_log", "current_level"]
