"""The argument dump of a run (``RunConfig(enable_dump_args=1|2)``) written as files.

The simulator copies each dumped tensor argument when its task completes (``PtoSimDump``
records and their bytes); this module writes them under the dump folder (the artifact
tree's ``dumps/`` for a compiled program)::

    dumps/index.json                          one entry per file, in completion order
    dumps/<seq>_<kernel>/<arg>_<name>.npy     <seq>: the task's submission number (5 digits),
                                              <arg>: the tensor argument's index (2 digits),
                                              <name>: the kernel parameter's name

Files of an earlier run in the same folder (``index.json`` and the ``<seq>_<kernel>`` folders
it listed) are removed first, so the folder always holds one run.  docs/simulator.md describes
the layout.
"""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np

from .. import abi

_KINDS = {0: "input", 1: "output", 2: "output", 3: "inout", 4: "no_dep"}   # PTO2ArgKind
INDEX = "index.json"


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", text) or "arg"


def _clear(folder: Path) -> None:
    index = folder / INDEX
    if not index.is_file():
        return
    try:
        old = json.loads(index.read_text())
    except (OSError, ValueError):
        old = []
    for entry in old if isinstance(old, list) else []:
        task_dir = folder / str(entry.get("file", "")).split("/")[0]
        if task_dir.parent == folder and task_dir.is_dir():
            shutil.rmtree(task_dir, ignore_errors=True)
    index.unlink()


def write_dumps(folder: Path, records, data: bytes, kernel_names: dict) -> Path:
    """Write the dumped arguments under ``folder``; returns ``folder``."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    _clear(folder)
    index = []
    for r in records:
        kernel = kernel_names.get(int(r.func_id), f"func_{r.func_id}") if r.func_id >= 0 else "task"
        name = r.name.decode("utf-8", "replace") or f"arg{r.arg}"
        rel = f"{r.task_seq:05d}_{_safe(kernel)}/{r.arg:02d}_{_safe(name)}.npy"
        shape = tuple(int(d) for d in r.shapes[:r.ndims])
        dt = abi.numpy_dtype_of(abi.DataType(r.dtype))
        arr = np.frombuffer(data, dtype=dt, count=int(r.bytes) // dt.itemsize, offset=int(r.offset)).reshape(shape)
        path = folder / rel
        path.parent.mkdir(exist_ok=True)
        np.save(path, arr)
        index.append({"task": int(r.task_seq), "kernel": kernel, "arg": int(r.arg), "name": name,
                      "kind": _KINDS.get(int(r.kind), str(r.kind)), "dtype": str(dt), "shape": list(shape),
                      "file": rel})
    (folder / INDEX).write_text(json.dumps(index, indent=1) + "\n")
    return folder
