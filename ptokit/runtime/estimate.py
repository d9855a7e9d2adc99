"""Estimated device time of a run (``RunConfig(estimate=True)``, docs/estimate.md).

The simulator gives each block record its estimated cycles on its core (``Timeline.estimates``: the
pipeline model of ``sim/sim_estimate.hpp``) and its start in the run's device schedule (tasks in
submission order, each once its producers ended, each block on the core -- a mixed block: the cluster
-- free first; ``est_place`` in ``sim/ptosim.cpp``).  ``device_estimate`` sums them up: run and per-task
cycles and microseconds at the platform's clock, busy cycles per pipe, the critical path.  Nothing
depends on how the CPU scheduled the run, so both runtime kinds give the same figures.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

import numpy as np

from ..targets import DEVICE_CLOCK_HZ, ESTIMATE_PIPES, target_arch


@dataclass(frozen=True)
class TaskEstimate:
    seq: int
    kernel: str
    cycles: int                  # its longest block
    start: int                   # device cycle its first block starts (the run's device schedule)
    end: int                     # ... and its last block ends
    busy: Dict[str, int]         # busy cycles per pipe, over its blocks


class DeviceEstimate:
    """The run's estimated device time: ``cycles`` (when its last task ends on the device), ``busy``
    (cycles per pipe over every core), ``tasks`` (TaskEstimate per task with blocks, by submission),
    ``critical_path`` / ``critical_path_cycles`` (the longest dependency chain of task cycles);
    ``us(c)`` converts cycles at the clock.  Per-task figures are built when first asked for."""

    def __init__(self, timeline, clock_hz: float):
        self.clock_hz = clock_hz
        self._tl = timeline
        est, b = timeline.estimates, timeline.blocks
        ends = est["start"].astype(np.int64) + est["cycles"].astype(np.int64)
        self.cycles = int(ends.max()) if len(est) else 0
        self.busy = dict(zip(ESTIMATE_PIPES, (int(x) for x in est["busy"].sum(axis=0)))) if len(est) else \
            {p: 0 for p in ESTIMATE_PIPES}
        self.block_start = est["start"].astype(np.int64)
        self._tasks: Optional[List[TaskEstimate]] = None
        self._cp: Optional[Tuple[int, Tuple[int, ...]]] = None
        self._ends = ends
        self._seqs = b["task_seq"].astype(np.int64)

    def us(self, cycles: Optional[int] = None) -> float:
        """Microseconds of ``cycles`` (default: the run's) at the clock."""
        return (self.cycles if cycles is None else cycles) / self.clock_hz * 1e6

    @property
    def microseconds(self) -> float:
        return self.us()

    @property
    def tasks(self) -> List[TaskEstimate]:
        if self._tasks is None:
            self._tasks = self._make_tasks()
        return self._tasks

    def task(self, seq: int) -> TaskEstimate:
        return next(t for t in self.tasks if t.seq == seq)

    @property
    def critical_path_cycles(self) -> int:
        return self._critical()[0]

    @property
    def critical_path(self) -> Tuple[int, ...]:
        return self._critical()[1]

    def _make_tasks(self) -> List[TaskEstimate]:
        est, b = self._tl.estimates, self._tl.blocks
        if not len(est):
            return []
        uniq, inv = np.unique(self._seqs, return_inverse=True)
        k = len(uniq)
        start = np.full(k, np.iinfo(np.int64).max, dtype=np.int64)
        end = np.zeros(k, dtype=np.int64)
        longest = np.zeros(k, dtype=np.int64)
        busy = np.zeros((k, len(ESTIMATE_PIPES)), dtype=np.int64)
        np.minimum.at(start, inv, self.block_start)
        np.maximum.at(end, inv, self._ends)
        np.maximum.at(longest, inv, est["cycles"].astype(np.int64))
        np.add.at(busy, inv, est["busy"].astype(np.int64))
        first = np.zeros(k, dtype=np.int64)
        first[inv[::-1]] = np.arange(len(inv))[::-1]          # a record of each task
        names = self._tl.kernel_names or {}
        fids = b["func_id"][first].tolist()
        return [TaskEstimate(int(s), names.get(f, f"func_{f}"), int(c), int(st), int(en),
                             dict(zip(ESTIMATE_PIPES, (int(x) for x in bz))))
                for s, f, c, st, en, bz in zip(uniq.tolist(), fids, longest.tolist(), start.tolist(), end.tolist(),
                                               busy.tolist())]

    def _critical(self) -> Tuple[int, Tuple[int, ...]]:
        if self._cp is None:
            own = {t.seq: t.cycles for t in self.tasks}
            producers: Dict[int, List[int]] = {}
            edges = self._tl.edges
            for p, c in zip(edges["producer"].tolist(), edges["consumer"].tolist()):
                producers.setdefault(c, []).append(p)
            seqs = sorted(set(own) | set(producers) | {p for ps in producers.values() for p in ps})
            best: Dict[int, Tuple[int, Optional[int]]] = {}
            for seq in seqs:
                prev = max(((best[p][0], p) for p in producers.get(seq, ()) if p in best), default=(0, None))
                best[seq] = (prev[0] + own.get(seq, 0), prev[1])
            chain: List[int] = []
            total = 0
            if best:
                at: Optional[int] = max(best, key=lambda s: (best[s][0], -s))
                total = best[at][0]
                while at is not None:
                    chain.append(at)
                    at = best[at][1]
            self._cp = (total, tuple(reversed(chain)))
        return self._cp


def device_estimate(timeline, platform: str) -> Optional[DeviceEstimate]:
    """The run's estimated device time from ``timeline.estimates`` (None when it has none)."""
    if getattr(timeline, "estimates", None) is None:
        return None
    return DeviceEstimate(timeline, DEVICE_CLOCK_HZ[target_arch(platform or "a2a3sim")])


def summary_lines(e: DeviceEstimate, top: int = 3) -> List[str]:
    """The run summary's lines about the estimate."""
    lines = [f"estimated device time: {e.us():.2f} us ({e.cycles} cycles at {e.clock_hz / 1e9:.2f} GHz); "
             f"critical path {e.us(e.critical_path_cycles):.2f} us over {len(e.critical_path)} task(s)",
             "estimated busy cycles per pipe: " + ", ".join(f"{p} {c}" for p, c in e.busy.items())]
    slow = sorted(e.tasks, key=lambda t: (-t.cycles, t.seq))[:top]
    if slow:
        lines.append("estimated slowest tasks: " + ", ".join(
            f"#{t.seq} {t.kernel} {e.us(t.cycles):.2f} us" for t in slow))
    return lines


__all__ = ["DeviceEstimate", "TaskEstimate", "device_estimate", "summary_lines"]
