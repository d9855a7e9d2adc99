"""``pypto.runtime.Worker`` under ``ptokit pypto``: the abstract runtime handle that library code
type-hints against.  ptokit's two workers, ``ChipWorker`` (one chip) and ``DistributedWorker``
(a distributed program's ranks), are its subclasses (registered: ``isinstance`` and
``issubclass`` hold), so code written against ``Worker`` takes either."""
from __future__ import annotations

from abc import ABC, abstractmethod

from ....distributed_compiled import DistributedWorker
from ....runtime.device import ChipWorker


class Worker(ABC):
    """What every worker offers: device tensors (``alloc_tensor`` / ``free_tensor``), a run of a
    compiled program (``run``) and ``close``, and use as a context manager."""

    @abstractmethod
    def alloc_tensor(self, shape, dtype, *, init=None):
        """A DeviceTensor of this worker (zero-filled, or a copy of ``init``)."""

    @abstractmethod
    def free_tensor(self, tensor) -> None:
        """Release a DeviceTensor of this worker."""

    @abstractmethod
    def run(self, compiled, *args, **kwargs):
        """Run a compiled program of this worker on ``args``."""

    @abstractmethod
    def close(self) -> None:
        """Release the worker and its tensors."""


Worker.register(ChipWorker)
Worker.register(DistributedWorker)

__all__ = ["Worker"]
