"""The status board: one 256-byte record per rank in a shared segment.

The record is libptosim's ``PtoSimBoardRecord`` (``ptokit.runtime.sim.comm_abi``).  A rank's
worker writes its state, the dispatch it runs and that dispatch's chip; the simulator's comm
hooks write the last comm op (which, on which rank's window and offset, expected and seen
values, kernel, task); both stamp ``progress_ns`` (``time.monotonic_ns``).  The parent reads
it to explain a failure (one line per rank) and to notice a rank that stopped progressing.
"""
from __future__ import annotations

import ctypes
import time
from typing import List, Optional, Sequence

from ..runtime.sim.comm_abi import BOARD_RECORD_SIZE, PtoSimBoardRecord
from .segments import Segment

STATES = {0: "starting", 1: "idle", 2: "running", 3: "failed", 4: "stopped"}
STARTING, IDLE, RUNNING, FAILED, STOPPED = 0, 1, 2, 3, 4
OPS = {0: None, 1: "TNOTIFY", 2: "TWAIT", 3: "TPUT", 4: "TGET", 5: "TLOAD", 6: "TSTORE", 7: "comm op"}
CMP_TEXT = {0: "==", 1: "!=", 2: ">", 3: ">=", 4: "<", 5: "<="}


def record_at(seg: Segment, rank: int) -> PtoSimBoardRecord:
    """Rank ``rank``'s record, a ctypes view into the mapped segment."""
    return PtoSimBoardRecord.from_address(seg.addr + rank * BOARD_RECORD_SIZE)


def board_bytes(world_size: int) -> int:
    return world_size * BOARD_RECORD_SIZE


def set_text(field_owner, name: str, text: str) -> None:
    size = getattr(type(field_owner), name).size
    setattr(field_owner, name, text.encode("utf-8", "replace")[: size - 1])


def op_name(rec: PtoSimBoardRecord) -> Optional[str]:
    return OPS.get(int(rec.op), f"op {rec.op}")


def describe_op(rec: PtoSimBoardRecord) -> str:
    """'TWAIT on rank 1's window at offset 0 (value 0, expected >= 1), kernel 'waiter', task 0'."""
    name = op_name(rec)
    if not name:
        return "no comm op yet"
    where = (f"rank {rec.peer}'s window at offset {rec.offset}" if rec.peer >= 0
             else "a signal outside every window")
    text = f"{name} on {where}"
    if rec.op == 2:
        text += f" (value {rec.seen}, expected {CMP_TEXT.get(rec.cmp, '?')} {rec.expected})"
    elif rec.op == 1:
        text += f" ({'set' if rec.cmp == 1 else 'add'} {rec.value})"
    kernel = rec.kernel.decode("utf-8", "replace")
    if kernel:
        text += f", kernel '{kernel}', task {rec.task_seq}"
    if rec.op_active:
        text = "in " + text
    else:
        text = "last " + text
    return text


def status_line(rank: int, device_id: int, rec: PtoSimBoardRecord, now_ns: Optional[int] = None) -> str:
    now_ns = time.monotonic_ns() if now_ns is None else now_ns
    state = STATES.get(int(rec.state), f"state {rec.state}")
    chip = rec.chip.decode("utf-8", "replace")
    parts = [f"rank {rank} (device {device_id}): {state}"]
    if rec.dispatch >= 0 and chip:
        parts.append(f"dispatch {rec.dispatch} (chip '{chip}')")
    parts.append(describe_op(rec))
    if rec.progress_ns:
        parts.append(f"last progress {max(now_ns - rec.progress_ns, 0) / 1e9:.2f} s ago")
    return ", ".join(parts)


def status_lines(seg: Segment, device_ids: Sequence[int]) -> List[str]:
    now = time.monotonic_ns()
    return [status_line(r, d, record_at(seg, r), now) for r, d in enumerate(device_ids)]


def reset(rec: PtoSimBoardRecord) -> None:
    ctypes.memset(ctypes.addressof(rec), 0, BOARD_RECORD_SIZE)
    rec.dispatch = -1


__all__ = ["record_at", "board_bytes", "status_line", "status_lines", "describe_op", "op_name", "set_text", "reset",
           "STATES", "OPS", "STARTING", "IDLE", "RUNNING", "FAILED", "STOPPED"]
