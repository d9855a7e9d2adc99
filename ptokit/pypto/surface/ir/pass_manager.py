"""``pypto.ir.pass_manager`` under ``ptokit pypto``: ``OptimizationStrategy`` and
``PassDumpLevel``; pypto's ``PassManager`` (its pass pipeline object) is not provided."""
import enum

from ....targets import OptimizationStrategy  # noqa: F401
from .._names import surface_getattr


class PassDumpLevel(enum.Enum):
    """How much ``dump_passes`` writes.  ptokit writes one dump per pass (``passes_dump/``) for
    ``CONCISE`` and ``EXPLICIT`` alike; ``NONE`` (or ``False``) writes none."""

    NONE = 0
    CONCISE = 1
    EXPLICIT = 2

    @classmethod
    def coerce(cls, value) -> "PassDumpLevel":
        if isinstance(value, cls):
            return value
        if isinstance(value, bool):
            return cls.CONCISE if value else cls.NONE
        raise TypeError(f"dump_passes must be a bool or a PassDumpLevel, got {value!r}")


__getattr__ = surface_getattr("pypto.ir.pass_manager", why={
    "PassManager": "ptokit's pass pipeline is fixed; ptokit.passes.manager.run_passes runs it"})
