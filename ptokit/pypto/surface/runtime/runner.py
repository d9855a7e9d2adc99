"""``pypto.runtime.runner`` under ``ptokit pypto``: ``RunConfig``, ``RunResult``, ``run``,
``compile_program``, ``execute_compiled``."""
from ....runtime.config import RunConfig  # noqa: F401
from .._names import surface_getattr

__getattr__ = surface_getattr("pypto.runtime.runner", "ptokit.runtime", "ptokit.harness")
