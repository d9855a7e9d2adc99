"""A precompiled header (PCH) of the bundled tile library for generated kernels (g++ only).

Every generated kernel starts with the same prelude (``ptokit.artifacts.kernel_prelude.PRELUDE``,
written by ``ptokit.backend.wrapper``): ``<cstdint>``, two qualifier macros that the tile library defines
the same way, ``<pto/pto-inst.hpp>`` and ``"tensor.h"``.  Parsing those headers is about a third
of a small kernel's g++ time.  ``include_for`` returns a header to pass as ``-include`` whose
``.gch`` beside it g++ loads instead of parsing the library again; the kernel's own includes of
the same headers are then no-ops (include guards), so the object is the same, byte for byte
(``tests/runtime/test_pch.py`` compares them).

* One PCH per cache and per exact flag list (defines and options: g++ accepts a PCH only for the
  flags it was made with) and compiler identity and bundled-header digest: ``<cache>/build/pch/
  <key>.hpp`` + ``<key>.hpp.gch`` + ``<key>.json`` (the ``.gch``'s sha256, checked before first
  use in a process, like the cached objects).  Built on first need, under a per-key lock; a
  builder that finds the lock taken compiles its kernel without the PCH rather than wait.
* Made once, then proven: an empty unit is compiled with ``-Winvalid-pch -Werror`` against it.
  When g++ refuses to build or to use it, the refusal is recorded in the sidecar and kernels of
  that key are compiled from the headers as before (no warning is lost: a PCH is made with the
  kernels' own ``-Wall``/``-Werror``, and what the headers' templates warn about is reported
  where they are instantiated, in the kernel).
* Used only where it cannot change what g++ sees: the source starts with ``PRELUDE`` (after its
  leading comment lines), the compiler is not clang, there are no ``-isystem`` folders (the vendor
  tile library), and no other ``-I`` folder holds anything but ``.cpp``/``.json`` files (a header
  there could shadow one the library includes).  ``PTOKIT_NO_PCH=1`` turns it off.
"""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import threading
from pathlib import Path
from typing import Optional, Sequence

from ..artifacts.kernel_prelude import HEADERS, PRELUDE
from ..locks import exclusive_lock
from . import cachedir, compilers

KEY_VERSION = "ptokit-pch-1"

# what the PCH holds: the prelude's headers (its macros are the library's own under __CPU_SIM)
HEADER_TEXT = "".join(f"#include {h}\n" for h in HEADERS)
_PRELUDE_BYTES = ("\n".join(PRELUDE) + "\n").encode()
_OTHER_DIR_OK = (".cpp", ".json")

_verified: dict = {}          # gch path -> stat signature verified in this process
_verified_lock = threading.Lock()


def enabled() -> bool:
    return os.environ.get("PTOKIT_NO_PCH", "") in ("", "0")


def starts_with_prelude(data: bytes) -> bool:
    """The source's first lines, after leading ``//`` comment lines, are ``PRELUDE``."""
    pos = 0
    while data.startswith(b"//", pos):
        nl = data.find(b"\n", pos)
        if nl < 0:
            return False
        pos = nl + 1
    return data.startswith(_PRELUDE_BYTES, pos)


def _other_dirs_clean(dirs: Sequence[Path]) -> bool:
    for d in dirs:
        try:
            with os.scandir(d) as it:
                for e in it:
                    if not (e.name.endswith(_OTHER_DIR_OK) and e.is_file(follow_symlinks=False)):
                        return False
        except OSError:
            return False
    return True


def applies(source_bytes: bytes, source: Path, include_dirs: Sequence[Path], system_include_dirs: Sequence[Path],
            bundled: Path, cxx: str) -> bool:
    """May this compile use the PCH (see the module doc)?"""
    if not enabled() or system_include_dirs or not starts_with_prelude(source_bytes):
        return False
    dirs = [Path(d).resolve() for d in include_dirs]
    bundled = Path(bundled).resolve()
    if not dirs or dirs[0] != bundled:
        return False
    others = [d for d in dict.fromkeys([Path(source).resolve().parent] + dirs[1:]) if d != bundled]
    if not _other_dirs_clean(others):
        return False
    return not compilers.is_clang(cxx)


def _key(cxx: str, flags: Sequence[str], bundled_digest: str) -> str:
    h = hashlib.sha256()
    for part in (KEY_VERSION, compilers.compiler_identity(cxx), json.dumps(list(flags)), bundled_digest, HEADER_TEXT):
        h.update(part.encode() + b"\n")
    return h.hexdigest()


def _state(hpp: Path) -> Optional[bool]:
    """True: a verified usable PCH; False: g++ refused it (recorded); None: none yet (or damaged)."""
    meta = cachedir.read_private_json(hpp.with_suffix(".json"))
    if meta is None:
        return None
    if meta.get("usable") is False:
        return False
    gch = Path(str(hpp) + ".gch")
    digest = meta.get("sha256")
    if not isinstance(digest, str):
        return None
    try:
        st = gch.stat()
        hst = hpp.stat()
    except OSError:
        return None
    sig = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino,
           hst.st_size, hst.st_mtime_ns, hst.st_ctime_ns, hst.st_ino, digest)
    with _verified_lock:
        if _verified.get(gch) == sig:
            return True
    if cachedir.sha256_verified(gch, digest) is None or cachedir.sha256_verified(hpp) is None \
            or hpp.read_text() != HEADER_TEXT:
        return None
    with _verified_lock:
        _verified[gch] = sig
    return True


def _run(cmd: list):
    """Run a tool; its ``subprocess.CompletedProcess``."""
    import subprocess   # lazy: only running a tool needs it (a warm call runs none)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600)


def _make(folder: Path, key: str, cxx: str, flags: Sequence[str], bundled: Path) -> bool:
    """Write ``<key>.hpp``, build and prove its ``.gch``, record the outcome; True when usable."""
    import subprocess   # lazy: only making the header runs tools
    hpp = folder / f"{key}.hpp"
    gch = Path(str(hpp) + ".gch")
    side = hpp.with_suffix(".json")
    tmp_gch = cachedir.temp_path(folder, key[:16], ".gch.tmp")
    tmp_side = cachedir.temp_path(folder, f"{key[:16]}.json")
    tmp_probe = cachedir.temp_path(folder, f"{key[:16]}.probe")
    with exclusive_lock(folder / f"{key}.lock", what="the tile library's precompiled header"):
        state = _state(hpp)
        if state is not None:
            return state
        cachedir.write_private(hpp, HEADER_TEXT.encode())
        base = [cxx, *flags, f"-I{bundled}"]
        meta = {"flags": list(flags), "compiler": compilers.compiler_identity(cxx)}
        try:
            os.close(cachedir.create_private(tmp_gch))
            transient = False    # g++ could not run or was killed: not a refusal, nothing recorded
            try:
                made = _run(base + ["-x", "c++-header", str(hpp), "-o", str(tmp_gch)])
                ok, out, transient = False, made.stderr, made.returncode < 0
                if made.returncode == 0:
                    os.chmod(tmp_gch, cachedir.FILE_MODE)
                    os.replace(tmp_gch, gch)
                    cachedir.write_private(tmp_probe, b"extern \"C\" int ptokit_pch_probe(void) { return 0; }\n")
                    probe = _run(base + ["-Winvalid-pch", "-Werror", "-fsyntax-only", "-include", str(hpp),
                                         "-x", "c++", str(tmp_probe)])
                    ok, out, transient = probe.returncode == 0, probe.stderr, probe.returncode < 0
            except (OSError, subprocess.TimeoutExpired) as exc:
                ok, out, transient = False, str(exc), True
            if not ok:
                gch.unlink(missing_ok=True)
            if transient:
                return False
            meta["usable"] = ok
            if ok:
                meta["sha256"] = cachedir.sha256_verified(gch)
                meta["size"] = gch.stat().st_size
            else:
                meta["refused"] = (out or "").strip()[-2000:]
            with os.fdopen(cachedir.create_private(tmp_side), "w") as fh:
                fh.write(json.dumps(meta, indent=1))
            os.replace(tmp_side, side)
        finally:
            for t in (tmp_gch, tmp_side, tmp_probe):
                t.unlink(missing_ok=True)
        return ok and _state(hpp) is True


def include_for(cxx: str, flags: Sequence[str], bundled: Path, bundled_digest: str, wait: bool = False) -> Optional[Path]:
    """The header to ``-include`` for a compile with ``flags`` (its ``.gch`` verified), building the
    PCH when there is none; None when g++ refused it, or when another builder is making it and
    ``wait`` is false."""
    folder = cachedir.checked_root() / "build" / "pch"
    cachedir.ensure_dir(folder)
    key = _key(cxx, flags, bundled_digest)
    hpp = folder / f"{key}.hpp"
    state = _state(hpp)
    if state is not None:
        return hpp if state else None
    if not wait and _locked(folder / f"{key}.lock"):
        return None
    return hpp if _make(folder, key, cxx, flags, Path(bundled)) else None


def _locked(path: Path) -> bool:
    """Another holder has this lock file now (a peek: take and drop it without waiting)."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)


__all__ = ["PRELUDE", "HEADER_TEXT", "applies", "include_for", "enabled", "starts_with_prelude"]
