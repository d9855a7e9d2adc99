"""Type annotations of the DSL: ``pl.Tensor[[64, 64], pl.FP32]``, ``pl.Tile[...]``,
``pl.Scalar[dtype]``, ``pl.Out[T]`` / ``pl.InOut[T]``, and ``pl.dynamic("M")``.

These objects only *describe* types; the parser turns them into IR types.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Optional, Tuple

from ..ir.kinds import FunctionType  # noqa: F401  (re-exported by ptokit.language)
from ..ir.kinds import DType, MemorySpace, PadValue, TensorLayout  # noqa: F401

# every dtype by its DSL name: pl.FP32, pl.UINT16, pl.FP8E4M3FN, ...
# the pl.prefetch handles are types of values the prefetch ops return, not dtypes a user names
DTYPES = {d.name: d for d in DType if d not in (DType.PREFETCH_CONTEXT, DType.ASYNC_EVENT, DType.ASYNC_SESSION)}
globals().update(DTYPES)
Mem = MemorySpace


class Level:
    AIV = "AIV"
    AIC = "AIC"
    CORE_GROUP = "CORE_GROUP"
    CHIP_DIE = "CHIP_DIE"
    CHIP = "CHIP"
    HOST = "HOST"


class SplitMode(enum.IntEnum):
    """How a mixed kernel's vector tiles are shared between the two vector lanes (the codes are
    the FIFO ops' ``split=`` and pto-isa's TileSplitAxis)."""
    NONE = 0
    UP_DOWN = 1
    LEFT_RIGHT = 2

    def __repr__(self) -> str:
        return f"pl.SplitMode.{self.name}"


@dataclass(frozen=True)
class SplitOptimization:
    """``pl.split(mode)``: an entry of ``pl.at(..., optimizations=[...])`` / ``pl.spmd(...)``."""
    mode: SplitMode

    def __repr__(self) -> str:
        return f"pl.split({self.mode!r})"


@dataclass(frozen=True)
class CrossCoreSlot:
    """``pl.cross_core_slot(slot_num=N)``: the ring depth of the outlined kernel's cross-core pipe."""
    slot_num: int

    def __repr__(self) -> str:
        return f"pl.cross_core_slot(slot_num={self.slot_num})"


def cross_core_slot(*, slot_num: int) -> CrossCoreSlot:
    """``optimizations=[pl.cross_core_slot(slot_num=4)]``: the automatic pipe of the outlined mixed
    kernel gets ``slot_num`` slots per direction (default 2; docs/mixed-kernels.md)."""
    if isinstance(slot_num, bool) or not isinstance(slot_num, int) or slot_num <= 0:
        raise ValueError(f"pl.cross_core_slot(slot_num={slot_num!r}): the slot count is a positive integer")
    return CrossCoreSlot(slot_num)


def cross_core_slots(items) -> int:
    """The slot count an optimizations= list asks for (0: none given)."""
    found = [i.slot_num for i in (items if isinstance(items, (list, tuple)) else []) if isinstance(i, CrossCoreSlot)]
    return found[-1] if found else 0


def split(mode) -> SplitOptimization:
    """``pl.split(pl.SplitMode.UP_DOWN)``: the outlined kernel's vector work is shared by the two
    vector lanes, each on its half of every vector tile (docs/mixed-kernels.md, "Split transfers")."""
    return SplitOptimization(SplitMode(int(getattr(mode, "value", mode))))


def split_code(value) -> int:
    """A split mode given as pl.SplitMode or int: its code, 0..2; ValueError otherwise."""
    if isinstance(value, bool) or not isinstance(getattr(value, "value", value), int):
        raise ValueError(value)
    code = int(getattr(value, "value", value))
    if code not in (0, 1, 2):
        raise ValueError(value)
    return code


class ScopeMode(enum.Enum):
    """``pl.scope(mode=...)``: AUTO tracks tensor dependencies, MANUAL orders tasks by ``deps=`` only."""
    AUTO = "AUTO"
    MANUAL = "MANUAL"

    def __repr__(self) -> str:
        return f"pl.ScopeMode.{self.name}"


class Role(enum.Enum):
    """Distributed roles of host-level functions (``role=``)."""
    Orchestrator = "Orchestrator"
    SubWorker = "SubWorker"

    def __repr__(self) -> str:
        return f"pl.Role.{self.name}"


class PipeType(enum.Enum):
    """Hardware pipes, for ``pl.system.sync_set`` / ``sync_wait``."""
    MTE1 = "MTE1"
    MTE2 = "MTE2"
    MTE3 = "MTE3"
    M = "M"
    V = "V"
    S = "S"
    FIX = "FIX"
    ALL = "ALL"


class DimExpr:
    """A dimension expression over dynamic dimension variables (``M``, ``M * 2``)."""

    def __init__(self, text: str):
        self.text = text

    def _bin(self, op, other, rev=False):
        o = other.text if isinstance(other, DimExpr) else repr(int(other))
        a, b = (o, self.text) if rev else (self.text, o)
        return DimExpr(f"({a}) {op} ({b})" if op else a)

    def __add__(self, o): return self._bin("+", o)
    def __radd__(self, o): return self._bin("+", o, True)
    def __sub__(self, o): return self._bin("-", o)
    def __rsub__(self, o): return self._bin("-", o, True)
    def __mul__(self, o): return self._bin("*", o)
    def __rmul__(self, o): return self._bin("*", o, True)
    def __floordiv__(self, o): return self._bin("//", o)
    def __rfloordiv__(self, o): return self._bin("//", o, True)
    def __mod__(self, o): return self._bin("%", o)

    def __repr__(self) -> str:
        return self.text


class DynamicDim(DimExpr):
    """``M = pl.dynamic("M")``: a dimension known only at run time."""

    def __init__(self, name: str):
        super().__init__(name)
        self.name = name


def dynamic(name: str) -> DynamicDim:
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"pl.dynamic needs an identifier name, got {name!r}")
    return DynamicDim(name)


class TensorView:
    """``pl.TensorView(stride=None, layout=None, valid_shape=None, pad=pl.PadValue.null)``: the third
    element of ``pl.Tensor[shape, dtype, view]`` (checked in ``language/annotations.py``)."""

    def __init__(self, stride=None, layout=None, valid_shape=None, pad=PadValue.null):
        if layout is None and (stride not in (None, []) or valid_shape is not None or pad not in (None, PadValue.null)):
            raise ValueError("pl.TensorView needs layout= (e.g. pl.TensorLayout.ND) when it sets any other field")
        self.stride, self.layout, self.valid_shape, self.pad = stride, layout, valid_shape, pad

    def __repr__(self) -> str:
        return (f"pl.TensorView(stride={self.stride!r}, layout={self.layout!r}, valid_shape={self.valid_shape!r}, "
                f"pad={self.pad!r})")


@dataclass(frozen=True)
class TensorAnnot:
    shape: Optional[Tuple[object, ...]]    # None: bare pl.Tensor (JIT: from the array)
    dtype: Optional[DType]
    window: bool = False                   # pld.DistributedTensor[...]
    layout: object = None                  # the third entry: a pl.TensorLayout (pl.MX_A_ZZ) or a pl.TensorView


@dataclass(frozen=True)
class TileAnnot:
    shape: Tuple[int, ...]
    dtype: DType
    memory: Optional[MemorySpace] = None     # None: pl.Tile[shape, dtype] names no memory space


@dataclass(frozen=True)
class ScalarAnnot:
    dtype: Optional[DType]


@dataclass(frozen=True)
class DirAnnot:
    direction: str      # "OUT" | "INOUT"
    inner: object


# pl.TaskId: the type of a task id (pl.Scalar[pl.TASK_ID]), for annotations of orchestration locals
TaskId = ScalarAnnot(DType.TASK_ID)


def _shape_tuple(shape):
    if isinstance(shape, (int, DimExpr)):
        shape = [shape]
    return tuple(shape)


class _TensorMeta(type):
    def __getitem__(cls, item):
        if isinstance(item, tuple) and any(isinstance(x, (MemRef, MemRefSlot)) for x in item):
            raise TypeError("pl.MemRef places a tile in on-chip memory; a tensor lives in global memory and takes "
                            "no pl.MemRef")
        if isinstance(item, tuple) and len(item) == 3:   # pl.Tensor[shape, dtype, layout or view]
            shape, dtype, layout = item
            return TensorAnnot(_shape_tuple(shape), dtype, layout=layout)
        shape, dtype = item
        return TensorAnnot(_shape_tuple(shape), dtype)


class Tensor(metaclass=_TensorMeta):
    """``pl.Tensor[[d0, d1], dtype]``; bare ``pl.Tensor`` in ``@pl.jit`` signatures."""


class MemRef:
    """``pl.MemRef()``, ``pl.MemRef("name")``, ``pl.MemRef(slots=N)[i]``: a declared allocation, named in an
    assignment's ``pl.Tile[shape, dtype, ref, memory]`` annotation.  The tiles naming one share its buffer
    and nothing else is packed there; ``slots=N`` makes N equal slots, picked by a subscript that may be a
    run-time scalar (language/memrefs.py reads the annotation; passes/memory_plan.py places it)."""

    def __init__(self, name=None, slots=1):
        self.name, self.slots = name, slots

    def __getitem__(self, index):
        return MemRefSlot(self, index)

    def __repr__(self):
        return f"pl.MemRef({self.name!r}, slots={self.slots!r})"


class MemRefSlot:
    """``ref[i]``: one slot of a ``pl.MemRef(slots=N)``."""

    def __init__(self, ref, index):
        self.ref, self.index = ref, index


_MEMREF_PARAM = ("pl.MemRef places a tile the kernel assigns (t: pl.Tile[shape, dtype, ref, pl.Mem.X] = ...); "
                 "it cannot be given in this annotation")


class _TileMeta(type):
    def __getitem__(cls, item):
        if isinstance(item, tuple) and any(isinstance(x, (MemRef, MemRefSlot)) for x in item):
            raise TypeError(_MEMREF_PARAM)
        if any(isinstance(x, TileView) for x in item):
            raise TypeError("pl.TileView is taken from the annotation of an assignment (t: pl.Tile[[r, c], dtype, "
                            "pl.TileView(valid_shape=[vr, vc])] = ...), not from a parameter's")
        if len(item) == 2:
            return TileAnnot(_shape_tuple(item[0]), item[1])
        return TileAnnot(_shape_tuple(item[0]), item[1], item[2])


class TileView:
    """``pl.TileView(valid_shape=[rows, cols], ...)``: an element of an assignment's ``pl.Tile[...]``
    annotation giving the tile's valid region (``language/views.py``)."""

    FIELDS = ("valid_shape", "stride", "start_offset", "blayout", "slayout", "fractal", "pad", "compact")

    def __init__(self, valid_shape=None, stride=None, start_offset=None, blayout=None, slayout=None, fractal=None,
                 pad=None, compact=None):
        self.valid_shape, self.stride, self.start_offset = valid_shape, stride, start_offset
        self.blayout, self.slayout, self.fractal, self.pad, self.compact = blayout, slayout, fractal, pad, compact


class CompactMode(enum.IntEnum):
    """``pl.TileView(compact=...)``: compact tile storage; ptokit's tiles are ``null`` (not compact)."""
    null = 0
    normal = 1

    def __repr__(self) -> str:
        return f"pl.CompactMode.{self.name}"


class Tile(metaclass=_TileMeta):
    """``pl.Tile[[r, c], dtype]`` or ``pl.Tile[[r, c], dtype, pl.Mem.Vec]``.  Without a memory space
    an assignment's annotation constrains shape and dtype only (the value's space wins); a
    parameter of an Inline function without one is a Vec tile."""


class _TupleMeta(type):
    def __getitem__(cls, items):
        return tuple(items) if isinstance(items, tuple) else (items,)


class Tuple(metaclass=_TupleMeta):
    """``-> pl.Tuple[pl.Tensor[...], pl.Tensor[...]]``: a function returning several values, the same
    as ``-> tuple[...]`` (what is returned is read from the body, A6)."""


class _ScalarMeta(type):
    def __getitem__(cls, dtype):
        return ScalarAnnot(dtype)


class Scalar(metaclass=_ScalarMeta):
    """``pl.Scalar[dtype]``: a by-value scalar parameter."""


class _OutMeta(type):
    def __getitem__(cls, inner):
        return DirAnnot(cls.direction, inner)


class Out(metaclass=_OutMeta):
    direction = "OUT"


class InOut(metaclass=_OutMeta):
    direction = "INOUT"


@dataclass(frozen=True)
class FunctionDecl:
    """What ``@pl.function(...)`` says about a function; the front end checks and applies it."""

    type: FunctionType = FunctionType.Opaque
    name: Optional[str] = None
    level: object = None
    role: object = None
    attrs: Optional[dict] = None
    auto_scope: Optional[bool] = None
    strict_ssa: bool = False
    external_source: object = None


class _DistributedTensorMeta(type):
    def __getitem__(cls, item):
        if len(item) == 3:
            return TensorAnnot(_shape_tuple(item[0]), item[1], window=True, layout=item[2])
        shape, dtype = item
        return TensorAnnot(_shape_tuple(shape), dtype, window=True)


class DistributedTensor(metaclass=_DistributedTensorMeta):
    """``pld.DistributedTensor[[d0, d1], dtype]``: a view of a window slot on the executing rank."""
