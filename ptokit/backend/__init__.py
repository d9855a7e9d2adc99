"""Backend: .pto -> C++ (assembler), the kernel wrapper, and the artifact tree writer.

``ptokit.backend.BackendType`` is pypto's ``pypto.backend.BackendType`` (``Ascend910B`` = a2a3,
``Ascend950`` = a5); it is declared with the platforms in ``ptokit.targets``.  pypto's SoC
description (``Backend``, ``Backend910B.instance().soc``, ``get_backend_instance``, ...) is
``ptokit.backend.soc``, loaded on first use.
"""
from importlib import import_module

from ..targets import BackendType

_SOC = ("Backend", "Backend910B", "Backend950", "SoC", "Die", "Cluster", "Core", "Mem", "get_backend_instance")


def __getattr__(name):
    if name in _SOC:
        return getattr(import_module(f"{__name__}.soc"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["BackendType", *_SOC]
