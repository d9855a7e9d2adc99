"""g++ driver and the content-addressed build cache.

``compile_shared`` turns one C++ source into a shared object and caches it under
a key that is the sha256 of everything that decides the object's bytes:

* the source bytes;
* the headers it can see: the whole bundled include folder
  (``ptokit/runtime/include/``) when it is on the include path, plus every other
  header reached by following ``#include`` lines through the source's own folder
  and the other ``-I`` folders (recursively, each file hashed by content);
* the full flag list (base flags, defines, extra flags) -- but not folder paths,
  so a moved artifact tree still hits the cache;
* the compiler identity: ``g++ --version`` (first line) and ``g++ -dumpmachine``,
  computed once per process.

Objects live at ``<cache>/build/<key[:2]>/<key>.so`` with a sidecar
``<key>.json`` recording the object's own sha256.  Objects are written to a
temporary file in the same folder and ``os.replace``d into place, under a per-key
``flock`` so that two processes building the same key never interleave; a
cached object whose bytes no longer match its sidecar (or that is not a private
file of the user) is rebuilt, never used.  Folders are ``0700``, files ``0600``
(objects ``0700``) whatever the umask, and nothing is used from a cache root that
others may write (``ptokit.runtime.cachedir``).  Temporary files left by a killed
build are swept by the next one.

Cache root: ``$PTOKIT_CACHE_DIR``, else ``$XDG_CACHE_HOME/ptokit``, else
``~/.cache/ptokit``.  The compiler is ``$PTOKIT_CXX``, else ``$CXX``, else ``g++`` (compilers.py,
which also holds the per-compiler base flags and the vendor tile library mode).
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Optional, Sequence, Union

from ..artifacts.kernel_config import read_kernel_config
from ..locks import exclusive_lock
from ..errors import BuildError, UserError
from . import cachedir, compilers, pch, statcache
from .cachedir import cache_path
from .compilers import compiler, compiler_identity  # noqa: F401  (re-exported)

BASE_FLAGS = compilers.GCC_BASE_FLAGS   # g++'s; compilers.base_flags(cxx) gives any compiler's
KEY_VERSION = "ptokit-build-1"
INCLUDE_DIR = Path(__file__).resolve().parent / "include"
_MAX_OUTPUT_CHARS = 6000

# ---------------------------------------------------------------------------
# cache location
# ---------------------------------------------------------------------------


def _build_dir() -> Path:
    return cache_path() / "build"


_swept_roots: set = set()   # build folders whose stale temp files this process has swept


def sweep_build_temps(build_dir: Path) -> int:
    """Remove the stale temporary files of killed builds in every folder of ``build_dir``
    (``cachedir.is_stale_temp``); returns how many."""
    n = 0
    try:
        folders = [p for p in build_dir.iterdir() if p.is_dir()]
    except OSError:
        return 0
    for folder in folders:
        n += cachedir.sweep_temp_files(folder)
    return n


def _folder_bytes(root: Path) -> int:
    size = 0
    for dirpath, _, files in os.walk(root):
        for f in files:
            try:
                size += os.lstat(os.path.join(dirpath, f)).st_size
            except OSError:
                pass
    return size


def cache_stat() -> dict:
    """``{"path", "objects", "bytes", "pch_bytes"}`` of the build cache: ``bytes`` is every file
    under it (objects, their records, the precompiled headers), ``pch_bytes`` the headers' part."""
    root = _build_dir()
    count = 0
    if root.is_dir():
        count = sum(1 for p in root.glob("*/*") if p.suffix in (".so", ".o") and p.is_file())   # .o: library units
    return {"path": str(root), "objects": count, "bytes": _folder_bytes(root), "pch_bytes": _folder_bytes(root / "pch")}


def cache_total_bytes() -> int:
    """Every file under the cache root (build objects, precompiled headers, jit entries, records)."""
    return _folder_bytes(cache_path())


def cache_clear() -> int:
    """Remove every cached object; returns how many (``.so`` and a library's unit ``.o``) there were."""
    root = _build_dir()
    n = cache_stat()["objects"]
    if root.is_dir():
        shutil.rmtree(root, ignore_errors=True)
    return n


# ---------------------------------------------------------------------------
# compiler identity and header hashing
# ---------------------------------------------------------------------------


_INCLUDE_RE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\r\n]+)[>"]', re.M)
_file_memo: dict = {}
_memo_lock = threading.Lock()


def _file_info(path: Path) -> tuple[str, list[tuple[bytes, bytes]]]:
    """(sha256 hex, [(kind, name), ...] of its #include lines), memoised by the same stat fields
    as a record on disk (``statcache.stat_key``: size, mtime, ctime, inode): a same-size
    replacement whose mtime was put back (``cp -p``) still changes the ctime."""
    st = path.stat()
    sig = (str(path), st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
    with _memo_lock:
        hit = _file_memo.get(sig)
    if hit is not None:
        return hit
    data = path.read_bytes()
    info = (hashlib.sha256(data).hexdigest(), _INCLUDE_RE.findall(data))
    with _memo_lock:
        _file_memo[sig] = info
    return info


def _folder_digest(folder: Path, reads: Optional[list] = None) -> str:
    """sha256 over every file in a folder (relative names and contents); remembered across
    processes while no file's stat changed (``statcache``). ``reads`` gets the folder, its
    subfolders and files (what a later change would show in)."""
    files = [Path(p) for p in statcache.tree_files(folder)]
    if reads is not None:
        reads += [d for d, _, _ in os.walk(folder)] + [str(p) for p in files]

    def compute() -> str:
        h = hashlib.sha256()
        for p in files:
            h.update(p.relative_to(folder).as_posix().encode() + b"\0")
            h.update(_file_info(p)[0].encode() + b"\n")
        return h.hexdigest()

    return statcache.remembered("folder", [folder] + files, compute)


def _is_within(path: Path, folder: Path) -> bool:
    try:
        path.relative_to(folder)
        return True
    except ValueError:
        return False


def _header_digests(source: Path, include_dirs: Sequence[Path], reads: Optional[list] = None) -> list[str]:
    """Digest lines for every header the source can reach (see module doc). ``reads`` gets every
    path looked at: the folders, the headers found and the places a header was looked for."""
    lines: list[str] = []
    dirs = [Path(d).resolve() for d in include_dirs]
    bundled = INCLUDE_DIR.resolve()
    if any(d == bundled or _is_within(d, bundled) for d in dirs):
        lines.append(f"bundled-include {_folder_digest(bundled, reads)}")
    seen: set[Path] = set()
    stack = [source]
    while stack:
        cur = stack.pop()
        _, includes = _file_info(cur)
        for kind, name in includes:
            rel = name.decode("utf-8", "replace").strip()
            search = ([cur.parent] if kind == b'"' else []) + dirs
            for d in search:
                cand = (d / rel)
                if reads is not None:
                    reads.append(str(cand))
                if cand.is_file():
                    cand = cand.resolve()
                    if _is_within(cand, bundled):
                        break  # covered by the folder digest
                    if cand not in seen:
                        seen.add(cand)
                        lines.append(f"header {rel} {_file_info(cand)[0]}")
                        stack.append(cand)
                    else:
                        lines.append(f"header {rel} (seen)")
                    break
            # not found anywhere: a system header, covered by the compiler identity
    return lines


# ---------------------------------------------------------------------------
# compile one object
# ---------------------------------------------------------------------------


def _define_flag(d: str) -> str:
    return d if d.startswith("-D") else f"-D{d}"


def _trim(text: str) -> str:
    text = text.strip()
    if len(text) > _MAX_OUTPUT_CHARS:
        text = text[: _MAX_OUTPUT_CHARS // 2] + "\n  [... output trimmed ...]\n" + text[-_MAX_OUTPUT_CHARS // 2:]
    return text


def _sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _cached_ok(obj: Path, sidecar: Path) -> bool:
    """True when ``obj`` and its sidecar are private files of the user and the object's
    sha256 matches the sidecar's record."""
    meta = cachedir.read_private_json(sidecar)
    if meta is None or not isinstance(meta.get("sha256"), str):
        return False
    return cachedir.sha256_verified(obj, meta["sha256"]) is not None


def build_key(source, *, defines=(), include_dirs=(), extra_flags=(), system_include_dirs=()) -> str:
    """The cache key of a compile (exposed for tests and tools). Remembered across processes
    (``statcache.remembered_reads``) while the source, every header it reaches and every place a
    header was looked for keep their stat: a new process does not scan the headers again."""
    src = Path(source).resolve()
    flags = _flag_list(defines, extra_flags)
    if system_include_dirs:
        flags.append(f"-isystem x{len(system_include_dirs)}")   # the kind of folder, not its path
    head = (KEY_VERSION + "\n" + compiler_identity(compiler()) + "\n" + json.dumps(flags) + "\n").encode()
    dirs = [Path(d) for d in include_dirs] + [Path(d) for d in system_include_dirs]

    def compute():
        reads = [str(src)] + [str(d) for d in dirs]
        h = hashlib.sha256(head)
        h.update(b"source " + _file_info(src)[0].encode() + b"\n")
        for line in _header_digests(src, dirs, reads):
            h.update(line.encode() + b"\n")
        return h.hexdigest(), reads

    where = hashlib.sha256(head + "\0".join(map(str, dirs)).encode()).hexdigest()[:16]
    return statcache.remembered_reads(f"build-key-{where}", src, compute)


def _flag_list(defines, extra_flags) -> list[str]:
    extra = [str(f) for f in extra_flags]
    base = list(compilers.base_flags(compiler()))
    if any(f.startswith("-std=") for f in extra):     # a job's own language standard replaces the base one
        base = [f for f in base if not f.startswith("-std=")]
    if any(re.fullmatch(r"-O[0-3sgz]?|-Ofast", f) for f in extra):   # so does its optimisation level
        base = [f for f in base if not re.fullmatch(r"-O[0-3sgz]?|-Ofast", f)]
    if COMPILE_ONLY in extra:       # an object is not linked: clang warns of an unused -shared (-Werror)
        base = [f for f in base if f != "-shared"]
    return base + [_define_flag(str(d)) for d in defines] + extra


def _pch_flags(src: Path, flags: Sequence[str], inc: Sequence[Path], sysinc: Sequence[Path],
               wait: bool = False) -> list[str]:
    """``-include`` of the tile library's precompiled header where one applies (pch.py), else []."""
    cxx = compiler()
    if not pch.applies(src.read_bytes(), src, inc, sysinc, INCLUDE_DIR, cxx):
        return []
    hpp = pch.include_for(cxx, flags, INCLUDE_DIR, _folder_digest(INCLUDE_DIR.resolve()), wait=wait)
    return ["-include", str(hpp)] if hpp is not None else []


def precompiled_header(source, *, defines=(), include_dirs=(), extra_flags=(), system_include_dirs=()) -> Optional[Path]:
    """Make (or find) the precompiled header a compile of ``source`` with these arguments would use,
    waiting for another builder of it; its ``-include`` header, or None where none applies or g++
    refused it (pch.py). ``compile_shared`` does this itself; this is for tools and benchmarks."""
    flags = _pch_flags(Path(source).resolve(), _flag_list(defines, extra_flags), [Path(d) for d in include_dirs],
                       [Path(d) for d in system_include_dirs], wait=True)
    return Path(flags[1]) if flags else None
def _places(key: str, suffix: str = ".so") -> tuple:
    """(build folder, key folder, object, sidecar) of a build key (``suffix``: ``.o`` for a
    library's unit object)."""
    build_dir = cachedir.checked_root() / "build"
    folder = build_dir / key[:2]
    return build_dir, folder, folder / f"{key}{suffix}", folder / f"{key}.json"


# a unit of a library (``build_library``) is compiled to an object, not linked
COMPILE_ONLY = "-c"


def cached_object(job: "BuildJob") -> Optional[Path]:
    """The verified cached object of ``job`` (``_cached_ok``), or None when it has to be built."""
    src = Path(job.source)
    if not src.is_file():
        return None
    key = build_key(src, defines=job.defines, include_dirs=job.include_dirs, extra_flags=job.extra_flags,
                    system_include_dirs=job.system_include_dirs)
    _, _, obj, sidecar = _places(key, ".o" if COMPILE_ONLY in job.extra_flags else ".so")
    return obj if _cached_ok(obj, sidecar) else None


def compile_shared(source, *, defines=(), include_dirs=(), extra_flags=(), name_hint="",
                   system_include_dirs=()) -> Path:
    """Compile ``source`` into a cached shared object and return its path (``system_include_dirs``:
    ``-isystem`` folders, searched after ``include_dirs``; their headers' warnings are not reported).
    With ``-c`` among ``extra_flags`` (``COMPILE_ONLY``) the result is an object file (``.o``), a
    unit of a library (``build_library``)."""
    src = Path(source)
    if not src.is_file():
        raise UserError(f"C++ source not found: {src}")
    src = src.resolve()
    inc = [Path(d) for d in include_dirs]
    sysinc = [Path(d) for d in system_include_dirs]
    key = build_key(src, defines=defines, include_dirs=inc, extra_flags=extra_flags, system_include_dirs=sysinc)
    flags = _flag_list(defines, extra_flags)

    def command(tmp: Path) -> list:
        return ([compiler()] + flags + _pch_flags(src, flags, inc, sysinc)
                + [f"-I{d}" for d in inc] + [a for d in sysinc for a in ("-isystem", str(d))]
                + [str(src), "-o", str(tmp)])
    return _produce(key, ".o" if COMPILE_ONLY in flags else ".so", command, f"{src}", src.name,
                    name_hint or src.stem, {"source": str(src)}, name_hint)


def _produce(key: str, suffix: str, command: Callable[[Path], list], what: str, lock_name: str, name: str,
             meta_extra: dict, name_hint: str = "") -> Path:
    """The cached file of ``key``, verified, or made by running ``command(temp path)`` under the
    key's lock, recorded (sha256) and put in place atomically."""
    build_dir, folder, obj, sidecar = _places(key, suffix)
    if _cached_ok(obj, sidecar):
        return obj
    cachedir.ensure_dir(folder)
    if build_dir not in _swept_roots:      # once per process: leftovers of killed builds anywhere
        _swept_roots.add(build_dir)
        sweep_build_temps(build_dir)
    else:
        cachedir.sweep_temp_files(folder)
    with exclusive_lock(folder / f"{key}.lock", what=f"{lock_name}{f' ({name_hint})' if name_hint else ''}"):
        if _cached_ok(obj, sidecar):  # another builder finished while we waited
            return obj
        tmp = cachedir.temp_path(folder, key[:16], f"{suffix}.tmp")
        side_tmp = cachedir.temp_path(folder, f"{key[:16]}.json")
        os.close(cachedir.create_private(tmp))
        cmd = command(tmp)
        import subprocess   # lazy: only running a tool needs it (a warm call runs none)
        try:
            try:
                proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
            except (OSError, subprocess.TimeoutExpired) as exc:
                raise BuildError(f"cannot run the compiler: {exc}\ncommand: {' '.join(cmd)}") from exc
            if proc.returncode != 0:
                out = _trim((proc.stderr or "") + (proc.stdout or ""))
                label = f" ({name_hint})" if name_hint else ""
                raise BuildError(f"{cmd[0]} failed on {what}{label}\ncommand: {' '.join(cmd)}\n{out}")
            os.chmod(tmp, cachedir.EXEC_MODE)    # the linker recreates the file with the umask's mode
            digest = _sha256_file(tmp)
            meta = {"sha256": digest, "size": tmp.stat().st_size, "name": name, **meta_extra,
                    "command": cmd[:-1] + ["<out>"]}
            with os.fdopen(cachedir.create_private(side_tmp), "w") as fh:
                fh.write(json.dumps(meta, indent=1))
            os.replace(tmp, obj)
            os.replace(side_tmp, sidecar)
        finally:
            for t in (tmp, side_tmp):
                if t.exists():
                    t.unlink()
    if not _cached_ok(obj, sidecar):
        raise BuildError(f"build cache: object {obj} does not match its recorded hash right after writing it")
    return obj


# ---------------------------------------------------------------------------
# a library of several units
# ---------------------------------------------------------------------------


def _unit_job(job: "BuildJob") -> "BuildJob":
    return BuildJob(job.source, job.defines, job.include_dirs, tuple(job.extra_flags) + (COMPILE_ONLY,),
                    job.name_hint, job.system_include_dirs)


def library_key(units: Sequence["BuildJob"], link_flags: Sequence[str] = ()) -> str:
    """The cache key of a library linked from ``units``: every unit's own build key (which covers
    its source, headers and flags) and the link command's flags."""
    keys = [build_key(u.source, defines=u.defines, include_dirs=u.include_dirs, extra_flags=u.extra_flags,
                      system_include_dirs=u.system_include_dirs) for u in map(_unit_job, units)]
    head = KEY_VERSION + "\nlibrary\n" + compiler_identity(compiler()) + "\n" + json.dumps(_flag_list((), link_flags))
    return hashlib.sha256((head + "\n" + "\n".join(keys)).encode()).hexdigest()


def cached_library(units: Sequence["BuildJob"], link_flags: Sequence[str] = ()) -> Optional[Path]:
    """The verified cached library of ``units`` (``build_library``), or None when it has to be built."""
    if not all(Path(u.source).is_file() for u in units):
        return None
    _, _, obj, sidecar = _places(library_key(units, link_flags))
    return obj if _cached_ok(obj, sidecar) else None


def build_library(units: Sequence["BuildJob"], link_flags: Sequence[str] = (), name_hint: str = "") -> Path:
    """A shared library of several translation units: each unit compiled to an object (cached by
    its own build key, all at once on the pool of ``build_many``), then linked (cached by
    ``library_key``). A unit may carry flags of its own (an optimisation level): only the units
    whose sources or flags changed are compiled again."""
    units = list(units)
    cached = cached_library(units, link_flags)
    if cached is not None:
        return cached
    objs = build_many([_unit_job(u) for u in units])
    key = library_key(units, link_flags)
    flags = _flag_list((), link_flags)

    def command(tmp: Path) -> list:
        return [compiler()] + flags + [str(o) for o in objs] + ["-o", str(tmp)]
    return _produce(key, ".so", command, f"{len(objs)} objects of {name_hint or 'a library'}",
                    name_hint or "library", name_hint or "library",
                    {"units": [str(Path(u.source).resolve()) for u in units]}, name_hint)


# ---------------------------------------------------------------------------
# many objects, and a whole artifact tree
# ---------------------------------------------------------------------------


@dataclass
class BuildJob:
    source: Path
    defines: Sequence[str] = ()
    include_dirs: Sequence[Path] = ()
    extra_flags: Sequence[str] = ()
    name_hint: str = ""
    system_include_dirs: Sequence[Path] = ()


JobLike = Union[BuildJob, dict]


def build_many(jobs: Iterable[JobLike], max_workers: Optional[int] = None,
               progress: Optional[Callable[[int, int], None]] = None) -> list[Path]:
    """Compile every job in parallel; returns the object paths in job order.

    All jobs run to completion; if any failed, one ``BuildError`` reports all failures.
    """
    jobs = [j if isinstance(j, BuildJob) else BuildJob(**j) for j in jobs]
    total = len(jobs)
    if total == 0:
        return []
    workers = max(1, min(max_workers or os.cpu_count() or 1, total))
    done = 0
    done_lock = threading.Lock()

    def run(job: BuildJob) -> Path:
        nonlocal done
        try:
            return compile_shared(job.source, defines=job.defines, include_dirs=job.include_dirs,
                                  extra_flags=job.extra_flags, name_hint=job.name_hint,
                                  system_include_dirs=job.system_include_dirs)
        finally:
            if progress is not None:
                with done_lock:
                    done += 1
                    n = done
                progress(n, total)

    results: list = [None] * total
    errors: list[str] = []
    todo = []
    for i, job in enumerate(jobs):     # cache hits first, in this thread: no pool when all are hits
        try:
            results[i] = cached_object(job)
        except (BuildError, UserError):
            results[i] = None             # compile_shared reports it with the others
        if results[i] is None:
            todo.append(i)
        elif progress is not None:
            done += 1
            progress(done, total)
    if todo:
        from concurrent.futures import ThreadPoolExecutor   # lazy: only a build needs the pool
        with ThreadPoolExecutor(max_workers=min(workers, len(todo))) as pool:
            futures = [(i, pool.submit(run, jobs[i])) for i in todo]
            for i, fut in futures:
                try:
                    results[i] = fut.result()
                except (BuildError, UserError) as exc:
                    errors.append(str(exc))
    if errors:
        head = f"{len(errors)} of {total} builds failed" if len(errors) > 1 else ""
        raise BuildError("\n\n".join(([head] if head else []) + errors))
    return results


@dataclass
class BuiltTree:
    config: "KernelConfig"  # noqa: F821 (ptokit.artifacts.kernel_config)
    orchestration_so: Path
    kernel_sos: dict = field(default_factory=dict)  # func_id -> Path


CORE_DEFINES = {"aiv": "__DAV_VEC__", "aic": "__DAV_CUBE__"}


# PTOKIT_TILE_REFERENCE_LOOPS=1: the tile library's reference loops (one element after the
# other, errno-setting math calls), to compare its fast loops with -- same bits, slower
REFERENCE_LOOP_FLAGS = ("-DPTO_CPU_REFERENCE_LOOPS", "-fmath-errno")


# PTOKIT_NO_FUSION=1: the built-in assembler's fused runs take their unfused path (the same bits)
NO_FUSION_FLAGS = ("-DPTO_CPU_NO_FUSION",)


def tree_flags() -> tuple:
    """Extra flags for a tree's sources: ``PTOKIT_WERROR=1`` turns warnings into errors (the test
    suite sets it, so every generated file it builds is proven warning-free under -Wall);
    ``PTOKIT_TILE_REFERENCE_LOOPS=1`` builds the tile library's reference loops;
    ``PTOKIT_NO_FUSION=1`` builds fused runs unfused (docs/assembler.md, "Fused runs")."""
    flags = ("-Werror",) if os.environ.get("PTOKIT_WERROR") == "1" else ()
    if os.environ.get("PTOKIT_TILE_REFERENCE_LOOPS") == "1":
        flags += REFERENCE_LOOP_FLAGS
    if os.environ.get("PTOKIT_NO_FUSION", "") not in ("", "0"):
        flags += NO_FUSION_FLAGS
    return flags


def tree_jobs(config, fifo_rule: str = compilers.DEFAULT_FIFO_RULE) -> list[BuildJob]:
    """The orchestration job first, then one per kernel in func_id order. ``fifo_rule`` (a key of
    ``compilers.FIFO_RULES``) selects the unsplit-FIFO rule the kernels are built with."""
    extra = tree_flags()
    orch = config.orchestration
    inc, sysinc = compilers.tree_include_dirs(Path(orch.source).parent, INCLUDE_DIR)
    jobs = [BuildJob(orch.source, ("__CPU_SIM",), inc, extra + compilers.orchestration_flags(),
                     name_hint=f"orchestration:{Path(orch.source).stem}", system_include_dirs=sysinc)]
    for k in config.kernels:
        inc, sysinc = compilers.tree_include_dirs(Path(k.source).parent, INCLUDE_DIR)
        defines, flags = compilers.kernel_flags(Path(k.source), fifo_rule)
        jobs.append(BuildJob(k.source, ("__CPU_SIM", CORE_DEFINES[k.core_type]) + defines,
                             inc, extra + flags, name_hint=f"kernel:{k.name}", system_include_dirs=sysinc))
    return jobs


def build_tree(tree_dir, jobs: Optional[int] = None,
               progress: Optional[Callable[[int, int], None]] = None,
               fifo_rule: Optional[str] = None) -> BuiltTree:
    """Build every source named by ``tree_dir/kernel_config.py`` (any tool's tree). ``fifo_rule``:
    the unsplit-FIFO rule of mixed kernels (``compilers.FIFO_RULES``); None: the one of the
    tree's ``RUNTIME_CONFIG["ptoas_compat"]`` on its platform (``compilers.fifo_rule_for``)."""
    config = read_kernel_config(tree_dir)
    if fifo_rule is None:
        fifo_rule = compilers.fifo_rule_for(config.ptoas_compat, config.platform)
    for src in [config.orchestration.source] + [k.source for k in config.kernels]:
        if not Path(src).is_file():
            raise UserError(f"{config.root / 'kernel_config.py'}: source {src} does not exist")
    compilers.vendor_preflight(config, INCLUDE_DIR)     # PTO_ISA_ROOT: refuse what cannot be right
    objs = build_many(tree_jobs(config, fifo_rule), max_workers=jobs, progress=progress)
    return BuiltTree(config=config, orchestration_so=objs[0],
                     kernel_sos={k.func_id: p for k, p in zip(config.kernels, objs[1:])})


__all__ = [
    "compile_shared", "build_many", "build_tree", "BuildJob", "BuiltTree", "build_key",
    "cache_path", "cache_stat", "cache_clear", "compiler_identity", "INCLUDE_DIR", "BASE_FLAGS",
    "sweep_build_temps", "precompiled_header", "build_library", "cached_library", "library_key", "COMPILE_ONLY",
]
