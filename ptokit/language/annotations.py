"""DSL type annotations (``pl.Tensor[[64, "M"], pl.FP32]``, ``pl.Out[...]``, ...) -> IR types."""
from __future__ import annotations

from ..errors import CompileError
from ..ir import nodes as N
from ..ir.types import DType, MemorySpace, ScalarType, TensorLayout, TensorType, TileType, dim_str
from .types import DimExpr, DirAnnot, ScalarAnnot, TensorAnnot, TileAnnot


def _held(dtype, loc, what):
    if dtype is DType.TASK_ID:
        if what == "scalars":
            return dtype
        raise CompileError(f"{what} of pl.TASK_ID do not exist: a task id is a scalar of orchestration code "
                           f"(pl.TaskId); collect several in a pl.array.create(n, pl.TASK_ID)", loc)
    if isinstance(dtype, DType) and not dtype.supported:
        raise CompileError(f"{what} of {dtype!r} are not supported yet: ptokit computes FP32, FP16, BF16, the "
                           f"8- to 64-bit integer types and the FP8 formats of the MX matmul (FP8E4M3FN, FP8E5M2, "
                           f"FP8E8M0); the 4-bit and HiFloat formats are not implemented", loc)
    return dtype


def annot_to_type(annot, loc) -> tuple:
    """DSL annotation object -> (IR type, direction)."""
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
        if annot.window:        # a window: peers change it unseen, so it is read and written (INOUT)
            return TensorType(shape, _held(annot.dtype, loc, "tensors"), window=True), N.Direction.INOUT
        layout = _layout(annot, shape, loc)
        return TensorType(shape, _held(annot.dtype, loc, "tensors"), layout=layout), direction
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


def _layout(annot, shape, loc):
    """The third entry of ``pl.Tensor[shape, dtype, layout]``: None for ND, or an MX scale layout."""
    lay = annot.layout
    if lay is None or lay is TensorLayout.ND:
        return None
    if not isinstance(lay, TensorLayout):
        raise CompileError(f"the third entry of pl.Tensor[shape, dtype, layout] must be a layout such as "
                           f"pl.MX_A_ZZ, got {lay!r}", loc)
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
