"""Orchestration-level tensor ops: creating tensors and taking windows of them."""
from __future__ import annotations

from ..types import DType, TensorType
from ._core import OpTypeError, P, declare


def _create_tensor(ts, attrs):
    return TensorType(tuple(attrs["shape"]), attrs["dtype"])


declare("create_tensor", (P("shape", "dims", aliases=("shapes",)), P("dtype", "dtype", DType.FP32),
                         P("manual_dep", "bool", False, keyword_only=True)), _create_tensor,
        form="orch", traits={"orchestration", "allocates"}, kernel_form="create_tile",
        doc="a new tensor allocated by the runtime (manual_dep=True: never tracked; in kernel code: an on-chip "
            "scratch tile)")


def _tensor_view(ts, attrs):
    # args: (base tensor, offsets); attrs["shape"]: the window's shape (the front end has already
    # checked it is a contiguous row block inside the base; see docs/language.md)
    base = ts[0]
    if not isinstance(base, TensorType):
        raise OpTypeError(f"a tensor window needs a tensor, but got {base}")
    if len(attrs["shape"]) != len(base.shape):
        raise OpTypeError(f"a window of a {len(base.shape)}-D tensor needs {len(base.shape)} dimensions, "
                          f"got {len(attrs['shape'])}")
    return TensorType(view_shape(tuple(attrs["shape"]), attrs.get("then", ())), base.dtype)


def view_shape(shape: tuple, steps) -> tuple:
    """The shape a window takes after its ``then`` steps: ``("reshape", new_shape)`` (the same elements in
    the same row-major order) and ``("transpose", axis1, axis2)`` (two axes swapped, a strided view)."""
    for step in steps:
        if step[0] == "reshape":
            new = tuple(step[1])
            if all(isinstance(d, int) for d in shape + new) and _count(shape) != _count(new):
                raise OpTypeError(f"pl.reshape of a {list(shape)} tensor to {list(new)} changes its element count "
                                  f"({_count(shape)} to {_count(new)})")
            shape = new
        else:
            _, a1, a2 = step
            dims = list(shape)
            dims[a1], dims[a2] = dims[a2], dims[a1]
            shape = tuple(dims)
    return shape


def _count(shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


# written x[a:b, :] in orchestration code; not a DSL name
declare("tensor_view", (P("tensor", "tensor"), P("offsets", "offsets"), P("shape", "dims")), _tensor_view,
        form="orch", traits={"orchestration", "view"}, namespaces=(),
        doc="a window of a tensor, passed as a task argument; attribute then=: the reshapes and transposes "
            "(pl.reshape / pl.transpose of a tensor in orchestration code) applied to the window, in order")
