"""Which arguments of a run share memory, judged by the memory itself, not by addresses.

Two arrays can hold the same bytes at different virtual addresses: one file memory-mapped twice
(``np.load(p, mmap_mode="r")`` and ``mmap_mode="r+"``), one shared-memory segment attached twice.
A write through one is then a write into the other. So a span of an argument is named by what
backs it: for a file mapping the file's device and inode and the byte range in the file; for
anonymous memory (the heap, numpy's own buffers) the virtual range, which nothing else can reach.

How each array is placed, cheapest first: an array whose chain of ``.base`` ends in an ndarray
that owns its data is numpy's heap allocation (its virtual range); a view of an ``np.memmap``
names its file (``filename``, ``offset``: one ``stat``); anything else (an ``mmap``, a buffer of
another library) is looked up in ``/proc/self/maps``, read once per run that needs it (0.1 ms
on a quiet machine, a few ms under load). ``ExternalTensor`` arguments keep their virtual range:
they name device addresses the caller manages (the distributed runtime's windows, mapped once).
"""
from __future__ import annotations

import bisect
import os
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

Span = Tuple[tuple, int, int]          # (what backs it, lo, hi)


def _owner(arr):
    """(the object at the end of ``arr``'s ``.base`` chain, the outermost np.memmap on it or None)."""
    a, mm = arr, None
    while isinstance(a, np.ndarray) and a.base is not None:
        if isinstance(a, np.memmap) and not isinstance(a.base, np.ndarray):
            mm = a
        a = a.base
    return a, mm


def provably_private(arr) -> bool:
    """True for a numpy array whose bytes are numpy's own heap allocation (or a view of one)."""
    a, _ = _owner(arr)
    return isinstance(a, np.ndarray) and a.flags.owndata


def _memmap_span(arr, lo: int, hi: int) -> Optional[Span]:
    """The file span of a view of an np.memmap (None when the map names no file that exists)."""
    _, mm = _owner(arr)
    name = getattr(mm, "filename", None)
    if mm is None or not name:
        return None
    try:
        st = os.stat(name)
    except OSError:
        return None
    base = mm.ctypes.data - int(getattr(mm, "offset", 0) or 0)   # where byte 0 of the file would be
    return (("file", st.st_dev, st.st_ino), lo - base, hi - base)


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
        major, _, minor = parts[3].partition(b":")
        key = ("file", os.makedev(int(major, 16), int(minor, 16)), inode) if inode else None
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


def backed_spans(ranges: Dict[int, Tuple[int, int]], arrays: Dict[int, object]) -> Dict[int, List[Span]]:
    """{argument index: its spans} for {argument index: (lo, hi) virtual byte range}; ``arrays``
    holds the numpy array of each index that is one (the others keep their virtual range)."""
    out: Dict[int, List[Span]] = {}
    unknown = []
    for i, (lo, hi) in ranges.items():
        arr = arrays.get(i)
        if arr is None or provably_private(arr):
            out[i] = [(("mem",), lo, hi)]
            continue
        span = _memmap_span(arr, lo, hi)
        if span is not None:
            out[i] = [span]
        else:
            unknown.append(i)
    if unknown:
        backing = Backing(True)
        for i in unknown:
            out[i] = backing.spans(*ranges[i])
    return out
