"""ptokit: a Python toolchain for PTO tile kernels.

Public surface: ``compile``, ``RuntimeKind``, ``PassContext``, ``DistributedConfig``,
``DistributedCompiledProgram``, ``__version__``.
The DSL lives in ``ptokit.language`` (``import ptokit.language as pl``).
"""
import importlib

from .errors import api_boundary
from .passes.context import PassContext
from .targets import RuntimeKind

__version__ = "0.1.0"
version = __version__


@api_boundary
def compile(program, output_dir=None, platform="a2a3sim", runtime=None, dump_passes=False,
            dump_ptoas_passes=False, **options):
    """Compile a ``@pl.program`` class into an artifact tree; returns a CompiledProgram."""
    # lazy: the compiler (front end, passes, backend; numpy) loads on the first compile, so that
    # `import ptokit` stays a few milliseconds; the compile cache loads it only on a miss, and
    # then distributed_build dispatches a program with a host function to the distributed build
    # and any other to the toolchain
    from .jit.program_cache import compile_cached
    from .targets import platform_to_use
    platform = platform_to_use(platform)     # a hardware platform is simulated under `ptokit pypto`
    return compile_cached(program, output_dir=output_dir, platform=platform, runtime=runtime,
                          dump_passes=dump_passes, dump_ptoas_passes=dump_ptoas_passes, **options)


def __getattr__(name):
    # `import ptokit` then `ptokit.runtime.RunConfig(...)` (language.md) without paying for the
    # submodules' imports up front
    if name in ("runtime", "language", "ir", "passes", "jit", "launch", "backend", "codegen", "errors", "distributed"):
        return importlib.import_module(f".{name}", __name__)
    if name == "DistributedConfig":
        return importlib.import_module(".targets", __name__).DistributedConfig
    if name == "DistributedCompiledProgram":
        return importlib.import_module(".distributed_compiled", __name__).DistributedCompiledProgram
    raise AttributeError(f"module 'ptokit' has no attribute {name!r}")


__all__ = ["compile", "RuntimeKind", "PassContext", "DistributedConfig", "DistributedCompiledProgram", "version",
           "__version__"]
