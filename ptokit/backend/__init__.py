"""Backend: .pto -> C++ (assembler), the kernel wrapper, and the artifact tree writer.

``ptokit.backend.BackendType`` is pypto's ``pypto.backend.BackendType`` (``Ascend910B`` = a2a3,
``Ascend950`` = a5); it is declared with the platforms in ``ptokit.targets``.
"""
from ..targets import BackendType

__all__ = ["BackendType"]
