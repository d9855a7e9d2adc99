"""``debug/run.py`` of a ``@pl.jit`` tree: a script that runs the tree again on the simulator.

A jit tree has no golden and no sample inputs, so the script makes them from the tree's parameter
list (``kernel_config.py``'s ORCHESTRATION params): random values for IN / INOUT tensors, zeros for
OUT tensors, 1 for scalars; torch tensors when torch is installed (what pypto programs pass),
numpy arrays otherwise.  ``_inline_inputs()`` is the part to edit.  A dynamic dimension has no
size in the tree: the script's ``DIMS`` names it and asks for one.  The text depends on the
parameters alone, so a tree's script is the same whoever compiled it.
"""
from __future__ import annotations

from pathlib import Path
from typing import List

from ..compiled import ParamInfo
from ..ir.kinds import DType

SCRIPT = Path("debug") / "run.py"

_HEADER = '''"""Run this @pl.jit artifact tree again on ptokit's simulator:

    python {script}

Written by ptokit when the tree was compiled.  Edit ``_inline_inputs`` to try other values (and
``DIMS`` to size a dynamic dimension); the outputs are printed."""
import sys
from pathlib import Path

import numpy as np

from ptokit.compiled import CompiledProgram

TREE = Path(__file__).resolve().parents[1]
DIMS = {dims}   # dynamic dimension -> size (None: give one)


def _dim(d):
    if isinstance(d, int):
        return d
    if DIMS.get(d) is None:
        sys.exit(f"{{__file__}}: give the dynamic dimension {{d!r}} a size in DIMS")
    return DIMS[d]


def _np_dtype(name):
    try:
        return np.dtype(name)
    except TypeError:
        import ml_dtypes
        return np.dtype(getattr(ml_dtypes, name))


def _inline_inputs():
    """The arguments, in the orchestration's order."""
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:
        torch.manual_seed(0)
        return [
{torch_args}
        ]
    rng = np.random.default_rng(0)
    return [
{numpy_args}
    ]


def main():
    args = _inline_inputs()
    compiled = CompiledProgram.from_dir(TREE)
    compiled(*args)
    for name, i in zip({names!r}, {outputs!r}):
        out = np.asarray(args[i].float() if hasattr(args[i], "float") else args[i], dtype=np.float64)
        print(f"{{name}}: shape {{tuple(out.shape)}}, min {{out.min():.6g}}, max {{out.max():.6g}}, "
              f"sum {{out.sum():.6g}}")


if __name__ == "__main__":
    main()
'''


def _shape(p: ParamInfo) -> str:
    dims = [str(d) if isinstance(d, int) else f"_dim({str(d)!r})" for d in p.shape or ()]
    return "(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")"


def _torch_arg(p: ParamInfo) -> str:
    if p.kind == "scalar":
        return "1.0" if p.dtype.is_float else "1"
    dt, shape = f"torch.{p.dtype.numpy().name}", _shape(p)
    if p.direction == "OUT":
        return f"torch.zeros({shape}, dtype={dt})"
    if p.dtype in (DType.FP32, DType.FP16, DType.BF16):
        return f"torch.randn({shape}, dtype={dt})"
    if p.dtype.is_float:
        return f"torch.randn({shape}).to({dt})"
    return f"torch.randint(0, 8, {shape}).to({dt})"


def _numpy_arg(p: ParamInfo) -> str:
    if p.kind == "scalar":
        return "1.0" if p.dtype.is_float else "1"
    dt, shape = f"_np_dtype({p.dtype.numpy().name!r})", _shape(p)
    if p.direction == "OUT":
        return f"np.zeros({shape}, dtype={dt})"
    if p.dtype.is_float:
        return f"rng.standard_normal({shape}).astype({dt})"
    return f"rng.integers(0, 8, {shape}).astype({dt})"


def render(params: List[ParamInfo]) -> str:
    """The script's text for a tree with these orchestration parameters."""
    dims = sorted({d for p in params if p.kind == "tensor" for d in p.shape or () if not isinstance(d, int)})
    names = [p.name for p in params if p.kind == "tensor" and p.direction in ("OUT", "INOUT")]
    outputs = [i for i, p in enumerate(params) if p.kind == "tensor" and p.direction in ("OUT", "INOUT")]
    torch_args = "\n".join(f"            {_torch_arg(p)},   # {p.name} ({p.direction})" for p in params)
    numpy_args = "\n".join(f"        {_numpy_arg(p)},   # {p.name} ({p.direction})" for p in params)
    return _HEADER.format(script=SCRIPT.as_posix(), dims="{" + ", ".join(f"{d!r}: None" for d in dims) + "}",
                          torch_args=torch_args, numpy_args=numpy_args, names=names, outputs=outputs)


def write_run_script(tree: Path, params: List[ParamInfo]) -> Path:
    """Write ``<tree>/debug/run.py``; returns its path."""
    path = Path(tree) / SCRIPT
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(params))
    return path


__all__ = ["SCRIPT", "render", "write_run_script"]
