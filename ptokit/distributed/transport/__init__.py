"""The transport seam of distributed runs (docs/distributed.md, "Scale-out").

A ``Transport`` starts the rank processes, creates their windows, carries the messages and
stops them; on the rank side a *link* maps the windows and provides the ``PtoCommOps`` table
through which every kernel access to a window goes.  ``ShmTransport`` (shared memory on one
host) is the default; ``MpiTransport`` (mpi4py one-sided windows, the ``ptokit[mpi]`` extra)
runs under ``mpirun``.
"""
from .base import Event, Transport, World
from .shm import ShmTransport


def make_transport(name: str) -> Transport:
    """The transport called ``name`` (``DistributedConfig.transport``)."""
    if name == "shm":
        return ShmTransport()
    if name == "mpi":
        from .mpi import MpiTransport   # lazy: mpi4py is an optional extra
        return MpiTransport()
    raise ValueError(f"unknown transport {name!r}")


__all__ = ["Transport", "World", "Event", "ShmTransport", "make_transport"]
