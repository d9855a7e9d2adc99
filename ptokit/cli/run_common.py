"""What `ptokit run` does the same way for every kind of tree: --scalar/--dim parsing, the outputs."""
from __future__ import annotations

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
