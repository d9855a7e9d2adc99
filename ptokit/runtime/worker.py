"""``ptokit.runtime.Worker`` (pypto's ``pypto.runtime.Worker``): the abstract runtime handle that
library code type-hints against.  ptokit's two workers, ``ChipWorker`` (one chip,
``ptokit.runtime.device``) and ``DistributedWorker`` (a distributed program's ranks,
``ptokit.distributed_compiled``), are its subclasses, each registered where it is defined
(``isinstance`` and ``issubclass`` hold), so code written against ``Worker`` takes either.  This
module imports nothing of ptokit: both workers' modules may load it."""
from __future__ import annotations

from abc import ABC, abstractmethod


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


__all__ = ["Worker"]
