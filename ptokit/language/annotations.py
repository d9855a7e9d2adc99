"""DSL type annotations (``pl.Tensor[[64, "M"], pl.FP32]``, ``pl.Out[...]``, ...) -> IR types."""
from __future__ import annotations

from ..errors import CompileError
from ..ir import nodes as N
from ..ir.types import DType, MemorySpace, PadValue, ScalarType, TensorType, TileType, dim_str
from .types import DimExpr, DirAnnot, ScalarAnnot, TensorAnnot, TensorLayout, TensorView, TileAnnot


# Function.attrs key: {tensor parameter: the valid region its pl.TensorView gives} (loads see only that)
TENSOR_VALID = "tensor_valid"


def _held(dtype, loc, what):
    if dtype is DType.TASK_ID:
        if what == "scalars":
            return dtype
        raise CompileError(f"{what} of pl.TASK_ID do not exist: a task id is a scalar of orchestration code "
                           f"(pl.TaskId); collect several in a pl.array.create(n, pl.TASK_ID)", loc)
    if isinstance(dtype, DType) and not dtype.supported:
        raise CompileError(f"{what} of {dtype!r} are not supported yet: ptokit computes FP32, FP16, BF16 and the "
                           f"8- to 64-bit integer types (the narrow formats arrive with the MX matmul)", loc)
    return dtype


def annot_to_type(annot, loc, valid_out=None) -> tuple:
    """DSL annotation object -> (IR type, direction).  A tensor's ``pl.TensorView`` valid region is
    appended to ``valid_out`` (a list) where the caller takes one (a program function's parameters);
    elsewhere a view with a valid region is refused."""
    direction = N.Direction.IN
    if isinstance(annot, DirAnnot):
        direction = N.Direction(annot.direction)
        annot = annot.inner
    if isinstance(annot, type) and annot.__name__ == "Tensor":
        raise CompileError("a bare pl.Tensor needs a shape and dtype here: pl.Tensor[[d0, d1], dtype] "
                           "(bare tensors are only for @pl.jit)", loc)
    if isinstance(annot, TensorAnnot):
        shape = tuple(dim_of(d, loc) for d in annot.shape)
        if not isinstance(annot.dtype, DType):
            raise CompileError(f"expected a dtype such as pl.FP32 in pl.Tensor[...], got {annot.dtype!r}", loc)
        if annot.view is not None:
            valid = tensor_view_valid(annot.view, shape, loc)
            if valid is not None:
                if valid_out is None:
                    raise CompileError("a pl.TensorView valid_shape is taken from a program function's tensor "
                                       "parameter (its loads see that valid region); here it would mean nothing", loc)
                valid_out.append(valid)
        if annot.window:        # a window: peers change it unseen, so it is read and written (INOUT)
            return TensorType(shape, _held(annot.dtype, loc, "tensors"), window=True), N.Direction.INOUT
        return TensorType(shape, _held(annot.dtype, loc, "tensors")), direction
    if isinstance(annot, TileAnnot):
        if len(annot.shape) != 2 or not all(isinstance(d, int) for d in annot.shape):
            raise CompileError(f"expected a static 2-D tile shape, got {list(annot.shape)}", loc)
        return TileType(tuple(annot.shape), _held(annot.dtype, loc, "tiles"), annot.memory or MemorySpace.Vec), \
            direction
    if isinstance(annot, ScalarAnnot):
        return ScalarType(_held(annot.dtype, loc, "scalars") or DType.INDEX), direction
    if isinstance(annot, DType):
        return ScalarType(_held(annot, loc, "scalars")), direction
    raise CompileError(f"expected a type annotation such as pl.Tensor[[64, 64], pl.FP32], got {annot!r}", loc)


def dim_of(d, loc):
    """One shape entry of an annotation: a positive int or a dimension expression."""
    if isinstance(d, bool) or not isinstance(d, (int, DimExpr)):
        raise CompileError(f"expected a shape dimension (int constant or pl.dynamic), got {d!r}", loc)
    if isinstance(d, int):
        if d <= 0:
            raise CompileError(f"shape dimensions must be positive, got {d}", loc)
        return d
    return dim_str(d.text)


def tensor_view_valid(view, shape, loc):
    """Check the third element of ``pl.Tensor[shape, dtype, X]`` (a ``pl.TensorLayout`` or a
    ``pl.TensorView``) against what ptokit's tensors are, and return the view's valid region (None:
    the whole tensor).  ptokit's tensors are dense row-major (ND) in global memory: that layout and
    its strides are honoured as restatements, anything else is refused with the reason."""
    if isinstance(view, TensorLayout):
        view = TensorView(layout=view)
    if not isinstance(view, TensorView):
        raise CompileError(f"the third element of pl.Tensor[shape, dtype, ...] is a pl.TensorLayout or a "
                           f"pl.TensorView, got {view!r}", loc)
    if view.layout is not TensorLayout.ND:
        raise CompileError(f"{view.layout!r}: ptokit's tensors lie in global memory as dense row-major ND arrays "
                           f"(numpy's order), so only pl.TensorLayout.ND describes them; pass the data in ND order",
                           loc)
    if view.stride not in (None, []):
        dense, step = [], 1
        for d in reversed(shape):
            dense.insert(0, step)
            step = step * d if isinstance(d, int) and isinstance(step, int) else None
        if list(view.stride) != dense:
            raise CompileError(f"pl.TensorView(stride={view.stride!r}): a ptokit tensor parameter is dense, its "
                               f"strides are {dense}; pass a strided window as a slice of a dense tensor instead",
                               loc)
    if view.pad not in (None, PadValue.null):
        raise CompileError(f"pl.TensorView(pad={view.pad!r}): a tensor view does not fill anything in ptokit; give "
                           f"the loaded tile its pad with pl.tile.fillpad(tile, pad_value=...)", loc)
    if view.valid_shape is None:
        return None
    valid = list(view.valid_shape)
    if len(valid) != len(shape):
        raise CompileError(f"pl.TensorView valid_shape {valid} needs one entry per dimension of the tensor's "
                           f"shape {list(shape)}", loc)
    out = tuple(dim_of(d, loc) for d in valid)
    for v, d in zip(out, shape):
        if isinstance(v, int) and isinstance(d, int) and v > d:
            raise CompileError(f"pl.TensorView valid_shape {valid} lies outside the tensor's shape {list(shape)}", loc)
    return None if list(out) == list(shape) else out
