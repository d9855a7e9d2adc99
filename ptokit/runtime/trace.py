"""Run traces: Chrome / Perfetto trace-event JSON of a simulator run.

This module is the only writer and the only reader of ptokit's trace files:

* ``write_trace(path, result)`` writes a ``RunResult`` (its timeline) as a trace-event JSON
  object (``traceEvents`` + ``displayTimeUnit`` + ``otherData``) that loads in
  https://ui.perfetto.dev and ``chrome://tracing``;
* ``read_trace(path)`` reads such a file back into a ``RunResult`` whose timeline holds the
  same integer-ns records and dependency edges, so ``summarize(read_trace(p))`` equals the
  live run's summary.

Tracks (pid / tid):

* process ``AICPU`` (pid 1): thread ``orchestrator`` (tid 1) with one ``submit`` instant per
  task and a slice from the first to the last submission; threads ``scheduler 0..k-1``
  (tid 2+k) with a ``ready`` instant per task (task seq mod k) and a ``dispatch`` instant per
  block (the target cluster mod k, the way the AICPU schedulers split the cores);
* process ``cluster C`` (pid 100+C): threads ``cluster C AIC``, ``cluster C AIV0``,
  ``cluster C AIV1`` (tid 1000 + core id), one complete event (``ph: "X"``) per block named
  after its kernel, args: task, block, func_id, core, lane, task_id and the five timestamps
  ``submit_ns ready_ns dispatch_ns start_ns end_ns``, and ``tensors``: the task's tensor
  args (``"in float32[32, 64]"``, recorded by the simulator only when tracing);
* flow events (``ph: "s"`` / ``"f"``, ``bp: "e"``, cat ``dep``) from the end of each
  producer's last block to the start of each consumer's first block;
* FIFO waits of mixed kernels (cat ``fifo``), when the timeline has them;
* with an estimate (``RunConfig(estimate=True)``, docs/estimate.md): each block event's args carry
  ``est`` (its ``ESTIMATE_DTYPE`` record, flattened), and process ``device estimate`` (pid 200) holds
  the device-time timeline: per simulated core a thread with its blocks where the estimate places
  them (tid 1000 + core id) and one thread per pipe of that core (tid 100000 + 16 x core id + pipe,
  a slice from the pipe's first start to its last end in each block, args ``busy``), in device
  microseconds.

``ts``/``dur`` are microseconds (floats with ns resolution); the exact integer
nanoseconds are in each event's args, which is what the reader uses.

A distributed run's trace (``write_trace_ranks`` / ``read_trace_ranks``) has one process per
rank (pid 10000 + r, named "rank r (device d)") holding that rank's tracks above as threads;
every event's args carry ``rank`` and ``otherData.ranks`` each rank's otherData.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Optional

import numpy as np

from ..errors import UserError
from ..targets import runtime_kind_from_name
from .estimate import device_estimate
from .records import (BLOCK_RECORD_DTYPE, EDGE_DTYPE, ESTIMATE_DTYPE, ESTIMATE_PIPES, FIFO_WAIT_DTYPE, RunResult,
                      Timeline)
from .summary import all_cores, core_label

FORMAT_NAME = "ptokit-trace"
FORMAT_VERSION = 1

PID_AICPU = 1
TID_ORCHESTRATOR = 1
TID_SCHEDULER0 = 2
PID_CLUSTER0 = 100
TID_CORE0 = 1000
PID_DEVICE = 200
TID_PIPE0 = 100000

_TIMES = ("submit_ns", "ready_ns", "dispatch_ns", "start_ns", "end_ns")
_FIFO_OPS = {0: "TPUSH", 1: "TPOP"}
_FIFO_DIRS = {1: "C2V", 2: "V2C"}


def _us(ns: int) -> float:
    return ns / 1000.0


def _cluster_of(core_id: int, lane: int, clusters: int) -> int:
    if lane < 0:
        return core_id
    return (core_id - clusters) // 2 if clusters > 0 else 0


def _meta(name: str, pid: int, tid: Optional[int], value) -> dict:
    ev = {"name": name, "ph": "M", "pid": pid, "ts": 0, "args": {}}
    if tid is not None:
        ev["tid"] = tid
    else:
        ev["tid"] = 0
    ev["args"]["sort_index" if name.endswith("sort_index") else "name"] = value
    return ev


def trace_events(result, *, clusters: Optional[int] = None, platform: Optional[str] = None) -> dict:
    """The trace document (a dict ready for ``json.dump``) of a ``RunResult``."""
    tl = result.timeline
    b = tl.blocks
    clusters = int(clusters if clusters is not None else getattr(result, "clusters", 0) or 0)
    if not clusters and len(b):   # unknown: the smallest cluster count that fits every AIC core id
        clusters = int(max([c + 1 for c, l in zip(b["core_id"].tolist(), b["lane"].tolist()) if l < 0] or [1]))
    schedulers = max(int(getattr(result, "schedulers", 0) or 0), 1)
    names = {int(k): str(v) for k, v in (tl.kernel_names or {}).items()}
    runtime = getattr(result, "runtime", None)
    platform = platform if platform is not None else str(getattr(result, "platform", "") or "")

    ev: list = []
    # ---- tracks
    ev.append(_meta("process_name", PID_AICPU, None, "AICPU"))
    ev.append(_meta("process_sort_index", PID_AICPU, None, 0))
    ev.append(_meta("thread_name", PID_AICPU, TID_ORCHESTRATOR, "orchestrator"))
    ev.append(_meta("thread_sort_index", PID_AICPU, TID_ORCHESTRATOR, 0))
    for k in range(schedulers):
        ev.append(_meta("thread_name", PID_AICPU, TID_SCHEDULER0 + k, f"scheduler {k}"))
        ev.append(_meta("thread_sort_index", PID_AICPU, TID_SCHEDULER0 + k, 1 + k))
    cores = all_cores(clusters)
    seen = set(cores)
    if len(b):
        cores += sorted({(c, l) for c, l in zip(b["core_id"].tolist(), b["lane"].tolist())} - seen)
    for c in range(clusters):
        ev.append(_meta("process_name", PID_CLUSTER0 + c, None, f"cluster {c}"))
        ev.append(_meta("process_sort_index", PID_CLUSTER0 + c, None, 1 + c))
    for i, (cid, lane) in enumerate(cores):
        pid = PID_CLUSTER0 + _cluster_of(cid, lane, clusters)
        ev.append(_meta("thread_name", pid, TID_CORE0 + cid, core_label(cid, lane, clusters)))
        ev.append(_meta("thread_sort_index", pid, TID_CORE0 + cid, i))

    # ---- blocks (X) and scheduler instants
    first_block: dict = {}   # task seq -> (start, index of its earliest-starting block)
    last_block: dict = {}    # task seq -> (end, index of its latest-ending block)
    rows = list(zip(*(b[f].tolist() for f in ("task_seq", "task_id", "func_id", "block_idx", "core_id", "lane")
                      + _TIMES))) if len(b) else []
    task_seen: set = set()
    targs = getattr(tl, "task_args", None) or {}
    est = getattr(tl, "estimates", None)
    est_flat = _flatten_estimates(est) if est is not None else None
    for i, (seq, tid_, fid, blk, cid, lane, sub, rdy, dsp, st, en) in enumerate(rows):
        kname = names.get(fid, f"func_{fid}")
        pid = PID_CLUSTER0 + _cluster_of(cid, lane, clusters)
        ev.append({"name": kname, "cat": "task", "ph": "X", "ts": _us(st), "dur": _us(en - st), "pid": pid,
                   "tid": TID_CORE0 + cid,
                   "args": {"task": seq, "block": blk, "func_id": fid, "core": cid, "lane": lane,
                            "task_id": f"0x{tid_:x}", "submit_ns": sub, "ready_ns": rdy, "dispatch_ns": dsp,
                            "start_ns": st, "end_ns": en}})
        if seq in targs:
            ev[-1]["args"]["tensors"] = list(targs[seq])
        if est is not None:
            ev[-1]["args"]["est"] = [int(x) for x in est_flat[i]]
        cl = _cluster_of(cid, lane, clusters)
        ev.append({"name": f"dispatch {kname}", "cat": "sched", "ph": "i", "s": "t", "ts": _us(dsp),
                   "pid": PID_AICPU, "tid": TID_SCHEDULER0 + cl % schedulers,
                   "args": {"task": seq, "block": blk, "core": core_label(cid, lane, clusters)}})
        if seq not in task_seen:
            task_seen.add(seq)
            ev.append({"name": f"submit {kname}", "cat": "orch", "ph": "i", "s": "t", "ts": _us(sub),
                       "pid": PID_AICPU, "tid": TID_ORCHESTRATOR, "args": {"task": seq}})
            ev.append({"name": f"ready {kname}", "cat": "sched", "ph": "i", "s": "t", "ts": _us(rdy),
                       "pid": PID_AICPU, "tid": TID_SCHEDULER0 + seq % schedulers, "args": {"task": seq}})
        if seq not in first_block or st < first_block[seq][0]:
            first_block[seq] = (st, i)
        if seq not in last_block or en > last_block[seq][0]:
            last_block[seq] = (en, i)
    if rows:
        subs = [r[6] for r in rows]
        lo, hi = min(subs), max(subs)
        ev.append({"name": "orchestration (submitting)", "cat": "orch", "ph": "X", "ts": _us(lo), "dur": _us(hi - lo),
                   "pid": PID_AICPU, "tid": TID_ORCHESTRATOR, "args": {"tasks": len(task_seen)}})

    # ---- dependency flows: producer's last block end -> consumer's first block start
    edges = list(zip(tl.edges["producer"].tolist(), tl.edges["consumer"].tolist())) if len(tl.edges) else []
    for n, (p, c) in enumerate(edges):
        args = {"producer": p, "consumer": c}
        if p in last_block and c in first_block:
            pr, co = rows[last_block[p][1]], rows[first_block[c][1]]
            # the start binds to the slice enclosing its ts: stay 1 ns inside the producer's slice
            s_ts = max(pr[9], pr[10] - 1)
            ev.append({"name": "dep", "cat": "dep", "ph": "s", "id": n, "ts": _us(s_ts),
                       "pid": PID_CLUSTER0 + _cluster_of(pr[4], pr[5], clusters), "tid": TID_CORE0 + pr[4],
                       "args": args})
            ev.append({"name": "dep", "cat": "dep", "ph": "f", "bp": "e", "id": n, "ts": _us(co[9]),
                       "pid": PID_CLUSTER0 + _cluster_of(co[4], co[5], clusters), "tid": TID_CORE0 + co[4],
                       "args": args})
        else:   # an endpoint without a block (not expected after a successful run): keep the edge
            ev.append({"name": "dep (unplaced)", "cat": "dep", "ph": "i", "s": "t", "ts": 0, "pid": PID_AICPU,
                       "tid": TID_ORCHESTRATOR, "args": args})

    # ---- FIFO waits of mixed kernels (when recorded): slices on the waiting core's track
    fifo = getattr(tl, "fifo_waits", None)
    if fifo is not None and len(fifo):
        for w in fifo.tolist():
            rec = dict(zip(fifo.dtype.names, w))
            cid, lane = int(rec["core_id"]), int(rec["lane"])
            op = _FIFO_OPS.get(rec["op"], f"op{rec['op']}")
            way = _FIFO_DIRS.get(rec["dir"], f"dir{rec['dir']}")
            ev.append({"name": f"{op} wait", "cat": "fifo", "ph": "X", "ts": _us(rec["start_ns"]),
                       "dur": _us(rec["end_ns"] - rec["start_ns"]),
                       "pid": PID_CLUSTER0 + _cluster_of(cid, lane, clusters), "tid": TID_CORE0 + cid,
                       "args": dict(rec, what=f"{op} on pipe {rec['pipe']} ({way}, lane {rec['fifo_lane']})")})

    device = getattr(result, "estimate", None)
    if est is not None and device is not None:
        ev += _device_events(rows, est, device, names, clusters)

    other = {"format": FORMAT_NAME, "version": FORMAT_VERSION, "platform": platform,
             "runtime": getattr(runtime, "value", str(runtime or "")), "clusters": clusters,
             "schedulers": int(getattr(result, "schedulers", 0) or 0), "tasks": int(getattr(result, "tasks", 0) or 0),
             "blocks": int(getattr(result, "blocks", len(b)) or 0), "elapsed_s": float(getattr(result, "elapsed", 0.0)),
             "schedule": str(getattr(result, "schedule", "default") or "default"),
             "schedule_from": getattr(result, "schedule_from", None),
             "kernel_names": {str(k): v for k, v in sorted(names.items())},
             "in_place": [int(i) for i in getattr(result, "in_place", ()) or ()],
             "copied": [[int(i), str(why)] for i, why in getattr(result, "copied", ()) or ()]}
    return {"traceEvents": ev, "displayTimeUnit": "ns", "otherData": other}


def _flatten_estimates(est: np.ndarray) -> list:
    """ESTIMATE_DTYPE records as flat int lists (cycles, instructions, busy[7], first[7], last[7], start)."""
    return [[int(r["cycles"]), int(r["instructions"])] + [int(x) for k in ("busy", "first", "last") for x in r[k]]
            + [int(r["start"])] for r in est]


def _unflatten_estimates(rows: list) -> np.ndarray:
    out = np.zeros(len(rows), dtype=ESTIMATE_DTYPE)
    n = len(ESTIMATE_PIPES)
    for i, r in enumerate(rows):
        out[i] = (r[0], r[1], r[2:2 + n], r[2 + n:2 + 2 * n], r[2 + 2 * n:2 + 3 * n], r[2 + 3 * n])
    return out


def _device_events(rows, est, device, names: dict, clusters: int) -> list:
    """The device-time timeline of an estimated run: a track per core, and one per pipe of it."""
    clock_mhz = device.clock_hz / 1e6
    cyc = lambda c: c / clock_mhz   # noqa: E731  (device cycles -> microseconds)
    ev = [_meta("process_name", PID_DEVICE, None, f"device estimate ({device.clock_hz / 1e9:.2f} GHz)"),
          _meta("process_sort_index", PID_DEVICE, None, 1000)]
    named: set = set()
    for i, row in enumerate(rows):
        seq, fid, blk, cid, lane = row[0], row[2], row[3], row[4], row[5]
        start, r = int(device.block_start[i]), est[i]
        label = core_label(cid, lane, clusters)
        if cid not in named:
            named.add(cid)
            ev.append(_meta("thread_name", PID_DEVICE, TID_CORE0 + cid, label))
            ev.append(_meta("thread_sort_index", PID_DEVICE, TID_CORE0 + cid, 100 * cid))
            for p, pipe in enumerate(ESTIMATE_PIPES):
                ev.append(_meta("thread_name", PID_DEVICE, TID_PIPE0 + 16 * cid + p, f"{label} {pipe}"))
                ev.append(_meta("thread_sort_index", PID_DEVICE, TID_PIPE0 + 16 * cid + p, 100 * cid + 1 + p))
        ev.append({"name": names.get(fid, f"func_{fid}"), "cat": "device", "ph": "X", "ts": cyc(start),
                   "dur": cyc(int(r["cycles"])), "pid": PID_DEVICE, "tid": TID_CORE0 + cid,
                   "args": {"task": seq, "block": blk, "start_cycle": start, "cycles": int(r["cycles"])}})
        for p, pipe in enumerate(ESTIMATE_PIPES):
            busy = int(r["busy"][p])
            if busy:
                lo, hi = int(r["first"][p]), int(r["last"][p])
                ev.append({"name": pipe, "cat": "device", "ph": "X", "ts": cyc(start + lo), "dur": cyc(hi - lo),
                           "pid": PID_DEVICE, "tid": TID_PIPE0 + 16 * cid + p,
                           "args": {"task": seq, "block": blk, "busy_cycles": busy}})
    return ev


def write_trace(path, result, *, clusters: Optional[int] = None, platform: Optional[str] = None) -> Path:
    """Write the trace of ``result`` (a ``RunResult``) to ``path`` (atomically); returns the path."""
    return _write_doc(path, trace_events(result, clusters=clusters, platform=platform))


def _write_doc(path, doc: dict) -> Path:
    path = Path(path)
    if path.is_dir():
        raise UserError(f"cannot write the trace to {path}: it is a folder (give a file name)")
    try:
        if path.parent and not path.parent.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
        import tempfile   # lazy: only a run that writes a trace needs it
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=str(path.parent or "."))
    except OSError as exc:
        raise UserError(f"cannot write the trace to {path}: {exc.strerror or exc}") from None
    try:
        text = json.dumps(doc, separators=(",", ":"))   # dumps uses the C encoder (dump does not)
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except OSError as exc:
        raise UserError(f"cannot write the trace to {path}: {exc.strerror or exc}") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return path


class TraceFormatError(ValueError):
    """The file is not a ptokit run trace (or is damaged)."""


def load_document(path) -> dict:
    """The raw JSON document of a trace file (checks that it is a ptokit trace)."""
    try:
        with open(path) as fh:
            doc = json.load(fh)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise TraceFormatError(f"{path}: not a JSON trace ({exc})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        raise TraceFormatError(f"{path}: not a trace-event JSON object (no traceEvents array)")
    other = doc.get("otherData")
    if not isinstance(other, dict) or other.get("format") != FORMAT_NAME:
        raise TraceFormatError(f"{path}: not a ptokit run trace (otherData.format is not {FORMAT_NAME!r})")
    version = other.get("version", 0)
    if not isinstance(version, int) or isinstance(version, bool):
        raise TraceFormatError(f"{path}: damaged trace (otherData.version is {version!r}, not an integer)")
    if version > FORMAT_VERSION:
        raise TraceFormatError(f"{path}: trace format version {other.get('version')} is newer than this "
                               f"ptokit reads ({FORMAT_VERSION})")
    return doc


def _result_of(path, events, other):
    """A RunResult from one run's events and its otherData (read_trace / read_trace_ranks)."""
    recs, flows, targs, fifo, ests = [], {}, {}, [], []
    try:
        for e in events:
            cat, ph = e.get("cat"), e.get("ph")
            if cat == "task" and ph == "X":
                a = e["args"]
                recs.append((int(a["task"]), int(str(a["task_id"]), 0), int(a["func_id"]), int(a["block"]),
                             int(a["core"]), int(a["lane"])) + tuple(int(a[t]) for t in _TIMES))
                if "tensors" in a:
                    targs[int(a["task"])] = tuple(str(x) for x in a["tensors"])
                if "est" in a:
                    ests.append([int(x) for x in a["est"]])
            elif cat == "fifo" and ph == "X":
                a = e["args"]
                fifo.append(tuple(int(a[k]) for k in FIFO_WAIT_DTYPE.names))
            elif cat == "dep" and ph in ("s", "i"):
                a = e["args"]
                flows[int(e.get("id", -1 - len(flows)))] = (int(a["producer"]), int(a["consumer"]))
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        raise TraceFormatError(f"{path}: damaged trace event ({type(exc).__name__}: {exc})") from None
    try:
        blocks = np.array(recs, dtype=BLOCK_RECORD_DTYPE) if recs else np.zeros(0, BLOCK_RECORD_DTYPE)
        ordered = [flows[k] for k in sorted(flows, key=lambda k: (k < 0, abs(k)))]
        edges = np.array(ordered, dtype=EDGE_DTYPE) if ordered else np.zeros(0, EDGE_DTYPE)
        names = {int(k): str(v) for k, v in (other.get("kernel_names") or {}).items()}
        runtime = other.get("runtime") or None
        try:
            runtime = runtime_kind_from_name(runtime) if runtime else None
        except ValueError:
            runtime = None
        waits = np.array(fifo, dtype=FIFO_WAIT_DTYPE) if fifo else None
        estimates = _unflatten_estimates(ests) if ests and len(ests) == len(recs) else None
        timeline = Timeline(blocks, edges, names, targs, waits, estimates=estimates)
        result = RunResult(elapsed=float(other.get("elapsed_s", 0.0)), tasks=int(other.get("tasks", 0)),
                           blocks=int(other.get("blocks", len(blocks))),
                           timeline=timeline,
                           schedulers=int(other.get("schedulers", 0)), runtime=runtime,
                           clusters=int(other.get("clusters", 0)), platform=str(other.get("platform", "")),
                           schedule=str(other.get("schedule", "default")),
                           schedule_from=None if other.get("schedule_from") is None else int(other["schedule_from"]),
                           in_place=tuple(int(i) for i in other.get("in_place", ())),
                           copied=tuple((int(i), str(why)) for i, why in other.get("copied", ())))
        if estimates is not None:
            result.estimate = device_estimate(timeline, result.platform)
        return result
    except (AttributeError, OverflowError, TypeError, ValueError) as exc:
        raise TraceFormatError(f"{path}: damaged trace (otherData or records: {type(exc).__name__}: {exc})") from None


def read_trace(path):
    """Read a trace written by ``write_trace`` back into a ``RunResult`` (a trace of several
    ranks: ``read_trace_ranks``)."""
    doc = load_document(path)
    if "ranks" in doc["otherData"]:
        raise TraceFormatError(f"{path}: a trace of {len(doc['otherData']['ranks'])} ranks; read it with "
                               f"read_trace_ranks")
    return _result_of(path, doc["traceEvents"], doc["otherData"])


# ---------------------------------------------------------------------------
# distributed runs: one trace process per rank
# ---------------------------------------------------------------------------

PID_RANK0 = 10000          # rank r's process
FLOW_ID_STRIDE = 1 << 32   # flow ids of rank r start at r * FLOW_ID_STRIDE


def trace_events_ranks(ranks) -> dict:
    """The trace of a distributed run: ``ranks`` is ``[(label, RunResult)]``; rank r's tracks (its
    orchestrator, schedulers and cores) are the threads of one process named ``label``."""
    ev: list = []
    others = []
    for r, (label, result) in enumerate(ranks):
        doc = trace_events(result)
        pid = PID_RANK0 + r
        ev.append(_meta("process_name", pid, None, str(label)))
        ev.append(_meta("process_sort_index", pid, None, r))
        for e in doc["traceEvents"]:
            if e.get("ph") == "M" and e.get("name") in ("process_name", "process_sort_index"):
                continue
            e = dict(e, pid=pid)
            e["args"] = dict(e.get("args") or {}, rank=r)
            if "id" in e:
                e["id"] = r * FLOW_ID_STRIDE + int(e["id"])
            ev.append(e)
        others.append(dict(doc["otherData"], label=str(label)))
    other = {"format": FORMAT_NAME, "version": FORMAT_VERSION, "ranks": others}
    return {"traceEvents": ev, "displayTimeUnit": "ns", "otherData": other}


def write_trace_ranks(path, ranks) -> Path:
    """Write the trace of a distributed run (``ranks``: ``[(label, RunResult)]``); returns the path."""
    return _write_doc(path, trace_events_ranks(ranks))


def read_trace_ranks(path) -> list:
    """The per-rank RunResults of a trace written by ``write_trace_ranks``."""
    doc = load_document(path)
    ranks = doc["otherData"].get("ranks")
    if not isinstance(ranks, list):
        raise TraceFormatError(f"{path}: not a trace of a distributed run (otherData.ranks is missing)")
    per = [[] for _ in ranks]
    for e in doc["traceEvents"]:
        r = (e.get("args") or {}).get("rank")
        if isinstance(r, int) and 0 <= r < len(per):
            ev = dict(e)
            if "id" in ev:
                ev["id"] = int(ev["id"]) - r * FLOW_ID_STRIDE
            per[r].append(ev)
    return [_result_of(path, events, other) for events, other in zip(per, ranks)]


__all__ = ["write_trace", "read_trace", "trace_events", "write_trace_ranks", "read_trace_ranks", "trace_events_ranks", "load_document", "TraceFormatError",
           "FORMAT_NAME", "FORMAT_VERSION"]
