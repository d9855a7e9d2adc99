"""pypto's ``pypto.runtime.pto_isa`` at the same path in ptokit: where the tile-library headers
that kernels are built against live."""
from __future__ import annotations

import os
from pathlib import Path

from .build import INCLUDE_DIR
from .compilers import vendor_include


def pto_isa_include_dir() -> Path:
    """The include folder kernels compile against: ``$PTO_ISA_ROOT/include`` when the vendor's
    pto-isa is given (``PTO_ISA_ROOT``), else ptokit's CPU tile library (``<pto/pto-inst.hpp>``)."""
    return (vendor_include() or INCLUDE_DIR).resolve()


def ensure_pto_isa_root() -> str:
    """The pto-isa root kernels compile against: ``PTO_ISA_ROOT`` when set, else the folder of
    ptokit's bundled headers.  Nothing is cloned, and ``PTO_ISA_ROOT`` is not exported (setting
    it switches ptokit's builds to the vendor's headers: docs/build-cache.md)."""
    root = os.environ.get("PTO_ISA_ROOT")
    return str(Path(root).expanduser().resolve()) if root else str(pto_isa_include_dir().parent)


__all__ = ["ensure_pto_isa_root", "pto_isa_include_dir"]
