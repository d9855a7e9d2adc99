"""The IR: nodes, types, the op registry, printer and verifier.

``ptokit.ir.compile`` is ``ptokit.compile`` (source compatibility with pypto.ir), and
``OptimizationStrategy`` / ``DistributedConfig`` are pypto's ``ir.OptimizationStrategy`` /
``ir.DistributedConfig`` (declared with the targets); ``ptokit.ir.Function`` / ``Program`` are the
IR's function and program nodes (pypto's ``ir.Function``, what ``pl.parse`` of one function gives).
Nothing else loads with the package: the nodes, the types and the printer (the nodes'
``as_python()`` text form) load when first imported or used.
"""
from importlib import import_module

from ..targets import DistributedConfig, OptimizationStrategy  # noqa: F401  (pypto.ir.DistributedConfig)

_SUBMODULES = ("nodes", "types", "kinds", "comm", "host", "ops", "printer", "verifier", "serialization",
               "compiled_program", "distributed_compiled_program")
# pypto.ir's names for objects of this package's modules (loaded on first use)
_LAZY = {"Function": "nodes", "Program": "nodes", "serialize": "serialization", "deserialize": "serialization",
         "python_print": "printer", "CompiledProgram": "compiled_program",
         "DistributedCompiledProgram": "distributed_compiled_program"}


def __getattr__(name):
    if name in _SUBMODULES:   # `ptokit.ir.nodes` after `import ptokit.ir`
        return import_module(f"{__name__}.{name}")
    if name in _LAZY:
        return getattr(import_module(f"{__name__}.{_LAZY[name]}"), name)
    if name == "compile":
        # lazy, and only for this alias: pypto spells it pypto.ir.compile, and the IR never needs the
        # compiler driver itself (importing it here would make the IR depend on every later stage)
        from .. import compile as _compile
        return _compile
    raise AttributeError(name)
