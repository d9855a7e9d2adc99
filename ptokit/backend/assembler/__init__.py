"""The built-in PTO assembler: `.pto` (PTO-dialect MLIR text) -> C++ against the PTO tile API.

Stages: parse (``ptokit.pto``: lexer, parser, AST) -> sema (SSA and type checks against the
dialect table) -> plan (memory for tiles without an address) -> emitter (C++).  Every
malformed input is an AssemblerError located at the offending token; see docs/assembler.md.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

from ...errors import AssemblerError
from ...targets import validate_ptoas_compat
from ...pto.parser import parse
from ...pto.printer import print_module
from .emitter import emit_module
from .plan import plan_function, planned_module
from .sema import Sema

__all__ = ["assemble_text", "AssemblerError", "normalize_arch"]

_ARCHES = {"a2a3": "a2a3", "a3": "a2a3", "a2": "a2a3", "a5": "a5"}


def normalize_arch(arch: str) -> str:
    """'a3'/'a2a3' -> 'a2a3', 'a5' -> 'a5'; anything else is an AssemblerError."""
    key = str(arch).lower().replace("sim", "")
    if key not in _ARCHES:
        raise AssemblerError(f"unknown --pto-arch {arch!r} (expected a3 or a5)")
    return _ARCHES[key]


def assemble_text(text: str, filename: str = "<pto>", arch: str = "a2a3", insert_sync: bool = True,
                  level: str = "level3", dump_dir: Optional[os.PathLike] = None, compat: Optional[str] = None,
                  fuse: bool = True) -> str:
    """Assemble PTO text into C++ source text (deterministic). ``compat="0.27"``: write what ptoas
    0.27 writes where it differs (on a5 the AIV body of a kernel with a cross-core pipe runs on
    subblock 0 only). ``fuse=False`` writes no fused runs of row-local instructions
    (docs/assembler.md, "Fused runs"; a build turns written runs off with ``PTOKIT_NO_FUSION=1``)."""
    arch = normalize_arch(arch)
    try:
        validate_ptoas_compat(compat)
    except ValueError as exc:
        raise AssemblerError(str(exc)) from None
    if level not in ("level2", "level3"):
        raise AssemblerError(f"unknown --pto-level {level!r} (expected level2 or level3)")
    try:
        module = parse(text, filename)
        src = module.source  # type: ignore[attr-defined]
        Sema(module, src, arch, compat).run()
        dump = Path(dump_dir) if dump_dir is not None else None
        if dump is not None:
            dump.mkdir(parents=True, exist_ok=True)
            (dump / "00_parsed.mlir").write_text(print_module(module))
        plans = {f.name: plan_function(f, arch, src, plan_all=False) for f in module.funcs}
        merged = {k: v for p in plans.values() for k, v in p.items()}
        if dump is not None:
            (dump / "01_after_plan_memory.mlir").write_text(print_module(planned_module(module, merged)))
        cpp = emit_module(module, src, insert_sync, plans, arch=arch, compat=compat, fuse=fuse)
        if dump is not None:
            (dump / "02_emit.cpp").write_text(cpp)
        return cpp
    except RecursionError:
        raise AssemblerError(f"{filename}: input nests too deeply") from None
