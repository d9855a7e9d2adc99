"""Distributed programs on N simulated chips, one host (docs/distributed.md).

Runtime level: everything that runs a distributed artifact tree once it exists --
``launcher`` (``run_distributed``, ``open_session``, ``run_chip_tree``), ``session`` (ranks,
host calls, failures, cleanup), ``host`` (the ``rt`` of host_orch.py), ``worker`` (a rank
process), ``transport`` (shared memory, MPI), ``segments``, ``board``, ``commctx``,
``messages``, ``result``.  Submodules load on first use.
"""
import importlib

_EXPORTS = {
    "run_distributed": "launcher", "open_session": "launcher", "run_chip_tree": "launcher",
    "Session": "session", "HostRuntime": "host", "HostTensor": "host", "WindowTensor": "host", "Slot": "host",
    "DistributedRunResult": "result", "CommContext": "commctx", "Transport": "transport",
    "ShmTransport": "transport",
}


def __getattr__(name):
    # keep `import ptokit.distributed` cheap: the session and transports pull in numpy and the simulator
    if name in _EXPORTS:
        return getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    if name == "DistributedConfig":
        return importlib.import_module("..targets", __name__).DistributedConfig
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = sorted(_EXPORTS) + ["DistributedConfig"]
