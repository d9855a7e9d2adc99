"""DSL type annotations (``pl.Tensor[[64, "M"], pl.FP32]``, ``pl.Out[...]``, ...) -> IR types."""
from __future__ import annotations

from ..errors import CompileError
from ..ir import nodes as N
from dataclasses import replace

from ..ir.types import UNSUPPORTED_WHY, DType, MemorySpace, PadValue, ScalarType, TensorLayout, TensorType, TileType, dim_str
from .types import DimExpr, DirAnnot, ScalarAnnot, TensorAnnot, TensorView, TileAnnot


# Function.attrs key: {tensor parameter: the valid region its pl.TensorView gives} (loads see only that)
TENSOR_VALID = "tensor_valid"


def _held(dtype, loc, what):
    if dtype is DType.TASK_ID:
        if what == "scalars":
            return dtype
        raise CompileError(f"{what} of pl.TASK_ID do not exist: a task id is a scalar of orchestration code "
                           f"(pl.TaskId); collect several in a pl.array.create(n, pl.TASK_ID)", loc)
    if isinstance(dtype, DType) and dtype.is_4bit and what == "scalars":
        raise CompileError(f"scalars of {dtype!r} do not exist: 4-bit values live in tensors and tiles (one a "
                           f"byte) and have no arithmetic; use an INT8, INT32 or FP32 scalar", loc)
    if isinstance(dtype, DType) and not dtype.supported:
        raise CompileError(f"{what} of {dtype!r} are not supported: {UNSUPPORTED_WHY[dtype]} (ptokit holds FP32, "
                           f"FP16, BF16, the 8- to 64-bit integer types, the FP8 formats of the MX matmul and the "
                           f"4-bit FP4/FP4E2M1/INT4/UINT4)", loc)
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
        if isinstance(annot.layout, TensorView):      # its layout is checked as a bare layout would be
            valid = tensor_view_valid(annot.layout, shape, loc)
            annot = replace(annot, layout=annot.layout.layout)
            if valid is not None:
                if valid_out is None:
                    raise CompileError("a pl.TensorView valid_shape is taken from a program function's tensor "
                                       "parameter (its loads see that valid region); here it would mean nothing", loc)
                valid_out.append(valid)
        if annot.window:        # a window: peers change it unseen, so it is read and written (INOUT)
            return TensorType(shape, _held(annot.dtype, loc, "tensors"), window=True), N.Direction.INOUT
        layout = _layout(annot, shape, loc)
        return TensorType(shape, _held(annot.dtype, loc, "tensors"), layout=layout), direction
    if isinstance(annot, TileAnnot):
        if len(annot.shape) < 2 or not all(isinstance(d, int) for d in annot.shape):
            raise CompileError(f"expected a static tile shape of rank 2 or more, got {list(annot.shape)}", loc)
        return TileType.of_nd(annot.shape, _held(annot.dtype, loc, "tiles"), annot.memory or MemorySpace.Vec), \
            direction
    if isinstance(annot, ScalarAnnot):
        return ScalarType(_held(annot.dtype, loc, "scalars") or DType.INDEX), direction
    if isinstance(annot, DType):
        return ScalarType(_held(annot, loc, "scalars")), direction
    raise CompileError(f"expected a type annotation such as pl.Tensor[[64, 64], pl.FP32], got {annot!r}", loc)


def _layout(annot, shape, loc):
    """The third entry of ``pl.Tensor[shape, dtype, layout]``: None for ND, or an MX scale layout."""
    lay = annot.layout
    if lay is None or lay is TensorLayout.ND:
        return None
    if not isinstance(lay, TensorLayout):
        raise CompileError(f"the third entry of pl.Tensor[shape, dtype, layout] must be a layout such as "
                           f"pl.MX_A_ZZ, or a pl.TensorView, got {lay!r}", loc)
    if not lay.is_mx:
        raise CompileError(f"tensors in the {lay!r} layout are not supported: ptokit's global tensors are ND "
                           f"(row-major); {lay!r} is accepted only as the name pypto gives it", loc)
    if annot.dtype is not DType.FP8E8M0:
        raise CompileError(f"{lay!r} is the layout of MX scales: the tensor must hold pl.FP8E8M0, but it is "
                           f"{annot.dtype!r}", loc)
    if len(shape) != 2:
        raise CompileError(f"an {lay!r} scale tensor is 2-D ([M, K // 32] for pl.MX_A_ZZ, [K // 32, N] for "
                           f"pl.MX_B_NN), but this one has {len(shape)} dimensions", loc)
    rows, cols = (16, 2) if lay is TensorLayout.MX_A_ZZ else (2, 16)
    for d, box, name in ((shape[0], rows, "rows"), (shape[1], cols, "columns")):
        if not isinstance(d, int):
            raise CompileError(f"an {lay!r} scale tensor needs a static shape (its boxes are laid out by it), "
                               f"but its {name} are {d!r}", loc)
        if d % box:
            raise CompileError(f"an {lay!r} scale tensor is stored in {rows} x {cols} boxes, so its {name} must be "
                               f"a multiple of {box}, but they are {d}", loc)
    return lay


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
    """Check a ``pl.TensorView``, the third entry of ``pl.Tensor[shape, dtype, view]``, against what
    ptokit's tensors are, and return its valid region (None: the whole tensor).  Its layout is checked
    by ``_layout``; strides are honoured when they are an ND tensor's dense ones, ``pad`` when null;
    anything else is refused with the reason."""
    if view.stride not in (None, []):
        dense, step = [], 1
        for d in reversed(shape):
            dense.insert(0, step)
            step = step * d if isinstance(d, int) and isinstance(step, int) else None
        if view.layout is not TensorLayout.ND or list(view.stride) != dense:
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
