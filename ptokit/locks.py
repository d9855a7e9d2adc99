"""An exclusive lock on a file, shared by the caches (build objects, jit entries).

``flock`` serialises processes building the same cache entry.  Waiting is bounded: a
lock still held after ``timeout`` seconds (longer than any single g++ run may take)
raises a ``PtokitError`` naming the lock file, so a stuck peer never hangs us silently.
"""
from __future__ import annotations

import contextlib
import fcntl
import os
import time
from pathlib import Path

from .errors import PtokitError

LOCK_TIMEOUT = 900.0      # seconds; g++ itself is given 600


class LockTimeout(PtokitError):
    """Another process held a cache lock for longer than the timeout."""


@contextlib.contextmanager
def exclusive_lock(path: Path, timeout: float = LOCK_TIMEOUT, what: str = "a cache entry"):
    path = Path(path)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        deadline = time.monotonic() + timeout
        delay = 0.002
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise LockTimeout(f"waited {timeout:.0f} s for another process building {what} "
                                      f"(lock {path}); if no ptokit process is running, delete the lock "
                                      f"file and retry") from None
                time.sleep(delay)
                delay = min(delay * 2, 0.1)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
