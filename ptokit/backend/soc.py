"""pypto's SoC description (``pypto.backend.Backend910B.instance().soc``, ``Die``, ``Cluster``,
``Core``, ``Mem``) built from ptokit's platform facts (``ptokit.targets``): the chip of a
backend is one die of ``SIM_CLUSTERS`` clusters (the clusters ptokit's simulator models for the
family), each one cube core (AIC) with the matrix buffers and two vector cores (AIV) with the
vector buffer; buffer sizes are ``BUFFER_CAPACITY``, alignments the memory planner's.  Objects
are read-only; the counts are what a program sizes its grid by."""
from __future__ import annotations

import enum
from typing import Dict, List

from ..ir.kinds import ALIGNMENT, MemorySpace
from ..targets import BUFFER_CAPACITY, SIM_CLUSTERS, BackendType, coerce_backend_type


class CoreType(enum.IntEnum):
    """pypto's ``pypto_core.ir.CoreType``."""

    VECTOR = 0
    CUBE = 1


class Mem:
    def __init__(self, mem_type: MemorySpace, mem_size: int, alignment: int) -> None:
        self.mem_type, self.mem_size, self.alignment = mem_type, int(mem_size), int(alignment)

    def __repr__(self) -> str:
        return f"Mem({self.mem_type!r}, {self.mem_size}, {self.alignment})"


class Core:
    def __init__(self, core_type: CoreType, mems: List[Mem]) -> None:
        self.core_type, self.mems = CoreType(core_type), list(mems)

    def __repr__(self) -> str:
        return f"Core({self.core_type.name}, {[m.mem_type.name for m in self.mems]})"


class Cluster:
    def __init__(self, core_counts: Dict[Core, int]) -> None:
        self.core_counts = dict(core_counts)

    def total_core_count(self) -> int:
        return sum(self.core_counts.values())


class Die:
    def __init__(self, cluster_counts: Dict[Cluster, int]) -> None:
        self.cluster_counts = dict(cluster_counts)

    def total_cluster_count(self) -> int:
        return sum(self.cluster_counts.values())

    def total_core_count(self) -> int:
        return sum(c.total_core_count() * n for c, n in self.cluster_counts.items())


class SoC:
    def __init__(self, die_counts: Dict[Die, int]) -> None:
        self.die_counts = dict(die_counts)

    def total_die_count(self) -> int:
        return sum(self.die_counts.values())

    def total_cluster_count(self) -> int:
        return sum(d.total_cluster_count() * n for d, n in self.die_counts.items())

    def total_core_count(self) -> int:
        return sum(d.total_core_count() * n for d, n in self.die_counts.items())


def _mems(arch: str, spaces) -> List[Mem]:
    caps = BUFFER_CAPACITY[arch]
    return [Mem(s, caps[s.value], ALIGNMENT.get(s, 32)) for s in spaces if caps[s.value] > 0]


def _soc(arch: str) -> SoC:
    cube = Core(CoreType.CUBE, _mems(arch, (MemorySpace.Mat, MemorySpace.Left, MemorySpace.Right, MemorySpace.Acc,
                                            MemorySpace.Bias, MemorySpace.LeftScale, MemorySpace.RightScale)))
    vector = Core(CoreType.VECTOR, _mems(arch, (MemorySpace.Vec,)))
    cluster = Cluster({cube: 1, vector: 2})
    return SoC({Die({cluster: SIM_CLUSTERS[f"{arch}sim"]}): 1})


class Backend:
    """A backend's chip: ``soc`` and the questions pypto's ``Backend`` answers about it."""

    _instances: Dict[BackendType, "Backend"] = {}

    def __init__(self, backend_type: BackendType) -> None:
        self.backend_type = coerce_backend_type(backend_type)
        self.soc = _soc(self.backend_type.arch)

    @classmethod
    def _of(cls, backend_type: BackendType) -> "Backend":
        bt = coerce_backend_type(backend_type)
        if bt not in Backend._instances:
            Backend._instances[bt] = {BackendType.Ascend910B: Backend910B,
                                      BackendType.Ascend950: Backend950}[bt](bt)
        return Backend._instances[bt]

    def get_type_name(self) -> str:
        return self.backend_type.name

    def get_core_count(self, core_type: CoreType) -> int:
        ct = CoreType(core_type)
        return sum(core_n * cluster_n * die_n
                   for die, die_n in self.soc.die_counts.items()
                   for cluster, cluster_n in die.cluster_counts.items()
                   for core, core_n in cluster.core_counts.items() if core.core_type == ct)

    def get_mem_size(self, mem_type: MemorySpace) -> int:
        return BUFFER_CAPACITY[self.backend_type.arch][MemorySpace(mem_type).value]

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.soc.total_core_count()} cores>"


class Backend910B(Backend):
    @staticmethod
    def instance() -> "Backend910B":
        return Backend._of(BackendType.Ascend910B)


class Backend950(Backend):
    @staticmethod
    def instance() -> "Backend950":
        return Backend._of(BackendType.Ascend950)


def get_backend_instance(backend_type) -> Backend:
    """The backend object of ``backend_type`` (pypto's ``backend.get_backend_instance``)."""
    return Backend._of(backend_type)


__all__ = ["CoreType", "Mem", "Core", "Cluster", "Die", "SoC", "Backend", "Backend910B", "Backend950",
           "get_backend_instance"]
