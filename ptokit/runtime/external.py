"""``ExternalTensor``: a run argument that is memory someone else owns, used in place.

``run_image`` copies numpy arrays into device buffers and back; an ``ExternalTensor`` is not
copied at all: its descriptor points at ``[addr, addr + nbytes)`` (a window of a distributed
run, a slice of the host-tensor arena, any mapping the caller keeps alive for the run), the
view starting ``offset`` bytes in.  Outputs land there directly.
"""
from __future__ import annotations

from dataclasses import dataclass
from math import prod
from typing import Any, Tuple

from . import abi


def _datatype(dtype) -> "abi.DataType":
    if isinstance(dtype, abi.DataType):
        return dtype
    if isinstance(dtype, str) and dtype.upper() in abi.IR_DTYPE_TO_DATATYPE:
        return abi.IR_DTYPE_TO_DATATYPE[dtype.upper()]
    return abi.datatype_of_numpy(dtype)


@dataclass(frozen=True)
class ExternalTensor:
    """``addr``: start of the buffer; ``nbytes``: its size; ``shape`` / ``dtype``: the view
    (dtype: a numpy dtype, an IR name such as ``"FP32"`` or an ``abi.DataType``); ``offset``:
    the view's first byte inside the buffer (a multiple of the element size).  The view is
    row-major contiguous and must fit the buffer (ValueError otherwise)."""

    addr: int
    nbytes: int
    shape: Tuple[int, ...]
    dtype: Any
    offset: int = 0

    def __post_init__(self):
        for name in ("addr", "nbytes", "offset"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise ValueError(f"ExternalTensor {name}={v!r}: must be a non-negative integer")
        shape = tuple(self.shape) if not isinstance(self.shape, int) else (self.shape,)
        if not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in shape):
            raise ValueError(f"ExternalTensor shape={self.shape!r}: must be non-negative integers")
        object.__setattr__(self, "shape", shape)
        dt = _datatype(self.dtype)
        size = dt.size
        if self.offset % size:
            raise ValueError(f"ExternalTensor offset={self.offset} is not a multiple of the {dt.name.lower()} "
                             f"element size {size}")
        end = self.offset + prod(shape) * size
        if end > self.nbytes:
            raise ValueError(f"ExternalTensor view {list(shape)} {dt.name.lower()} at byte {self.offset} needs "
                             f"{end} bytes, the buffer has {self.nbytes}")
        if self.addr == 0 and self.nbytes:
            raise ValueError("ExternalTensor addr=0 with a non-empty buffer")

    @property
    def datatype(self) -> "abi.DataType":
        return _datatype(self.dtype)

    def descriptor(self) -> "abi.ChipTensor":
        """The external ChipTensor of this view (buffer = the whole buffer, start_offset in elements)."""
        dt = self.datatype
        return abi.make_chip_tensor(self.addr, self.nbytes, self.shape or (1,), dt, start_offset=self.offset // dt.size)


__all__ = ["ExternalTensor"]
