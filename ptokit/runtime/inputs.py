"""Arguments for running a tree from files and text: what ``ptokit run DIR`` passes to ``run_tree``.

``make_inputs`` builds the arguments from the ORCHESTRATION ``params`` of a ptokit tree (tensors
from ``.npy`` files in parameter order, the rest generated); ``inputs_without_params`` does it
for a tree written by another tool, which only lists tensor directions.  Every problem with the
given files or values is a ``UserError`` naming the parameter.
"""
from __future__ import annotations

from typing import Dict, List, Sequence, Tuple

import numpy as np

from ..errors import UserError
from .abi import IR_DTYPE_TO_DATATYPE, numpy_dtype_of


def numpy_dtype(ir_dtype: str, where: str = "ORCHESTRATION params") -> np.dtype:
    """The numpy dtype of an IR dtype name from ORCHESTRATION params (``"FP32"``)."""
    name = str(ir_dtype).upper()
    if name == "INDEX":
        return np.dtype(np.int64)
    if name not in IR_DTYPE_TO_DATATYPE:
        raise UserError(f"unknown dtype {ir_dtype!r} in {where}")
    return numpy_dtype_of(IR_DTYPE_TO_DATATYPE[name])


def load_npy(path) -> np.ndarray:
    """A ``.npy`` file given with ``--inputs``."""
    try:
        return np.load(path, allow_pickle=False)
    except OSError as exc:
        raise UserError(f"--inputs {path}: cannot read it: {exc.strerror or exc}") from None
    except (ValueError, EOFError) as exc:
        raise UserError(f"--inputs {path}: not a .npy array file ({exc})") from None


def _scalar_value(name: str, text: str, dt: np.dtype):
    try:
        if dt.kind == "f":
            return float(text)
        if dt.kind == "b":
            return text.lower() in ("1", "true")
        return int(text, 0)
    except ValueError:
        kind = "a number" if dt.kind == "f" else "an integer"
        raise UserError(f"--scalar {name}={text}: not {kind} (the parameter is {dt})") from None


def _shape(name: str, shape, dims: Dict[str, int], where: str) -> List[int]:
    if not isinstance(shape, (list, tuple)):
        raise UserError(f"{where}: parameter {name!r} has the shape {shape!r}; expected a list of dimensions")
    out = []
    for d in shape:
        if isinstance(d, int) and not isinstance(d, bool):
            if d < 0:
                raise UserError(f"{where}: parameter {name!r} has the negative dimension {d} (shape {list(shape)})")
            out.append(d)
        else:
            if str(d) not in dims:
                raise UserError(f"parameter {name!r} has the dynamic dimension {d!r}: pass --dim {d}=N")
            out.append(dims[str(d)])
    return out


def make_inputs(params, input_files=(), scalars=None, dims=None, seed=0, *,
                where: str = "ORCHESTRATION params") -> Tuple[list, List[str]]:
    """Arguments for a tree from its ORCHESTRATION ``params``: tensors from ``input_files``
    (in tensor-parameter order), the rest generated (seeded random inputs, zero outputs).
    ``where`` names the params in messages (``"<tree>/kernel_config.py: ORCHESTRATION params"``)."""
    if not isinstance(seed, int) or seed < 0:
        raise UserError(f"--seed {seed}: expected a non-negative integer")
    rng = np.random.default_rng(seed)
    scalars = dict(scalars or {})
    given_dims: Dict[str, int] = {}
    for k, v in (dims or {}).items():
        try:
            given_dims[k] = int(v)
        except ValueError:
            raise UserError(f"--dim {k}={v}: not an integer") from None
        if given_dims[k] < 0:
            raise UserError(f"--dim {k}={v}: a dimension cannot be negative")
    dims = given_dims
    files = list(input_files or [])
    loaded = [load_npy(f) for f in files]
    tensor_params = [p for p in params if p.get("kind") != "scalar"]
    for p, arr in zip(tensor_params, loaded):   # bind dynamic dims from the given arrays
        shape = p.get("shape", [])
        if isinstance(shape, (list, tuple)) and len(shape) == arr.ndim:
            for d, n in zip(shape, arr.shape):
                if not isinstance(d, int):
                    dims.setdefault(str(d), int(n))
    unknown = sorted(set(scalars) - {str(p.get("name")) for p in params if p.get("kind") == "scalar"})
    if unknown:
        known = [str(p.get("name")) for p in params if p.get("kind") == "scalar"]
        raise UserError(f"--scalar {', '.join(unknown)}: the program has no such scalar parameter "
                        f"(its scalars: {', '.join(known) or 'none'})")
    args, names = [], []
    t_index = 0
    for p in params:
        name, kind = str(p.get("name")), p.get("kind")
        dt = numpy_dtype(p.get("dtype", "FP32"), where)
        names.append(name)
        if kind == "scalar":
            if name in scalars:
                v = _scalar_value(name, scalars[name], dt)
            else:
                v = float(np.round(rng.uniform(0.5, 2.0), 3)) if dt.kind == "f" else (True if dt.kind == "b" else 1)
            args.append(v)
            continue
        if t_index < len(files):
            arr = loaded[t_index]
            if arr.dtype != dt:
                raise UserError(f"{files[t_index]}: dtype {arr.dtype}, parameter {name!r} expects {dt}")
            want = p.get("shape")
            if isinstance(want, (list, tuple)) and (len(want) != arr.ndim or any(
                    (d if isinstance(d, int) else dims.get(str(d), n)) != n for d, n in zip(want, arr.shape))):
                raise UserError(f"{files[t_index]}: shape {list(arr.shape)}, parameter {name!r} expects {list(want)}")
            args.append(np.ascontiguousarray(arr))
        else:
            shape = _shape(name, p.get("shape", []), dims, where)
            if str(p.get("direction", "IN")).upper() == "OUT":
                arr = np.zeros(shape, dtype=dt)
            elif dt.kind == "f" or dt.name == "bfloat16":
                arr = rng.standard_normal(shape).astype(dt)
            elif dt.kind == "b":
                arr = rng.integers(0, 2, shape).astype(dt)
            else:
                arr = rng.integers(-8, 8, shape).astype(dt)
            args.append(arr)
        t_index += 1
    if t_index < len(files):
        raise UserError(f"{len(files)} --inputs given but the program has {t_index} tensor parameters")
    return args, names


def inputs_without_params(tree, signature: Sequence[str], input_files: Sequence, scalars: Dict[str, str]
                          ) -> Tuple[list, list, List[str]]:
    """``(params, args, names)`` for a tree whose kernel_config.py has no ORCHESTRATION params:
    the tensors come from ``input_files`` (one per signature entry), the scalars follow them in
    the order given (each an int or a float literal)."""
    if not input_files:
        raise UserError(f"{tree}: kernel_config.py has no ORCHESTRATION params; pass the tensors with "
                        f"--inputs and the scalars with --scalar NAME=VALUE, in the order the "
                        f"orchestration reads them")
    params = [{"name": f"arg{i}", "kind": "tensor", "direction": d, "dtype": None} for i, d in enumerate(signature)]
    args = [load_npy(f) for f in input_files]
    if len(args) != len(params):
        raise UserError(f"{len(args)} --inputs given, the program has {len(params)} tensor parameters")
    names = [p["name"] for p in params]
    for name, text in scalars.items():
        try:
            args.append(int(text, 0))
        except ValueError:
            try:
                args.append(float(text))
            except ValueError:
                raise UserError(f"--scalar {name}={text}: not a number") from None
        names.append(name)
    return params, args, names


__all__ = ["make_inputs", "inputs_without_params", "numpy_dtype", "load_npy"]
