"""Run the PTO assembler: the external ``ptoas`` when found, else the built-in one.

``PTOAS_ROOT`` may point at a folder holding ``ptoas`` or ``bin/ptoas``;
otherwise ``ptoas`` is looked up on ``PATH``.  Both take the command line of
artifacts.md and write the same shape of C++.
"""
from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

from ..errors import AssemblerError, PtokitError, VendorRefusal
from ..targets import PTOAS_COMPAT
from .assembler import assemble_text, normalize_arch

__all__ = ["assemble", "assemble_many", "find_ptoas", "ptoas_command", "ptoas_release", "compat_of_release",
           "check_dump_options"]

# ptoas releases whose command line has no --mlir-print-ir-* options (``Unknown command line argument``)
NO_PRINT_IR = ("0.27",)
DUMP_OPTIONS = ("--mlir-print-ir-after-all", "--mlir-print-ir-module-scope", "--mlir-print-ir-tree-dir")


def find_ptoas() -> Optional[Path]:
    """The external assembler executable, or None when only the built-in one is available."""
    root = os.environ.get("PTOAS_ROOT")
    if root:
        for cand in (Path(root) / "ptoas", Path(root) / "bin" / "ptoas"):
            if cand.is_file() and os.access(cand, os.X_OK):
                return cand
    found = shutil.which("ptoas")
    return Path(found) if found else None


def ptoas_release(exe) -> Optional[str]:
    """The release an external ``ptoas`` reports (``ptoas --version`` prints ``ptoas 0.27``): "0.27",
    or None when it prints no such line or cannot be run. Remembered per file and modification time."""
    p = Path(exe)
    try:
        st = p.stat()
    except OSError:
        return None
    return _release(str(p.resolve()), st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=None)
def _release(exe: str, _mtime: int, _size: int) -> Optional[str]:
    try:
        proc = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r"\bptoas\s+(?:version\s+)?v?(\d+\.\d+)", proc.stdout + proc.stderr)
    return m.group(1) if m else None


def compat_of_release(release: Optional[str]) -> Optional[str]:
    """The ``ptoas_compat`` that writes what that release accepts: the release itself when ptokit has a
    mode for it (``targets.PTOAS_COMPAT``), else None (pypto HEAD's `.pto`, for the newer ptoas it pins)."""
    return release if release in PTOAS_COMPAT else None


def check_dump_options(exe=None) -> None:
    """Refuse ``dump_ptoas_passes`` before any unit is assembled when the external ``ptoas`` is a release
    without the ``--mlir-print-ir-*`` options: it would stop every unit with ``Unknown command line
    argument``, and dropping the request would hand back a tree without the dumps asked for."""
    exe = exe if exe is not None else find_ptoas()
    if exe is None:
        return      # the built-in assembler dumps its stages
    release = ptoas_release(exe)
    if release in NO_PRINT_IR:
        raise VendorRefusal(f"dump_ptoas_passes needs ptoas's {DUMP_OPTIONS[0]} (with {DUMP_OPTIONS[1]} and "
                            f"{DUMP_OPTIONS[2]}=), which ptoas {release} ({exe}) does not have: compile without "
                            f"dump_ptoas_passes, or unset PTOAS_ROOT (and take ptoas off PATH) to dump the stages "
                            f"of ptokit's built-in assembler")


def _cli_arch(arch: str) -> str:
    return "a5" if normalize_arch(arch) == "a5" else "a3"


def ptoas_command(exe, pto_path, cpp_path, arch: str, level: str = "level3", dump_dir=None,
                  insert_sync: bool = True) -> List[str]:
    """The exact command line of artifacts.md."""
    cmd = [str(exe), str(pto_path), "-o", str(cpp_path)]
    if insert_sync:
        cmd.append("--enable-insert-sync")
    cmd += [f"--pto-level={level}", "--pto-arch", _cli_arch(arch)]
    if dump_dir is not None:
        cmd += [DUMP_OPTIONS[0], DUMP_OPTIONS[1], f"{DUMP_OPTIONS[2]}={dump_dir}"]
    return cmd


def assemble(pto_path, cpp_path, arch: str, level: str = "level3", dump_dir=None, timeout: float = 60,
             insert_sync: bool = True, compat: Optional[str] = None) -> Path:
    """Assemble ``pto_path`` into ``cpp_path``; returns ``cpp_path`` as a Path. ``compat`` ("0.27")
    makes the built-in assembler write what that ptoas release writes (an external ``ptoas`` is the
    release it is: it gets the command line of artifacts.md, nothing more)."""
    pto_path, cpp_path = Path(pto_path), Path(cpp_path)
    cpp_path.parent.mkdir(parents=True, exist_ok=True)
    if dump_dir is not None:
        Path(dump_dir).mkdir(parents=True, exist_ok=True)
    exe = find_ptoas()
    if exe is not None:
        cmd = ptoas_command(exe, pto_path, cpp_path, arch, level, dump_dir, insert_sync)
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise AssemblerError(f"ptoas timed out after {timeout:g} s on {pto_path} ({exe})") from None
        except OSError as exc:
            raise AssemblerError(f"cannot run {exe} on {pto_path}: {exc}") from None
        if proc.returncode != 0:
            msg = (proc.stderr or proc.stdout or "").strip()
            raise AssemblerError(f"ptoas failed (exit {proc.returncode}) on {pto_path}:\n{msg}")
        if not cpp_path.is_file():
            raise AssemblerError(f"ptoas exited 0 on {pto_path} but did not write {cpp_path}")
        return cpp_path
    try:
        text = pto_path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise AssemblerError(f"cannot read {pto_path}: {exc}") from None
    cpp = assemble_text(text, filename=str(pto_path), arch=arch, insert_sync=insert_sync, level=level,
                        dump_dir=dump_dir, compat=compat)
    cpp_path.write_text(cpp)
    return cpp_path


Job = Tuple[object, object, str, object]


def assemble_many(jobs: Sequence[Job], max_workers: Optional[int] = None, **kwargs
                  ) -> List[Tuple[Path, Optional[PtokitError]]]:
    """Assemble several units in parallel.

    ``jobs`` are ``(pto_path, cpp_path, arch, dump_dir)``; the result lists
    ``(cpp_path, error or None)`` in job order.  A failing unit does not stop
    the others; every failure is collected.
    """
    def one(job: Job):
        pto, cpp, arch, dump = job
        try:
            return Path(cpp), assemble(pto, cpp, arch, dump_dir=dump, **kwargs), None
        except PtokitError as exc:
            return Path(cpp), None, exc

    if not jobs:
        return []
    with ThreadPoolExecutor(max_workers=max_workers or min(8, len(jobs))) as pool:
        results = list(pool.map(one, jobs))
    return [(cpp, err) for cpp, _, err in results]
