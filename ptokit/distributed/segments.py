"""POSIX shared-memory segments of distributed runs: windows, the host-tensor arena, the board.

Names are ``ptokit_<parent pid>_<call seq>_<k>`` (``/dev/shm/<name>`` on Linux).  The parent
creates every segment with ``multiprocessing.shared_memory`` (zero-filled; its resource tracker
also removes them should the parent be killed); ranks attach by name with a plain ``mmap`` that
never registers with a resource tracker, and only the parent unlinks.  Before a run the parent
removes the segments of parents that are no longer alive (``sweep_dead``).
"""
from __future__ import annotations

import ctypes
import mmap
import os
import re
from multiprocessing import shared_memory
from pathlib import Path
from typing import List, Optional

PREFIX = "ptokit_"
SHM_DIR = Path("/dev/shm")
PAGE = mmap.PAGESIZE
_NAME = re.compile(r"^ptokit_(\d+)_(\d+)_(\d+)$")


def segment_name(parent_pid: int, call_seq: int, k: int) -> str:
    return f"{PREFIX}{parent_pid}_{call_seq}_{k}"


def round_up(n: int, a: int) -> int:
    return (n + a - 1) // a * a


class Segment:
    """One mapped segment: ``name``, ``size``, ``addr`` (its address in this process)."""

    def __init__(self, name: str, size: int, mm, owner=None):
        self.name = name
        self.size = size
        self._mm = mm                    # mmap (ranks) or the SharedMemory's buffer (parent)
        self._owner = owner              # the SharedMemory object in the parent
        self._anchor = (ctypes.c_char * max(size, 1)).from_buffer(mm) if size else None
        self.addr = ctypes.addressof(self._anchor) if self._anchor is not None else 0

    @classmethod
    def create(cls, name: str, size: int) -> "Segment":
        """A new zero-filled segment (parent only); ``size`` is rounded up to whole pages."""
        size = round_up(max(int(size), 1), PAGE)
        shm = shared_memory.SharedMemory(name=name, create=True, size=size)
        return cls(name, size, shm.buf, owner=shm)

    @classmethod
    def attach(cls, name: str) -> "Segment":
        """Map an existing segment (ranks): no resource tracker, never unlinked here."""
        fd = os.open(str(SHM_DIR / name), os.O_RDWR)
        try:
            size = os.fstat(fd).st_size
            mm = mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        finally:
            os.close(fd)
        return cls(name, size, mm)

    def view(self):
        """A writable memoryview of the whole segment."""
        return memoryview(self._mm)

    def close(self) -> None:
        """Unmap (best effort: a numpy view someone still holds keeps the mapping alive)."""
        self._anchor = None
        try:
            if self._owner is not None:
                self._owner.close()
            elif self._mm is not None:
                self._mm.close()
        except BufferError:
            pass        # exported views remain; the pages go when they do
        self._mm = None

    def unlink(self) -> None:
        """Remove the name (parent only); idempotent."""
        try:
            if self._owner is not None:
                self._owner.unlink()
            else:
                os.unlink(SHM_DIR / self.name)
        except FileNotFoundError:
            pass


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def list_segments(parent_pid: Optional[int] = None) -> List[str]:
    """The ptokit segment names in /dev/shm (of one parent, or all)."""
    try:
        names = os.listdir(SHM_DIR)
    except OSError:
        return []
    out = []
    for n in sorted(names):
        m = _NAME.match(n)
        if m and (parent_pid is None or int(m.group(1)) == parent_pid):
            out.append(n)
    return out


def sweep_dead() -> List[str]:
    """Unlink the segments of parents that are no longer alive; returns their names."""
    removed = []
    for n in list_segments():
        pid = int(_NAME.match(n).group(1))
        if pid != os.getpid() and not _alive(pid):
            try:
                os.unlink(SHM_DIR / n)
                removed.append(n)
            except OSError:
                pass
    return removed


__all__ = ["Segment", "segment_name", "list_segments", "sweep_dead", "round_up", "PREFIX", "SHM_DIR", "PAGE"]
