"""Digests remembered across processes while the files they cover are unchanged.

Hashing ptokit's own code for the ``@pl.jit`` key, hashing the bundled headers for a build
key, and asking the compiler for its identity cost a new process 10-20 ms on every first
call, although none of these inputs changed since the last process. ``remembered(kind,
paths, compute)`` runs ``compute()`` once and stores its result in
``<cache root>/stat/<kind>-<hash of the paths>.json`` together with a signature of every
path's ``stat`` (name, size, mtime_ns, ctime_ns, inode); a later process whose signature
is the same reads the stored result instead of recomputing it. Any write to a covered
file changes its ctime (which no user call can set back), so an edited file is always
seen; a file that is added or removed changes the path list, hence the signature.

The record file is private to the user (``cachedir``); one that is not, or that does not
parse, is ignored and rewritten. ``PTOKIT_STAT_CACHE=0`` turns the store off (every
process recomputes).
"""
from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from . import cachedir

FORMAT = 1
# what this process read or computed (tests check that a new process reads, not computes)
STATS: Dict[str, int] = {"reads": 0, "computes": 0}


def enabled() -> bool:
    return os.environ.get("PTOKIT_STAT_CACHE", "1").strip().lower() not in ("0", "false", "no", "off")


def stat_key(paths: Sequence[str]) -> tuple:
    """The stat of every path in order, as a tuple to compare within a process (no hashing):
    (size, mtime_ns, ctime_ns, inode), None for a missing one."""
    out = []
    stat = os.stat
    for p in paths:
        try:
            st = stat(p)
        except OSError:
            out.append(None)
            continue
        out.append((st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino))
    return tuple(out)


def signature(paths: Sequence[Path]) -> str:
    """sha256 over every path with its ``stat_key`` entry, in the given order (a missing path
    counts as such): what a record stored on disk is compared with."""
    h = hashlib.sha256()
    for p, st in zip(paths, stat_key(paths)):
        h.update(f"{p}\0{'missing' if st is None else chr(0).join(map(str, st))}\n".encode())
    return h.hexdigest()


def tree_files(root: Path, suffixes: Optional[Tuple[str, ...]] = None) -> List[str]:
    """Every regular file under ``root`` (``__pycache__`` folders skipped, symlinked folders not
    followed), with one of ``suffixes`` when given, sorted by their path relative to ``root``.
    ``os.scandir``'s entries say which names are files and folders without a ``stat`` each (the
    signature stats every file anyway)."""
    out = []
    todo = [str(root)]
    while todo:
        with os.scandir(todo.pop()) as it:
            for e in it:
                if e.is_dir(follow_symlinks=False):
                    if e.name != "__pycache__":
                        todo.append(e.path)
                elif (suffixes is None or e.name.endswith(suffixes)) and e.is_file():
                    out.append(e.path)
    base = len(str(root).rstrip(os.sep)) + 1
    return sorted(out, key=lambda p: p[base:].split(os.sep))


def _record_path(kind: str, paths: Sequence[Path]) -> Path:
    where = hashlib.sha256("\0".join(str(p) for p in paths[:1]).encode() + kind.encode()).hexdigest()[:16]
    return cachedir.checked_subdir("stat") / f"{kind}-{where}.json"


# a file changed this recently (seconds) may still change within the timestamp granularity of its
# filesystem: a value computed from it is not stored (remembered_reads)
SETTLE_S = 2.0


def remembered_reads(kind: str, anchor: Path, compute: Callable[[], Tuple[str, List[str]]]) -> str:
    """Like ``remembered``, for a value whose inputs are known only once it is computed:
    ``compute()`` returns ``(value, paths it read)``, and the record keeps those paths (files read,
    and paths looked for, missing ones included: one that appears changes the signature). The record
    is named by ``kind`` and ``anchor``. A value is stored only when no path it read changed while
    it was computed, nor in the ``SETTLE_S`` seconds before."""
    if not enabled():
        STATS["computes"] += 1
        return compute()[0]
    try:
        rec = _record_path(kind, [anchor])
    except (OSError, cachedir.UnsafeCacheError):
        STATS["computes"] += 1
        return compute()[0]
    m = _read_record(rec, kind)
    if m is not None and isinstance(m.get("paths"), list) and all(isinstance(p, str) for p in m["paths"]) \
            and m.get("signature") == signature(m["paths"]):
        STATS["reads"] += 1
        return m["value"]
    start = time.time()
    value, paths = compute()
    STATS["computes"] += 1
    paths = [str(p) for p in paths]
    if _settled(paths, start - SETTLE_S):
        try:
            cachedir.write_private(rec, json.dumps({"format": FORMAT, "kind": kind, "signature": signature(paths),
                                                    "paths": paths, "value": value}).encode())
        except OSError:
            pass
    return value


def _settled(paths: Sequence[str], before: float) -> bool:
    """True when every existing path was last changed before ``before`` (epoch seconds)."""
    limit = int(before * 1e9)
    for p in paths:
        try:
            st = os.stat(p)
        except OSError:
            continue
        if st.st_ctime_ns >= limit or st.st_mtime_ns >= limit:
            return False
    return True


def _read_record(rec: Path, kind: str) -> Optional[dict]:
    """The record at ``rec`` when it is a private file of the user, parses, and is of ``kind``."""
    try:
        with open(rec, "rb") as fh:
            if cachedir.private_file_ok(os.fstat(fh.fileno())):
                m = json.loads(fh.read())
                if (isinstance(m, dict) and m.get("format") == FORMAT and m.get("kind") == kind
                        and isinstance(m.get("value"), str)):
                    return m
    except (OSError, ValueError):
        pass
    return None


def remembered(kind: str, paths: Sequence[Path], compute: Callable[[], str]) -> str:
    """``compute()``, or the value a process stored for the same ``kind`` while every one of
    ``paths`` had the stat it has now."""
    if not enabled() or not paths:
        STATS["computes"] += 1
        return compute()
    sig = signature(paths)
    try:
        rec = _record_path(kind, paths)
    except (OSError, cachedir.UnsafeCacheError):
        STATS["computes"] += 1
        return compute()
    m = _read_record(rec, kind)
    if m is not None and m.get("signature") == sig:
        STATS["reads"] += 1
        return m["value"]
    value = compute()
    STATS["computes"] += 1
    if signature(paths) == sig:      # nothing changed while computing: safe to store
        try:
            cachedir.write_private(rec, json.dumps({"format": FORMAT, "kind": kind, "signature": sig,
                                                    "value": value}).encode())
        except OSError:
            pass
    return value
