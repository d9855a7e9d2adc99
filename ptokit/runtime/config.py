"""RunConfig: how a program is run on the CPU simulator."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Optional, Union

from ..targets import PLATFORMS, SIM_PLATFORMS, DistributedConfig, RuntimeKind, coerce_runtime_kind

DEFAULT_AICPU_THREADS = {"a2a3sim": 4, "a5sim": 5}
HARDWARE_CLUSTERS = {"a2a3sim": 24, "a5sim": 36}


def valid_aicpu_thread_nums(platform: str) -> list:
    """0 (= the platform default) and 2..default (1 orchestrator + at least 1 scheduler)."""
    return [0] + list(range(2, DEFAULT_AICPU_THREADS[platform] + 1))


@dataclass(frozen=True)
class RunConfig:
    """Validated on construction; an invalid value is a ValueError listing the valid ones."""

    platform: str = "a2a3sim"
    runtime: Union[RuntimeKind, str, None] = None    # None: from the tree's kernel_config.py
    aicpu_thread_num: int = 0                         # 0: platform default (a2a3 4, a5 5)
    clusters: int = 8
    timeout: float = 60.0                             # seconds without progress -> error 100
    debug_nan_fill: bool = False
    task_ring_size: int = 16384                       # task slots per ring
    heap_size: int = 1 << 30                          # bytes per heap ring (virtual, touched on use)
    dep_pool_size: int = 1 << 18                      # dependency edges per ring
    dump_passes: bool = False
    dump_ptoas_passes: bool = False
    trace: Optional[str] = None                       # Perfetto trace path (written by the trace step)
    distributed_config: Optional[DistributedConfig] = None   # ranks of a distributed program (None: as compiled)

    def __post_init__(self):
        if self.platform not in PLATFORMS:
            raise ValueError(f"unknown platform {self.platform!r}; valid platforms are {', '.join(PLATFORMS)}")
        if self.platform not in SIM_PLATFORMS:
            raise ValueError(f"platform {self.platform!r} is real hardware: running needs the vendor toolchain "
                             f"(CANN runtime); ptokit can only compile for it. Run on one of "
                             f"{', '.join(SIM_PLATFORMS)} instead")
        object.__setattr__(self, "runtime", coerce_runtime_kind(self.runtime))
        valid = valid_aicpu_thread_nums(self.platform)
        if not isinstance(self.aicpu_thread_num, int) or self.aicpu_thread_num not in valid:
            raise ValueError(f"aicpu_thread_num={self.aicpu_thread_num!r} is not valid on {self.platform}; "
                             f"valid values are {', '.join(map(str, valid))} (0 = default "
                             f"{DEFAULT_AICPU_THREADS[self.platform]}: 1 orchestrator + schedulers)")
        hw = HARDWARE_CLUSTERS[self.platform]
        if not isinstance(self.clusters, int) or not 1 <= self.clusters <= hw:
            raise ValueError(f"clusters={self.clusters!r} is not valid on {self.platform}; valid values are 1..{hw}")
        if isinstance(self.timeout, bool) or not isinstance(self.timeout, (int, float)) or not self.timeout > 0:
            raise ValueError(f"timeout={self.timeout!r}: must be a positive number of seconds")
        for name, lo in (("task_ring_size", 1), ("heap_size", 4096), ("dep_pool_size", 1)):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < lo:
                raise ValueError(f"{name}={v!r}: must be an integer >= {lo}")
        for name in ("debug_nan_fill", "dump_passes", "dump_ptoas_passes"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name}={getattr(self, name)!r}: must be True or False")
        if self.distributed_config is not None and not isinstance(self.distributed_config, DistributedConfig):
            raise ValueError(f"distributed_config={self.distributed_config!r}: must be a ptokit.DistributedConfig")
        if self.trace is not None and not isinstance(self.trace, str):
            object.__setattr__(self, "trace", str(self.trace))

    @property
    def runtime_kind(self) -> RuntimeKind:
        return self.runtime or RuntimeKind.TENSORMAP_AND_RINGBUFFER

    @property
    def effective_aicpu_thread_num(self) -> int:
        return self.aicpu_thread_num or DEFAULT_AICPU_THREADS[self.platform]

    def replace(self, **changes) -> "RunConfig":
        return dataclasses.replace(self, **changes)
