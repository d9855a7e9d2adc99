"""Build cache, callable image, simulator and run configuration.

``ptokit.runtime.RunConfig`` is the validated run configuration (platform, thread count,
timeouts, simulator options, trace).
"""
from .config import RunConfig

__all__ = ["RunConfig"]
