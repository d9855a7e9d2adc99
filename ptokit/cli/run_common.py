"""What `ptokit build` / `ptokit run` do the same way for every kind of tree: the simulator library,
--scalar/--dim parsing, the inputs used, the outputs."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from ..errors import UserError


def parse_assignments(items, what):
    out = {}
    for item in items or []:
        if "=" not in item:
            raise UserError(f"--{what} expects NAME=VALUE, got {item!r}")
        k, v = item.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def print_outputs(params, names, args, out_dir) -> None:
    """One line per OUT/INOUT tensor (dtype, shape, sum, min, max); saved as NAME.npy into out_dir."""
    for p, name, arg in zip(params, names, args):
        if p.get("kind") == "scalar" or str(p.get("direction", "IN")).upper() not in ("OUT", "INOUT"):
            continue
        arr = np.asarray(arg)
        stats = np.asarray(arr, dtype=np.float64)
        print(f"  {name}: {arr.dtype}{list(arr.shape)} sum={stats.sum():.6g} min={stats.min() if arr.size else 0:.6g} "
              f"max={stats.max() if arr.size else 0:.6g}")
        if out_dir:
            np.save(out_dir / f"{name}.npy", arr)


def ensure_simulator(quiet: bool = False) -> Path:
    """Build libptosim into the build cache unless it is there (saying so first: g++ then takes
    seconds, once per cache); returns its path."""
    from ..runtime.sim.driver import library_path   # lazy: ctypes and the driver only for a run or a build

    def announce():
        if not quiet:
            print("building the simulator library (libptosim: once per build cache, a few seconds) ...",
                  file=sys.stderr, flush=True)
    return library_path(announce)


def _generated(p, arr) -> str:
    if str(p.get("direction", "IN")).upper() == "OUT":
        return "zeros (output)"
    kind = np.dtype(arr.dtype).kind
    if kind == "f" or np.dtype(arr.dtype).name == "bfloat16":
        return "standard normal"
    return "random 0/1" if kind == "b" else "random integers in [-8, 8)"


def describe_inputs(params, names, args, files, scalars, seed) -> list:
    """One line per parameter saying what `ptokit run` passes: the .npy file it came from, or how it
    was generated (dtype, shape, distribution; the seed on the first line)."""
    generated = [p for p in params if p.get("kind") != "scalar"][len(files):]
    made_scalars = [p for p in params if p.get("kind") == "scalar" and str(p.get("name")) not in scalars]
    head = "inputs" + (f" (generated ones from --seed {seed})" if generated or made_scalars else "") + ":"
    lines = [head]
    t_index = 0
    for p, name, arg in zip(params, names, args):
        if p.get("kind") == "scalar":
            how = "--scalar" if name in scalars else "generated"
            lines.append(f"  {name} = {arg!r} ({how})")
            continue
        arr = np.asarray(arg)
        what = f"{arr.dtype}{list(arr.shape)}"
        src = f"from {files[t_index]}" if t_index < len(files) else _generated(p, arr)
        lines.append(f"  {name}: {what} {src}")
        t_index += 1
    return lines
