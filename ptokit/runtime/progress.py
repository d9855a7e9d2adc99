"""Terminal progress for long builds: ``[done/total] objects built, elapsed``.

``BuildProgress`` is a ``progress(done, total)`` callback for ``build_tree`` /
``build_many``. It writes one self-overwriting line to stderr, and only when

* the stream is a terminal (``isatty()``),
* it was not asked to be quiet (``quiet=True``, ``--quiet``, or ``PTOKIT_PROGRESS=0``),
* the build has taken longer than ``delay`` seconds (a warm-cache build that finishes at
  once prints nothing).

``PTOKIT_PROGRESS=1`` forces it on even when the stream is not a terminal.
"""
from __future__ import annotations

import os
import sys
import threading
import time
from typing import Optional, TextIO

ENV_VAR = "PTOKIT_PROGRESS"
DEFAULT_DELAY = 0.5   # seconds a build must run before the line appears (when ``delay`` is None)


def progress_enabled(stream: Optional[TextIO] = None, quiet: bool = False) -> bool:
    """Whether progress should be shown on ``stream`` (default stderr)."""
    if quiet:
        return False
    env = os.environ.get(ENV_VAR, "").strip().lower()
    if env in ("0", "false", "no", "off"):
        return False
    if env in ("1", "true", "yes", "on"):
        return True
    stream = stream if stream is not None else sys.stderr
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):   # no isatty / closed stream
        return False


class BuildProgress:
    """``progress(done, total)`` callback that draws ``label: [done/total] built, 1.2 s``."""

    def __init__(self, label: str = "building", stream: Optional[TextIO] = None, quiet: bool = False,
                 delay: Optional[float] = None):
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = progress_enabled(self.stream, quiet)
        self.label = label
        self.delay = DEFAULT_DELAY if delay is None else delay
        self.t0 = time.monotonic()
        self.shown = False
        self._width = 0
        self._lock = threading.Lock()

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        elapsed = time.monotonic() - self.t0
        if elapsed < self.delay and done < total:
            return
        if elapsed < self.delay and not self.shown:   # finished before the delay: stay silent
            return
        with self._lock:
            text = f"{self.label}: [{done}/{total}] built, {elapsed:.1f} s"
            pad = " " * max(self._width - len(text), 0)
            self._width = len(text)
            try:
                self.stream.write("\r" + text + pad)
                self.stream.flush()
            except (ValueError, OSError):
                self.enabled = False
                return
            self.shown = True

    def close(self) -> None:
        """End the progress line (a newline) if anything was drawn."""
        with self._lock:
            if self.shown:
                try:
                    self.stream.write("\n")
                    self.stream.flush()
                except (ValueError, OSError):
                    pass
                self.shown = False

    def __enter__(self) -> "BuildProgress":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


__all__ = ["BuildProgress", "progress_enabled", "ENV_VAR"]
