"""The enums of distributed programs (``pld.NotifyOp`` ...): their values are ABI (the spec's
distributed.md, section 1.2), passed to the tile library as integers."""
from __future__ import annotations

import enum

from .types import DType, ScalarType


class NotifyOp(enum.IntEnum):
    AtomicAdd = 0
    Set = 1

    def __repr__(self) -> str:
        return f"pld.NotifyOp.{self.name}"


class WaitCmp(enum.IntEnum):
    Eq = 0
    Ge = 1

    def __repr__(self) -> str:
        return f"pld.WaitCmp.{self.name}"


class ReduceOp(enum.IntEnum):
    Sum = 0
    Max = 1
    Min = 2
    Prod = 3

    def __repr__(self) -> str:
        return f"pld.ReduceOp.{self.name}"


# put / get move at most this many bytes per staging tile (larger regions go in chunks)
CHUNK_BYTES = 16 * 1024


# the hidden CommContext parameter of a window parameter ``w`` of a chip or kernel function
CTX_SUFFIX = "__ctx"


# the CommContext's u64 slots a kernel reads (pto.load_scalar of the !pto.ptr<i64> context; the layout is
# comm_context.h's, checked against distributed/commctx.py): (rankId, rankNum) share slot 2, rankId the low
# half; windowsIn[k] is slot 4 + k
CTX_RANK_SLOT = 2
CTX_WINDOWS_IN_SLOT = 4


def ctx_name(window: str) -> str:
    return window + CTX_SUFFIX


def is_ctx_param(p) -> bool:
    return p.name.endswith(CTX_SUFFIX) and isinstance(p.type, ScalarType) and p.type.dtype is DType.INT64
