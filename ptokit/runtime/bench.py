"""``ptokit.runtime.benchmark`` (pypto's ``pypto.runtime.benchmark``): register a compiled program once, launch it
``warmup + rounds`` times, and return the per-round times as a ``BenchmarkStats``.

What the times are here: ``device_wall_us`` is the simulated device's span of one launch (the
run record's ``elapsed``: orchestration start to the last task's end, measured on this CPU by the
simulator, not an NPU time); for a distributed program, the largest over the ranks, whose own
spans are ``per_rank("device")``.  ``host_wall_us`` is the whole launch as the caller sees it
(argument handling, the run, the copies back).  pypto reads the same two figures from the
runtime's trace markers; ptokit's run record has them directly.  For an estimate of the time on
the NPU, use ``RunConfig(estimate=True)`` (docs/estimate.md).
"""
from __future__ import annotations

import os
import statistics
import time
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence

from ..artifacts.distributed_config import is_distributed_tree
from ..errors import UserError
from .config import RunConfig
from .device import ChipWorker

_METRICS = ("device", "host", "effective")


@dataclass
class BenchmarkStats:
    """Per-round samples (``rounds`` of them, warmup launches left out) and their summaries."""

    device_wall_us: List[float]
    host_wall_us: List[float]
    rounds: int
    warmup: int
    rank_device_us: Dict[int, List[float]] = field(default_factory=dict)   # distributed: rank -> per round
    rank_host_us: Dict[int, List[float]] = field(default_factory=dict)
    fallback_flattened: bool = False    # one launch per round per rank here: never needed

    @property
    def samples(self) -> List[float]:
        return self.device_wall_us

    @property
    def all_zero_device(self) -> bool:
        return bool(self.device_wall_us) and all(v == 0 for v in self.device_wall_us)

    @property
    def device_us_min(self) -> float:
        return min(self.device_wall_us)

    @property
    def device_us_max(self) -> float:
        return max(self.device_wall_us)

    @property
    def device_us_median(self) -> float:
        return statistics.median(self.device_wall_us)

    @property
    def device_us_mean(self) -> float:
        return statistics.fmean(self.device_wall_us)

    @property
    def device_us_stdev(self) -> float:
        return statistics.stdev(self.device_wall_us) if len(self.device_wall_us) > 1 else 0.0

    def per_round(self, metric: str = "device") -> List[float]:
        """``device`` / ``effective``: the device span per round; ``host``: the launch's host
        wall; ``union``: the host wall too (the ranks of a round run inside one launch)."""
        if metric in ("device", "effective"):
            return list(self.device_wall_us)
        if metric in ("host", "union"):
            return list(self.host_wall_us)
        raise ValueError(f"unknown metric {metric!r}: one of device, host, effective, union")

    def per_rank(self, metric: str = "device") -> Dict[int, List[float]]:
        """Each rank's per-round series (a distributed program; empty for one chip)."""
        if metric not in _METRICS:
            raise ValueError(f"unknown metric {metric!r}: one of {', '.join(_METRICS)}")
        src = self.rank_host_us if metric == "host" else self.rank_device_us
        return {r: list(v) for r, v in src.items()}

    def __str__(self) -> str:
        return (f"BenchmarkStats(rounds={self.rounds}, warmup={self.warmup}, device_us median "
                f"{self.device_us_median:.1f} [min {self.device_us_min:.1f}, max {self.device_us_max:.1f}])")


def benchmark(compiled, args: Sequence, *, rounds: int = 100, warmup: int = 3, platform: Optional[str] = None,
              device_id: Optional[int] = None, config: Optional[RunConfig] = None, persistent: bool = False,
              reset_persistent_windows: Optional[bool] = None) -> BenchmarkStats:
    """pypto's ``benchmark``: ``compiled`` (a CompiledProgram or a DistributedCompiledProgram) is
    registered once, then launched ``warmup + rounds`` times on ``args`` (outputs written in
    place each time).  ``platform`` / ``device_id`` (one chip only) or ``config`` choose the worker."""
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds <= 0:
        raise ValueError(f"rounds must be positive, got {rounds}")
    if isinstance(warmup, bool) or not isinstance(warmup, int) or warmup < 0:
        raise ValueError(f"warmup must be non-negative, got {warmup}")
    if persistent or reset_persistent_windows is not None:
        raise UserError("benchmark(persistent=..., reset_persistent_windows=...) is not provided by ptokit: its "
                        "distributed runs allocate their windows per launch")
    args = list(args)
    if not hasattr(compiled, "__fspath__"):
        raise TypeError(f"benchmark takes a CompiledProgram or a DistributedCompiledProgram, got "
                        f"{type(compiled).__name__}")
    if is_distributed_tree(os.fspath(compiled)):     # a DistributedCompiledProgram: its tree has the manifest
        if platform is not None or device_id is not None:
            raise ValueError("benchmark of a distributed program takes no platform / device_id: its devices are "
                             "the compiled DistributedConfig's")
        return _benchmark_distributed(compiled, args, rounds, warmup, config)
    if config is not None and (platform is not None or device_id is not None):
        raise ValueError("benchmark takes config or platform / device_id, not both")
    if config is None:
        config = RunConfig(platform=platform or compiled.platform, device_id=device_id or 0)
    device, host = [], []
    with ChipWorker(config=config, runtime=compiled.runtime_name) as worker:
        handle = worker.register(compiled)
        for k in range(warmup + rounds):
            t0 = time.perf_counter()
            handle(*args, config=config)
            wall = (time.perf_counter() - t0) * 1e6
            if k >= warmup:
                device.append(compiled.last_result.elapsed * 1e6)
                host.append(wall)
    return BenchmarkStats(device, host, rounds, warmup)


def _benchmark_distributed(compiled, args, rounds, warmup, config) -> BenchmarkStats:
    device, host = [], []
    rank_dev: Dict[int, List[float]] = {}
    rank_host: Dict[int, List[float]] = {}
    with compiled.prepare(config) as rt:
        for k in range(warmup + rounds):
            t0 = time.perf_counter()
            rt(*args)
            wall = (time.perf_counter() - t0) * 1e6
            if k < warmup:
                continue
            res = compiled.last_result
            spans = [r.elapsed * 1e6 for r in res.ranks]
            device.append(max(spans))
            host.append(wall)
            for r, s in enumerate(spans):
                rank_dev.setdefault(r, []).append(s)
                rank_host.setdefault(r, []).append(wall)
    return BenchmarkStats(device, host, rounds, warmup, rank_dev, rank_host)


__all__ = ["benchmark", "BenchmarkStats"]
