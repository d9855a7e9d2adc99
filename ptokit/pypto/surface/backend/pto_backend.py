"""``pypto.backend.pto_backend`` under ``ptokit pypto``: ``PartialCodegenError``.

pypto raises it when code generation fails for some functions of a program; in ptokit every
compile error of a program is a ``ptokit.errors.CompileError`` (located, with a caret), and
``PartialCodegenError`` *is* that class, so ``except PartialCodegenError`` catches what pypto's
would."""
from ....errors import CompileError as PartialCodegenError  # noqa: F401
from .._names import surface_getattr

__getattr__ = surface_getattr("pypto.backend.pto_backend", why={
    "_run_ptoas": "ptokit's assembler is ptokit.backend.ptoas.assemble",
    "_preprocess_ptoas_output": "ptokit's assembler output needs no preprocessing"})
