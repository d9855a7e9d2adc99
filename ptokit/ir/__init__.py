"""The IR: nodes, types, the op registry, printer and verifier.

``ptokit.ir.compile`` is ``ptokit.compile`` (source compatibility with pypto.ir), and
``OptimizationStrategy`` / ``DistributedConfig`` are pypto's ``ir.OptimizationStrategy`` /
``ir.DistributedConfig`` (declared with the targets).
The printer (the nodes' ``as_python()`` text form) loads on first use, not with the package.
"""
from importlib import import_module

from ..targets import DistributedConfig, OptimizationStrategy  # noqa: F401  (pypto.ir.DistributedConfig)
from . import nodes as _nodes


def _printer_form(kind: str):
    # a stand-in for the printer's function until the printer loads (a warm jit call never prints,
    # so it never pays for the printer's import); loading it registers the real ones
    def text(*args, **kwargs):
        import_module(__name__ + ".printer")   # lazy: see above
        return _nodes.TEXT_FORM[kind](*args, **kwargs)
    return text


_nodes.TEXT_FORM.update(function=_printer_form("function"), program=_printer_form("program"))


def __getattr__(name):
    if name == "printer":   # `ptokit.ir.printer` after `import ptokit.ir`
        return import_module(__name__ + ".printer")
    if name == "compile":
        # lazy, and only for this alias: pypto spells it pypto.ir.compile, and the IR never needs the
        # compiler driver itself (importing it here would make the IR depend on every later stage)
        from .. import compile as _compile
        return _compile
    raise AttributeError(name)
