"""``ptokit.ir.compiled_program.CompiledProgram`` (pypto's ``pypto.ir.compiled_program``): the
class is ``ptokit.compiled.CompiledProgram``, a stage above the IR (it runs trees).  This module
only names it, on first use (a module-level ``__getattr__``), so the IR never loads the runtime."""


def __getattr__(name):
    if name == "CompiledProgram":
        from ..compiled import CompiledProgram   # lazy: a later stage than the IR (see the module doc)
        return CompiledProgram
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["CompiledProgram"]
