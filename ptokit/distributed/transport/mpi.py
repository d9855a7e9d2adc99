"""The MPI transport (``DistributedConfig(transport="mpi")``, the ``ptokit[mpi]`` extra).

Launch: ``mpirun -n 1 python prog.py : -n W python -m ptokit.distributed.worker --mpi``.  MPI rank 0
is the host (the parent), MPI rank ``k + 1`` chip rank ``k``; images and messages go over
``COMM_WORLD`` (pickled, one tag), windows are ``MPI.Win.Allocate`` over a duplicate of it (the
host contributes 0 bytes).  On a rank, its own window is the local MPI memory and every peer's a
reserved ``PROT_NONE`` range of the same size: a kernel access that bypassed the comm table would
fault instead of reading stale bytes.  The table (``PtoCommOps``) maps those ranges to MPI calls,
serialised by one lock per rank: read/write = ``Get``/``Put`` + ``Flush``, atomic write =
``Accumulate(SUM)``, notify = ``Fetch_and_op`` + ``Flush``, wait = polling the local cell after
``Win.Sync``.  Windows live in one passive-target epoch (``Lock_all``).

On one host the status board and the host-tensor arena stay in shared memory (as on the shm
transport).  Not done: ranks on other hosts (the arena and board would travel as messages), fp16 /
bf16 atomic adds (no MPI datatype: an error), a rank death (MPI aborts the whole job), a window
domain allocated after dispatches that wait on later ones (``Win.Allocate`` is collective: every
rank must reach it).
"""
from __future__ import annotations

import ctypes
import mmap
import threading
import time
from typing import Dict, List, Optional, Sequence

import mpi4py

mpi4py.rc.thread_level = "multiple"     # cores call the table from their own threads
from mpi4py import MPI  # noqa: E402  (after the thread level is chosen)

from ...errors import DistributedRunFailure  # noqa: E402
from ...runtime.sim import comm_abi  # noqa: E402
from .. import board as boardlib  # noqa: E402
from ..messages import Bye, ChipImage, Domain, EndCall, Init, Shutdown  # noqa: E402
from ..segments import Segment, round_up  # noqa: E402
from .base import Event, World  # noqa: E402
from .shm import ShmTransport  # noqa: E402

TAG = 17
POLL_S = 0.0005
_DTYPES = {0: MPI.FLOAT, 2: MPI.INT32_T, 3: MPI.INT16_T, 4: MPI.INT8_T, 5: MPI.UINT8_T, 7: MPI.INT64_T,
           8: MPI.UINT64_T, 9: MPI.UINT16_T, 10: MPI.UINT32_T}


def launch_hint(world_size: int) -> str:
    return f"mpirun -n 1 python prog.py : -n {world_size} python -m ptokit.distributed.worker --mpi"


class MpiTransport(ShmTransport):
    """Parent side: MPI rank 0 of COMM_WORLD.  Segments (board, arena) as on the shm transport."""

    name = "mpi"

    def __init__(self):
        super().__init__()
        self.comm = MPI.COMM_WORLD
        self.wcomm = None
        self._wins: List = []

    def start(self, world: World, images: Dict[str, ChipImage]) -> None:
        self.world = world
        self._call = world.call_seq
        if self.comm.Get_rank() != 0 or self.comm.Get_size() != world.world_size + 1:
            raise DistributedRunFailure(0, world.device_ids[0], 10,
                                        f"the MPI transport runs under mpirun with 1 host process and "
                                        f"{world.world_size} rank processes (this is MPI rank {self.comm.Get_rank()} "
                                        f"of {self.comm.Get_size()}): {launch_hint(world.world_size)}")
        self.board = self._segment(boardlib.board_bytes(world.world_size), own_call=False)
        self.wcomm = self.comm.Dup()              # collective with every rank's MpiRankLink
        self.conns = [True] * world.world_size     # "connected": MPI has no per-rank pipe
        for rank in range(world.world_size):
            self.send(rank, Init(rank=rank, world_size=world.world_size, device_id=world.device_ids[rank],
                                 config=world.config, chips=images, board=self.board.name, parent_pid=0,
                                 transport=self.name))
        self.barrier()

    def send(self, rank: int, msg) -> None:
        self.comm.send(msg, dest=rank + 1, tag=TAG)

    def recv(self, timeout: float) -> Optional[Event]:
        deadline = time.monotonic() + timeout
        status = MPI.Status()
        while True:
            if self.comm.Iprobe(source=MPI.ANY_SOURCE, tag=TAG, status=status):
                src = status.Get_source()
                return Event("message", src - 1, self.comm.recv(source=src, tag=TAG))
            if time.monotonic() >= deadline:
                return None
            time.sleep(POLL_S)

    def create_windows(self, sizes: Sequence[int]) -> int:
        sizes = list(sizes)
        if len(sizes) != self.world.world_size or len(set(sizes)) != 1:
            raise ValueError(f"one window per rank, all of one size; got {sizes}")
        size = round_up(sizes[0], 4096)
        domain = self._domains
        self._domains += 1
        for rank in range(self.world.world_size):
            self.send(rank, Domain(domain=domain, size=size))
        self._wins.append(MPI.Win.Allocate(0, 1, comm=self.wcomm))     # the host holds no window bytes
        return domain

    def _free_windows(self) -> None:
        for win in self._wins:
            win.Free()                            # collective: each rank frees its windows at EndCall
        self._wins = []

    def end_call(self) -> None:
        for rank in range(self.world.world_size if self.world else 0):
            self.send(rank, EndCall())
        self._free_windows()
        self._unlink(self._segments)
        self._segments = []
        self._domains = 0

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            if self.world is not None and self.wcomm is not None:
                for rank in range(self.world.world_size):
                    self.send(rank, Shutdown())
                byes = set()
                deadline = time.monotonic() + 10.0
                while len(byes) < self.world.world_size and time.monotonic() < deadline:
                    ev = self.recv(0.1)
                    if ev is not None and isinstance(ev.message, Bye):
                        byes.add(ev.rank)
        finally:
            self._unlink(self._all)
            self._all, self._segments = [], []

    def alive(self) -> List[bool]:
        return [True] * (self.world.world_size if self.world else 0)


class MpiRankLink:
    """Rank side: MPI rank ``k + 1`` of COMM_WORLD is chip rank ``k``."""

    def __init__(self):
        self.comm = MPI.COMM_WORLD
        self.wcomm = self.comm.Dup()              # matches the parent's Dup in MpiTransport.start
        self.lock = threading.Lock()
        self._wins: Dict[int, tuple] = {}         # domain -> (win, local base, reserved peer ranges)
        self._callbacks = None

    def recv(self):
        return self.comm.recv(source=0, tag=TAG)

    def send(self, msg) -> None:
        with self.lock:
            self.comm.send(msg, dest=0, tag=TAG)

    def attach_board(self, name: str) -> Segment:
        return Segment.attach(name)

    def open_domain(self, msg: Domain, rank: int, world_size: int):
        win = MPI.Win.Allocate(msg.size, 1, comm=self.wcomm)
        local = ctypes.addressof(ctypes.c_char.from_buffer(win.tomemory()))
        reserved = {p: _reserve(msg.size) for p in range(world_size) if p != rank}
        bases = [local if p == rank else reserved[p] for p in range(world_size)]
        win.Lock_all()
        self._wins[msg.domain] = (win, local, reserved, msg.size)
        return [(b, msg.size) for b in bases], msg.domain

    def close_domain(self, domain) -> None:
        win, _, reserved, size = self._wins.pop(domain)
        win.Unlock_all()
        win.Free()
        for addr in reserved.values():
            _libc.munmap(ctypes.c_void_p(addr), ctypes.c_size_t(size))

    def table(self, rank: int, world_size: int, domains):
        wins = [(d, peer, base, size) for d, ws in domains for peer, (base, size) in enumerate(ws)]
        arr = (comm_abi.PtoCommWindow * max(len(wins), 1))()
        for i, (d, peer, base, size) in enumerate(wins):
            arr[i].base, arr[i].size, arr[i].peer, arr[i].domain = base, size, peer, d
        me = self

        def target(w):
            win = me._wins[w.contents.domain][0]
            return win, w.contents.peer + 1          # + 1: MPI rank 0 is the host

        def read(ctx, w, off, dst, n):
            try:
                win, peer = target(w)
                buf = (ctypes.c_char * n).from_address(dst)
                with me.lock:
                    win.Get([buf, n, MPI.BYTE], peer, target=(off, n, MPI.BYTE))
                    win.Flush(peer)
                return comm_abi.COMM_OK
            except Exception:  # noqa: BLE001 - a transport error is the kernel's failure
                return comm_abi.COMM_ERROR

        def write(ctx, w, off, src, n, atomic, dtype):
            try:
                win, peer = target(w)
                buf = (ctypes.c_char * n).from_address(src)
                with me.lock:
                    if atomic:
                        mt = _DTYPES.get(dtype)
                        if mt is None:
                            return comm_abi.COMM_ERROR
                        count = n // mt.Get_size()
                        win.Accumulate([buf, count, mt], peer, target=(off, count, mt), op=MPI.SUM)
                    else:
                        win.Put([buf, n, MPI.BYTE], peer, target=(off, n, MPI.BYTE))
                    win.Flush(peer)
                return comm_abi.COMM_OK
            except Exception:  # noqa: BLE001
                return comm_abi.COMM_ERROR

        def notify(ctx, w, off, value, op):
            try:
                win, peer = target(w)
                val = (ctypes.c_int32 * 1)(value)
                res = (ctypes.c_int32 * 1)()
                with me.lock:
                    win.Fetch_and_op([val, 1, MPI.INT32_T], [res, 1, MPI.INT32_T], peer, off,
                                     op=MPI.REPLACE if op == comm_abi.NOTIFY_SET else MPI.SUM)
                    win.Flush(peer)
                return comm_abi.COMM_OK
            except Exception:  # noqa: BLE001
                return comm_abi.COMM_ERROR

        def wait(ctx, w, off, expected, cmp, deadline, seen):
            try:
                if w.contents.peer != rank:
                    return comm_abi.COMM_BAD_ADDRESS        # a rank waits on its own signals only
                win = me._wins[w.contents.domain][0]
                cell = ctypes.c_int32.from_address(w.contents.base + off)
                while True:
                    with me.lock:
                        win.Sync()
                        v = cell.value
                    seen[0] = v
                    if _compare(v, expected, cmp):
                        return comm_abi.COMM_OK
                    if time.monotonic_ns() >= deadline:
                        return comm_abi.COMM_TIMEOUT
                    time.sleep(POLL_S)
            except Exception:  # noqa: BLE001
                return comm_abi.COMM_ERROR

        fns = (comm_abi.READ_FN(read), comm_abi.WRITE_FN(write), comm_abi.NOTIFY_FN(notify), comm_abi.WAIT_FN(wait))
        table = comm_abi.PtoCommOps()
        table.abi, table.rank, table.nranks, table.nwindows = comm_abi.PTO_COMM_ABI, rank, world_size, len(wins)
        table.windows = ctypes.cast(arr, ctypes.POINTER(comm_abi.PtoCommWindow))
        table.read, table.write, table.notify, table.wait = fns
        self._callbacks = fns                     # the C side keeps only the function pointers
        return table, (arr, fns)

    def close(self) -> None:
        for d in list(self._wins):
            self.close_domain(d)


_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
_libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
_MAP_NORESERVE = 0x4000
_PROT_NONE = 0


def _reserve(size: int) -> int:
    """A PROT_NONE range of ``size`` bytes standing for a peer's window: touching it faults."""
    addr = _libc.mmap(None, size, _PROT_NONE, mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | _MAP_NORESERVE, -1, 0)
    if addr in (None, ctypes.c_void_p(-1).value):
        raise OSError(ctypes.get_errno(), "cannot reserve a peer window range")
    return addr


def _compare(v: int, expected: int, cmp: int) -> bool:
    return {0: v == expected, 1: v != expected, 2: v > expected, 3: v >= expected, 4: v < expected,
            5: v <= expected}.get(cmp, False)


__all__ = ["MpiTransport", "MpiRankLink", "launch_hint"]
