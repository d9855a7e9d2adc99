"""``pypto.runtime.distributed_runner`` under ``ptokit pypto``: ``DistributedWorker``,
``execute_distributed_compiled`` and ``_tensor_from_continuous`` (what a SubWorker callback turns
its arguments into tensors with)."""
from ....distributed.sub_workers import as_torch
from ....distributed_compiled import DistributedCompiledProgram, DistributedWorker  # noqa: F401
from ....targets import platform_to_use
from .._names import surface_getattr


def execute_distributed_compiled(output_dir, args, config=None, *, platform=None, distributed_config=None):
    """Run a distributed tree compiled before (``DistributedCompiledProgram.from_dir``) once on
    ``args``; OUT/INOUT arrays are written in place.  Returns None (the outputs are the arrays)."""
    program = DistributedCompiledProgram.from_dir(output_dir, distributed_config=distributed_config,
                                                  platform=platform_to_use(platform))
    program(*args, config=config)
    return None


def _tensor_from_continuous(arg):
    """pypto's helper for SubWorker callbacks (``prepare(callbacks={name: fn})``, ``fn(args)``):
    ``args[i]`` as a torch tensor sharing its memory (writes land in the host tensor).  Under
    ptokit ``args[i]`` is a numpy view of the host tensor; without torch loaded, it is returned."""
    return as_torch(arg)


__getattr__ = surface_getattr("pypto.runtime.distributed_runner")
