"""``pypto.backend`` under ``ptokit pypto``: ``BackendType``, the process-wide backend setting
(``set_backend_type`` / ``get_backend_type``: pypto configures its C++ backend once per process;
here it only records the choice, and ``pypto.ir.compile`` takes ``backend_type`` per call), and
the SoC description (``Backend910B.instance().soc`` ...: ``ptokit.backend.soc``, from ptokit's
platform facts); ``pypto.backend.pto_backend`` is ``ptokit.backend.pto_backend``."""
from ....targets import BackendType, coerce_backend_type
from .._names import surface_getattr
from ....backend import pto_backend  # noqa: F401
from ....backend.soc import (Backend, Backend910B, Backend950, Cluster, Core, Die, Mem, SoC,  # noqa: F401
                  get_backend_instance)

_current = [None]


def set_backend_type(backend_type) -> None:
    bt = coerce_backend_type(backend_type)
    if _current[0] is not None and _current[0] is not bt:
        raise ValueError(f"backend type is already {_current[0]!r}; reset_for_testing() first")
    _current[0] = bt


def get_backend_type() -> BackendType:
    if _current[0] is None:
        raise ValueError("backend type is not configured: call set_backend_type(...) first")
    return _current[0]


def is_backend_configured() -> bool:
    return _current[0] is not None


def reset_for_testing() -> None:
    _current[0] = None


__getattr__ = surface_getattr("pypto.backend", "ptokit.backend", why={
    "BackendHandler": "ptokit's stages ask the target's facts (ptokit.targets.Target), not a handler object",
    "get_handler": "ptokit's stages ask the target's facts (ptokit.targets.Target), not a handler object"})
