"""The cache root on disk: private folders and files, checked before anything is loaded.

Root: ``$PTOKIT_CACHE_DIR``, else ``$XDG_CACHE_HOME/ptokit``, else ``~/.cache/ptokit``.
It holds the build objects (``build/``), the simulator's images (``sim_images/``) and the
``@pl.jit`` entries (``jit/``), all of which end up ``dlopen``ed or compiled, so:

* every folder ptokit creates there (the root included) is ``0700`` and every file
  ``0600`` (``0700`` for shared objects), whatever the umask;
* before anything is loaded, ``checked_root()`` refuses a root that is not a folder owned
  by the current user, or that group or others may write (``UnsafeCacheError``);
* a file is loaded only after ``verified_file`` re-hashed it (and found it owned by the
  user and not writable by anyone else).

Temporary files are named ``.<stem>.pid<PID>.<random><suffix>`` so that the next build can
tell a dead writer's leftovers from a live one's work in progress (``sweep_temp_files``).
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import time
from pathlib import Path
from typing import Optional

from ..errors import UserError

DIR_MODE = 0o700
FILE_MODE = 0o600
EXEC_MODE = 0o700         # shared objects
STALE_AGE = 3600.0        # s: older than any build can take (g++ gets 600 s, a cache lock 900 s)
DEAD_WRITER_GRACE = 60.0  # s: a temp file of a dead pid this old is left over (another pid namespace may share the cache)

_TEMP_PID_RE = re.compile(r"\.pid(\d+)\.")


class UnsafeCacheError(UserError):
    """The cache root may be written by someone else: nothing is loaded from it."""


def cache_path() -> Path:
    """The cache root (not only the build part of it); not created or checked here."""
    env = os.environ.get("PTOKIT_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg:
        return Path(xdg).expanduser() / "ptokit"
    return Path.home() / ".cache" / "ptokit"


def ensure_dir(path: Path) -> Path:
    """Create ``path`` and its missing parents as ``0700`` (whatever the umask); existing
    folders are left as they are."""
    path = Path(path)
    missing = []
    p = path
    while not p.is_dir():
        missing.append(p)
        if p.parent == p:
            break
        p = p.parent
    for d in reversed(missing):
        try:
            os.mkdir(d, DIR_MODE)
        except FileExistsError:
            continue
        os.chmod(d, DIR_MODE)
    return path


def _mode_text(mode: int) -> str:
    return f"{stat.S_IMODE(mode):04o}"


def check_root(root: Path) -> None:
    """Refuse a cache root owned by another user or writable by group or others."""
    try:
        st = os.stat(root)
    except OSError as exc:
        raise UnsafeCacheError(f"cache root {root}: {exc.strerror or exc}") from None
    fix = (f"make it private (chmod 700 {root}) or point PTOKIT_CACHE_DIR at a folder of your own")
    if not stat.S_ISDIR(st.st_mode):
        raise UnsafeCacheError(f"cache root {root} is not a folder; {fix}")
    if st.st_uid != os.geteuid():
        raise UnsafeCacheError(f"refusing to load from the cache root {root}: it is owned by uid {st.st_uid}, "
                               f"not by you (uid {os.geteuid()}); point PTOKIT_CACHE_DIR at a folder of your own")
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        who = " and ".join(w for w, bit in (("group", stat.S_IWGRP), ("others", stat.S_IWOTH)) if st.st_mode & bit)
        raise UnsafeCacheError(f"refusing to load from the cache root {root}: it is writable by {who} "
                               f"(mode {_mode_text(st.st_mode)}), so anyone could plant code in it; {fix}")


def checked_root() -> Path:
    """The cache root, created private when missing, and checked (``check_root``)."""
    root = ensure_dir(cache_path())
    check_root(root)
    return root


def checked_subdir(name: str) -> Path:
    """``<checked root>/<name>``, created ``0700`` when missing."""
    return ensure_dir(checked_root() / name)


def private_file_ok(st: os.stat_result) -> bool:
    """A regular file owned by the user that nobody else may write."""
    return (stat.S_ISREG(st.st_mode) and st.st_uid == os.geteuid()
            and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH))


def sha256_verified(path: Path, digest: Optional[str] = None) -> Optional[str]:
    """The sha256 of a private file (``private_file_ok``), or None when it is missing, not
    private, or (``digest`` given) does not hash to ``digest``."""
    try:
        with open(path, "rb") as fh:
            if not private_file_ok(os.fstat(fh.fileno())):
                return None
            h = hashlib.sha256()
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
    except OSError:
        return None
    got = h.hexdigest()
    return got if digest is None or got == digest else None


def read_private_json(path: Path) -> Optional[dict]:
    """The JSON object in a private file of the user (a cache sidecar), or None when it is missing,
    not private, not JSON or not an object."""
    try:
        with open(path, "rb") as fh:
            if not private_file_ok(os.fstat(fh.fileno())):
                return None
            meta = json.loads(fh.read())
    except (OSError, ValueError):
        return None
    return meta if isinstance(meta, dict) else None


def temp_path(folder: Path, stem: str, suffix: str = ".tmp") -> Path:
    """A fresh temporary name in ``folder`` carrying this process's pid (not created)."""
    return Path(folder) / f".{stem}.pid{os.getpid()}.{os.urandom(6).hex()}{suffix}"


def create_private(path: Path, mode: int = FILE_MODE) -> int:
    """Create ``path`` exclusively with ``mode`` (umask-proof); returns the open fd."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    os.fchmod(fd, mode)
    return fd


def write_private(path: Path, data: bytes, mode: int = FILE_MODE) -> Path:
    """Atomically put ``data`` at ``path`` (temp file + ``os.replace``) with ``mode``."""
    path = Path(path)
    tmp = temp_path(path.parent, path.name[:24])
    fd = create_private(tmp, mode)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    return path


def _pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:        # exists, but not ours to signal
        return True
    return True


def is_stale_temp(name: str, age: float) -> bool:
    """A temporary entry is stale when older than any build could take, or when its writer
    (the pid in its name) is dead and it is past a short grace period."""
    if age > STALE_AGE:
        return True
    m = _TEMP_PID_RE.search(name)
    return bool(m) and age > DEAD_WRITER_GRACE and not _pid_alive(int(m.group(1)))


def sweep_temp_files(folder: Path, pattern: str = ".*.tmp") -> int:
    """Remove stale temporary files (``is_stale_temp``) matching ``pattern`` in ``folder``;
    returns how many were removed.  Errors (a racing sweeper) are ignored."""
    now = time.time()
    removed = 0
    try:
        entries = list(Path(folder).glob(pattern))
    except OSError:
        return 0
    for p in entries:
        try:
            st = p.lstat()
            if stat.S_ISREG(st.st_mode) and is_stale_temp(p.name, now - st.st_mtime):
                p.unlink()
                removed += 1
        except OSError:
            pass
    return removed


__all__ = [
    "UnsafeCacheError", "cache_path", "ensure_dir", "check_root", "checked_root", "checked_subdir",
    "private_file_ok", "sha256_verified", "temp_path", "create_private", "write_private",
    "is_stale_temp", "sweep_temp_files", "DIR_MODE", "FILE_MODE", "EXEC_MODE",
]
