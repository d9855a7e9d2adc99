"""pypto's ``pypto.backend.pto_backend`` names, at the same path in ptokit.

* ``PartialCodegenError`` -- pypto raises it when code generation fails for a function of the
  program.  Here it *is* ``ptokit.errors.CompileError`` (located, with a caret), so ``except
  PartialCodegenError`` catches every compile failure, as pypto's does (``ptokit.errors``'
  narrower ``PartialCodegenError``, an Out tensor whose write is lost, is one of them).
* ``_run_ptoas(pto_path, output_path, ptoas_flags=None)`` -- assemble one ``.pto`` file with
  ``ptokit.backend.ptoas.assemble`` (the external ``ptoas`` when found, else the built-in one),
  taking the assembler's own flags.
* ``_preprocess_ptoas_output(text)`` -- the assembler's C++ as it goes between the wrapper's
  ``// --- ptoas-generated code ---`` and ``// --- Kernel entry point ---`` lines
  (``ptokit.backend.wrapper.preprocess_asm``).
"""
from __future__ import annotations

from typing import Optional, Sequence

from ..errors import CompileError as PartialCodegenError
from ..errors import UserError
from .ptoas import assemble
from .wrapper import preprocess_asm as _preprocess_ptoas_output

_ARCHS = {"a3": "a2a3", "a5": "a5"}


def _parse_ptoas_flags(flags: Sequence[str]) -> dict:
    """The options of ``assemble`` that the assembler's command-line flags ask for."""
    opts = {"arch": "a2a3", "level": "level2", "insert_sync": False}   # the assembler's defaults
    flags = list(flags)
    i = 0
    while i < len(flags):
        flag = str(flags[i])
        name, eq, value = flag.partition("=")
        if name in ("--pto-arch", "--pto-level") and not eq:
            if i + 1 >= len(flags):
                raise UserError(f"_run_ptoas: {name} needs a value")
            value = str(flags[i + 1])
            i += 1
        if name == "--enable-insert-sync" and not eq:
            opts["insert_sync"] = True
        elif name == "--pto-arch":
            if value not in _ARCHS:
                raise UserError(f"_run_ptoas: --pto-arch {value!r} is not one of {', '.join(_ARCHS)}")
            opts["arch"] = _ARCHS[value]
        elif name == "--pto-level":
            opts["level"] = value
        else:
            raise UserError(f"_run_ptoas: the assembler flag {flag!r} is not provided by ptokit (it takes "
                            f"--enable-insert-sync, --pto-level=LEVEL and --pto-arch a3|a5)")
        i += 1
    return opts


def _run_ptoas(pto_path, output_path, ptoas_flags: Optional[Sequence[str]] = None) -> None:
    """Assemble ``pto_path`` into the C++ file ``output_path`` (pypto's ``_run_ptoas``).  Without
    flags the assembler's defaults hold: a3, level2, no synchronisation inserted."""
    opts = _parse_ptoas_flags(ptoas_flags or ())
    assemble(pto_path, output_path, opts["arch"], level=opts["level"], insert_sync=opts["insert_sync"])


__all__ = ["PartialCodegenError", "_run_ptoas", "_preprocess_ptoas_output"]
