"""pypto's ``pypto.runtime.distributed_runner`` at the same path in ptokit.

* ``_tensor_from_continuous(arg)`` -- what a SubWorker callback (``prepare(callbacks={name:
  fn})``, called ``fn(args)``) turns one of its arguments into: a torch tensor sharing the host
  tensor's memory (writes land in it) when the program loaded torch, else the numpy view itself.
* ``DistributedWorker``, ``DistributedCompiledProgram``, ``execute_distributed_compiled`` --
  defined in ``ptokit.distributed_compiled``, the stage above the runtime that runs distributed
  trees.  This module names them on first use (a module-level ``__getattr__``), so the runtime
  never loads that stage.
"""
from .arrays import as_torch

_LATER = ("DistributedWorker", "DistributedCompiledProgram", "execute_distributed_compiled")


def _tensor_from_continuous(arg):
    return as_torch(arg)


def __getattr__(name):
    if name in _LATER:
        from .. import distributed_compiled   # lazy: a later stage than the runtime (see the module doc)
        return getattr(distributed_compiled, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["_tensor_from_continuous", *_LATER]
