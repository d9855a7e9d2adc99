"""The CommContext of distributed kernels (1056 bytes, the hardware's layout).

Mirrors ``comm_context.h`` (tested against it with ``offsetof``): bytes 0-15 zero (the
hardware's workspace fields), ``int32 rankId`` @16, ``int32 rankNum`` @20, ``uint64 winSize``
@24, ``uint64 windowsIn[64]`` @32, ``uint64 windowsOut[64]`` @544.  On the simulator
``windowsIn[k]`` is where rank k's window is mapped in the reading process and
``windowsOut = windowsIn``.
"""
from __future__ import annotations

import ctypes
from typing import Sequence

from ..targets import MAX_RANKS

COMM_CONTEXT_SIZE = 1056
COMM_CONTEXT_OFFSETS = {"workSpace": 0, "workSpaceSize": 8, "rankId": 16, "rankNum": 20, "winSize": 24,
                        "windowsIn": 32, "windowsOut": 544}


class CommContext(ctypes.Structure):
    _fields_ = [("workSpace", ctypes.c_uint64), ("workSpaceSize", ctypes.c_uint64), ("rankId", ctypes.c_int32),
                ("rankNum", ctypes.c_int32), ("winSize", ctypes.c_uint64),
                ("windowsIn", ctypes.c_uint64 * MAX_RANKS), ("windowsOut", ctypes.c_uint64 * MAX_RANKS)]


assert ctypes.sizeof(CommContext) == COMM_CONTEXT_SIZE


def comm_context_offsets() -> dict:
    return {name: getattr(CommContext, name).offset for name, _ in CommContext._fields_}


def make_comm_context(rank: int, bases: Sequence[int], win_size: int) -> CommContext:
    """The CommContext of ``rank`` whose windows (one per rank) are mapped at ``bases``."""
    if not 0 <= rank < len(bases) <= MAX_RANKS:
        raise ValueError(f"rank {rank} of {len(bases)} (at most {MAX_RANKS} ranks)")
    ctx = CommContext()
    ctx.rankId = rank
    ctx.rankNum = len(bases)
    ctx.winSize = win_size
    for k, b in enumerate(bases):
        ctx.windowsIn[k] = b
        ctx.windowsOut[k] = b
    return ctx


__all__ = ["CommContext", "make_comm_context", "comm_context_offsets", "COMM_CONTEXT_SIZE", "COMM_CONTEXT_OFFSETS"]
