"""ctypes mirrors of the comm structs of distributed runs: ``PtoCommWindow`` and ``PtoCommOps``
(``pto/cpu_sim_hooks.h``) and ``PtoSimBoardRecord`` (``ptosim_api.h``).

The driver checks their sizes against libptosim when it loads it (``ptosim_sizeof``); the
field offsets are tested against C++ ``offsetof`` (tests/distributed).
"""
from __future__ import annotations

import ctypes

PTO_COMM_ABI = 1
PTO_COMM_MAX_WINDOWS = 256

# return codes, NotifyOp, WaitCmp (pto::comm order), write kinds -- cpu_sim_hooks.h
COMM_OK, COMM_TIMEOUT, COMM_BAD_ADDRESS, COMM_ERROR = 0, 1, 2, 3
NOTIFY_ATOMIC_ADD, NOTIFY_SET = 0, 1
CMP_EQ, CMP_NE, CMP_GT, CMP_GE, CMP_LT, CMP_LE = range(6)
WRITE_PLAIN, WRITE_ATOMIC_ADD = 0, 1


class PtoCommWindow(ctypes.Structure):
    _fields_ = [("base", ctypes.c_uint64), ("size", ctypes.c_uint64), ("peer", ctypes.c_int32),
                ("domain", ctypes.c_int32)]


READ_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(PtoCommWindow), ctypes.c_uint64,
                           ctypes.c_void_p, ctypes.c_uint64)
WRITE_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(PtoCommWindow), ctypes.c_uint64,
                            ctypes.c_void_p, ctypes.c_uint64, ctypes.c_int32, ctypes.c_int32)
NOTIFY_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(PtoCommWindow), ctypes.c_uint64,
                             ctypes.c_int32, ctypes.c_int32)
WAIT_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(PtoCommWindow), ctypes.c_uint64,
                           ctypes.c_int32, ctypes.c_int32, ctypes.c_int64, ctypes.POINTER(ctypes.c_int32))


class PtoCommOps(ctypes.Structure):
    _fields_ = [("abi", ctypes.c_uint32), ("rank", ctypes.c_int32), ("nranks", ctypes.c_int32),
                ("nwindows", ctypes.c_uint32), ("windows", ctypes.POINTER(PtoCommWindow)), ("ctx", ctypes.c_void_p),
                ("read", READ_FN), ("write", WRITE_FN), ("notify", NOTIFY_FN), ("wait", WAIT_FN)]


class PtoSimBoardRecord(ctypes.Structure):
    _fields_ = [("progress_ns", ctypes.c_int64), ("op_start_ns", ctypes.c_int64), ("pid", ctypes.c_int32),
                ("state", ctypes.c_int32), ("dispatch", ctypes.c_int32), ("op", ctypes.c_int32),
                ("op_active", ctypes.c_int32), ("peer", ctypes.c_int32), ("offset", ctypes.c_uint64),
                ("expected", ctypes.c_int32), ("seen", ctypes.c_int32), ("value", ctypes.c_int32),
                ("cmp", ctypes.c_int32), ("task_seq", ctypes.c_uint64), ("func_id", ctypes.c_int32),
                ("core_id", ctypes.c_int32), ("chip", ctypes.c_char * 56), ("kernel", ctypes.c_char * 64),
                ("reserved", ctypes.c_char * 56)]


BOARD_RECORD_SIZE = 256
assert ctypes.sizeof(PtoSimBoardRecord) == BOARD_RECORD_SIZE

# ptosim_sizeof ids of these structs
SIZEOF_IDS = {10: PtoSimBoardRecord, 11: PtoCommOps, 12: PtoCommWindow}

__all__ = ["PtoCommWindow", "PtoCommOps", "PtoSimBoardRecord", "READ_FN", "WRITE_FN", "NOTIFY_FN", "WAIT_FN",
           "PTO_COMM_ABI", "PTO_COMM_MAX_WINDOWS", "BOARD_RECORD_SIZE", "SIZEOF_IDS"]
