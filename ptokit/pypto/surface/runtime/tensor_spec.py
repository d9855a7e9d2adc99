"""``pypto.runtime.tensor_spec`` under ``ptokit pypto``: ``TensorSpec`` and ``ScalarSpec``."""
from ....runtime.specs import ScalarSpec, TensorSpec  # noqa: F401
from .._names import surface_getattr

__getattr__ = surface_getattr("pypto.runtime.tensor_spec", "ptokit.runtime.specs")
