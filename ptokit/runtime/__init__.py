"""Build cache, callable image, simulator and run configuration.

``ptokit.runtime.RunConfig`` is the validated run configuration (platform, thread count,
timeouts, simulator options, trace); ``ptokit.runtime.ExternalTensor`` a run argument used in
place (no copies).
"""
import importlib

from .config import RunConfig


def __getattr__(name):
    # ExternalTensor needs numpy (abi); `ptokit.runtime.RunConfig` alone should not load it
    if name == "ExternalTensor":
        return importlib.import_module(".external", __name__).ExternalTensor
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["RunConfig", "ExternalTensor"]
