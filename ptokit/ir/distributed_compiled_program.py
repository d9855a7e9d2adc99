"""pypto's ``pypto.ir.distributed_compiled_program`` at the same path in ptokit:
``DistributedConfig`` (the distributed run configuration, ``ptokit.DistributedConfig``, declared
with the targets) and ``DistributedCompiledProgram``.  The compiled program is
``ptokit.distributed_compiled.DistributedCompiledProgram``, a stage above the IR (it runs
trees): this module names it on first use (a module-level ``__getattr__``), so the IR never loads
the runtime."""
from ..targets import DistributedConfig


def __getattr__(name):
    if name == "DistributedCompiledProgram":
        # lazy: a later stage than the IR (see the module doc)
        from ..distributed_compiled import DistributedCompiledProgram
        return DistributedCompiledProgram
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["DistributedConfig", "DistributedCompiledProgram"]
