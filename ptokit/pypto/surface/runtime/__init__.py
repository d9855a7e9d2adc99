"""``pypto.runtime`` under ``ptokit pypto``: ``ptokit.runtime``'s names (``RunConfig``, ``run``,
``ChipWorker``, ``Worker``, ``benchmark``, ``TensorSpec``, ...), and the reasons for the pypto
names ptokit does not have."""
from ....runtime import RunConfig  # noqa: F401
from .._names import surface_getattr
from . import runner, tensor_spec  # noqa: F401

__getattr__ = surface_getattr("pypto.runtime", "ptokit.runtime", why={
    "TraceInvocation": "ptokit's run trace is RunConfig(trace=...) / docs/trace.md",
    "TraceSpan": "ptokit's run trace is RunConfig(trace=...) / docs/trace.md",
    "StackedDeviceTensor": "ptokit's DeviceTensor is per worker"})
