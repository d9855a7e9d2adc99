"""``pypto.pypto_core.ir`` (the C++ core's IR module, which ``pypto.ir`` re-exports) under
``ptokit pypto``: ``CoreType`` (the core kinds of the SoC description), ``MemorySpace``,
``DataType``, ``FunctionType``; any other name is ``pypto.ir``'s."""
from ....ir.kinds import DType as DataType  # noqa: F401
from ....ir.kinds import FunctionType, MemorySpace  # noqa: F401
from ..backend.soc import CoreType  # noqa: F401
from .._names import surface_getattr

__getattr__ = surface_getattr("pypto.pypto_core.ir", "ptokit.pypto.surface.ir", "ptokit.ir")
