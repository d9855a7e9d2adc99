"""The arrays a run takes: numpy arrays and torch CPU tensors, and outputs allocated for a call.

torch is never imported here: a torch tensor is recognised by its type's module, and torch
objects are made only through the ``torch`` module the caller already loaded.
"""
from __future__ import annotations

import sys
from typing import Sequence, Tuple

import numpy as np

from ..errors import ArgumentError, UserError
from ..ir.kinds import FP8_ARRAY_NAMES, DType, dtype_from_numpy

TORCH_DTYPES = {
    "torch.float32": DType.FP32, "torch.float16": DType.FP16, "torch.bfloat16": DType.BF16,
    "torch.int8": DType.INT8, "torch.int16": DType.INT16, "torch.int32": DType.INT32,
    "torch.int64": DType.INT64, "torch.uint8": DType.UINT8, "torch.bool": DType.BOOL,
    "torch.uint16": DType.UINT16, "torch.uint32": DType.UINT32, "torch.uint64": DType.UINT64,
    **{f"torch.{name}": d for name, d in FP8_ARRAY_NAMES.items()},      # torch spells them as ml_dtypes does
}
SUPPORTED = ("float16, bfloat16 (ml_dtypes), float32, int8/16/32/64, uint8/16/32/64, bool, for the FP8 "
             "formats uint8 bit patterns or ml_dtypes float8_e4m3fn / float8_e5m2 / float8_e8m0fnu, and for the "
             "4-bit formats (one value a byte) uint8 codes (FP4) or ml_dtypes float4_e2m1fn / int4 / uint4")
# torch's packed FP4 (two values a byte): ptokit holds one 4-bit value a byte (docs/decisions.md "4-bit storage")
TORCH_PACKED_FP4 = "torch.float4_e2m1fn_x2"


def is_torch_tensor(x) -> bool:
    return type(x).__module__.split(".")[0] == "torch" and hasattr(x, "dtype") and hasattr(x, "shape")


def is_array(x) -> bool:
    return isinstance(x, np.ndarray) or is_torch_tensor(x)


def array_info(x, what: str) -> Tuple[Tuple[int, ...], DType]:
    """(shape, dtype) of a numpy array or torch CPU tensor."""
    if isinstance(x, np.ndarray):
        try:
            dt = dtype_from_numpy(x.dtype)
        except ValueError as exc:
            raise ArgumentError(f"{what}: {exc} (supported: {SUPPORTED})") from None
        return x.shape, dt
    if is_torch_tensor(x):
        dev = getattr(getattr(x, "device", None), "type", "cpu")
        if dev != "cpu":
            raise ArgumentError(f"{what}: a torch tensor on {dev!r}; the simulator needs CPU tensors (.cpu())")
        dt = TORCH_DTYPES.get(str(x.dtype))
        if str(x.dtype) == TORCH_PACKED_FP4:
            raise ArgumentError(f"{what}: a torch.float4_e2m1fn_x2 tensor packs two FP4 values a byte, but ptokit's "
                            f"FP4 holds one a byte: pass the codes unpacked as a torch.uint8 tensor "
                            f"(low nibble, then high nibble) or an ml_dtypes float4_e2m1fn array")
        if dt is None:
            raise ArgumentError(f"{what}: unsupported torch dtype {x.dtype}")
        return tuple(int(d) for d in x.shape), dt
    raise ArgumentError(f"{what}: expected a numpy array or a torch tensor, got {type(x).__name__}")


def is_contiguous(x) -> bool:
    if isinstance(x, np.ndarray):
        return bool(x.flags["C_CONTIGUOUS"])
    return bool(x.is_contiguous())


def coerce_dtype(dtype, what: str) -> DType:
    """A ptokit ``DType`` from a DType (``pl.FP32``), a numpy dtype, or a torch dtype."""
    if isinstance(dtype, DType):
        return dtype
    text = str(dtype)
    if text in TORCH_DTYPES:
        return TORCH_DTYPES[text]
    try:
        return dtype_from_numpy(dtype)
    except (TypeError, ValueError):
        raise ArgumentError(f"{what}: unsupported dtype {dtype!r} (a pl dtype, or a numpy / torch dtype of "
                        f"{SUPPORTED})") from None


def new_output(shape: Sequence[int], dtype: DType, torch_like: bool):
    """A zero-filled output: a numpy array, or a torch tensor when the inputs were torch tensors."""
    if torch_like:
        torch = sys.modules["torch"]
        tdt = getattr(torch, dtype.numpy().name, None)
        if tdt is None:
            raise UserError(f"cannot allocate a torch tensor of {dtype.name}: this torch has no "
                            f"torch.{dtype.numpy().name}; pass the output tensor")
        return torch.zeros(tuple(shape), dtype=tdt)
    return np.zeros(tuple(shape), dtype=dtype.numpy())


def torch_view(arr: np.ndarray):
    """A torch tensor sharing ``arr``'s memory; ml_dtypes arrays (bfloat16, the FP8 formats) become
    the torch dtype of the same name through an integer view of their bytes."""
    torch = sys.modules["torch"]
    try:
        return torch.from_numpy(arr)
    except TypeError:
        tdt = getattr(torch, arr.dtype.name, None)
        raw = {1: np.uint8, 2: np.int16, 4: np.int32}.get(arr.dtype.itemsize)
        if tdt is None or raw is None:
            raise ArgumentError(f"cannot make a torch tensor of {arr.dtype}: this torch has no "
                                f"torch.{arr.dtype.name}; pass the output tensor") from None
        return torch.from_numpy(arr.view(raw)).view(tdt)


def as_torch(view):
    """``view`` as a torch tensor sharing its memory (``torch_view``) when the program has loaded
    torch and ``view`` is a numpy array; else ``view`` itself."""
    if "torch" not in sys.modules or not isinstance(view, np.ndarray):
        return view
    return torch_view(view)


def to_numpy(x) -> np.ndarray:
    """A numpy view of an array or CPU torch tensor, with the same dtype (torch bfloat16 as
    ``ml_dtypes.bfloat16``); anything else through ``np.asarray``."""
    if isinstance(x, np.ndarray):
        return x
    if is_torch_tensor(x):
        t = x.detach().cpu()
        if str(t.dtype) == "torch.bfloat16":
            import ml_dtypes   # lazy: half a second to import, and only a torch bfloat16 tensor needs it
            return t.view(sys.modules["torch"].int16).numpy().view(ml_dtypes.bfloat16)
        return t.numpy()
    return np.asarray(x)
