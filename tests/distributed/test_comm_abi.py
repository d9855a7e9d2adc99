"""The distributed ABI structs, C++ against their Python mirrors: CommContext (1056 bytes, the
hardware's offsets), PtoCommWindow / PtoCommOps (the window transport table) and the status
board record."""
from __future__ import annotations

import ctypes
from pathlib import Path

import pytest

from ptokit.distributed.commctx import COMM_CONTEXT_OFFSETS, COMM_CONTEXT_SIZE, CommContext, comm_context_offsets, \
    make_comm_context
from ptokit.runtime.build import INCLUDE_DIR, compile_shared
from ptokit.runtime.sim import comm_abi
from ptokit.runtime.sim.driver import SIM_DIR, load_library

CASES = Path(__file__).resolve().parent / "cases"


@pytest.fixture(scope="module")
def probe():
    so = compile_shared(CASES / "abi_probe.cpp", include_dirs=[INCLUDE_DIR, SIM_DIR], extra_flags=["-Werror"],
                        name_hint="disttest:abi")
    return ctypes.CDLL(str(so))


def _values(fn):
    out = (ctypes.c_uint64 * 64)()
    n = fn(out)
    return list(out)[:n]


def test_comm_context_matches_cpp_and_the_spec(probe):
    v = _values(probe.comm_context_layout)
    assert v[0] == ctypes.sizeof(CommContext) == COMM_CONTEXT_SIZE == 1056
    names = ["workSpace", "workSpaceSize", "rankId", "rankNum", "winSize", "windowsIn", "windowsOut"]
    assert dict(zip(names, v[1:])) == COMM_CONTEXT_OFFSETS == comm_context_offsets()
    # the spec's fixed points: rankId @16, rankNum @20, windowsIn @32, windowsOut @544
    assert (COMM_CONTEXT_OFFSETS["rankId"], COMM_CONTEXT_OFFSETS["rankNum"], COMM_CONTEXT_OFFSETS["windowsIn"],
            COMM_CONTEXT_OFFSETS["windowsOut"]) == (16, 20, 32, 544)


def test_make_comm_context_fills_windows_and_zero_head():
    c = make_comm_context(1, [0x1000, 0x9000, 0x11000], 4096)
    raw = bytes(c)
    assert raw[:16] == b"\0" * 16
    assert (c.rankId, c.rankNum, c.winSize) == (1, 3, 4096)
    assert list(c.windowsIn[:3]) == list(c.windowsOut[:3]) == [0x1000, 0x9000, 0x11000]
    assert c.windowsIn[3] == 0
    with pytest.raises(ValueError, match="rank 3 of 3"):
        make_comm_context(3, [1, 2, 3], 4096)


def test_comm_ops_and_window_match_cpp(probe):
    v = _values(probe.comm_ops_layout)
    W, O = comm_abi.PtoCommWindow, comm_abi.PtoCommOps
    assert v[:5] == [ctypes.sizeof(W), W.base.offset, W.size.offset, W.peer.offset, W.domain.offset]
    assert v[5:] == [ctypes.sizeof(O)] + [getattr(O, f).offset for f in
                                          ("abi", "rank", "nranks", "nwindows", "windows", "ctx", "read", "write",
                                           "notify", "wait")]


def test_board_record_matches_cpp(probe):
    v = _values(probe.board_layout)
    R = comm_abi.PtoSimBoardRecord
    fields = [f for f, _ in R._fields_]
    assert v[0] == ctypes.sizeof(R) == comm_abi.BOARD_RECORD_SIZE == 256
    assert v[1:] == [getattr(R, f).offset for f in fields]


def test_library_sizes_checked_at_load():
    lib = load_library()   # raises InternalError when a mirror's size differs from ptosim_sizeof
    for which, struct in comm_abi.SIZEOF_IDS.items():
        assert lib.ptosim_sizeof(which) == ctypes.sizeof(struct)
