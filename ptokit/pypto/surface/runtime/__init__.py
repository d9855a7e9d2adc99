"""``pypto.runtime`` under ``ptokit pypto``: ptokit's runtime names (``RunConfig``, ``run``,
``ChipWorker``, ``TensorSpec``, ...) plus ``pto_isa_include_dir`` / ``ensure_pto_isa_root``
(the tile-library headers kernels are built against)."""
from __future__ import annotations

import os
from pathlib import Path

from ....runtime import RunConfig  # noqa: F401
from .._names import surface_getattr
from . import runner, tensor_spec  # noqa: F401


def pto_isa_include_dir() -> Path:
    """The include folder kernels compile against: ``$PTO_ISA_ROOT/include`` when the vendor's
    pto-isa is given (``PTO_ISA_ROOT``), else ptokit's CPU tile library (``<pto/pto-inst.hpp>``)."""
    # lazy: the build module (compilers, cache) loads only when a program asks for the headers
    from ....runtime.build import INCLUDE_DIR
    from ....runtime.compilers import vendor_include
    return (vendor_include() or INCLUDE_DIR).resolve()


def ensure_pto_isa_root() -> str:
    """The pto-isa root kernels compile against: ``PTO_ISA_ROOT`` when set, else the folder of
    ptokit's bundled headers.  Nothing is cloned, and ``PTO_ISA_ROOT`` is not exported (setting
    it switches ptokit's builds to the vendor's headers: docs/build-cache.md)."""
    root = os.environ.get("PTO_ISA_ROOT")
    return str(Path(root).expanduser().resolve()) if root else str(pto_isa_include_dir().parent)


def configure_log(level=None, **_ignored) -> None:
    """pypto's runtime log setup: ptokit's runtime writes no log files; the level is kept for
    ``log_level``."""
    if level is not None:
        _log[0] = level


_log = [None]


def log_level():
    return _log[0]


__getattr__ = surface_getattr("pypto.runtime", "ptokit.runtime", lazy={
    "DistributedWorker": "ptokit.distributed_compiled:DistributedWorker",
    "execute_distributed_compiled": "ptokit.pypto.surface.runtime.distributed_runner:execute_distributed_compiled",
    "Worker": "ptokit.pypto.surface.runtime.worker:Worker",
    "benchmark": "ptokit.pypto.surface.runtime.bench:benchmark",
    "BenchmarkStats": "ptokit.pypto.surface.runtime.bench:BenchmarkStats",
}, why={
    "TraceInvocation": "ptokit's run trace is RunConfig(trace=...) / docs/trace.md",
    "TraceSpan": "ptokit's run trace is RunConfig(trace=...) / docs/trace.md",
    "StackedDeviceTensor": "ptokit's DeviceTensor is per worker"})
