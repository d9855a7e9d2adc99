"""IR types: the tensor / tile / scalar value types (and, re-exported from ``.kinds``, the dtypes
and memory spaces they are made of).

Shapes are tuples whose entries are ints or *dimension expressions*: strings
over dynamic dimension variables (``"M"``, ``"M * 2"``).  Dimension expressions
are normalised by ``dim_str`` so that equal expressions compare equal as text.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from math import prod
from typing import Optional, Tuple, Union

import numpy as np

# the enumerations and dtype tables live in .kinds (the DSL's surface needs them without these classes)
from .kinds import (ALIGNMENT, CAPACITY, DATATYPE_CODE, DATATYPE_CPP, FOUR_BIT_ARRAY_NAMES,  # noqa: F401 (re-exported)
                    FP8_ARRAY_NAMES, TILE_LAYOUTS, UNSUPPORTED_WHY, AtomicType, DType, MaskPattern, MemorySpace,
                    PadValue, TensorLayout, TileLayout, dtype_from_numpy)

Dim = Union[int, str]


def dim_str(d: Dim) -> Dim:
    """Normalise a dimension: ints stay ints; expressions are re-printed canonically."""
    if isinstance(d, (int, np.integer)):
        return int(d)
    try:
        return ast.unparse(ast.parse(str(d), mode="eval").body)
    except SyntaxError:
        return str(d)


def dim_vars(d: Dim) -> Tuple[str, ...]:
    if isinstance(d, int):
        return ()
    names = []
    for node in ast.walk(ast.parse(str(d), mode="eval")):
        if isinstance(node, ast.Name) and node.id not in names:
            names.append(node.id)
    return tuple(names)


def fmt_shape(shape) -> str:
    return "[" + ", ".join(str(d) for d in shape) + "]"


@dataclass(frozen=True)
class ScalarType:
    dtype: DType

    def __str__(self) -> str:
        return f"pl.Scalar[{self.dtype!r}]"


@dataclass(frozen=True)
class MemRefBind:
    """A tile's declared allocation (``pl.MemRef``): the op defining the tile carries it as
    ``attrs["memref"]``.  ``index`` is the slot: an int, or a scalar IR expression read at run time."""
    name: str
    slots: int
    index: object = 0
    loc: object = field(default=None, compare=False)
    # which declaration: ("object", id) of a pl.MemRef object, ("inline", slots) of the inline form
    key: object = field(default=None, compare=False)

    def __str__(self) -> str:
        return self.name if self.slots == 1 else f"{self.name}[{self.index}]"


@dataclass(frozen=True)
class TensorType:
    shape: Tuple[Dim, ...]
    dtype: DType
    # a pld.DistributedTensor: a view of a window slot on the executing rank (docs/distributed.md)
    window: bool = field(default=False, compare=False)
    # the layout in global memory (None: ND); an MX scale layout for the scales of pl.matmul_mx
    layout: Optional["TensorLayout"] = field(default=None, compare=False)

    def __str__(self) -> str:
        kind = "pld.DistributedTensor" if self.window else "pl.Tensor"
        lay = f", {self.layout!r}" if self.layout is not None else ""
        return f"{kind}[{fmt_shape(self.shape)}, {self.dtype!r}{lay}]"

    @property
    def is_static(self) -> bool:
        return all(isinstance(d, int) for d in self.shape)


@dataclass(frozen=True)
class TileType:
    """An on-chip tile: static physical shape, valid shape (ints or scalar Exprs)."""

    shape: Tuple[int, int]
    dtype: DType
    memory: MemorySpace = MemorySpace.Vec
    valid: Optional[tuple] = field(default=None, compare=False)   # None = full
    pad: PadValue = PadValue.null
    # (blayout, slayout) when it is not the writer's default for the memory space and shape: the
    # transposed (ZN) Mat layout of pl.tile.transpose_view / create_tile(transpose=True), a flat Mat
    # tile, or a pl.move destination layout (docs/language.md, "Views and layouts")
    layout: Optional[Tuple[str, str]] = None
    # the N-D shape as written (rank > 2, e.g. a [B, M, K] window), while ``shape`` is its 2-D form
    # with the leading axes folded into the rows; ops whose meaning needs the batch axes (batch_matmul,
    # transpose of the last two axes) read it, and FlattenTileNdTo2D lowers them and clears it
    nd: Optional[Tuple[int, ...]] = field(default=None, compare=False)

    @property
    def rows(self) -> int:
        return self.shape[0]

    @property
    def cols(self) -> int:
        return self.shape[1]

    @property
    def nbytes(self) -> int:
        return self.shape[0] * self.shape[1] * self.dtype.size

    def __str__(self) -> str:
        mem = "" if self.memory is None else f", {self.memory!r}"    # None: an annotation naming no space
        lay = f", blayout={self.layout[0]}, slayout={self.layout[1]}" if self.layout else ""
        return f"pl.Tile[{fmt_shape(self.nd or self.shape)}, {self.dtype!r}{mem}{lay}]"

    def with_(self, **kw) -> "TileType":
        d = dict(shape=self.shape, dtype=self.dtype, memory=self.memory, valid=self.valid, pad=self.pad,
                 layout=self.layout, nd=self.nd)
        if "shape" in kw and "nd" not in kw:
            d["nd"] = None          # a new 2-D shape: the written N-D one no longer describes it
        d.update(kw)
        return TileType(**d)

    @staticmethod
    def of_nd(shape, dtype: "DType", memory: MemorySpace = MemorySpace.Vec, **kw) -> "TileType":
        """A tile of the written shape: 2-D as it is, rank > 2 folded into rows with ``nd`` kept."""
        shape = tuple(shape)
        if len(shape) <= 2:
            return TileType(shape if len(shape) == 2 else (1, shape[0]), dtype, memory, **kw)
        return TileType((prod(shape[:-1]), shape[-1]), dtype, memory, nd=shape, **kw)


@dataclass(frozen=True)
class TupleType:
    items: Tuple[object, ...]

    def __str__(self) -> str:
        return "tuple[" + ", ".join(str(t) for t in self.items) + "]"


@dataclass(frozen=True)
class NoneType:
    def __str__(self) -> str:
        return "None"


@dataclass(frozen=True)
class ArrayType:
    """``pl.array.create(extent, dtype)``: a small fixed-size array, updated functionally."""

    extent: int
    dtype: DType

    def __str__(self) -> str:
        return f"pl.Array[{self.extent}, {self.dtype!r}]"


INDEX = ScalarType(DType.INDEX)
BOOL = ScalarType(DType.BOOL)
TASK_ID = ScalarType(DType.TASK_ID)


def intermediate_tensor_type(t) -> Optional[TensorType]:
    """The tensor a value a ``pl.at`` block computes is to code after the block (OutlineIncoreScopes
    makes it an intermediate tensor): a tile's or tensor's shape (an N-D tile's as written) and
    dtype; None for anything else (a scalar stays in its kernel)."""
    if isinstance(t, TileType):
        return TensorType(tuple(t.nd or t.shape), t.dtype)
    if isinstance(t, TensorType) and not t.window:
        return TensorType(tuple(t.shape), t.dtype)
    return None

