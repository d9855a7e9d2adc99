"""The shared-memory transport: every rank a process on this host, windows in POSIX shared memory.

Parent side (``ShmTransport``): each rank is ``python -m ptokit.distributed.worker`` started
with ``subprocess`` (fork+exec: nothing of the parent's state -- simulator threads, locks --
is inherited), talking over its own socket pair with pickled messages
(``multiprocessing.connection``).  Windows, the arena and the status board are segments the
parent creates (``segments.py``) and unlinks.

Rank side (``ShmRankLink``): maps each window segment, and installs libptosim's shared-memory
``PtoCommOps`` (memcpy, atomics, futex waits) over the mapped windows.
"""
from __future__ import annotations

import ctypes
import os
import signal
import socket
import subprocess
import sys
import time
from multiprocessing import connection
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from ...errors import DistributedRunFailure
from ...runtime.sim import comm_abi, driver
from .. import board as boardlib
from ..messages import ChipImage, Domain, EndCall, Init, Ready, Result, Shutdown
from ..segments import Segment, round_up, segment_name
from .base import Event, Transport, World

STOP_GRACE_S = 1.0


def _package_root() -> str:
    """The folder holding the ``ptokit`` package this process runs (ranks import the same one)."""
    return str(Path(__file__).resolve().parents[3])


def worker_env() -> dict:
    env = dict(os.environ)
    root = _package_root()
    paths = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join([root] + [p for p in paths if p != root])
    return env


class ShmTransport(Transport):
    name = "shm"

    def __init__(self):
        self.world: Optional[World] = None
        self.procs: List[subprocess.Popen] = []
        self.conns: List[Optional[connection.Connection]] = []
        self.board: Optional[Segment] = None
        self._segments: List[Segment] = []          # of the current call
        self._all: List[Segment] = []               # every segment ever created (unlinked in close)
        self._k = 0
        self._call = 0
        self._domains = 0
        self._pending: List[Event] = []
        self._exited: Dict[int, int] = {}
        self._closed = False

    # ------------------------------------------------------------------ segments
    def _segment(self, size: int, own_call: bool = True) -> Segment:
        name = segment_name(os.getpid(), self._call, self._k)
        self._k += 1
        seg = Segment.create(name, size)
        self._all.append(seg)
        if own_call:
            self._segments.append(seg)
        return seg

    def create_segment(self, size: int) -> Segment:
        return self._segment(size)

    def begin_call(self, call_seq: int) -> None:
        if call_seq != self._call:          # names are unique per (parent pid, call seq, k)
            self._call = call_seq
            self._k = 0

    # ------------------------------------------------------------------ ranks
    def start(self, world: World, images: Dict[str, ChipImage]) -> None:
        self.world = world
        self._call = world.call_seq
        driver.library_path()                       # build libptosim once, before the ranks look for it
        self.board = self._segment(boardlib.board_bytes(world.world_size), own_call=False)
        env = worker_env()
        for rank in range(world.world_size):
            parent_end, child_end = socket.socketpair()
            try:
                fd = child_end.fileno()
                proc = subprocess.Popen([sys.executable, "-m", "ptokit.distributed.worker", "--fd", str(fd),
                                         "--parent", str(os.getpid())], pass_fds=(fd,), env=env,
                                        stdin=subprocess.DEVNULL, close_fds=True)
            finally:
                child_end.close()
            self.procs.append(proc)
            self.conns.append(connection.Connection(parent_end.detach()))
        for rank in range(world.world_size):
            self.send(rank, Init(rank=rank, world_size=world.world_size, device_id=world.device_ids[rank],
                                 config=world.config, chips=images, board=self.board.name, parent_pid=os.getpid(),
                                 transport=self.name))
        self.barrier()

    def barrier(self) -> None:
        """Wait until every rank sent Ready (a rank that exits or fails first is an error)."""
        ready = set()
        deadline = time.monotonic() + self.world.startup_timeout
        while len(ready) < self.world.world_size:
            left = deadline - time.monotonic()
            if left <= 0:
                missing = sorted(set(range(self.world.world_size)) - ready)
                raise DistributedRunFailure(missing[0], self.world.device_ids[missing[0]], 100,
                                            f"the rank process did not start within {self.world.startup_timeout:g} s")
            ev = self.recv(min(left, 0.5))
            if ev is None:
                continue
            if ev.kind == "exit":
                raise DistributedRunFailure(ev.rank, self.world.device_ids[ev.rank], 10,
                                            f"the rank process exited while starting ({_exit_text(ev.returncode)})")
            if isinstance(ev.message, Ready):
                ready.add(ev.rank)
            elif isinstance(ev.message, Result) and not ev.message.ok:
                raise DistributedRunFailure(ev.rank, self.world.device_ids[ev.rank], ev.message.code, ev.message.message)

    def send(self, rank: int, msg) -> None:
        conn = self.conns[rank]
        if conn is None:
            raise BrokenPipeError(f"rank {rank} is gone")
        conn.send(msg)

    def recv(self, timeout: float) -> Optional[Event]:
        if self._pending:
            return self._pending.pop(0)
        live = [c for c in self.conns if c is not None]
        ready = connection.wait(live, timeout) if live else []
        for c in ready:
            rank = self.conns.index(c)
            try:
                msg = c.recv()
            except (EOFError, OSError):
                self._mark_exited(rank)
                continue
            self._pending.append(Event("message", rank, msg))
        for rank, p in enumerate(self.procs):
            if self.conns[rank] is not None and p.poll() is not None and not ready:
                # exited without its pipe reporting EOF yet: drain what it sent, then report
                c = self.conns[rank]
                while c.poll(0):
                    try:
                        self._pending.append(Event("message", rank, c.recv()))
                    except (EOFError, OSError):
                        break
                self._mark_exited(rank)
        return self._pending.pop(0) if self._pending else None

    def _mark_exited(self, rank: int) -> None:
        c = self.conns[rank]
        if c is not None:
            c.close()
            self.conns[rank] = None
        try:
            rc = self.procs[rank].wait(timeout=STOP_GRACE_S)
        except subprocess.TimeoutExpired:
            rc = None
        self._exited[rank] = rc
        self._pending.append(Event("exit", rank, returncode=rc))

    def alive(self) -> List[bool]:
        return [p.poll() is None for p in self.procs]

    # ------------------------------------------------------------------ windows
    def create_windows(self, sizes: Sequence[int]) -> int:
        sizes = list(sizes)
        if len(sizes) != self.world.world_size or len(set(sizes)) != 1:
            raise ValueError(f"one window per rank, all of one size; got {sizes}")
        size = round_up(sizes[0], 4096)
        segs = [self._segment(size) for _ in sizes]
        domain = self._domains
        self._domains += 1
        for rank in range(self.world.world_size):
            self.send(rank, Domain(domain=domain, size=size, segments=[s.name for s in segs]))
        return domain

    # ------------------------------------------------------------------ ending
    def end_call(self) -> None:
        for rank, c in enumerate(self.conns):
            if c is not None:
                try:
                    c.send(EndCall())
                except OSError:
                    pass
        self._unlink(self._segments)
        self._segments = []
        self._domains = 0

    def _unlink(self, segs) -> None:
        for s in segs:
            s.unlink()
            s.close()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            for c in self.conns:
                if c is not None:
                    try:
                        c.send(Shutdown())
                    except OSError:
                        pass
            deadline = time.monotonic() + STOP_GRACE_S
            for p in self.procs:
                try:
                    p.wait(timeout=max(deadline - time.monotonic(), 0.01))
                except subprocess.TimeoutExpired:
                    pass
            for p in self.procs:
                if p.poll() is None:
                    try:
                        p.send_signal(signal.SIGKILL)
                    except ProcessLookupError:
                        pass
            for p in self.procs:
                try:
                    p.wait(timeout=5.0)
                except subprocess.TimeoutExpired:
                    pass
            for c in self.conns:
                if c is not None:
                    c.close()
            self.conns = [None] * len(self.conns)
        finally:
            self._unlink(self._all)
            self._all, self._segments = [], []


def _exit_text(rc: Optional[int]) -> str:
    if rc is None:
        return "exit status unknown"
    if rc < 0:
        try:
            return f"killed by {signal.Signals(-rc).name}"
        except ValueError:
            return f"killed by signal {-rc}"
    return f"exit status {rc}"


exit_text = _exit_text


class ShmRankLink:
    """Rank side of the shared-memory transport."""

    def __init__(self, fd: int):
        self.conn = connection.Connection(fd)

    def recv(self):
        return self.conn.recv()

    def send(self, msg) -> None:
        self.conn.send(msg)

    def attach_board(self, name: str) -> Segment:
        return Segment.attach(name)

    def open_domain(self, msg: Domain, rank: int, world_size: int):
        segs = [Segment.attach(n) for n in msg.segments]
        return [(s.addr, s.size) for s in segs], segs

    def close_domain(self, keep) -> None:
        for s in keep or ():
            s.close()

    def table(self, rank: int, world_size: int, domains):
        """libptosim's shared-memory PtoCommOps over every mapped window (domains: [(id, [(base, size)])])."""
        wins = [(d, peer, base, size) for d, ws in domains for peer, (base, size) in enumerate(ws)]
        arr = (comm_abi.PtoCommWindow * max(len(wins), 1))()
        for i, (d, peer, base, size) in enumerate(wins):
            arr[i].base, arr[i].size, arr[i].peer, arr[i].domain = base, size, peer, d
        table = driver.comm_shm_table()
        table.rank, table.nranks, table.nwindows = rank, world_size, len(wins)
        table.windows = ctypes.cast(arr, ctypes.POINTER(comm_abi.PtoCommWindow))
        return table, arr

    def close(self) -> None:
        self.conn.close()


__all__ = ["ShmTransport", "ShmRankLink", "worker_env", "exit_text"]
