"""A rank process of a distributed run: ``python -m ptokit.distributed.worker``.

Started by the parent's transport (never forked from it: ``--fd`` names the rank's end of a
socket pair, ``--parent`` the parent pid), or by ``mpirun`` with ``--mpi``.  It runs one
libptosim device, handles the parent's messages one at a time in order (``messages.py``) and
dies with the parent: ``PR_SET_PDEATHSIG`` (SIGKILL) plus a watchdog thread that exits when
the parent pid changes, and at once when the pipe reaches end of file.  SIGINT is ignored: the
parent decides when ranks stop.
"""
from __future__ import annotations

import argparse
import ctypes
import os
import queue
import signal
import sys
import threading
import time
import traceback
from typing import Dict, List, Optional

from ..artifacts.kernel_config import param_dtype
from ..errors import PtokitError, RuntimeFailure
from ..runtime import abi
from ..runtime.external import ExternalTensor
from ..runtime.sim import driver
from . import board as boardlib
from .commctx import make_comm_context
from .messages import (ArenaRef, Bye, ChipImage, Dispatch, Domain, EndCall, Init, Ready, Result, Shutdown, Started,
                       WindowRef)
from .segments import Segment
from .transport.shm import ShmRankLink

PR_SET_PDEATHSIG = 1
WATCHDOG_PERIOD_S = 0.25
EXIT_PARENT_GONE = 70


def die_with_parent(parent_pid: int) -> None:
    """SIGKILL when the parent dies (prctl), and exit now if it already has."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass                                   # not Linux: the watchdog below still works
    if os.getppid() != parent_pid:
        os._exit(EXIT_PARENT_GONE)

    def watch():
        while True:
            time.sleep(WATCHDOG_PERIOD_S)
            if os.getppid() != parent_pid:
                os._exit(EXIT_PARENT_GONE)

    threading.Thread(target=watch, name="ptokit-rank-watchdog", daemon=True).start()


class _DomainMap:
    """This rank's view of one window domain: every rank's window mapped here, the CommContext."""

    def __init__(self, domain: int, size: int, windows: List[tuple], rank: int, keep=None):
        self.domain = domain
        self.size = size
        self.windows = windows                 # [(base, size)] per rank
        self.ctx = make_comm_context(rank, [b for b, _ in windows], size)
        self.keep = keep                       # the transport's own objects (segments, MPI windows)

    @property
    def ctx_addr(self) -> int:
        return ctypes.addressof(self.ctx)


class Worker:
    def __init__(self, link):
        self.link = link
        self.init: Optional[Init] = None
        self.chips: Dict[str, ChipImage] = {}
        self.domains: Dict[int, _DomainMap] = {}
        self.arenas: Dict[str, Segment] = {}
        self.board_seg: Optional[Segment] = None
        self.rec = None
        self.busy = threading.Event()
        self.inbox: "queue.Queue" = queue.Queue()
        self._table = None
        self._windows = None

    # ------------------------------------------------------------------ setup
    def start(self) -> None:
        init = self.link.recv()
        if not isinstance(init, Init):
            raise SystemExit(f"ptokit rank: expected Init first, got {type(init).__name__}")
        self.init = init
        self.chips = dict(init.chips)
        self.board_seg = self.link.attach_board(init.board)
        self.rec = boardlib.record_at(self.board_seg, init.rank)
        boardlib.reset(self.rec)
        self.rec.pid = os.getpid()
        self._state(boardlib.STARTING)
        try:
            driver.load_library()
        except PtokitError as exc:
            self.link.send(Result(init.rank, -1, False, code=10, message=f"cannot load the simulator: {exc}"))
            raise SystemExit(1) from None
        self._state(boardlib.IDLE)
        self.link.send(Ready(init.rank, os.getpid()))

    def _state(self, state: int) -> None:
        if self.rec is not None:
            self.rec.state = state
            self.rec.progress_ns = time.monotonic_ns()

    # ------------------------------------------------------------------ loop
    def reader(self) -> None:
        """Receive messages; Shutdown (or the parent gone) ends the process even mid-dispatch."""
        while True:
            try:
                msg = self.link.recv()
            except (EOFError, OSError):
                os._exit(0)
            if isinstance(msg, Shutdown):
                if self.busy.is_set():
                    self._state(boardlib.STOPPED)
                    os._exit(0)
                self.inbox.put(msg)
                return
            self.inbox.put(msg)

    def serve(self) -> None:
        threading.Thread(target=self.reader, name="ptokit-rank-reader", daemon=True).start()
        while True:
            msg = self.inbox.get()
            if isinstance(msg, Shutdown):
                self._state(boardlib.STOPPED)
                self.end_call()
                try:
                    self.link.send(Bye(self.init.rank))
                except OSError:
                    pass
                return
            try:
                if isinstance(msg, Domain):
                    self.open_domain(msg)
                elif isinstance(msg, Dispatch):
                    self.busy.set()
                    try:
                        self.dispatch(msg)
                    finally:
                        self.busy.clear()
                elif isinstance(msg, EndCall):
                    self.end_call()
            except Exception as exc:  # noqa: BLE001 - the parent reports it; the rank cannot go on
                self._state(boardlib.FAILED)
                self.link.send(Result(self.init.rank, -1, False, code=-1, message=(
                    f"internal error in the rank process handling {type(msg).__name__}: {type(exc).__name__}: "
                    f"{exc}\n{traceback.format_exc(limit=8)}")))
                return

    # ------------------------------------------------------------------ windows
    def open_domain(self, msg: Domain) -> None:
        windows, keep = self.link.open_domain(msg, self.init.rank, self.init.world_size)
        self.domains[msg.domain] = _DomainMap(msg.domain, msg.size, windows, self.init.rank, keep)
        self._install()

    def _install(self) -> None:
        table, windows = self.link.table(self.init.rank, self.init.world_size,
                                         [(d.domain, d.windows) for d in self.domains.values()])
        self._table, self._windows = table, windows      # kept alive while installed
        driver.comm_install(table, ctypes.addressof(self.rec) if self.rec is not None else 0)

    def end_call(self) -> None:
        if self.domains:
            driver.comm_install(None, ctypes.addressof(self.rec) if self.rec is not None else 0)
            self._table = self._windows = None
            for d in self.domains.values():
                self.link.close_domain(d.keep)
            self.domains.clear()
        for seg in self.arenas.values():
            seg.close()
        self.arenas.clear()

    def _arena(self, name: str) -> Segment:
        seg = self.arenas.get(name)
        if seg is None:
            seg = self.arenas[name] = Segment.attach(name)
        return seg

    def _extra_gm(self) -> list:
        out = [(b, s) for d in self.domains.values() for b, s in d.windows]
        return out + [(s.addr, s.size) for s in self.arenas.values()]

    # ------------------------------------------------------------------ dispatch
    def _external(self, ref) -> ExternalTensor:
        if isinstance(ref, WindowRef):
            d = self.domains[ref.domain]
            base, size = d.windows[self.init.rank]
            return ExternalTensor(base, size, tuple(ref.shape), abi.DataType(ref.dtype), ref.offset)
        if isinstance(ref, ArenaRef):
            seg = self._arena(ref.segment)
            return ExternalTensor(seg.addr, seg.size, tuple(ref.shape), abi.DataType(ref.dtype), ref.offset)
        raise TypeError(f"not a tensor reference: {ref!r}")

    def _args(self, chip: ChipImage, msg: Dispatch) -> list:
        args, ti, si = [], 0, 0
        window_domain = {}
        for p in chip.params:
            kind = p["kind"]
            if kind in ("tensor", "window"):
                ref = msg.tensors[ti]
                ti += 1
                if isinstance(ref, WindowRef):
                    window_domain[p["name"]] = ref.domain
                args.append(self._external(ref))
            elif kind == "scalar":
                args.append(msg.scalars[si])
                si += 1
            else:                                  # comm_ctx: the CommContext of its window's domain
                args.append(self.domains[window_domain[p["for"]]].ctx_addr)
        return args

    def dispatch(self, msg: Dispatch) -> None:
        rank = self.init.rank
        chip = self.chips[msg.chip]
        rec = self.rec
        rec.dispatch = msg.seq
        boardlib.set_text(rec, "chip", msg.chip)
        self._state(boardlib.RUNNING)
        self.link.send(Started(rank, msg.seq))
        start = time.monotonic_ns()
        try:
            args = self._args(chip, msg)
            res = driver.run_image(chip.image, args, self.init.config, kernel_names=chip.kernel_names,
                                   scalar_dtypes=[param_dtype(p) for p in chip.params],
                                   kernel_core_types=chip.kernel_core_types, extra_gm=self._extra_gm(),
                                   comm_ctx=[d.ctx_addr for d in self.domains.values()])
        except RuntimeFailure as exc:
            self._state(boardlib.FAILED)
            self.link.send(Result(rank, msg.seq, False, code=exc.code, message=exc.message, start_ns=start))
            return
        except (PtokitError, ValueError, TypeError, KeyError) as exc:
            self._state(boardlib.FAILED)
            self.link.send(Result(rank, msg.seq, False, code=5, message=f"{type(exc).__name__}: {exc}", start_ns=start))
            return
        except Exception as exc:  # noqa: BLE001 - reported to the parent as the internal error it is
            self._state(boardlib.FAILED)
            tb = traceback.format_exc(limit=8)
            self.link.send(Result(rank, msg.seq, False, code=-1,
                                  message=f"internal error in the rank process: {type(exc).__name__}: {exc}\n{tb}",
                                  start_ns=start))
            return
        rec.dispatch = -1
        self._state(boardlib.IDLE)
        self.link.send(Result(rank, msg.seq, True, result=res, start_ns=start))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ptokit.distributed.worker",
                                 description="a rank process of a ptokit distributed run (started by the parent)")
    ap.add_argument("--fd", type=int, help="this rank's end of the parent's socket pair")
    ap.add_argument("--parent", type=int, help="the parent's pid (the rank dies with it)")
    ap.add_argument("--mpi", action="store_true", help="started by mpirun: talk to MPI rank 0")
    a = ap.parse_args(argv)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if a.mpi:
        from .transport.mpi import MpiRankLink   # lazy: mpi4py (optional extra) only on this path
        link = MpiRankLink()
    else:
        if a.fd is None or a.parent is None:
            ap.error("--fd and --parent are required (or --mpi)")
        die_with_parent(a.parent)
        link = ShmRankLink(a.fd)
    w = Worker(link)
    w.start()
    w.serve()
    link.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
