"""The one reader of parameter and value annotations.

``read_annotation`` turns what a user wrote (``pl.Tensor[[64, "M"], pl.FP32]``, a bare
``pl.Tensor``, ``pl.Tile[[16, 16], pl.FP16, pl.Mem.Left]``, ``pl.Out[...]`` / ``pl.InOut[...]``,
``pl.Scalar[pl.INT32]``, a dtype, ``int`` / ``float`` / ``bool``, ``pld.DistributedTensor[...]``,
nothing at all) into an ``Annotation``: a typed record of its direction, kind, shape (ints and
``pl.dynamic`` dimension expressions), dtype, memory space, layout or ``pl.TensorView``.  Every
caller reads annotations here: program functions and host functions (``Annotation.ir_type``),
``@pl.jit`` entries and their specialisation (jit/specialize.py), ``@pl.jit`` helpers and chip
functions of host programs (jit/frontend.py, jit/host.py), annotated assignments.
``function_params`` reads a Python function's parameters (binder.py ``header_args``) and annotations.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Optional

from ..errors import CompileError
from ..ir.kinds import UNSUPPORTED_WHY, Direction, DType, MemorySpace, PadValue, TensorLayout
from .binder import header_args
from .source import Source, eval_static, function_scope
from .types import DimExpr, DirAnnot, Scalar, ScalarAnnot, Tensor, TensorAnnot, TensorView, Tile, TileAnnot


# Function.attrs key: {tensor parameter: the valid region its pl.TensorView gives} (loads see only that)
TENSOR_VALID = "tensor_valid"

@dataclass(frozen=True)
class Annotation:
    """What one annotation says, before any argument is seen.

    ``kind``: ``tensor`` (``pl.Tensor``, ``pld.DistributedTensor``), ``tile``, ``scalar``
    (``pl.Scalar``: a run-time value), ``number`` (a dtype, ``int``, ``float`` or ``bool``: a value
    a ``@pl.jit`` program folds, a scalar parameter elsewhere) or ``any`` (no annotation).
    ``shape`` is None for a bare ``pl.Tensor`` / ``pl.Tile``; its entries are ints or
    ``DimExpr`` (``pl.dynamic``)."""

    kind: str
    direction: str = "IN"                  # IN | OUT | INOUT
    shape: Optional[tuple] = None
    dtype: Optional[DType] = None
    memory: Optional[MemorySpace] = None   # tiles: None when pl.Tile[...] names no memory space
    window: bool = False                   # pld.DistributedTensor[...]
    layout: object = None                  # tensors: a pl.TensorLayout or a pl.TensorView
    py_type: Optional[type] = None         # numbers annotated int / float / bool
    name: str = ""                         # the parameter's, when read for one
    dyn_axes: tuple = ()                   # bare jit tensors: ((axis, DynamicDim), ...) from x.bind_dynamic

    @property
    def bare(self) -> bool:
        return self.shape is None

    @property
    def writes(self) -> bool:
        return self.direction != "IN"

    def ir_type(self, loc, valid_out=None) -> tuple:
        """(IR type, N.Direction) of a parameter or value of a program or host function, where
        every type is written in full.  A tensor's ``pl.TensorView`` valid region is appended to
        ``valid_out`` (a list) where the caller takes one; elsewhere one is refused."""
        # lazy: a warm @pl.jit call reads its annotations (read_annotation) without the IR's types
        from ..ir.types import ScalarType, TensorType, TileType
        direction = Direction(self.direction)
        if self.kind == "tensor":
            if self.bare:
                raise CompileError("a bare pl.Tensor needs a shape and dtype here: pl.Tensor[[d0, d1], dtype] "
                                   "(bare tensors are only for @pl.jit)", loc)
            shape = tuple(ir_dim(d) for d in self.shape)
            if self.window:        # a window: peers change it unseen, so it is read and written (INOUT)
                return TensorType(shape, self.dtype, window=True), Direction.INOUT
            layout = self.layout
            if isinstance(layout, TensorView):
                valid = tensor_view_valid(layout, shape, loc)
                layout = layout.layout
                if valid is not None:
                    if valid_out is None:
                        raise CompileError("a pl.TensorView valid_shape is taken from a program function's tensor "
                                           "parameter (its loads see that valid region); here it would mean "
                                           "nothing", loc)
                    valid_out.append(valid)
            return TensorType(shape, self.dtype, layout=None if layout is TensorLayout.ND else layout), direction
        if self.kind == "tile":
            if self.bare:
                raise CompileError("a bare pl.Tile needs a shape and dtype here: pl.Tile[[rows, cols], dtype]", loc)
            return TileType.of_nd(self.shape, self.dtype, self.memory or MemorySpace.Vec), direction
        if self.kind == "scalar" or (self.kind == "number" and self.dtype is not None):
            return ScalarType(self.dtype or DType.INDEX), direction
        what = "no annotation" if self.kind == "any" else self.py_type.__name__
        raise CompileError(f"expected a type annotation such as pl.Tensor[[64, 64], pl.FP32] or pl.Scalar[pl.INT32], "
                           f"got {what}", loc)


def read_annotation(annot, loc=None, name: str = "") -> Annotation:
    """The ``Annotation`` of ``annot`` (an evaluated annotation object; ``inspect.Parameter.empty``
    or None for none); a malformed one is a ``CompileError`` at ``loc``."""
    direction = "IN"
    if isinstance(annot, DirAnnot):
        direction, annot = annot.direction, annot.inner
        if not (annot is Tensor or isinstance(annot, TensorAnnot)):
            raise CompileError(f"pl.{'Out' if direction == 'OUT' else 'InOut'}[...] wraps a tensor "
                               f"(pl.Out[pl.Tensor[[64, 64], pl.FP32]]), got {annot!r}", loc)
    if annot is Tensor:
        return Annotation("tensor", direction, name=name)
    if annot is Tile:
        return Annotation("tile", name=name)
    if annot is Scalar:
        return Annotation("scalar", name=name)
    if isinstance(annot, TensorAnnot):
        shape = tuple(dim_of(d, loc) for d in annot.shape)
        dtype = _held(annot.dtype, loc, "tensors")
        layout = annot.layout
        if isinstance(layout, TensorView):
            _layout(layout.layout, annot.dtype, shape, loc)
        else:
            layout = _layout(layout, annot.dtype, shape, loc)
        return Annotation("tensor", "INOUT" if annot.window else direction, shape, dtype, window=annot.window,
                          layout=layout, name=name)
    if isinstance(annot, TileAnnot):
        if len(annot.shape) < 2 or not all(isinstance(d, int) and not isinstance(d, bool) for d in annot.shape):
            raise CompileError(f"expected a static tile shape of rank 2 or more, got {list(annot.shape)}", loc)
        return Annotation("tile", shape=tuple(dim_of(d, loc) for d in annot.shape),
                          dtype=_held(annot.dtype, loc, "tiles"), memory=annot.memory, name=name)
    if isinstance(annot, ScalarAnnot):
        return Annotation("scalar", dtype=annot.dtype and _held(annot.dtype, loc, "scalars"), name=name)
    if isinstance(annot, DType):
        return Annotation("number", dtype=_held(annot, loc, "scalars"), name=name)
    if annot in (int, float, bool):
        return Annotation("number", py_type=annot, name=name)
    if annot is None or annot is inspect.Parameter.empty:
        return Annotation("any", name=name)
    raise CompileError(f"expected a type annotation such as pl.Tensor[[64, 64], pl.FP32], pl.Tile[...], "
                       f"pl.Scalar[dtype] or a number type, got {annot!r}", loc)


def annot_to_type(annot, loc, valid_out=None) -> tuple:
    """(IR type, direction) of an annotation written in full (``Annotation.ir_type``)."""
    return read_annotation(annot, loc).ir_type(loc, valid_out)


def function_params(fn) -> list:
    """(inspect.Parameter, Annotation, location) of each parameter of a Python function (a
    ``@pl.jit`` entry, a host function): annotations as Python evaluated them, a string one
    (``from __future__ import annotations``) evaluated in the function's scope."""
    src = Source(fn)
    scope = function_scope(fn)
    out = []
    for a, sp in header_args(src.tree.body[0], src, scope, method=False):
        loc = src.loc(a.annotation or a)
        out.append((sp, read_annotation(evaluated(a, src, scope, fn.__annotations__), loc, a.arg), loc))
    return out


def evaluated(a, src, g, annotations=None):
    """The annotation object of parameter ``a`` (an ``ast.arg``): the one Python evaluated when the
    function was made (``annotations``: names only annotations use are in no closure), else its
    source evaluated in ``g``; ``inspect.Parameter.empty`` for none."""
    annot = (annotations or {}).get(a.arg)
    if annot is None or isinstance(annot, str):
        annot = eval_static(a.annotation, src, g, "annotation") if a.annotation is not None else inspect.Parameter.empty
    return annot


_EXAMPLE = {"tensors": "pl.FP32 in pl.Tensor[...]", "tiles": "pl.FP16 in pl.Tile[...]",
            "scalars": "pl.INT32 in pl.Scalar[...]"}


def _held(dtype, loc, what):
    """``dtype``, checked: a dtype that ``what`` (tensors, tiles, scalars) can hold."""
    if not isinstance(dtype, DType):
        raise CompileError(f"expected a dtype such as {_EXAMPLE[what]}, got {dtype!r}", loc)
    if dtype is DType.TASK_ID:
        if what == "scalars":
            return dtype
        raise CompileError(f"{what} of pl.TASK_ID do not exist: a task id is a scalar of orchestration code "
                           f"(pl.TaskId); collect several in a pl.array.create(n, pl.TASK_ID)", loc)
    if dtype.is_4bit and what == "scalars":
        raise CompileError(f"scalars of {dtype!r} do not exist: 4-bit values live in tensors and tiles (one a "
                           f"byte) and have no arithmetic; use an INT8, INT32 or FP32 scalar", loc)
    if not dtype.supported:
        raise CompileError(f"{what} of {dtype!r} are not supported: {UNSUPPORTED_WHY[dtype]} (ptokit holds FP32, "
                           f"FP16, BF16, the 8- to 64-bit integer types, the FP8 formats of the MX matmul and the "
                           f"4-bit FP4/FP4E2M1/INT4/UINT4)", loc)
    return dtype


def _layout(lay, dtype, shape, loc):
    """The third entry of ``pl.Tensor[shape, dtype, layout]``: None for ND, or an MX scale layout."""
    if lay is None or lay is TensorLayout.ND:
        return None
    if not isinstance(lay, TensorLayout):
        raise CompileError(f"the third entry of pl.Tensor[shape, dtype, layout] must be a layout such as "
                           f"pl.MX_A_ZZ, or a pl.TensorView, got {lay!r}", loc)
    if not lay.is_mx:
        raise CompileError(f"tensors in the {lay!r} layout are not supported: ptokit's global tensors are ND "
                           f"(row-major); {lay!r} is accepted only as the name pypto gives it", loc)
    if dtype is not DType.FP8E8M0:
        raise CompileError(f"{lay!r} is the layout of MX scales: the tensor must hold pl.FP8E8M0, but it is "
                           f"{dtype!r}", loc)
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
    """One shape entry of an annotation, checked: a positive int or a dimension expression."""
    if isinstance(d, bool) or not isinstance(d, (int, DimExpr)):
        raise CompileError(f"expected a shape dimension (int constant or pl.dynamic), got {d!r}", loc)
    if isinstance(d, int) and d <= 0:
        raise CompileError(f"shape dimensions must be positive, got {d}", loc)
    return d


def ir_dim(d):
    """A shape entry as IR types hold it: an int or the text of a dimension expression."""
    from ..ir.types import dim_str   # lazy: as in Annotation.ir_type (compiling only)
    return d if isinstance(d, int) else dim_str(d.text)


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
    out = tuple(ir_dim(dim_of(d, loc)) for d in valid)
    for v, d in zip(out, shape):
        if isinstance(v, int) and isinstance(d, int) and v > d:
            raise CompileError(f"pl.TensorView valid_shape {valid} lies outside the tensor's shape {list(shape)}", loc)
    return None if list(out) == list(shape) else out
