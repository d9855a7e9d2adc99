"""pypto's run diagnostics ("DFX" switches of ``RunConfig``) on the simulator.

Outputs go to ``<save_kernels_dir or the tree>/dfx_outputs/``:

* ``enable_chip_swimlane`` (any level > 0): ``chip_swimlane.json``, the run's Perfetto trace
  (``ptokit.runtime.trace``; one slice per block on its core, dependency arrows, FIFO waits).
  An explicit ``RunConfig(trace=...)`` path wins;
* ``enable_dep_gen``: ``deps.json``, the task graph the run built: one entry per task (submission
  number, kernel) and every dependency edge (producer, consumer).

The other three (``enable_dump_args``, ``enable_pmu``, ``enable_scope_stats``) record hardware
counters and device buffers the simulator does not have; they are accepted and change nothing
(docs/simulator.md lists each field).
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from ..artifacts import DFX_DIR
from .config import RunConfig

SWIMLANE_FILE = "chip_swimlane.json"
DEPS_FILE = "deps.json"
DEPS_FORMAT = "ptokit-deps"


def dfx_dir(tree_dir, config: RunConfig) -> Path:
    return Path(config.save_kernels_dir or tree_dir) / DFX_DIR


def before_run(tree_dir, config: RunConfig) -> RunConfig:
    """``config`` with a trace path when the swimlane is asked for (and none is given)."""
    if config.enable_chip_swimlane and not config.trace:
        return config.replace(trace=str(dfx_dir(tree_dir, config) / SWIMLANE_FILE))
    return config


def after_run(tree_dir, config: RunConfig, result) -> None:
    """Write the outputs the switches ask for, from the run's ``RunResult``."""
    if config.enable_dep_gen:
        write_deps(dfx_dir(tree_dir, config) / DEPS_FILE, result)


def write_deps(path: Path, result) -> Path:
    tl = result.timeline
    tasks = {}
    for rec in tl.blocks:
        seq = int(rec["task_seq"])
        if seq not in tasks:
            fid = int(rec["func_id"])
            tasks[seq] = {"task": seq, "func_id": fid, "kernel": tl.kernel_names.get(fid, f"func_{fid}")}
    doc = {"format": DEPS_FORMAT, "version": 1, "tasks": [tasks[s] for s in sorted(tasks)],
           "edges": [[int(e["producer"]), int(e["consumer"])] for e in tl.edges]}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(doc, indent=1))
    os.replace(tmp, path)
    return path
