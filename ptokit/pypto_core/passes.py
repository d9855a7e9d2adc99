"""pypto's ``pypto.pypto_core.passes`` (also ``pypto.passes``) at the same path in ptokit: the configuration
enums pypto programs pass to ``ir.compile`` / ``RunConfig``, and ``l0_tile_chooser`` (AutoTileMatmulL0's
tile chooser, the same module ptokit's pass uses).  ``MemoryPlanner`` and
``RuntimeKind`` are ptokit's own (``RunConfig`` reads them); the verification and diagnostic
enums are accepted by ``pypto.ir.compile`` and have nothing to act on (ptokit runs its verifier
always and emits no compile diagnostics).  Pass objects and pipelines are not provided."""
import enum

from ..passes import l0_tile_chooser  # noqa: F401 (pypto's passes.l0_tile_chooser: the L0 matmul tile chooser)
from ..targets import MemoryPlanner, RuntimeKind, runtime_kind_from_name, runtime_kind_to_name  # noqa: F401


class VerificationMode(enum.Enum):
    NONE = 0
    BEFORE = 1
    AFTER = 2
    BEFORE_AND_AFTER = 3


class VerificationLevel(enum.Enum):
    NONE = 0
    BASIC = 1
    ROUNDTRIP = 2


class DiagnosticPhase(enum.Enum):
    NONE = 0
    PRE_PIPELINE = 1
    POST_PASS = 2
    POST_PIPELINE = 3


class DiagnosticCheck(enum.Enum):
    UnusedVariable = 0
    UnusedControlFlowResult = 1
    TileInnermostDimGranularity = 2
    OutParamWriteDropped = 3


class DiagnosticCheckSet:
    """A set of ``DiagnosticCheck`` (pypto's ``disabled_diagnostics``)."""

    def __init__(self, checks=()):
        self._checks = set(checks)

    def insert(self, check: DiagnosticCheck) -> None:
        self._checks.add(check)

    def remove(self, check: DiagnosticCheck) -> None:
        self._checks.discard(check)

    def contains(self, check: DiagnosticCheck) -> bool:
        return check in self._checks

    def empty(self) -> bool:
        return not self._checks

    def __iter__(self):
        return iter(self._checks)

    def __len__(self):
        return len(self._checks)

