"""Which arguments of a run share memory, judged by the memory itself, not by addresses.

Two arrays can hold the same bytes at different virtual addresses: one file memory-mapped twice
(``np.load(p, mmap_mode="r")`` and ``mmap_mode="r+"``), one shared-memory segment attached twice.
A write through one is then a write into the other. So a span of an argument is named by what
backs it: for a file mapping (any mapping with an inode: files, ``/dev/shm``, memfd) the file's
device and inode and the byte range in the file; for anonymous memory (the heap, numpy's own
buffers) the virtual range, which nothing else can reach.

Reading ``/proc/self/maps`` costs ~0.1 ms, so it is read only when some argument's buffer is not
provably private: an array whose chain of ``.base`` ends in an ndarray that owns its data was
allocated by numpy on the heap, and only its virtual address can reach it.
"""
from __future__ import annotations

import bisect
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

Span = Tuple[tuple, int, int]          # (what backs it, lo, hi)


def provably_private(arr) -> bool:
    """True for a numpy array whose bytes are numpy's own heap allocation (or a view of one)."""
    a = arr
    while isinstance(a, np.ndarray) and a.base is not None:
        a = a.base
    return isinstance(a, np.ndarray) and a.flags.owndata


def _read_maps(path: str = "/proc/self/maps") -> Optional[List[tuple]]:
    """[(start, end, key or None, file offset)] sorted by start; None where there is no such file."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    out = []
    for line in data.splitlines():
        parts = line.split(None, 5)
        if len(parts) < 5:
            continue
        lo, _, hi = parts[0].partition(b"-")
        inode = int(parts[4])
        key = ("file", parts[3].decode(), inode) if inode else None
        out.append((int(lo, 16), int(hi, 16), key, int(parts[2], 16)))
    out.sort()
    return out


class Backing:
    """Translates virtual byte ranges into spans of what backs them (see the module docstring)."""

    def __init__(self, need_maps: bool):
        self.maps = _read_maps() if need_maps else None
        self.starts = [m[0] for m in self.maps] if self.maps else []

    def spans(self, lo: int, hi: int) -> List[Span]:
        if not self.maps or hi <= lo:
            return [(("mem",), lo, hi)]
        out: List[Span] = []
        k = max(bisect.bisect_right(self.starts, lo) - 1, 0)
        pos = lo
        while pos < hi and k < len(self.maps):
            start, end, key, off = self.maps[k]
            if end <= pos:
                k += 1
                continue
            if start > pos:                  # a hole (cannot be in an array): itself
                out.append((("mem",), pos, min(start, hi)))
                pos = min(start, hi)
                continue
            top = min(end, hi)
            if key is None:
                out.append((("mem",), pos, top))
            else:
                out.append((key, off + (pos - start), off + (top - start)))
            pos = top
            k += 1
        if pos < hi:
            out.append((("mem",), pos, hi))
        return out


def overlapping(a: Sequence[Span], b: Sequence[Span]) -> bool:
    return any(ka == kb and lo_a < hi_b and lo_b < hi_a for ka, lo_a, hi_a in a for kb, lo_b, hi_b in b)


def backed_spans(ranges: Dict[int, Tuple[int, int]], private: bool) -> Dict[int, List[Span]]:
    """{argument index: its spans} for {argument index: (lo, hi) virtual byte range}; ``private``:
    every range is provably private (no need to read the mappings)."""
    backing = Backing(not private)
    return {i: backing.spans(lo, hi) for i, (lo, hi) in ranges.items()}
