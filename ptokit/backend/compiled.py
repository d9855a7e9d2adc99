"""``ptokit.backend.compiled.CompiledProgram``: the class's home before it moved above the backend
and the runtime (``ptokit.compiled``, pypto's path ``ptokit.ir.compiled_program``).  Code written
against that earlier path still imports it from here; the name is resolved on first use (a
module-level ``__getattr__``), so the backend never loads the runtime."""


def __getattr__(name):
    if name == "CompiledProgram":
        from ..compiled import CompiledProgram   # lazy: a later stage than the backend (see the module doc)
        return CompiledProgram
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["CompiledProgram"]
