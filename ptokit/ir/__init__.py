"""The IR: nodes, types, the op registry, printer and verifier.

``ptokit.ir.compile`` is ``ptokit.compile`` (source compatibility with pypto.ir), and
``OptimizationStrategy`` is pypto's ``ir.OptimizationStrategy`` (declared with the targets).
The printer loads with the package: it is the nodes' ``as_python()`` text form.
"""
from ..targets import OptimizationStrategy  # noqa: F401
from . import printer  # noqa: F401


def __getattr__(name):
    if name == "compile":
        # lazy, and only for this alias: pypto spells it pypto.ir.compile, and the IR never needs the
        # compiler driver itself (importing it here would make the IR depend on every later stage)
        from .. import compile as _compile
        return _compile
    raise AttributeError(name)
