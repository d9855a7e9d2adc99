"""``ptokit.ir.distributed_compiled_program.DistributedConfig``: pypto programs import the
distributed run configuration from here (``pypto.ir.distributed_compiled_program``); it is
``ptokit.DistributedConfig`` (defined in ``ptokit.targets``).  The compiled program itself is
``ptokit.distributed_compiled.DistributedCompiledProgram``."""
from ..targets import DistributedConfig

__all__ = ["DistributedConfig"]
