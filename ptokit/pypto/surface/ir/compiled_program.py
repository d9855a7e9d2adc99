"""``pypto.ir.compiled_program`` under ``ptokit pypto``: ``CompiledProgram`` is ptokit's."""
from ....compiled import CompiledProgram  # noqa: F401
from .._names import surface_getattr

__getattr__ = surface_getattr("pypto.ir.compiled_program", "ptokit.compiled")
