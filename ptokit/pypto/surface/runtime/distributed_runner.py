"""``pypto.runtime.distributed_runner`` under ``ptokit pypto``."""
from .._names import surface_getattr

__getattr__ = surface_getattr("pypto.runtime.distributed_runner", "ptokit.distributed")
