"""Specialization of a ``@pl.jit`` function from the arguments of a call.

Each parameter becomes one ``ArgSpec``:

* ``tensor``  -- an array argument.  Bare ``pl.Tensor`` takes shape and dtype from
  the array; ``pl.Tensor[[M, 64], pl.FP32]`` checks them and keeps dynamic dims
  symbolic.  ``pl.Out[...]`` / ``pl.InOut[...]`` give the direction.
* ``scalar``  -- a run-time scalar (annotated ``pl.Scalar[...]``): passed by value.
* ``const``   -- any other scalar: its value is folded into the program.

Arrays are numpy arrays (``ml_dtypes.bfloat16`` for BF16) or torch CPU tensors
(torch is never imported here: a torch tensor is recognised by its type's module).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Tuple

import numpy as np

from ..errors import ArgumentError, CompileError
from ..runtime.abi import number_kind, scalar_value
from ..runtime.arrays import array_info, is_array, is_contiguous, is_torch_tensor  # noqa: F401 (re-exported)
from ..ir.kinds import DType
from ..language.annotations import Annotation
from ..language.types import DimExpr, DynamicDim


@dataclass(frozen=True)
class ArgSpec:
    name: str
    kind: str                                  # tensor | scalar | const
    direction: str = "IN"                      # IN | OUT | INOUT (tensors)
    shape: Optional[Tuple[object, ...]] = None  # ints, or dim-expression strings (dynamic)
    dtype: Optional[DType] = None
    value: object = None                       # const only
    window: bool = False                       # a pld.DistributedTensor (a chip function of a host program)

    def describe(self) -> str:
        if self.kind == "tensor":
            dims = ", ".join(str(d) for d in self.shape)
            d = "" if self.direction == "IN" else f" {self.direction}"
            return f"{self.name}: tensor[{dims}] {self.dtype.name} row_major{d}"
        if self.kind == "scalar":
            return f"{self.name}: runtime scalar {self.dtype.name}"
        return f"{self.name}: constant {type(self.value).__name__} {self.value!r}"


def _is_number(v) -> bool:
    return number_kind(v) != ""


def _py_number(v):
    if isinstance(v, np.generic):
        v = v.item()
    return v


def _scalar_dtype(v) -> DType:
    """The dtype of an unannotated ``pl.Scalar`` from its (checked) value."""
    kind = number_kind(v)
    if kind == "bool":
        return DType.BOOL
    if kind == "int":
        return DType.INDEX
    return DType.FP32


def jit_param(ann: Annotation, loc=None) -> Annotation:
    """A ``@pl.jit`` entry's parameter: a tensor, a run-time scalar or a number (folded); a tile
    lives in kernel code, never in the entry's signature."""
    if ann.kind == "tile":
        raise CompileError(f"parameter {ann.name!r}: a @pl.jit function takes tensors (pl.Tensor, pl.Out[pl.Tensor]), "
                           f"scalars (pl.Scalar[dtype]) and numbers; a tile lives in kernel code", loc)
    return ann


def _coerce_const(v, dtype: Optional[DType], what: str):
    """A folded constant: with a declared dtype, the same exact-conversion rule as run-time
    scalars (``scalar_value``: a TypeError naming the parameter otherwise)."""
    if dtype is None:
        return _py_number(v)
    checked = scalar_value(v, dtype.name, what)
    if dtype.is_float:
        return float(_py_number(v))          # the value as written; codegen rounds it to the dtype
    return checked.item()


def specialize(infos: List[Annotation], args: list) -> Tuple[List[ArgSpec], dict]:
    """ArgSpecs for one call, plus the bindings of dynamic dims ({"M": 128})."""
    specs: List[ArgSpec] = []
    dyn: dict = {}
    for info, a in zip(infos, args):
        what = f"argument {info.name!r}"
        role = info.kind
        if role == "any" or (role == "number" and info.dtype is None):
            role = "tensor" if is_array(a) else "const"
        if role == "tensor":
            shape, dt = array_info(a, what)
            if info.dtype is not None and dt is not info.dtype:
                if not (info.dtype is DType.INDEX and info.dtype.accepts_array(dt)):     # an int64 array
                    raise ArgumentError(f"{what} must be a {info.dtype.name} array, but got {dt.name}")
                dt = info.dtype
            sym: list = list(shape)
            for axis, d in info.dyn_axes:
                if not -len(shape) <= axis < len(shape):
                    raise ArgumentError(f"{what}: bind_dynamic({axis}, {d.name}) names an axis a rank-{len(shape)} "
                                    f"array does not have")
                if dyn.setdefault(d.name, shape[axis]) != shape[axis]:
                    raise ArgumentError(f"{what}: dynamic dimension {d.name} is {dyn[d.name]} in an earlier argument "
                                    f"but {shape[axis]} here")
                sym[axis] = d.name
            if info.shape is not None:
                if len(info.shape) != len(shape):
                    raise ArgumentError(f"{what} must have {len(info.shape)} dimensions "
                                    f"{list(info.shape)}, but got shape {list(shape)}")
                for i, (want, got) in enumerate(zip(info.shape, shape)):
                    if isinstance(want, DynamicDim):
                        if dyn.setdefault(want.name, got) != got:
                            raise ArgumentError(f"{what}: dynamic dimension {want.name} is {dyn[want.name]} in an earlier "
                                            f"argument but {got} here")
                        sym[i] = want.name
                    elif isinstance(want, DimExpr):
                        sym[i] = want.text
                    elif want != got:
                        raise ArgumentError(f"{what}: dimension {i} must be {want}, but got {got} (shape {list(shape)})")
            if info.direction != "IN" and not is_contiguous(a):
                raise ArgumentError(f"{what} is an output and must be a contiguous (row-major) array")
            specs.append(ArgSpec(info.name, "tensor", info.direction, tuple(sym), dt))
        elif role == "scalar":
            v = scalar_value(a, info.dtype.name if info.dtype else None, what)   # TypeError when not exact
            dt = info.dtype or _scalar_dtype(v)
            specs.append(ArgSpec(info.name, "scalar", dtype=dt))
        else:
            if info.dtype is None and not _is_number(a):
                raise ArgumentError(f"{what}: expected a number (folded into the program) or an array, got "
                                f"{type(a).__name__}")
            specs.append(ArgSpec(info.name, "const", value=_coerce_const(a, info.dtype, what)))
    return specs, dyn


def output_like(info: Annotation, infos: List[Annotation], args: list, dyn: dict):
    """Allocate a numpy array for an omitted ``pl.Out`` parameter (return-style call).

    A declared shape/dtype is used (dynamic dims bound by the other arguments);
    a bare ``pl.Out[pl.Tensor]`` takes the shape and dtype of the first tensor input.
    """
    first = None
    for i, a in zip(infos, args):
        if a is not None and is_array(a):
            first = array_info(a, f"argument {i.name!r}")
            break
    if info.shape is not None:
        shape = []
        for d in info.shape:
            if isinstance(d, DynamicDim):
                if d.name not in dyn:
                    raise ArgumentError(f"cannot allocate output {info.name!r}: dynamic dimension {d.name} is not bound "
                                    f"by any input; pass the output array")
                shape.append(dyn[d.name])
            elif isinstance(d, DimExpr):
                shape.append(int(eval(d.text, {}, dict(dyn))))  # noqa: S307 - arithmetic over bound dims
            else:
                shape.append(int(d))
    elif first is not None:
        shape = list(first[0])
    else:
        raise ArgumentError(f"cannot allocate output {info.name!r}: no tensor input to take its shape from; "
                        f"pass the output array or annotate pl.Out[pl.Tensor[[...], dtype]]")
    dtype = info.dtype or (first[1] if first is not None else None)
    if dtype is None:
        raise ArgumentError(f"cannot allocate output {info.name!r}: unknown dtype; annotate it")
    return np.zeros(tuple(shape), dtype=dtype.numpy())
