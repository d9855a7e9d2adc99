"""``pypto.runtime.distributed_runner`` under ``ptokit pypto``: ``DistributedWorker`` and
``execute_distributed_compiled``."""
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


__getattr__ = surface_getattr("pypto.runtime.distributed_runner")
