"""The IR: nodes, types, the op registry, printer and verifier.

``ptokit.ir.compile`` is ``ptokit.compile`` (source compatibility with pypto.ir).
"""


def __getattr__(name):
    if name == "compile":
        from .. import compile as _compile
        return _compile
    raise AttributeError(name)
