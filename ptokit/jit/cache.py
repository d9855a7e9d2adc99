"""The ``@pl.jit`` compile cache on disk, its key, and the explain log.

Layout under ``<cache root>/jit/`` (root: ``ptokit.runtime.build.cache_path()``,
i.e. ``$PTOKIT_CACHE_DIR`` / ``$XDG_CACHE_HOME/ptokit`` / ``~/.cache/ptokit``)::

    <group>/<key>/            one entry: the artifact tree + manifest.json
    <group>/<key>.lock        flock serialising builders of one key
    <group>/.tmp-*            entries being written (never read; a dead writer's are swept)

``<group>`` names the jit function (``module.qualname`` + a short hash).  An entry
is written into a temporary folder and published with one ``os.rename``, so a
reader sees either no entry or a complete one.  ``manifest.json`` records the key
components, the sha256 of every artifact file and its own sha256; an entry whose
manifest or files do not match is treated as missing, moved aside and rebuilt.

``PTOKIT_CACHE=0`` disables the cache (every compile writes a fresh temporary
tree).  ``PTOKIT_EXPLAIN_CACHE=1`` logs, for every miss, which key component
changed relative to the closest earlier entry of the same function (logger
``ptokit.jit`` and stderr).
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import re
import shutil
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from ..artifacts import PROFILE_DIR
from ..locks import exclusive_lock
from ..runtime import statcache
from ..runtime.build import cache_path, compiler, compiler_identity
from ..runtime.cachedir import DEAD_WRITER_GRACE, DIR_MODE, FILE_MODE, checked_root, ensure_dir, is_stale_temp


@functools.lru_cache(maxsize=None)
def logger():
    """The ``ptokit.jit`` logger.  ``logging`` loads on first use (it is ~3 ms of a warm call's
    import); until some code has imported ``logging`` nobody can have given this logger a handler
    or a level, so the DEBUG records below are skipped, not lost (``debug_enabled``)."""
    import logging   # lazy: see above
    return logging.getLogger("ptokit.jit")


def debug_enabled() -> bool:
    """Whether a DEBUG record of the ``ptokit.jit`` logger would reach a handler."""
    return "logging" in sys.modules and logger().isEnabledFor(10)

MANIFEST = "manifest.json"
FORMAT = 1
# folders of diagnostics that may be added to an entry after it is published (not hashed): the
# pass dumps, and the compile profile (RunConfig(compile_profiling=True))
DUMP_DIRS = ("passes_dump", "ptoas_passes", PROFILE_DIR)

STATS: Dict[str, int] = {"memory_hits": 0, "disk_hits": 0, "misses": 0, "codegen_runs": 0, "corrupt_rebuilt": 0}


def reset_stats() -> None:
    for k in STATS:
        STATS[k] = 0


# ---------------------------------------------------------------- switches

def cache_enabled() -> bool:
    return os.environ.get("PTOKIT_CACHE", "1").strip().lower() not in ("0", "false", "no", "off")


def explain_enabled() -> bool:
    return os.environ.get("PTOKIT_EXPLAIN_CACHE", "").strip().lower() in ("1", "true", "yes", "on")


def explain(message: str) -> None:
    """Log one cache decision (always at DEBUG; at INFO + stderr with PTOKIT_EXPLAIN_CACHE=1)."""
    if explain_enabled():
        logger().info(message)
        print(f"[ptokit.jit] {message}", file=sys.stderr, flush=True)
    elif debug_enabled():
        logger().debug(message)


# ---------------------------------------------------------------- locations

def jit_cache_dir() -> Path:
    return cache_path() / "jit"


def jit_cache_path() -> str:
    """``ptokit cache path``: where the jit entries live."""
    return str(jit_cache_dir())


def group_name(qualified: str) -> str:
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", qualified)[-80:]
    return f"{safe}-{hashlib.sha256(qualified.encode()).hexdigest()[:10]}"


def _entries(root: Path):
    if not root.is_dir():
        return
    for group in sorted(root.iterdir()):
        if not group.is_dir():
            continue
        for e in sorted(group.iterdir()):
            if e.is_dir() and not e.name.startswith("."):
                yield group, e


def _tree_bytes(path: Path) -> int:
    total = 0
    for p in path.rglob("*"):
        try:
            if p.is_file():
                total += p.stat().st_size
        except OSError:
            pass
    return total


def jit_cache_stat() -> dict:
    """``{"path", "entries", "functions", "bytes", "items": [{"function", "key", "bytes", "created"}]}``."""
    root = jit_cache_dir()
    items = []
    groups = set()
    for group, e in _entries(root):
        groups.add(group.name)
        created = None
        function = group.name
        try:
            m = json.loads((e / MANIFEST).read_text())
            created = m.get("created")
            function = m.get("components", {}).get("function", function)
        except (OSError, ValueError):
            pass
        items.append({"function": function, "key": e.name, "bytes": _tree_bytes(e), "created": created})
    return {"path": str(root), "entries": len(items), "functions": len(groups),
            "bytes": sum(i["bytes"] for i in items), "items": items}


def jit_cache_clear() -> int:
    """Remove every jit entry; returns how many there were."""
    root = jit_cache_dir()
    n = sum(1 for _ in _entries(root))
    if root.is_dir():
        shutil.rmtree(root, ignore_errors=True)
    return n


# short names (ptokit.jit.cache.stat() / clear() / path())
stat = jit_cache_stat
clear = jit_cache_clear
path = jit_cache_path


# ---------------------------------------------------------------- key

def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@functools.lru_cache(maxsize=None)
def ptokit_identity() -> str:
    """ptokit's version plus a hash of its installed Python code and bundled C++ headers/sources
    (remembered across processes while no file's stat changed: ``runtime.statcache``)."""
    pkg = Path(__file__).resolve().parents[1]
    files = statcache.tree_files(pkg, (".py", ".h", ".hpp", ".cpp", ".inc", ".def"))

    def compute() -> str:
        h = hashlib.sha256()
        for name in files:
            p = Path(name)
            h.update(str(p.relative_to(pkg)).encode() + b"\0")
            h.update(p.read_bytes())
            h.update(b"\0")
        # the package is loaded before any of its modules; read from it, not imported: ptokit.compile
        # imports this cache, so an import of ptokit here would be a circle
        version = sys.modules[__name__.split(".")[0]].__version__
        return f"{version}+{h.hexdigest()[:20]}"

    return statcache.remembered("ptokit-identity", [str(pkg)] + files, compute)


def compiler_id() -> str:
    try:
        return compiler_identity(compiler())
    except Exception as exc:  # noqa: BLE001 - no g++: compile-only use still works
        return f"unavailable ({type(exc).__name__})"


def key_hash(components: dict) -> str:
    return _sha(json.dumps(components, sort_keys=True, default=str).encode())[:40]


_LABELS = {
    "source": "source of the @pl.jit function",
    "program_source": "source of the @pl.program (or a module-level @pl.function it calls)",
    "files": "file or first line of the program's source",
    "platform": "platform",
    "runtime": "runtime kind",
    "ptokit": "ptokit version / installed code",
    "compiler": "C++ compiler identity",
}


def diff_components(old: dict, new: dict) -> List[str]:
    """Human-readable differences between two key-component dicts."""
    out: List[str] = []
    for k in sorted(set(old) | set(new)):
        a, b = old.get(k), new.get(k)
        if a == b or k == "function":
            continue
        if k == "helpers":
            a, b = a or {}, b or {}
            for h in sorted(set(a) | set(b)):
                if h not in a:
                    out.append(f"helper {h} is new")
                elif h not in b:
                    out.append(f"helper {h} is no longer used")
                elif a[h] != b[h]:
                    out.append(f"source of helper {h} changed")
        elif k == "constants":
            a, b = a or {}, b or {}
            for c in sorted(set(a) | set(b)):
                if a.get(c) != b.get(c):
                    out.append(f"module constant {c} changed: {a.get(c, '(unset)')} -> {b.get(c, '(unset)')}")
        elif k == "args":
            a, b = a or [], b or []
            if len(a) != len(b):
                out.append(f"argument count changed: {len(a)} -> {len(b)}")
            for x, y in zip(a, b):
                if x != y:
                    out.append(f"argument changed: {x} -> {y}")
        elif k == "options":
            a, b = a or {}, b or {}
            for o in sorted(set(a) | set(b)):
                if a.get(o) != b.get(o):
                    out.append(f"compile option {o} changed: {a.get(o)} -> {b.get(o)}")
        else:
            label = _LABELS.get(k, k)
            if k in ("source", "program_source"):
                out.append(f"{label} changed")
            else:
                out.append(f"{label} changed: {a} -> {b}")
    return out


# ---------------------------------------------------------------- entries

def _file_hashes(entry: Path) -> Dict[str, str]:
    files = {}
    for p in sorted(entry.rglob("*")):
        if not p.is_file():
            continue
        rel = p.relative_to(entry).as_posix()
        if rel == MANIFEST or rel.split("/")[0] in DUMP_DIRS:
            continue
        files[rel] = _sha(p.read_bytes())
    return files


def _manifest_digest(m: dict) -> str:
    body = {k: v for k, v in m.items() if k != "manifest_sha256"}
    return _sha(json.dumps(body, sort_keys=True).encode())


def write_manifest(entry: Path, key: str, components: dict, extra: Optional[dict] = None) -> None:
    m = {"format": FORMAT, "key": key, "components": components, "files": _file_hashes(entry),
         "created": time.strftime("%Y-%m-%dT%H:%M:%S"), **(extra or {})}
    m["manifest_sha256"] = _manifest_digest(m)
    tmp = entry / (MANIFEST + ".tmp")
    tmp.write_text(json.dumps(m, indent=1, sort_keys=True))
    os.replace(tmp, entry / MANIFEST)


def read_manifest(entry: Path) -> Optional[dict]:
    try:
        m = json.loads((entry / MANIFEST).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(m, dict) or m.get("manifest_sha256") != _manifest_digest(m):
        return None
    return m


def _checked_group(group_dir: Path) -> Path:
    """``group_dir`` created ``0700``, after checking the cache root (``cachedir.check_root``)."""
    checked_root()
    return ensure_dir(group_dir)


def validate_entry(entry: Path, key: str) -> Tuple[bool, str]:
    """(ok, why not): the manifest is intact, names this key, and every file matches its hash.
    A cache root that others may write is refused first (``UnsafeCacheError``)."""
    checked_root()
    if not entry.is_dir():
        return False, "missing"
    m = read_manifest(entry)
    if m is None:
        return False, "manifest unreadable or its hash does not match (truncated or edited)"
    if m.get("format") != FORMAT or m.get("key") != key:
        return False, "manifest is for another key"
    files = m.get("files") or {}
    for rel, digest in files.items():
        p = entry / rel
        try:
            data = p.read_bytes()
        except OSError:
            return False, f"file {rel} is missing"
        if _sha(data) != digest:
            return False, f"file {rel} does not match its recorded hash (truncated or edited)"
    if not files:
        return False, "manifest lists no files"
    return True, ""


@contextlib.contextmanager
def key_lock(group_dir: Path, key: str):
    _checked_group(group_dir)
    with exclusive_lock(group_dir / f"{key}.lock", what=f"the jit entry {group_dir.name}/{key[:12]}"):
        yield


def sweep_stale_entries(group_dir: Path) -> int:
    """Remove the temporary folders of dead or long-gone writers (``.tmp-*``) and leftover
    ``.trash-*`` folders of this group; returns how many."""
    now = time.time()
    n = 0
    for p in list(group_dir.glob(".tmp-*")) + list(group_dir.glob(".trash-*")):
        try:
            age = now - p.lstat().st_mtime
        except OSError:
            continue
        if p.is_dir() and (is_stale_temp(p.name, age) or (p.name.startswith(".trash-") and age > DEAD_WRITER_GRACE)):
            shutil.rmtree(p, ignore_errors=True)
            n += 1
    return n


def new_temp_dir(group_dir: Path, key: str) -> Path:
    _checked_group(group_dir)
    sweep_stale_entries(group_dir)
    import tempfile   # lazy: only a miss writes an entry (a warm process never imports it)
    return Path(tempfile.mkdtemp(prefix=f".tmp-{key[:12]}.pid{os.getpid()}.", dir=group_dir))


def start_miss(group_dir: Path, entry: Path, key: str, label: str, why: str, explain_new) -> Path:
    """A miss, under the key's lock: a corrupt entry (``why``) is counted, explained and moved
    aside, else ``explain_new()`` says why there was none; returns the temporary folder to write
    the new entry into (``publish``)."""
    if entry.exists():
        STATS["corrupt_rebuilt"] += 1
        explain(f"cache miss for {label}: entry {entry.name} is corrupt ({why}); rebuilding it")
        discard(entry)
    else:
        explain_new()
    STATS["misses"] += 1
    return new_temp_dir(group_dir, key)


def enter(tmp: Path, entry: Path, key: str, components: dict) -> None:
    """Write the manifest of the tree built in ``tmp`` and publish it as ``entry`` (``tmp`` is
    removed if that fails)."""
    try:
        write_manifest(tmp, key, components)
        publish(tmp, entry, key)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def discard(path: Path) -> None:
    """Move a folder out of the way (one rename), then delete it."""
    if not path.exists():
        return
    import uuid   # lazy: as tempfile above
    trash = path.parent / f".trash-{path.name}-{uuid.uuid4().hex[:8]}"
    try:
        os.rename(path, trash)
    except OSError:
        trash = path
    shutil.rmtree(trash, ignore_errors=True)


def _make_private(folder: Path) -> None:
    """Folders ``0700``, files ``0600`` under ``folder`` (generated files follow the umask)."""
    os.chmod(folder, DIR_MODE)
    for p in folder.rglob("*"):
        if p.is_symlink():
            continue
        os.chmod(p, DIR_MODE if p.is_dir() else FILE_MODE)


def publish(tmp: Path, entry: Path, key: str) -> Path:
    """Atomically make ``tmp`` the entry for ``key``; if a valid entry already exists keep it."""
    _make_private(tmp)
    for _ in range(5):
        try:
            os.rename(tmp, entry)
            return entry
        except OSError:
            ok, _why = validate_entry(entry, key)
            if ok:
                shutil.rmtree(tmp, ignore_errors=True)
                return entry
            discard(entry)
    raise OSError(f"could not publish the jit cache entry {entry}")


def closest_entry(group_dir: Path, components: dict) -> Tuple[Optional[Path], List[str]]:
    """The earlier entry of this function whose key differs least, and the differences."""
    best: Tuple[Optional[Path], List[str]] = (None, [])
    best_n = None
    if not group_dir.is_dir():
        return best
    for e in group_dir.iterdir():
        if not e.is_dir() or e.name.startswith("."):
            continue
        m = read_manifest(e)
        if m is None:
            continue
        diffs = diff_components(m.get("components", {}), components)
        if not diffs:
            continue
        if best_n is None or len(diffs) < best_n:
            best, best_n = (e, diffs), len(diffs)
    return best
