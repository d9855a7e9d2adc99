"""The C++ toolchain of every build: the compiler, its base flags, and the vendor tile library mode.

* Compiler: ``$PTOKIT_CXX``, else ``$CXX``, else ``g++`` -- for kernels, orchestration and the
  simulator library alike. Its identity is part of every cache key (``build.compiler_identity``).
  clang has no ``-fvect-cost-model``, so that base flag is dropped for it.
* ``PTO_ISA_ROOT`` (a pto-isa checkout, or its ``include`` folder): kernels and orchestration are
  built against the vendor's tile library instead of ptokit's (docs/build-cache.md, "The vendor
  tile library"): ``-std=c++20``, ``-include stdint.h`` (pto-isa uses ``uint8_t`` before any
  include), and the library's folder as ``-isystem`` ahead of ptokit's headers (which then are
  system headers too: the vendor headers warn under ``-Wall``; the tree's own files stay
  ``-Werror`` clean). Before building, :func:`vendor_preflight` refuses what cannot be right:
  a compiler that cannot compile the library (g++ before 13 and its ``static_assert(false)``),
  a kernel with bf16 data unless the compiler has C++23 ``std::bfloat16_t`` (otherwise pto-isa
  silently computes bf16 as fp16), and mixed cube+vector kernels (pto-isa's TPipe is its own
  in-process FIFO, which the simulator does not drive).
* The unsplit-FIFO rule of mixed kernels (docs/mixed-kernels.md): ``FIFO_RULES`` maps a rule to
  the kernel defines that select it; pypto HEAD's is the default, ptoas 0.27's is what
  ``ptoas_compat="0.27"`` picks on a5 (:func:`fifo_rule_for`).
"""
from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
from pathlib import Path
from typing import Optional, Sequence, Tuple

from ..errors import BuildError, VendorRefusal

# -fno-math-errno: sqrt is the IEEE instruction with or without it, but only without errno
# may g++ vectorise it (TSQRT/TRSQRT 8x faster, same bits); nothing reads errno after a math call.
GCC_BASE_FLAGS = ("-std=c++17", "-O2", "-fvect-cost-model=dynamic", "-fno-math-errno", "-fPIC", "-shared", "-Wall")
CLANG_DROPPED = ("-fvect-cost-model=dynamic",)   # clang: "unknown argument"

VENDOR_STD = "-std=c++20"
VENDOR_BF16_STD = "-std=c++23"
VENDOR_PREINCLUDE = ("-include", "stdint.h")
# clang reports, as a warning -isystem cannot hide (the optimiser's, not the parser's), each loop of
# pto-isa's CPU headers whose `#pragma clang loop vectorize` it could not honour: not ours to fix
VENDOR_CLANG_FLAGS = ("-Wno-pass-failed",)
VENDOR_BF16_DEFINE = "PTO_CPU_SIM_ENABLE_BF16"   # pto-isa: #error instead of silently using fp16
SUGGESTED_COMPILER = "clang++-19"

FIFO_RULES = {
    "pypto-head": (),                              # IsNoSplit pipes are 1:2 with every lane that joins
    "ptoas-0.27": ("PTO_CPU_FIFO_NOSPLIT_LANE0",),  # an unsplit pipe talks to AIV0 only
}
DEFAULT_FIFO_RULE = "pypto-head"


def fifo_rule_for(ptoas_compat: Optional[str], platform: Optional[str]) -> str:
    """The FIFO rule a tree written for ``ptoas_compat`` runs under: ptoas 0.27's on a5 (its AIV body
    runs on subblock 0 only, so an unsplit pipe talks to AIV0); everywhere else pypto HEAD's (0.27's
    a2a3 output runs the AIV body on both lanes, which HEAD's rule serves)."""
    if ptoas_compat == "0.27" and (platform or "").startswith("a5"):
        return "ptoas-0.27"
    return DEFAULT_FIFO_RULE

_TPIPE = re.compile(rb"\bTPipe\s*<")
_BF16 = re.compile(rb"\bbfloat16_t\b")


def compiler() -> str:
    """The C++ compiler of every build: ``$PTOKIT_CXX``, else ``$CXX``, else ``g++``."""
    return os.environ.get("PTOKIT_CXX") or os.environ.get("CXX") or "g++"


@functools.lru_cache(maxsize=None)
def compiler_identity(cxx: str = "g++") -> str:
    """First line of ``cxx --version`` plus ``cxx -dumpmachine`` (once per process; remembered
    across processes while the compiler's executable is unchanged, when it is a native
    executable -- a wrapper script may change what it runs without changing itself, so a
    script is asked every time)."""
    exe = shutil.which(cxx)
    real = os.path.realpath(exe) if exe else None
    if real and _is_native_executable(real):
        from . import statcache   # cachedir imports nothing of the build
        kind = "compiler-" + hashlib.sha256(cxx.encode()).hexdigest()[:12]
        return statcache.remembered(kind, [Path(exe), Path(real)], lambda: _ask_identity(cxx))
    return _ask_identity(cxx)


def _is_native_executable(path: str) -> bool:
    try:
        with open(path, "rb") as fh:
            return fh.read(4) == b"\x7fELF"
    except OSError:
        return False


def _ask_identity(cxx: str) -> str:
    import subprocess   # lazy: only running a tool needs it (a warm call runs none)
    try:
        ver = subprocess.run([cxx, "--version"], capture_output=True, text=True, timeout=60)
        mach = subprocess.run([cxx, "-dumpmachine"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise BuildError(f"cannot run the C++ compiler {cxx!r}: {exc}") from exc
    if ver.returncode != 0:
        raise BuildError(f"{cxx} --version failed: {ver.stderr.strip()}")
    first = (ver.stdout.splitlines() or [""])[0].strip()
    return f"{cxx}|{first}|{mach.stdout.strip()}"


def is_clang(cxx: str) -> bool:
    return "clang" in compiler_identity(cxx).split("|")[1].lower()


def gcc_major(cxx: str) -> Optional[int]:
    """The major version of a g++ (None for clang or when unknown)."""
    if is_clang(cxx):
        return None
    import subprocess   # lazy: only running a tool needs it (a warm call runs none)
    try:
        dump = subprocess.run([cxx, "-dumpversion"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.match(r"\s*(\d+)", dump)
    return int(m.group(1)) if m else None


def base_flags(cxx: str) -> Tuple[str, ...]:
    """The flags every object starts with, for this compiler."""
    if is_clang(cxx):
        return tuple(f for f in GCC_BASE_FLAGS if f not in CLANG_DROPPED)
    return GCC_BASE_FLAGS


# ---------------------------------------------------------------------------------------------
# the vendor tile library (PTO_ISA_ROOT)
# ---------------------------------------------------------------------------------------------

def vendor_include() -> Optional[Path]:
    """pto-isa's include folder when ``PTO_ISA_ROOT`` is set (``$PTO_ISA_ROOT/include``, or the
    folder itself when it has no ``include``), else None."""
    root = os.environ.get("PTO_ISA_ROOT")
    if not root:
        return None
    cand = Path(root).expanduser() / "include"
    return cand if cand.is_dir() else Path(root).expanduser()


def tree_include_dirs(source_dir: Path, bundled: Path) -> Tuple[list, list]:
    """(``-I`` folders, ``-isystem`` folders) of a tree source. Without the vendor library:
    ``-I bundled -I <the source's folder>``; with it, the source's folder stays ``-I`` and the
    vendor's folder then ptokit's follow as ``-isystem`` (so ``<pto/pto-inst.hpp>`` is pto-isa's,
    while ``tensor.h`` / ``intrinsic.h`` still come from ptokit)."""
    isa = vendor_include()
    if isa is None:
        return [bundled, source_dir], []
    return [source_dir], [isa, bundled]


def uses_fifo(source: Path) -> bool:
    return bool(_TPIPE.search(Path(source).read_bytes()))


def uses_bf16(source: Path) -> bool:
    return bool(_BF16.search(Path(source).read_bytes()))


def _probe(cxx: str, text: str, flags: Sequence[str], include_dirs: Sequence[Path] = ()) -> Tuple[bool, str]:
    """Does ``text`` compile (syntax only) with these flags? (ok, compiler output)."""
    import subprocess   # lazy: only a probe compile needs these
    import tempfile
    with tempfile.TemporaryDirectory(prefix="ptokit-probe-") as d:
        src = Path(d) / "probe.cpp"
        src.write_text(text)
        cmd = [cxx, "-fsyntax-only", *flags, *[a for i in include_dirs for a in ("-isystem", str(i))], str(src)]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return False, str(exc)
        return proc.returncode == 0, (proc.stderr or proc.stdout or "").strip()


@functools.lru_cache(maxsize=None)
def bf16_supported(cxx: str) -> bool:
    """The compiler has C++23 ``std::bfloat16_t`` (``<stdfloat>`` with ``__STDCPP_BFLOAT16_T__``)."""
    ok, _ = _probe(cxx, "#include <stdfloat>\n#if !defined(__STDCPP_BFLOAT16_T__)\n#error no bf16\n#endif\n"
                        "std::bfloat16_t x = std::bfloat16_t(1.0f);\n", [VENDOR_BF16_STD])
    return ok


@functools.lru_cache(maxsize=None)
def _check_vendor_compiler(cxx: str, isa: str, bundled: str) -> None:
    flags = [VENDOR_STD, *VENDOR_PREINCLUDE, "-D__CPU_SIM", "-D__DAV_VEC__"]
    ok, out = _probe(cxx, "#include <pto/pto-inst.hpp>\n", flags, [Path(isa), Path(bundled)])
    if ok:
        return
    tail = "\n".join(out.splitlines()[-12:])
    major = gcc_major(cxx)
    if major is not None and major < 13 and "static assert" in out.replace("_", " ").lower():
        raise BuildError(
            f"{cxx} (g++ {major}) cannot compile pto-isa at {isa}: g++ before 13 fires static_assert(false) in "
            f"templates that are never instantiated, which pto-isa's CPU headers contain. Use a compiler that can: "
            f"PTOKIT_CXX={SUGGESTED_COMPILER} (Debian/Ubuntu: apt-get install clang-19), or g++ 13 or newer.\n{tail}")
    raise BuildError(f"{cxx} cannot compile pto-isa's <pto/pto-inst.hpp> at {isa} with "
                     f"{' '.join(flags)}:\n{tail}")


def vendor_preflight(config, bundled: Path) -> None:
    """Refuse, before any build, a tree that cannot build or run right against pto-isa."""
    isa = vendor_include()
    if isa is None:
        return
    where = Path(config.root) / "kernel_config.py"
    mixed = [k.name for k in config.kernels if uses_fifo(k.source)]
    if mixed:
        raise VendorRefusal(
            f"{where}: kernel(s) {', '.join(mixed)} use the cross-core FIFO (TPipe/TPUSH/TPOP). Under PTO_ISA_ROOT "
            f"that is pto-isa's own in-process FIFO, which ptokit's simulator does not drive (the kernels would "
            f"stall or exchange nothing); mixed cube+vector kernels run only on ptokit's tile library: unset "
            f"PTO_ISA_ROOT")
    cxx = compiler()
    bf16 = [k.name for k in config.kernels if uses_bf16(k.source)]
    if bf16 and not bf16_supported(cxx):
        raise VendorRefusal(
            f"{where}: kernel(s) {', '.join(bf16)} use bfloat16. pto-isa computes bf16 as real bf16 only when "
            f"built as C++23 with a <stdfloat> that has std::bfloat16_t (libstdc++ 13 or newer); {cxx} has none, "
            f"and pto-isa would silently compute them as fp16. Not run: unset PTO_ISA_ROOT (ptokit's tile "
            f"library has bf16), or use a compiler with C++23 std::bfloat16_t")
    _check_vendor_compiler(cxx, str(isa), str(bundled))


# ptokit's tile library: the instructions call the loops libptosim compiled once for runtime shapes
# (pto/cpu/op_refs.hpp) instead of instantiating them per tile type in every kernel object
OOL_OPS_DEFINES = ("PTO_CPU_OOL_OPS",)


def kernel_flags(source: Path, fifo_rule: str = DEFAULT_FIFO_RULE) -> Tuple[Tuple[str, ...], Tuple[str, ...]]:
    """(defines, extra flags) a tree's kernel adds to the base flags: the FIFO rule's defines, with
    ptokit's tile library the out-of-line operations' define, with the vendor library its standard
    and pre-include (C++23 and the bf16 guard for a bf16 kernel)."""
    if fifo_rule not in FIFO_RULES:
        raise ValueError(f"unknown FIFO rule {fifo_rule!r}; known: {', '.join(FIFO_RULES)}")
    defines = FIFO_RULES[fifo_rule]
    if vendor_include() is None:
        return defines + OOL_OPS_DEFINES, ()
    if uses_bf16(source):
        return defines + (VENDOR_BF16_DEFINE,), (VENDOR_BF16_STD,) + VENDOR_PREINCLUDE + _vendor_compiler_flags()
    return defines, (VENDOR_STD,) + VENDOR_PREINCLUDE + _vendor_compiler_flags()


def _vendor_compiler_flags() -> Tuple[str, ...]:
    return VENDOR_CLANG_FLAGS if is_clang(compiler()) else ()


def orchestration_flags() -> Tuple[str, ...]:
    """Extra flags of a tree's orchestration (the vendor library's standard, for one language level)."""
    return () if vendor_include() is None else (VENDOR_STD,) + VENDOR_PREINCLUDE + _vendor_compiler_flags()


__all__ = [
    "compiler", "compiler_identity", "is_clang", "gcc_major", "base_flags", "vendor_include", "tree_include_dirs", "vendor_preflight",
    "kernel_flags", "orchestration_flags", "bf16_supported", "FIFO_RULES", "DEFAULT_FIFO_RULE", "GCC_BASE_FLAGS",
    "VENDOR_STD", "SUGGESTED_COMPILER",
]
