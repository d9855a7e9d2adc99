"""Run records: what a simulated run returns, and the layout of its timeline records.

``RunResult`` and ``Timeline`` are produced by the simulator driver (a live run) and by
``trace.read_trace`` (a run read back from a trace file), and read by ``summary``.  The record
dtypes mirror the simulator's C structs (``ptosim_api.h``; the driver checks their sizes against
the library when it loads it).  This module imports no other part of the runtime but the
summary (when one is asked for), so the driver, the trace and the summary all depend on it and
not on each other.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional

import numpy as np

from ..targets import ESTIMATE_PIPES, RuntimeKind
if TYPE_CHECKING:
    from .summary import RunSummary

BLOCK_RECORD_DTYPE = np.dtype([
    ("task_seq", "<u8"), ("task_id", "<u8"), ("func_id", "<i4"), ("block_idx", "<i4"),
    ("core_id", "<i4"), ("lane", "<i4"), ("submit_ns", "<i8"), ("ready_ns", "<i8"),
    ("dispatch_ns", "<i8"), ("start_ns", "<i8"), ("end_ns", "<i8"),
])
EDGE_DTYPE = np.dtype([("producer", "<u8"), ("consumer", "<u8")])
# estimated device time of one block record (PtoSimEstimate; pipes in ESTIMATE_PIPES order)
ESTIMATE_DTYPE = np.dtype([("cycles", "<u8"), ("instructions", "<u8"), ("busy", "<u8", (7,)),
                           ("first", "<u8", (7,)), ("last", "<u8", (7,)), ("start", "<u8")])
# a TPUSH (op 0) / TPOP (op 1) that had to wait on a cross-core FIFO (dir 1 = C2V, 2 = V2C)
FIFO_WAIT_DTYPE = np.dtype([
    ("task_seq", "<u8"), ("core_id", "<i4"), ("lane", "<i4"), ("pipe", "<i4"), ("dir", "<i4"), ("op", "<i4"),
    ("fifo_lane", "<i4"), ("start_ns", "<i8"), ("end_ns", "<i8"),
])


@dataclass
class Timeline:
    """Per dispatched block (a mixed task has one record per lane): ``blocks`` is a numpy
    structured array (BLOCK_RECORD_DTYPE, ns relative to the run start); ``edges`` holds
    (producer, consumer) task submission numbers."""

    blocks: np.ndarray
    edges: np.ndarray
    kernel_names: dict = field(default_factory=dict)
    task_args: dict = field(default_factory=dict)   # seq -> ("in float32[32, 64]", ...); only when tracing
    fifo_waits: Optional[np.ndarray] = None         # FIFO_WAIT_DTYPE records, when the simulator recorded them
    skipped: tuple = ()                             # seqs of tasks a false dispatch predicate skipped (no blocks)
    estimates: Optional[np.ndarray] = None          # ESTIMATE_DTYPE, one per block record (RunConfig(estimate=True))

    def task_blocks(self, task_seq: int) -> np.ndarray:
        return self.blocks[self.blocks["task_seq"] == task_seq]

    def __len__(self) -> int:
        return len(self.blocks)


@dataclass
class RunResult:
    """One run: the simulator's timeline and counts, and pypto's ``RunResult`` fields.

    ``passed`` / ``error`` / ``test_name`` / ``execution_time`` / ``profile`` are what pypto's
    golden-checking ``runtime.run(program, specs, golden)`` reports (``str(result)`` is ``PASS
    (0.12s)`` or ``FAIL: <error>``); a failed run of that form has no timeline."""

    elapsed: float = 0.0    # seconds, orchestration start to last task end
    tasks: int = 0
    blocks: int = 0
    timeline: Optional[Timeline] = None
    schedulers: int = 0
    runtime: Optional[RuntimeKind] = None
    clusters: int = 0       # simulated clusters (core ids -> tracks / labels)
    platform: str = ""
    device_id: int = 0      # RunConfig.device_id the run was given (the simulator is one device)
    passed: bool = True
    test_name: Optional[str] = None
    error: Optional[str] = None
    execution_time: Optional[float] = None   # seconds of the whole run() call (compile, run, compare)
    profile: Optional[dict] = None           # compile stage seconds, with RunConfig(compile_profiling=True)
    dump_dir: Optional[object] = None   # the folder of the argument dump (RunConfig.enable_dump_args)
    races: list = field(default_factory=list)   # the race checker's reports (RunConfig.race_check), races.Race
    schedule: str = "default"   # the order among ready tasks the run used: "default", "reverse", "random" ...
    schedule_from: Optional[int] = None   # ... from this task on (None: "default" throughout)
    copied: tuple = ()      # (argument index, reason) of each array copied into a device buffer
    in_place: tuple = ()    # argument indices of the arrays the run used in place
    estimate: Optional[object] = None   # estimated device time (estimate.DeviceEstimate), RunConfig(estimate=True)

    def summary(self) -> RunSummary:
        """Run statistics (``ptokit.runtime.summary.RunSummary``): critical path, busy cores, waits."""
        if self.timeline is None:
            raise ValueError(f"this run has no timeline to summarize ({self})")
        from .summary import summarize   # lazy: a run that asks for no summary does not load it
        return summarize(self)

    def __str__(self) -> str:
        took = f" ({self.execution_time:.2f}s)" if self.execution_time else ""
        name = f": {self.test_name}" if self.test_name else ""
        if self.passed:
            return f"PASS{name}{took}"
        sep = " - " if self.test_name else ": "
        return f"FAIL{name}" + (f"{sep}{self.error}" if self.error else "") + took


__all__ = ["RunResult", "Timeline", "BLOCK_RECORD_DTYPE", "EDGE_DTYPE", "FIFO_WAIT_DTYPE", "ESTIMATE_DTYPE",
           "ESTIMATE_PIPES"]
