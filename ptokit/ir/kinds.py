"""The kinds the DSL's surface names before any IR exists: dtypes (with their sizes, C++ and
numpy types and runtime codes), memory spaces, layouts, pad values, mask patterns, atomic modes,
``pl.FunctionType`` and a parameter's direction.

Their own module, so that ``import ptokit.language`` (and a warm ``@pl.jit`` call, which never
builds IR) loads neither the IR node classes nor the IR value types; ``ptokit.ir.types`` and
``ptokit.ir.nodes`` re-export what they used to define.
"""
from __future__ import annotations

import enum
import functools

import numpy as np

from ..pto.facts import ALIGN as _PTO_ALIGN
from ..pto.facts import CAPACITY as _PTO_CAPACITY
from ..pto.facts import LOC_DEFAULTS, SCALARS


class FunctionType(enum.Enum):
    Opaque = "Opaque"
    Orchestration = "Orchestration"
    InCore = "InCore"
    AIC = "AIC"
    AIV = "AIV"
    Group = "Group"
    Spmd = "Spmd"
    Inline = "Inline"

    def __repr__(self) -> str:
        return f"pl.FunctionType.{self.name}"


class Direction(enum.Enum):
    IN = "IN"
    OUT = "OUT"
    INOUT = "INOUT"


class DType(enum.Enum):
    """A DSL dtype, named by its MLIR scalar type; size and C++ type come from the PTO dialect."""

    FP16 = ("FP16", "f16")
    BF16 = ("BF16", "bf16")
    FP32 = ("FP32", "f32")
    INT8 = ("INT8", "i8")
    INT16 = ("INT16", "i16")
    INT32 = ("INT32", "i32")
    INT64 = ("INT64", "i64")
    UINT8 = ("UINT8", "ui8")
    UINT16 = ("UINT16", "ui16")
    UINT32 = ("UINT32", "ui32")
    UINT64 = ("UINT64", "ui64")
    BOOL = ("BOOL", "i1")
    INDEX = ("INDEX", "index")
    # the 8-bit float formats of the a5 MX matmul (docs/decisions.md "FP8 host arrays"): host arrays
    # of them are uint8 bit patterns (or ml_dtypes float8 arrays)
    FP8E4M3FN = ("FP8E4M3FN", "f8E4M3FN")
    FP8E5M2 = ("FP8E5M2", "f8E5M2")
    FP8E8M0 = ("FP8E8M0", "f8E8M0")
    # the 4-bit formats: one value a byte in its low four bits, as pypto's get_byte() == 1 and
    # ml_dtypes' float4_e2m1fn / int4 / uint4 arrays hold them (docs/decisions.md "4-bit storage").
    # pl.FP4 is E2M1 (OCP MXFP4 element), the same format as pl.FP4E2M1.  Tiles of them are loaded,
    # stored, moved and cast; arithmetic needs a pl.cast to a wider type first (FOUR_BIT_OPS)
    FP4 = ("FP4", "f4E2M1FN")
    FP4E2M1 = ("FP4E2M1", "f4E2M1FN")
    INT4 = ("INT4", "i4")
    UINT4 = ("UINT4", "ui4")
    # names only (a located error where a tensor, tile or scalar of one is declared, UNSUPPORTED_WHY)
    FP4E1M2 = ("FP4E1M2", None)
    FP4E2M1X2 = ("FP4E2M1X2", None)
    HF8 = ("HF8", None)
    HF4 = ("HF4", None)
    # a task handle (pl.TaskId = pl.Scalar[pl.TASK_ID]): a value of orchestration code only
    TASK_ID = ("TASK_ID", None)
    # the opaque handles of pl.prefetch (kernel code only, no storage of their own; ir/ops/prefetch.py)
    PREFETCH_CONTEXT = ("PREFETCH_CONTEXT", None)
    ASYNC_EVENT = ("ASYNC_EVENT", None)
    ASYNC_SESSION = ("ASYNC_SESSION", None)

    @property
    def supported(self) -> bool:
        return self.value[1] is not None

    @property
    def size(self) -> int:
        return SCALARS[self.value[1]][1] if self.supported else 1

    def get_byte(self) -> int:
        """Bytes per element (pypto's ``dtype.get_byte()``; 4-bit formats count as 1)."""
        return self.size

    @property
    def mlir(self) -> str:
        return self.value[1]

    @property
    def ctype(self) -> str:
        return SCALARS[self.value[1]][0]

    @property
    def is_float(self) -> bool:
        return self in _FLOATS

    @property
    def is_int(self) -> bool:
        return not self.is_float

    @property
    def is_unsigned(self) -> bool:
        return self in (DType.UINT8, DType.UINT16, DType.UINT32, DType.UINT64, DType.UINT4)

    def __repr__(self) -> str:
        return f"pl.{self.name}"

    @property
    def is_fp8(self) -> bool:
        return self in (DType.FP8E4M3FN, DType.FP8E5M2, DType.FP8E8M0)

    @property
    def is_4bit(self) -> bool:
        return self in (DType.FP4, DType.FP4E2M1, DType.INT4, DType.UINT4)

    @property
    def is_e2m1(self) -> bool:
        """pl.FP4 or pl.FP4E2M1 (two names of one format)."""
        return self in (DType.FP4, DType.FP4E2M1)

    def accepts_array(self, got: "DType") -> bool:
        """Whether a host array of dtype ``got`` may stand for a tensor of this dtype: its own, uint8
        bit patterns for an FP8 or FP4 format (numpy has neither), an ml_dtypes float4_e2m1fn array
        for either E2M1 name, an int64 array for an INDEX tensor (INDEX is held as int64), a signed
        integer array of the same width for an unsigned tensor (bit patterns: torch has no uint16 or
        uint32, so pypto's harness passes int16 / int32 arrays for them)."""
        return got is self or ((self.is_fp8 or self.is_e2m1) and got is DType.UINT8) or \
            (self.is_e2m1 and got.is_e2m1) or (self is DType.INDEX and got is DType.INT64) or \
            _SIGNED_OF.get(self) is got

    def numpy(self):
        if self.is_fp8 or self.is_e2m1:
            return np.dtype(np.uint8)      # bit patterns (ml_dtypes arrays are accepted as well)
        if self in (DType.INT4, DType.UINT4):
            import ml_dtypes   # lazy: ~0.5 s to import, and only INT4 / UINT4 arrays need it here
            return np.dtype(ml_dtypes.int4 if self is DType.INT4 else ml_dtypes.uint4)
        if self is DType.BF16:
            import ml_dtypes   # lazy: ~0.5 s to import, and only bf16 arrays need it
            return np.dtype(ml_dtypes.bfloat16)
        return np.dtype(_NUMPY[self])


_SIGNED_OF = {DType.UINT16: DType.INT16, DType.UINT32: DType.INT32, DType.UINT64: DType.INT64}
_FLOATS = frozenset({DType.FP16, DType.BF16, DType.FP32, DType.FP8E4M3FN, DType.FP8E5M2, DType.FP8E8M0,
                     DType.FP4, DType.FP4E2M1, DType.FP4E1M2, DType.FP4E2M1X2, DType.HF8, DType.HF4})
_NUMPY = {
    DType.FP16: np.float16, DType.FP32: np.float32, DType.INT8: np.int8, DType.INT16: np.int16,
    DType.INT32: np.int32, DType.INT64: np.int64, DType.UINT8: np.uint8, DType.UINT16: np.uint16,
    DType.UINT32: np.uint32, DType.UINT64: np.uint64, DType.BOOL: np.bool_, DType.INDEX: np.int64,
}

# runtime.md DataType codes (tensor.h)
DATATYPE_CODE = {
    DType.FP32: 0, DType.FP16: 1, DType.INT32: 2, DType.INT16: 3, DType.INT8: 4, DType.UINT8: 5,
    DType.BF16: 6, DType.INT64: 7, DType.UINT64: 8, DType.UINT16: 9, DType.UINT32: 10, DType.BOOL: 11,
    # FP8 and 4-bit tensors travel as bytes
    DType.FP8E4M3FN: 5, DType.FP8E5M2: 5, DType.FP8E8M0: 5,
    DType.FP4: 5, DType.FP4E2M1: 5, DType.INT4: 5, DType.UINT4: 5,
}
DATATYPE_CPP = {
    DType.FP32: "FLOAT32", DType.FP16: "FLOAT16", DType.INT32: "INT32", DType.INT16: "INT16",
    DType.INT8: "INT8", DType.UINT8: "UINT8", DType.BF16: "BFLOAT16", DType.INT64: "INT64",
    DType.UINT64: "UINT64", DType.UINT16: "UINT16", DType.UINT32: "UINT32", DType.BOOL: "BOOL",
    DType.FP8E4M3FN: "UINT8", DType.FP8E5M2: "UINT8", DType.FP8E8M0: "UINT8",
    DType.FP4: "UINT8", DType.FP4E2M1: "UINT8", DType.INT4: "UINT8", DType.UINT4: "UINT8",
}
# ml_dtypes' (and torch's) names of the FP8 formats
FP8_ARRAY_NAMES = {"float8_e4m3fn": DType.FP8E4M3FN, "float8_e5m2": DType.FP8E5M2, "float8_e8m0fnu": DType.FP8E8M0}
# ml_dtypes' names of the 4-bit formats (one value a byte, low nibble; torch has only packed pairs)
FOUR_BIT_ARRAY_NAMES = {"float4_e2m1fn": DType.FP4E2M1, "int4": DType.INT4, "uint4": DType.UINT4}
# why a named dtype has no values in ptokit (the located error where one is declared)
UNSUPPORTED_WHY = {
    DType.FP4E1M2: "no host array type (ml_dtypes has no E1M2) and no MX operand takes it",
    DType.FP4E2M1X2: "it is a packed pair of E2M1 values (two a byte); ptokit keeps one 4-bit value a byte: "
                     "use pl.FP4E2M1 with unpacked data",
    DType.HF8: "the HiFloat formats have no published encoding to decode against",
    DType.HF4: "the HiFloat formats have no published encoding to decode against",
}


def dtype_from_numpy(dt) -> DType:
    """The DType of a numpy dtype in either byte order (a non-native array is the same type:
    the run copies it into a native device buffer, docs/simulator.md)."""
    dt = np.dtype(dt)
    return _dtype_of(dt if dt.isnative else dt.newbyteorder("="))


@functools.lru_cache(maxsize=None)      # every call's array argument asks; a dtype's .name costs microseconds
def _dtype_of(dt: np.dtype) -> DType:
    if dt.name == "bfloat16":
        return DType.BF16
    if dt.name in FP8_ARRAY_NAMES:
        return FP8_ARRAY_NAMES[dt.name]
    if dt.name in FOUR_BIT_ARRAY_NAMES:
        return FOUR_BIT_ARRAY_NAMES[dt.name]
    for k, v in _NUMPY.items():
        if k is not DType.INDEX and np.dtype(v) == dt:
            return k
    raise ValueError(f"unsupported array dtype {dt}")


class MemorySpace(enum.Enum):
    DDR = "ddr"
    Vec = "vec"
    Mat = "mat"
    Left = "left"
    Right = "right"
    Acc = "acc"
    Bias = "bias"
    # the a5 MX scale buffers of the Left / Right operands (pl.matmul_mx); in .pto both are
    # loc=scaling, told apart by their layout (pto/types.py SCALE_LAYOUTS)
    LeftScale = "left_scale"
    RightScale = "right_scale"

    def __repr__(self) -> str:
        return f"pl.Mem.{self.name}"

    @property
    def loc(self) -> str:
        """The tile_buf ``loc=`` of this space."""
        return "scaling" if self in (MemorySpace.LeftScale, MemorySpace.RightScale) else self.value


# blayout, slayout, fractal per on-chip memory space (the PTO dialect's defaults, artifacts.md)
TILE_LAYOUTS = {m: LOC_DEFAULTS[m.value] for m in MemorySpace if m.value in LOC_DEFAULTS}

# runtime.md buffer capacities (bytes) and address alignment, per arch and memory space
CAPACITY = {arch: {m: caps[m.value] for m in TILE_LAYOUTS} for arch, caps in _PTO_CAPACITY.items()}
ALIGNMENT = {m: _PTO_ALIGN[m.value] for m in TILE_LAYOUTS}


class TensorLayout(enum.Enum):
    """The layout of a tensor in global memory (pypto's ``pl.TensorLayout``, the third entry of a
    ``pl.Tensor[...]`` annotation): ND (row-major, the default) or an a5 MX scale layout.
    ``MX_A_ZZ``: the ``[M, G]`` scales of a matmul_mx left operand stored in 16 x 2 boxes (box
    ``(m // 16, g // 2)`` at ``(m // 16) * 16 * G + (g // 2) * 32``, inside it ``(m % 16) * 2 + g % 2``);
    ``MX_B_NN``: the ``[G, N]`` scales of the right operand, boxes of 2 x 16 stored N-major
    (``(n // 16) * 16 * G + (g // 2) * 32 + (n % 16) * 2 + g % 2``). DN and NZ are names only."""

    ND = "nd"
    DN = "dn"
    NZ = "nz"
    MX_A_ZZ = "mx_a_zz"
    MX_B_NN = "mx_b_nn"

    def __repr__(self) -> str:
        return f"pl.{self.name}"

    @property
    def is_mx(self) -> bool:
        return self in (TensorLayout.MX_A_ZZ, TensorLayout.MX_B_NN)


class PadValue(enum.IntEnum):
    null = 0
    zero = 1
    max = 2
    min = 3


class TileLayout(enum.Enum):
    """pypto's ``pl.TileLayout``: a tile's block layout (``blayout``) or in-box layout (``slayout``)."""

    row_major = "row_major"
    col_major = "col_major"
    none_box = "none_box"

    def __repr__(self) -> str:
        return f"pl.TileLayout.{self.name}"


class MaskPattern(enum.IntEnum):
    """pypto's ``pl.tile.MaskPattern``: which columns of each row a mask gather/scatter touches
    (bits read right to left: P0101 = columns 0, 2, 4, ...)."""

    P0101 = 1
    P1010 = 2
    P0001 = 3
    P0010 = 4
    P0100 = 5
    P1000 = 6
    P1111 = 7

    @property
    def stride(self) -> int:
        return {1: 2, 2: 2, 7: 1}.get(int(self), 4)

    @property
    def first(self) -> int:
        """The first column selected (the pattern selects first, first + stride, ...)."""
        return {1: 0, 2: 1, 3: 0, 4: 1, 5: 2, 6: 3, 7: 0}[int(self)]

    def count(self, n: int) -> int:
        """How many of the columns 0 .. n-1 the pattern selects."""
        return max(0, (n - self.first + self.stride - 1) // self.stride)

    def __repr__(self) -> str:
        return f"pl.tile.MaskPattern.{self.name}"


class AtomicType(enum.IntEnum):
    """How a store combines with what global memory already holds (pypto's ``pl.AtomicType``)."""

    None_ = 0     # overwrite
    Add = 1       # GM += tile (atomically: concurrent blocks may add into one tensor)

    def __repr__(self) -> str:
        return f"pl.AtomicType.{self.name}"
