"""Golden data: a run's outputs compared with expected arrays kept as ``.npy`` files.

The layout is pypto's ``golden_data_dir`` with numpy files instead of torch ones::

    <dir>/in/<param>.npy     the inputs a golden was computed from (written by ``runtime.run``)
    <dir>/out/<param>.npy    the expected value of each output parameter

``check_outputs`` compares every output with ``np.isclose(actual, expected, rtol, atol)`` and
raises ``GoldenMismatch`` (an ``AssertionError``) naming each output that differs, with how many
elements and the largest difference.  This module is the only reader and writer of the layout.
"""
from __future__ import annotations

from pathlib import Path
from typing import Dict, Mapping, Optional, Sequence

import numpy as np

from ..errors import UserError
from .arrays import to_numpy

INPUTS = "in"
OUTPUTS = "out"


class GoldenMismatch(AssertionError):
    """A run's outputs differ from their goldens beyond ``rtol`` / ``atol``."""


def as_numpy(value) -> np.ndarray:
    """A numpy view of an array, CPU torch tensor or DeviceTensor (its host memory)."""
    backing = getattr(value, "host_array", None)       # a DeviceTensor: host memory on the simulator
    return backing() if callable(backing) else to_numpy(value)


def _comparable(a: np.ndarray) -> np.ndarray:
    # bfloat16 / float16 compare as float64; integers compare exactly through isclose too
    return a.astype(np.float64) if a.dtype.kind in "fV" or a.dtype.name == "bfloat16" else a


def difference(name: str, actual, expected, rtol: float, atol: float, *,
               nan_unchecked: bool = False) -> Optional[str]:
    """Why ``actual`` is not ``expected`` within the tolerances (None when it is).  With
    ``nan_unchecked`` an element whose golden is NaN is not compared (a region the program leaves
    undefined)."""
    a, e = as_numpy(actual), as_numpy(expected)
    if tuple(a.shape) != tuple(e.shape):
        return f"{name}: shape {tuple(a.shape)}, golden has shape {tuple(e.shape)}"
    a, e = _comparable(a), _comparable(e)
    close = np.isclose(a, e, rtol=rtol, atol=atol)
    if nan_unchecked and e.dtype.kind == "f":
        close |= np.isnan(e)
    if close.all():
        return None
    bad = int(close.size - np.count_nonzero(close))
    with np.errstate(invalid="ignore"):
        diff = np.abs(a.astype(np.float64) - e.astype(np.float64))
    diff = np.where(np.isnan(diff), np.inf, diff)
    diff[close] = -1.0
    worst = np.unravel_index(int(np.argmax(diff)), a.shape)
    return (f"{name}: {bad} of {close.size} elements differ beyond rtol={rtol}, atol={atol} (largest at "
            f"{tuple(int(i) for i in worst)}: got {a[worst]!r}, golden {e[worst]!r})")


def load_arrays(folder, part: str, names: Sequence[str]) -> Optional[Dict[str, np.ndarray]]:
    """``<folder>/<part>/<name>.npy`` for every name, or None when any is missing."""
    base = Path(folder) / part
    out = {}
    for name in names:
        path = base / f"{name}.npy"
        if not path.is_file():
            return None
        try:
            out[name] = np.load(path, allow_pickle=False)
        except (OSError, ValueError, EOFError) as exc:
            raise UserError(f"golden data {path}: not a readable .npy array ({exc})") from None
    return out


def save_arrays(folder, part: str, arrays: Mapping[str, object]) -> None:
    base = Path(folder) / part
    base.mkdir(parents=True, exist_ok=True)
    for name, value in arrays.items():
        np.save(base / f"{name}.npy", as_numpy(value), allow_pickle=False)


def check_outputs(outputs: Mapping[str, object], golden_dir, rtol: float, atol: float) -> None:
    """Compare each named output with ``<golden_dir>/out/<name>.npy``.  A missing golden is a
    ``UserError`` naming the files expected; differences raise ``GoldenMismatch``."""
    names = list(outputs)
    goldens = load_arrays(golden_dir, OUTPUTS, names)
    if goldens is None:
        missing = [n for n in names if not (Path(golden_dir) / OUTPUTS / f"{n}.npy").is_file()]
        raise UserError(f"golden_data_dir={str(golden_dir)!r} has no {', '.join(f'{OUTPUTS}/{n}.npy' for n in missing)}"
                        f"; it needs one .npy file per output ({', '.join(names)})")
    problems = [p for p in (difference(n, outputs[n], goldens[n], rtol, atol) for n in names) if p]
    if problems:
        raise GoldenMismatch("outputs differ from the goldens in " + str(golden_dir) + ":\n  " +
                             "\n  ".join(problems))
