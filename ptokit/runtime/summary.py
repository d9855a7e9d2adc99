"""Run statistics from a simulator timeline.

``summarize(result)`` takes a ``RunResult`` -- a live one, or one read back from a trace
file by ``ptokit.runtime.trace.read_trace`` -- and returns a ``RunSummary``: counts,
critical path, per-core busy fraction, where tasks waited, and the slowest kernels.
Everything is computed from the integer nanosecond timestamps of the timeline, so the
summary of a trace read back equals the summary of the run that wrote it.

Definitions (times in ns, relative to the run start):

* a task's *duration* is ``max(end) - min(start)`` over its blocks (SPMD blocks and the
  lanes of a mixed task);
* the *window* is ``min(submit)`` .. ``max(end)``: from the first submission to the last
  block's end; busy fractions are relative to it;
* *critical path by time*: the dependency chain whose task durations add up to the most;
  *by count*: the chain with the most tasks (ties: the one with the larger time, then the
  lower submission numbers);
* *waiting for dependencies*: ``ready - submit`` per task (submitted, producers not done);
  *waiting for a core*: ``dispatch - ready`` per block (ready, no free core of its type);
  *launch*: ``start - dispatch`` per block (the core waking up and entering the kernel).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Optional

import numpy as np

from .estimate import summary_lines


def core_label(core_id: int, lane: int, clusters: int) -> str:
    """``cluster C AIC`` / ``cluster C AIV0|1`` (runtime.md: core i < B is the AIC of cluster i,
    cluster c is {c, B+2c, B+2c+1})."""
    if lane < 0:
        return f"cluster {core_id} AIC"
    if clusters > 0:
        return f"cluster {(core_id - clusters) // 2} AIV{lane}"
    return f"core {core_id} AIV{lane}"


def all_cores(clusters: int) -> list:
    """(core_id, lane) of every simulated core, ordered cluster by cluster: AIC, AIV0, AIV1."""
    out = []
    for c in range(clusters):
        out += [(c, -1), (clusters + 2 * c, 0), (clusters + 2 * c + 1, 1)]
    return out


@dataclass(frozen=True)
class KernelStat:
    func_id: int
    name: str
    blocks: int
    total_ns: int
    max_ns: int

    @property
    def mean_ns(self) -> float:
        return self.total_ns / self.blocks if self.blocks else 0.0


@dataclass(frozen=True)
class CoreStat:
    core_id: int
    lane: int           # -1 AIC, 0/1 AIV lane
    label: str
    blocks: int
    busy_ns: int
    busy_fraction: float


@dataclass(frozen=True)
class RunSummary:
    tasks: int
    blocks: int
    edges: int
    window_ns: int                      # first submit .. last end
    critical_path_ns: int               # longest chain by summed task duration
    critical_path: tuple                # its task submission numbers, producer first
    critical_path_count: int            # most tasks in one dependency chain
    critical_path_by_count: tuple       # that chain's task submission numbers
    dep_wait_ns: int                    # sum over tasks of ready - submit
    dep_wait_max_ns: int
    core_wait_ns: int                   # sum over blocks of dispatch - ready
    core_wait_max_ns: int
    launch_ns: int                      # sum over blocks of start - dispatch
    busy_ns: int                        # sum over blocks of end - start
    fifo_wait_ns: int = 0               # TPUSH/TPOP time blocked on cross-core FIFOs (when recorded)
    fifo_waits: int = 0
    cores: tuple = ()                   # CoreStat per simulated core (every core when the cluster count is known)
    kernels: tuple = ()                 # KernelStat, by total time, largest first
    task_names: dict = field(default_factory=dict, compare=False, repr=False)   # seq -> kernel name
    elapsed_s: float = 0.0
    platform: str = ""
    runtime: str = ""
    clusters: int = 0
    schedulers: int = 0
    in_place: tuple = ()                # argument indices of the arrays the run used in place
    copied: tuple = ()                  # (argument index, reason) of the arrays it copied
    estimate: tuple = ()                # the estimated device time's lines (RunConfig(estimate=True))

    def slowest_by_total(self, n: int = 5) -> list:
        return list(self.kernels[:n])

    def slowest_by_max(self, n: int = 5) -> list:
        return sorted(self.kernels, key=lambda k: (-k.max_ns, k.func_id))[:n]

    def to_dict(self) -> dict:
        d = asdict(self)
        d.pop("task_names", None)
        d["critical_path"] = list(self.critical_path)
        d["critical_path_by_count"] = list(self.critical_path_by_count)
        d["in_place"] = list(self.in_place)
        d["copied"] = [list(c) for c in self.copied]
        return d

    def _chain_text(self, chain) -> str:
        names = [f"{self.task_names.get(s, '?')}#{s}" for s in chain]
        if len(names) > 8:
            names = names[:4] + [f"... {len(names) - 7} more ..."] + names[-3:]
        return " -> ".join(names)

    def format(self, top: int = 5) -> str:
        """A human-readable report (what ``ptokit run`` and ``ptokit trace summarize`` print)."""
        us = lambda ns: f"{ns / 1e3:.1f} us"   # noqa: E731
        head = f"run summary: {self.tasks} task(s), {self.blocks} block(s), {self.edges} dependency edge(s)"
        where = ", ".join(x for x in (self.runtime, self.platform,
                                      f"{self.clusters} clusters" if self.clusters else "",
                                      f"{self.schedulers} schedulers" if self.schedulers else "") if x)
        lines = [head + (f" ({where})" if where else "")]
        lines.append(f"  window {us(self.window_ns)} (first submit to last end), "
                     f"elapsed {self.elapsed_s * 1e3:.3f} ms, kernel time {us(self.busy_ns)}")
        lines.append(f"  critical path: {us(self.critical_path_ns)} over {len(self.critical_path)} task(s)"
                     + (f": {self._chain_text(self.critical_path)}" if self.critical_path else ""))
        lines.append(f"  longest chain: {self.critical_path_count} task(s)"
                     + (f": {self._chain_text(self.critical_path_by_count)}" if self.critical_path_by_count else ""))
        lines.append(f"  waiting for dependencies {us(self.dep_wait_ns)} (max {us(self.dep_wait_max_ns)} per task), "
                     f"for a core {us(self.core_wait_ns)} (max {us(self.core_wait_max_ns)} per block), "
                     f"launch {us(self.launch_ns)}")
        if self.in_place or self.copied:
            lines.append(f"  arrays: {len(self.in_place)} used in place, {len(self.copied)} copied"
                         + "".join(f"; argument {i}: {why}" for i, why in self.copied))
        if self.fifo_waits:
            lines.append(f"  cross-core FIFO waits: {self.fifo_waits}, {us(self.fifo_wait_ns)} (TPUSH/TPOP blocked)")
        used = [c for c in self.cores if c.blocks]
        idle = len(self.cores) - len(used)
        if used:
            lines.append(f"  core busy ({len(used)} used" + (f", {idle} idle" if idle else "") + "):")
            for c in sorted(used, key=lambda c: (-c.busy_fraction, c.core_id))[:max(top, 1) * 2]:
                lines.append(f"    {c.label:<18} {100 * c.busy_fraction:6.2f}%  {c.blocks:>6} block(s)  {us(c.busy_ns)}")
            if len(used) > max(top, 1) * 2:
                lines.append(f"    ... {len(used) - max(top, 1) * 2} more core(s)")
        if self.kernels:
            lines.append("  slowest kernels by total:")
            for k in self.slowest_by_total(top):
                lines.append(f"    {k.name:<24} {us(k.total_ns):>12}  {k.blocks:>6} block(s)  "
                             f"mean {us(k.mean_ns)}  max {us(k.max_ns)}")
            lines.append("  slowest kernels by max:")
            for k in self.slowest_by_max(top):
                lines.append(f"    {k.name:<24} {us(k.max_ns):>12}  ({k.blocks} block(s))")
        lines += [f"  {line}" for line in self.estimate]
        return "\n".join(lines)

    __str__ = format


def _longest_chains(seqs, durations, edges):
    """Longest paths of the dependency DAG (producers are always submitted first).

    Returns ((time_ns, chain), (count, chain)) with chains as tuples of task seqs."""
    preds: dict = {}
    present = set(seqs)
    for p, c in edges:
        if p in present and c in present and p != c:
            preds.setdefault(c, []).append(p)
    best_t: dict = {}
    best_n: dict = {}
    via_t: dict = {}
    via_n: dict = {}
    for s in sorted(seqs):
        d = durations[s]
        pt = pn = None
        for p in preds.get(s, ()):
            if p not in best_t:      # an edge against submission order: not expected, ignore
                continue
            if pt is None or (best_t[p], -p) > (best_t[pt], -pt):
                pt = p
            if pn is None or (best_n[p], -p) > (best_n[pn], -pn):
                pn = p
        best_t[s], via_t[s] = (best_t[pt] if pt is not None else 0) + d, pt
        best_n[s] = (best_n[pn][0] + 1, best_n[pn][1] + d) if pn is not None else (1, d)
        via_n[s] = pn

    def chain(end, via):
        out = []
        while end is not None:
            out.append(end)
            end = via[end]
        return tuple(reversed(out))

    if not seqs:
        return (0, ()), (0, ())
    end_t = min(best_t, key=lambda s: (-best_t[s], s))
    end_n = min(best_n, key=lambda s: (-best_n[s][0], -best_n[s][1], s))
    return (best_t[end_t], chain(end_t, via_t)), (best_n[end_n][0], chain(end_n, via_n))


def summarize(result, clusters: Optional[int] = None) -> RunSummary:
    """The summary of a ``RunResult`` (live, or read back with ``trace.read_trace``)."""
    tl = result.timeline
    b = np.sort(tl.blocks, order=["task_seq", "block_idx", "lane", "core_id"]) if len(tl.blocks) else tl.blocks
    clusters = int(clusters if clusters is not None else getattr(result, "clusters", 0) or 0)
    names = dict(tl.kernel_names or {})

    def kname(fid: int) -> str:
        return names.get(int(fid), f"func_{int(fid)}")

    n = len(b)
    seq = b["task_seq"].astype(np.int64)
    start, end = b["start_ns"].astype(np.int64), b["end_ns"].astype(np.int64)
    submit, ready = b["submit_ns"].astype(np.int64), b["ready_ns"].astype(np.int64)
    dispatch = b["dispatch_ns"].astype(np.int64)
    run = end - start
    seqs = sorted(set(int(s) for s in seq))
    durations, task_names, task_wait = {}, {}, {}
    if n:
        uniq, first = np.unique(seq, return_index=True)
        tmin = np.minimum.reduceat(start, first)
        tmax = np.maximum.reduceat(end, first)
        for s, lo, hi, i in zip(uniq.tolist(), tmin.tolist(), tmax.tolist(), first.tolist()):
            durations[s] = int(hi - lo)
            task_names[s] = kname(b["func_id"][i])
            task_wait[s] = int(ready[i] - submit[i])
    edges = [(int(p), int(c)) for p, c in zip(tl.edges["producer"].tolist(), tl.edges["consumer"].tolist())] \
        if len(tl.edges) else []
    (cp_t, chain_t), (cp_n, chain_n) = _longest_chains(seqs, durations, edges)

    per_core: dict = {}
    for cid, lane, r in zip(b["core_id"].tolist(), b["lane"].tolist(), run.tolist()):
        acc = per_core.setdefault((cid, lane), [0, 0])
        acc[0] += 1
        acc[1] += r
    window = int(end.max() - submit.min()) if n else 0
    keys = all_cores(clusters) if clusters else []
    keys += sorted(k for k in per_core if k not in set(keys))
    cores = tuple(CoreStat(cid, lane, core_label(cid, lane, clusters), per_core.get((cid, lane), [0, 0])[0],
                           int(per_core.get((cid, lane), [0, 0])[1]),
                           (per_core.get((cid, lane), [0, 0])[1] / window) if window > 0 else 0.0)
                  for cid, lane in keys)

    per_kernel: dict = {}
    for fid, r in zip(b["func_id"].tolist(), run.tolist()):
        acc = per_kernel.setdefault(fid, [0, 0, 0])
        acc[0] += 1
        acc[1] += r
        acc[2] = max(acc[2], r)
    kernels = tuple(sorted((KernelStat(fid, kname(fid), v[0], int(v[1]), int(v[2])) for fid, v in per_kernel.items()),
                           key=lambda k: (-k.total_ns, k.func_id)))
    core_wait = dispatch - ready
    fifo = getattr(tl, "fifo_waits", None)
    fifo_n = len(fifo) if fifo is not None else 0
    fifo_ns = int((fifo["end_ns"] - fifo["start_ns"]).sum()) if fifo_n else 0
    runtime = getattr(result, "runtime", None)
    return RunSummary(
        tasks=int(getattr(result, "tasks", len(seqs)) or len(seqs)), blocks=n, edges=len(edges), window_ns=window,
        critical_path_ns=int(cp_t), critical_path=chain_t, critical_path_count=int(cp_n),
        critical_path_by_count=chain_n,
        dep_wait_ns=int(sum(task_wait.values())), dep_wait_max_ns=int(max(task_wait.values(), default=0)),
        core_wait_ns=int(core_wait.sum()) if n else 0, core_wait_max_ns=int(core_wait.max()) if n else 0,
        launch_ns=int((start - dispatch).sum()) if n else 0, busy_ns=int(run.sum()) if n else 0,
        fifo_wait_ns=fifo_ns, fifo_waits=fifo_n,
        cores=cores, kernels=kernels, task_names=task_names, elapsed_s=float(getattr(result, "elapsed", 0.0) or 0.0),
        platform=str(getattr(result, "platform", "") or ""),
        runtime=getattr(runtime, "value", str(runtime or "")), clusters=clusters,
        schedulers=int(getattr(result, "schedulers", 0) or 0),
        in_place=tuple(getattr(result, "in_place", ()) or ()),
        copied=tuple(tuple(c) for c in (getattr(result, "copied", ()) or ())),
        estimate=tuple(summary_lines(result.estimate, top=3)) if getattr(result, "estimate", None) else ())


__all__ = ["RunSummary", "KernelStat", "CoreStat", "summarize", "core_label", "all_cores"]
