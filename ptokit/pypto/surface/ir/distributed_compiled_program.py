"""``pypto.ir.distributed_compiled_program`` under ``ptokit pypto``: ``DistributedConfig`` and
``DistributedCompiledProgram`` are ptokit's."""
from ....distributed_compiled import DistributedCompiledProgram  # noqa: F401
from ....targets import DistributedConfig  # noqa: F401
from .._names import surface_getattr

__getattr__ = surface_getattr("pypto.ir.distributed_compiled_program", "ptokit.distributed_compiled")
