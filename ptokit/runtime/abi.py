"""ctypes mirrors of the device ABI structs (runtime.md): ChipTensor, DataType,
LocalContext, GlobalContext.  Tested field by field against ``offsetof`` in C++.
"""
from __future__ import annotations

import ctypes
import enum
import functools
import struct
import sys

import numpy as np

from ..errors import ArgumentError

UINT64_MAX = (1 << 64) - 1
MAX_DIMS = 5
CORE_MAX_TENSOR_ARGS = 32
CORE_MAX_SCALAR_ARGS = 16
CHIP_MAX_TENSOR_ARGS = 256
ARGS_LOCAL_CONTEXT_INDEX = 48
ARGS_GLOBAL_CONTEXT_INDEX = 49

ADDRESS_SPACE_HOST = 0
ADDRESS_SPACE_DEVICE = 1


class DataType(enum.IntEnum):
    FLOAT32 = 0
    FLOAT16 = 1
    INT32 = 2
    INT16 = 3
    INT8 = 4
    UINT8 = 5
    BFLOAT16 = 6
    INT64 = 7
    UINT64 = 8
    UINT16 = 9
    UINT32 = 10
    BOOL = 11

    @property
    def size(self) -> int:
        return DATA_TYPE_SIZES[self]


DATA_TYPE_SIZES = {
    DataType.FLOAT32: 4, DataType.FLOAT16: 2, DataType.INT32: 4, DataType.INT16: 2,
    DataType.INT8: 1, DataType.UINT8: 1, DataType.BFLOAT16: 2, DataType.INT64: 8,
    DataType.UINT64: 8, DataType.UINT16: 2, DataType.UINT32: 4, DataType.BOOL: 1,
}

# IR dtype names (codegen/abi.py DTYPES keys) -> DataType
IR_DTYPE_TO_DATATYPE = {
    "FP32": DataType.FLOAT32, "FP16": DataType.FLOAT16, "BF16": DataType.BFLOAT16,
    "INT8": DataType.INT8, "INT16": DataType.INT16, "INT32": DataType.INT32,
    "INT64": DataType.INT64, "UINT8": DataType.UINT8, "UINT16": DataType.UINT16,
    "UINT32": DataType.UINT32, "UINT64": DataType.UINT64, "BOOL": DataType.BOOL,
}

_NUMPY_NAMES = {
    "float32": DataType.FLOAT32, "float16": DataType.FLOAT16, "int32": DataType.INT32,
    "int16": DataType.INT16, "int8": DataType.INT8, "uint8": DataType.UINT8,
    "bfloat16": DataType.BFLOAT16, "int64": DataType.INT64, "uint64": DataType.UINT64,
    "uint16": DataType.UINT16, "uint32": DataType.UINT32, "bool": DataType.BOOL,
    # the FP8 formats travel as their bytes (docs/decisions.md "FP8 host arrays")
    "float8_e4m3fn": DataType.UINT8, "float8_e5m2": DataType.UINT8, "float8_e8m0fnu": DataType.UINT8,
    # so do the 4-bit formats (one value a byte, docs/decisions.md "4-bit storage")
    "float4_e2m1fn": DataType.UINT8, "int4": DataType.UINT8, "uint4": DataType.UINT8,
}


def datatype_of_numpy(dtype) -> DataType:
    """The DataType of a numpy dtype (ml_dtypes.bfloat16 included); ValueError otherwise."""
    return _datatype_of(np.dtype(dtype))


@functools.lru_cache(maxsize=None)      # asked for every array argument; a dtype's .name costs microseconds
def _datatype_of(dtype: np.dtype) -> DataType:
    name = dtype.name
    try:
        return _NUMPY_NAMES[name]
    except KeyError:
        raise ValueError(f"numpy dtype {name!r} has no device DataType; "
                         f"supported: {', '.join(sorted(_NUMPY_NAMES))}") from None


def numpy_dtype_of(dt: DataType) -> np.dtype:
    """The numpy dtype of a DataType (bfloat16 needs ml_dtypes)."""
    dt = DataType(dt)
    if dt == DataType.BFLOAT16:
        import ml_dtypes   # lazy: half a second to import, and only bfloat16 needs it
        return np.dtype(ml_dtypes.bfloat16)
    for name, d in _NUMPY_NAMES.items():
        if d == dt:
            return np.dtype(name)
    raise ValueError(f"unknown DataType {dt!r}")


class ChipTensorBuffer(ctypes.Structure):
    _fields_ = [("addr", ctypes.c_uint64), ("size", ctypes.c_uint64)]


class ChipTensor(ctypes.Structure):
    """The 128-byte tensor descriptor (runtime.md).  ``_pack_`` is not used: the
    natural layout gives the ABI offsets, and the explicit padding makes it 128."""

    _fields_ = [
        ("buffer", ChipTensorBuffer),
        ("owner_task_id", ctypes.c_uint64),
        ("start_offset", ctypes.c_uint64),
        ("version", ctypes.c_int32),
        ("ndims", ctypes.c_uint32),
        ("dtype", ctypes.c_uint8),
        ("manual_dep", ctypes.c_bool),
        ("is_contiguous", ctypes.c_bool),
        ("address_space", ctypes.c_uint8),
        ("shapes", ctypes.c_uint32 * MAX_DIMS),
        ("extent_elem_cache", ctypes.c_uint64),
        ("strides", ctypes.c_uint32 * MAX_DIMS),
        ("padding", ctypes.c_uint8 * 36),
    ]


# offsets fixed by the spec; abi tests compare these, the ctypes layout and C++ offsetof
CHIP_TENSOR_OFFSETS = {
    "buffer.addr": 0, "buffer.size": 8, "owner_task_id": 16, "start_offset": 24, "version": 32,
    "ndims": 36, "dtype": 40, "manual_dep": 41, "is_contiguous": 42, "address_space": 43,
    "shapes": 44, "extent_elem_cache": 64, "strides": 72, "padding": 92,
}
CHIP_TENSOR_SIZE = 128
CHIP_TENSOR_ALIGN = 64

assert ctypes.sizeof(ChipTensor) == CHIP_TENSOR_SIZE


def chip_tensor_offsets() -> dict:
    """Field offsets of the ctypes ChipTensor, keyed like CHIP_TENSOR_OFFSETS."""
    out = {}
    for name, _ in ChipTensor._fields_:
        off = getattr(ChipTensor, name).offset
        if name == "buffer":
            out["buffer.addr"] = off + ChipTensorBuffer.addr.offset
            out["buffer.size"] = off + ChipTensorBuffer.size.offset
        else:
            out[name] = off
    return out


class LocalContext(ctypes.Structure):
    _fields_ = [("block_idx", ctypes.c_int32), ("block_num", ctypes.c_int32), ("task_id", ctypes.c_uint64),
                ("core_id", ctypes.c_int32), ("reserved", ctypes.c_int32 * 5)]


class GlobalContext(ctypes.Structure):
    _fields_ = [("sub_block_id", ctypes.c_int32), ("cluster_id", ctypes.c_int32), ("core_id", ctypes.c_int32),
                ("core_type", ctypes.c_int32), ("reserved", ctypes.c_int32 * 4)]


def make_chip_tensor(addr: int, nbytes: int, shape, dtype: DataType, *, owner_task_id: int = UINT64_MAX,
                     start_offset: int = 0, address_space: int = ADDRESS_SPACE_DEVICE) -> ChipTensor:
    """A descriptor for a row-major contiguous tensor (an external tensor by default)."""
    shape = tuple(int(s) for s in shape) or (1,)
    if not 1 <= len(shape) <= MAX_DIMS:
        raise ValueError(f"a device tensor has 1..{MAX_DIMS} dimensions, got shape {shape}")
    for s in shape:
        if not 0 <= s < (1 << 32):
            raise ValueError(f"tensor dimension {s} does not fit uint32")
    t = ChipTensor()
    t.buffer.addr = addr
    t.buffer.size = nbytes
    t.owner_task_id = owner_task_id
    t.start_offset = start_offset
    t.version = 0
    t.ndims = len(shape)
    t.dtype = int(dtype)
    t.manual_dep = False
    t.is_contiguous = True
    t.address_space = address_space
    stride = 1
    for i in range(len(shape) - 1, -1, -1):
        t.shapes[i] = shape[i]
        t.strides[i] = stride
        stride *= shape[i]
    t.extent_elem_cache = stride
    return t


def _scalar_numpy_dtype(dtype) -> np.dtype:
    """numpy dtype of a scalar parameter: an IR dtype name ("FP32", "INDEX", ...) or a numpy dtype."""
    if isinstance(dtype, str) and dtype.upper() == "INDEX":
        return np.dtype(np.int64)
    if isinstance(dtype, str) and dtype.upper() in IR_DTYPE_TO_DATATYPE:
        return numpy_dtype_of(IR_DTYPE_TO_DATATYPE[dtype.upper()])
    return np.dtype(dtype)


def number_kind(v) -> str:
    """'bool' | 'int' | 'float' | '' (not a real number) of a Python or numpy scalar."""
    if isinstance(v, (bool, np.bool_)):
        return "bool"
    if isinstance(v, (int, np.integer)):
        return "int"
    if isinstance(v, (float, np.floating)):
        return "float"
    if isinstance(v, np.generic) and v.dtype.name == "bfloat16":
        return "float"
    return ""


def _unwrap_scalar(value, name: str):
    """A 0-d numpy array or a 0-d torch tensor (torch only if already imported) as its element."""
    if isinstance(value, np.ndarray):
        if value.ndim != 0:
            raise ArgumentError(f"{name}: expected a number, got an array of shape {value.shape}")
        return value[()]
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, getattr(torch, "Tensor", ())):
        if value.dim() != 0:
            raise ArgumentError(f"{name}: expected a number, got a tensor of shape {tuple(value.shape)}")
        return value.item()
    return value


def scalar_value(value, dtype=None, name: str = "scalar argument") -> np.generic:
    """``value`` as a numpy scalar of the parameter's dtype -- the one check every scalar
    argument passes (compiled programs, ``run_tree``/``run_image``, ``@pl.jit``).

    Accepted: Python and numpy numbers, 0-d numpy arrays and 0-d torch tensors, of a kind
    that converts exactly to the dtype: ``bool`` for BOOL; an integer within the type's range
    for the integer dtypes (INDEX is int64); an integer or a real float for the float dtypes
    (a finite value must stay finite).  An integral float for an integer parameter is
    rejected (see docs/decisions.md).  ``dtype=None`` (unknown): a numpy scalar keeps its
    dtype, ``bool`` -> bool, ``int`` -> int64, ``float`` -> float32.  Anything else (None,
    strings, complex, other objects) is a ``TypeError`` naming ``name``.
    """
    v = _unwrap_scalar(value, name)
    kind = number_kind(v)
    if not kind:
        raise ArgumentError(f"{name}: expected a number, got {type(value).__name__} {value!r}")
    if dtype is None:
        if isinstance(v, np.generic):
            return v
        dt = np.dtype({"bool": np.bool_, "int": np.int64, "float": np.float32}[kind])
    else:
        try:
            dt = _scalar_numpy_dtype(dtype)
        except TypeError:
            raise ArgumentError(f"{name}: unknown scalar dtype {dtype!r}") from None
    label = dtype.upper() if isinstance(dtype, str) else dt.name
    if dt.kind == "b":
        if kind != "bool":
            raise ArgumentError(f"{name}: a {label} parameter takes True or False, got {type(value).__name__} {v!r}")
        return np.bool_(bool(v))
    if dt.kind in "iu":
        if kind != "int":
            raise ArgumentError(f"{name}: a {label} parameter takes an integer, got {type(value).__name__} {v!r}")
        info = np.iinfo(dt)
        if not info.min <= int(v) <= info.max:
            raise ArgumentError(f"{name}: {int(v)} is out of the range of {label} ({info.min}..{info.max})")
        return dt.type(int(v))
    if dt.kind == "f" or dt.name == "bfloat16":
        if kind == "bool":
            raise ArgumentError(f"{name}: a {label} parameter takes a real number, got {type(value).__name__} {v!r}")
        try:
            f = float(v)
        except OverflowError:
            raise ArgumentError(f"{name}: {v} is out of the range of {label}") from None
        with np.errstate(over="ignore"):
            out = dt.type(f)
        if np.isfinite(f) and not np.isfinite(float(out)):
            raise ArgumentError(f"{name}: {v} is out of the range of {label}")
        return out
    raise ArgumentError(f"{name}: parameters of dtype {label} cannot be passed as scalars")


def to_u64(value, dtype=None, name: str = "scalar argument") -> int:
    """The 64-bit pattern of a scalar arg: the value's bytes in the low bytes, rest zero.

    ``dtype`` is an IR dtype name ("FP32", "INT32", ...), a numpy dtype, or None; the value
    is checked and converted by ``scalar_value`` (a TypeError naming ``name`` otherwise).
    """
    raw = np.asarray(scalar_value(value, dtype, name)).tobytes()
    return struct.unpack("<Q", raw.ljust(8, b"\0"))[0]


def from_u64(bits: int, dtype) -> object:
    """Inverse of to_u64 for a numpy dtype or IR dtype name."""
    if isinstance(dtype, str) and dtype.upper() in IR_DTYPE_TO_DATATYPE:
        dt = numpy_dtype_of(IR_DTYPE_TO_DATATYPE[dtype.upper()])
    else:
        dt = np.dtype(dtype)
    return np.frombuffer(struct.pack("<Q", bits)[: dt.itemsize], dtype=dt)[0]
