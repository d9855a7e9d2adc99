"""pypto's ``pypto.pypto_core.ir`` (the C++ core's IR module, which ``pypto.ir`` re-exports) at
the same path in ptokit: ``CoreType`` (the core kinds of the SoC description,
``ptokit.backend.soc``), ``MemorySpace``, ``DataType``, ``FunctionType``; any other name is
``ptokit.ir``'s (``Function``, ``Program``, ``serialize``, ...)."""
from .. import ir as _ir
from ..backend.soc import CoreType  # noqa: F401
from ..ir.kinds import DType as DataType  # noqa: F401
from ..ir.kinds import FunctionType, MemorySpace  # noqa: F401


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    try:
        return getattr(_ir, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
