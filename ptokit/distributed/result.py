"""``DistributedRunResult``: what a distributed run returns (``compiled.last_result``)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Sequence

import numpy as np

from ..runtime.records import BLOCK_RECORD_DTYPE, EDGE_DTYPE, RunResult, Timeline
from ..runtime.config import DEFAULT_CLUSTERS


@dataclass
class DistributedRunResult:
    """``ranks[r]``: rank r's run (its dispatches merged in order, see ``merge_results``);
    ``dispatches[r]``: the RunResult of each of its dispatches; ``elapsed``: seconds of the
    whole host call (entry to the last result)."""

    ranks: List[RunResult]
    elapsed: float
    device_ids: List[int] = field(default_factory=list)
    dispatches: List[List[RunResult]] = field(default_factory=list)

    @property
    def world_size(self) -> int:
        return len(self.ranks)

    def __repr__(self) -> str:
        tasks = [r.tasks for r in self.ranks]
        return f"<DistributedRunResult {len(self.ranks)} ranks, tasks {tasks}, {self.elapsed * 1e3:.1f} ms>"


def empty_result(config) -> RunResult:
    return RunResult(elapsed=0.0, tasks=0, blocks=0,
                     timeline=Timeline(np.zeros(0, BLOCK_RECORD_DTYPE), np.zeros(0, EDGE_DTYPE), {}),
                     schedulers=0, runtime=config.runtime_kind, clusters=config.clusters or DEFAULT_CLUSTERS, platform=config.platform)


def merge_results(results: Sequence[RunResult], starts_ns: Sequence[int], config) -> RunResult:
    """One RunResult for a rank's dispatches, in order: task numbers continue from one dispatch
    to the next, times are relative to the first dispatch's start, and a kernel keeps one
    func_id per name (a func_id another chip already uses for another name gets a free one)."""
    if not results:
        return empty_result(config)
    if len(results) == 1:
        return results[0]
    t0 = starts_ns[0]
    blocks, edges, names, targs = [], [], {}, {}
    by_name = {}
    seq_base = 0
    for res, start in zip(results, starts_ns):
        shift = int(start - t0)
        remap = {}
        for fid, name in sorted(res.timeline.kernel_names.items()):
            if name in by_name:
                remap[fid] = by_name[name]
                continue
            new = fid if fid not in names else max(names) + 1
            names[new] = name
            by_name[name] = new
            remap[fid] = new
        b = res.timeline.blocks.copy()
        b["task_seq"] += seq_base
        for key in ("submit_ns", "ready_ns", "dispatch_ns", "start_ns", "end_ns"):
            b[key] += shift
        if len(b):
            b["func_id"] = np.array([remap.get(int(f), int(f)) for f in b["func_id"]], dtype=b["func_id"].dtype)
        blocks.append(b)
        e = res.timeline.edges.copy()
        e["producer"] += seq_base
        e["consumer"] += seq_base
        edges.append(e)
        for s, a in (res.timeline.task_args or {}).items():
            targs[s + seq_base] = a
        seq_base += res.tasks
    last = results[-1]
    elapsed = (starts_ns[-1] - t0) / 1e9 + last.elapsed
    return RunResult(elapsed=elapsed, tasks=sum(r.tasks for r in results), blocks=sum(r.blocks for r in results),
                     timeline=Timeline(np.concatenate(blocks), np.concatenate(edges), names, targs),
                     schedulers=last.schedulers, runtime=last.runtime, clusters=last.clusters, platform=last.platform)


__all__ = ["DistributedRunResult", "merge_results", "empty_result"]
