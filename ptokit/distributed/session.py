"""The parent's engine of distributed runs: ranks, host calls, failures and cleanup.

A ``Session`` owns a transport (its rank processes and segments).  ``call(args)`` runs one
host call: it removes the segments of dead parents, copies the host arrays into a fresh arena,
runs the host function (``entry(rt, tensors, world_size)``) with a ``HostRuntime``, waits until
every dispatch has drained, copies OUT/INOUT host tensors back into the caller's arrays and
returns a ``DistributedRunResult``.  The first failure -- a rank's run failing (a kernel crash,
an expired TWAIT), a rank process dying, no progress anywhere for ``timeout`` + 0.5 s -- raises
``DistributedRunFailure`` after the session stopped every rank (1 s grace, then SIGKILL),
joined them and unlinked every segment; so does anything else that escapes, KeyboardInterrupt
included.
"""
from __future__ import annotations

import itertools
import re
import time
from typing import Callable, Dict, List, Optional, Sequence

import numpy as np

from ..errors import DistributedRunFailure, UserError
from ..runtime import abi
from . import board as boardlib
from .host import HostRuntime, HostTensor, _dtype
from .messages import Bye, ChipImage, Dispatch, Result, Started
from .result import DistributedRunResult, merge_results
from .segments import round_up, sweep_dead
from .transport.base import Transport, World
from .transport.shm import exit_text

CODE_NO_PROGRESS = 100
CODE_RANK_DIED = 102
WATCHDOG_SLACK_S = 0.5          # the parent gives up this long after the ranks' own timeout (+1 s grace: T + 2 s)
POLL_S = 0.2
STALLED_FRACTION = 0.5          # a rank silent for this part of the timeout caused a peer's expired TWAIT
ARENA_ALIGN = 64

_CALLS = itertools.count(1)     # host calls of this process: segment names stay unique
_KERNEL_TASK = re.compile(r"kernel '([^']*)'.*? in task (\d+)")


def _host_array(a):
    """A numpy view of a host argument (numpy array, or a CPU torch tensor), else None."""
    if isinstance(a, np.ndarray):
        return a
    if type(a).__module__.startswith("torch") and hasattr(a, "numpy"):
        return a.detach().numpy()
    return None


class Session:
    def __init__(self, *, device_ids: Sequence[int], config, chips: Dict[str, ChipImage], entry: Callable,
                 transport: Transport, host_params: Optional[List[dict]] = None, world_size_name: Optional[str] = None,
                 domains: Sequence[dict] = (), collectives: Sequence[dict] = (),
                 sub_workers: Optional[Dict[str, Callable]] = None):
        self.device_ids = list(device_ids)
        self.world_size = len(self.device_ids)
        self.config = config
        self.chips = dict(chips)
        self.entry = entry
        self.transport = transport
        self.host_params = host_params
        self.world_size_name = world_size_name
        self.domains = list(domains)
        self.collectives = list(collectives)
        self._sub_loaders = dict(sub_workers or {})
        self._subs: Dict[str, Callable] = {}
        self.started = False
        self.closed = False
        self._call_seq = 0
        self._reset_call()

    # ------------------------------------------------------------------ lifetime
    def start(self) -> "Session":
        """Start the ranks now (a call starts them when its host program first needs them)."""
        if self.closed:
            raise UserError("this distributed session was closed (after a failure or close()); start a new one")
        if not self.started:
            self.started = True
            try:
                self.transport.start(World(self.world_size, self.device_ids, self.config,
                                           call_seq=self._call_seq or next(_CALLS)), self.chips)
            except BaseException:
                self.close()
                raise
        return self

    def close(self) -> None:
        self.closed = True
        self.transport.close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()

    def _reset_call(self) -> None:
        self._seq = 0
        self._domains: List[int] = []                  # window sizes of this call's domains (by id)
        self._made = 0                                 # how many of them the transport created
        self._outstanding: Dict[int, tuple] = {}      # seq -> (rank, written regions)
        self._results: List[list] = [[] for _ in range(self.world_size)]
        self._last_event = time.monotonic_ns()

    # ------------------------------------------------------------------ what rt asks
    def chip(self, name: str) -> ChipImage:
        try:
            return self.chips[name]
        except KeyError:
            raise ValueError(f"no chip program '{name}' in this tree (it has: {', '.join(sorted(self.chips))})") from None

    def domain_plan(self, name: str) -> dict:
        for d in self.domains:
            if d["name"] == name:
                return d
        raise KeyError(name)

    def collective_chip(self, op: str, key) -> Optional[str]:
        for c in self.collectives:
            if c["op"] == op and (key is None or c["key"] == key):
                return c["chip"]
        return None

    def sub_worker(self, name: str) -> Callable:
        if name not in self._subs:
            if name not in self._sub_loaders:
                raise ValueError(f"no SubWorker '{name}' in this tree")
            self._subs[name] = self._sub_loaders[name]()
        return self._subs[name]

    def create_windows(self, size: int) -> int:
        """A window domain of this call; created (and the ranks started) when first dispatched to, so
        that a host program's user errors come before any rank process exists."""
        self._domains.append(size)
        return len(self._domains) - 1

    def _materialize(self) -> None:
        self.start()
        while self._made < len(self._domains):
            got = self.transport.create_windows([self._domains[self._made]] * self.world_size)
            if got != self._made:
                raise RuntimeError(f"internal error: window domain {self._made} was created as {got}")
            self._made += 1

    def new_arena(self, nbytes: int):
        return self.transport.create_segment(nbytes)

    def send_dispatch(self, rank: int, chip: str, refs, scalars, writes) -> int:
        self._materialize()
        seq = self._seq
        self._seq += 1
        self._outstanding[seq] = (rank, writes)
        self.transport.send(rank, Dispatch(seq, chip, refs, list(scalars)))
        return seq

    def wait_for_regions(self, regions) -> None:
        def pending():
            return any(_overlap(w, r) for _, writes in self._outstanding.values() for w in writes for r in regions)
        while pending():
            self._pump(POLL_S)

    # ------------------------------------------------------------------ a host call
    def _check_args(self, args: Sequence) -> List[np.ndarray]:
        params = self.host_params
        arrays = [_host_array(a) for a in args]
        if params is None:
            return arrays
        names = ", ".join(p["name"] for p in params)
        if len(args) != len(params):
            raise TypeError(f"the program takes {len(params)} arguments ({names}), {len(args)} were given")
        dims: dict = {}
        for i, (p, a, arr) in enumerate(zip(params, args, arrays)):
            if p["kind"] == "scalar":
                if arr is not None and arr.ndim:
                    raise TypeError(f"argument {i} ({p['name']}) is a scalar, got an array of shape {arr.shape}")
                continue
            if arr is None:
                raise TypeError(f"argument {i} ({p['name']}) must be an array, got {a!r}")
            want = p.get("dtype")
            if want and _dtype(want) != arr.dtype:
                raise TypeError(f"argument {i} ({p['name']}) must have dtype {want} ({_dtype(want)}), got {arr.dtype}")
            shape = p.get("shape")
            if isinstance(shape, list):
                if len(shape) != arr.ndim:
                    raise TypeError(f"argument {i} ({p['name']}) must have shape {shape}, got {list(arr.shape)}")
                for d, n in zip(shape, arr.shape):
                    if isinstance(d, int) and d != n:
                        raise TypeError(f"argument {i} ({p['name']}) must have shape {shape}, got {list(arr.shape)}")
                    if isinstance(d, str):
                        if d == self.world_size_name and n != self.world_size:
                            raise TypeError(f"argument {i} ({p['name']}): dimension {d} is {n}, but {d} is the "
                                            f"rank count and the program runs on {self.world_size} ranks")
                        if dims.setdefault(d, n) != n:
                            raise TypeError(f"dynamic dimension {d} is {dims[d]} in one argument and {n} in "
                                            f"{p['name']}")
        return arrays

    def call(self, args: Sequence, *, entry: Optional[Callable] = None,
             host_params: Optional[List[dict]] = None) -> DistributedRunResult:
        """Run the host function once on ``args`` (see the module docstring); ``entry`` /
        ``host_params`` replace the session's own for this call (another host program over the
        same chips and ranks)."""
        if self.closed:
            raise UserError("this distributed session was closed (after a failure or close()); start a new one")
        saved = self.entry, self.host_params
        if entry is not None:
            self.entry, self.host_params = entry, host_params
        try:
            return self._call(args)
        finally:
            self.entry, self.host_params = saved

    def _call(self, args: Sequence) -> DistributedRunResult:
        arrays = self._check_args(args)
        self._reset_call()
        self._call_seq = next(_CALLS)
        self.transport.begin_call(self._call_seq)
        sweep_dead()
        t0 = time.perf_counter()
        try:
            tensors, copy_back = self._arena(args, arrays)
            rt = HostRuntime(self)
            self.entry(rt, tensors, self.world_size)
            while self._outstanding:
                self._pump(POLL_S)
            for host, view in copy_back:
                np.copyto(host, view.numpy())
            elapsed = time.perf_counter() - t0
            ranks = [merge_results([r for _, r, _ in rs], [s for _, _, s in rs], self.config)
                     for rs in self._results]
            result = DistributedRunResult(ranks, elapsed, list(self.device_ids),
                                          [[r for _, r, _ in rs] for rs in self._results])
            self.transport.end_call()
        except BaseException:
            self.close()
            raise
        return result

    def _arena(self, args, arrays):
        params = self.host_params
        sizes = [round_up(max(a.nbytes, 1), ARENA_ALIGN) if a is not None and not (params and p["kind"] == "scalar")
                 else 0 for a, p in zip(arrays, params or [{}] * len(arrays))]
        seg = self.transport.create_segment(max(sum(sizes), 1))
        mem = seg.view()
        tensors, copy_back, off = [], [], 0
        for i, (a, arr, size) in enumerate(zip(args, arrays, sizes)):
            if params and params[i]["kind"] == "scalar":
                tensors.append(arr.item() if arr is not None else a)    # a 0-d array given for a scalar: its value
                continue
            if arr is None:
                tensors.append(a)
                continue
            dt = arr.dtype
            abi.datatype_of_numpy(dt)                 # a dtype the device has (ValueError otherwise)
            view = np.frombuffer(mem[off:off + arr.nbytes], dtype=dt).reshape(arr.shape)
            np.copyto(view, arr)
            t = HostTensor(seg, off, arr.shape or (1,), dt)
            tensors.append(t)
            direction = str(params[i].get("direction", "IN")).upper() if params else "INOUT"
            if direction in ("OUT", "INOUT"):
                if not arr.flags.writeable:
                    raise ValueError(f"argument {i} is an output but its array is read-only")
                copy_back.append((arr, t))
            off += size
        return tensors, copy_back

    # ------------------------------------------------------------------ events
    def _pump(self, timeout: float) -> None:
        ev = self.transport.recv(timeout)
        if ev is None:
            self._watchdog()
            return
        self._last_event = time.monotonic_ns()
        if ev.kind == "exit":
            raise self._died(ev.rank, ev.returncode)
        msg = ev.message
        if isinstance(msg, Result):
            if not msg.ok:
                raise self._failed(msg)
            self._outstanding.pop(msg.seq, None)
            self._results[msg.rank].append((msg.seq, msg.result, msg.start_ns))
        elif isinstance(msg, (Started, Bye)):
            pass

    def _record(self, rank: int):
        seg = self.transport.board
        return boardlib.record_at(seg, rank) if seg is not None else None

    def _board_lines(self) -> List[str]:
        seg = self.transport.board
        return boardlib.status_lines(seg, self.device_ids) if seg is not None else []

    def _failed(self, msg: Result) -> DistributedRunFailure:
        rec = self._record(msg.rank)
        if rec is not None and rec.op == 2 and rec.op_active:        # an expired TWAIT
            stalled = self._stalled_peer(msg.rank)
            if stalled is not None:
                return stalled
        kernel = task = op = None
        m = _KERNEL_TASK.search(msg.message or "")
        if m:
            kernel, task = m.group(1), int(m.group(2))
        if rec is not None and rec.op_active:
            op = boardlib.op_name(rec)
            kernel = kernel or rec.kernel.decode("utf-8", "replace") or None
            task = task if task is not None else int(rec.task_seq)
        return DistributedRunFailure(msg.rank, self.device_ids[msg.rank], msg.code, msg.message, task=task,
                                     kernel=kernel, op=op, board=self._board_lines())

    def _stalled_peer(self, waiter: int) -> Optional[DistributedRunFailure]:
        """When ``waiter``'s TWAIT expired: a rank with work outstanding that is not waiting itself
        and made no progress for the whole wait (frozen, or in a kernel that never returns) is
        why; it is blamed (the stalest one), the waiter's expired wait is its message's cause."""
        now = time.monotonic_ns()
        # the wait lasted 0.9 x the timeout (the kernel's TWAIT limit): a rank silent for most of it
        limit = STALLED_FRACTION * float(self.config.timeout) * 1e9
        busy = {rank for rank, _ in self._outstanding.values()} - {waiter}
        best, best_t = None, None
        for r in sorted(busy):
            rec = self._record(r)
            if rec is None or (rec.op == 2 and rec.op_active):     # waiting too: a victim, not a cause
                continue
            t = int(rec.progress_ns)
            if now - t >= limit and (best_t is None or t < best_t):
                best, best_t = r, t
        if best is None:
            return None
        wrec = self._record(waiter)
        rec = self._record(best)
        op = boardlib.op_name(rec) if rec.op_active else None
        return DistributedRunFailure(best, self.device_ids[best], CODE_NO_PROGRESS,
                                     f"no progress for {(now - best_t) / 1e9:.2f} s with work outstanding "
                                     f"(timeout {self.config.timeout:g} s), while rank {waiter} (device "
                                     f"{self.device_ids[waiter]}) waited for it: rank {waiter}'s "
                                     f"{boardlib.describe_op(wrec)[3:]} expired", op=op,
                                     board=self._board_lines())

    def _died(self, rank: int, rc) -> DistributedRunFailure:
        rec = self._record(rank)
        what, task, kernel, op = "", None, None, None
        if rec is not None:
            chip = rec.chip.decode("utf-8", "replace")
            if rec.dispatch >= 0 and chip:
                what = f" while running dispatch {rec.dispatch} (chip '{chip}')"
            if rec.op:
                op = boardlib.op_name(rec)
                kernel = rec.kernel.decode("utf-8", "replace") or None
                task = int(rec.task_seq)
                what += f"; {boardlib.describe_op(rec)}"
        return DistributedRunFailure(rank, self.device_ids[rank], CODE_RANK_DIED,
                                     f"the rank process died ({exit_text(rc)}){what}", task=task, kernel=kernel,
                                     op=op, board=self._board_lines())

    def _watchdog(self) -> None:
        """No event and no board progress anywhere for timeout + 0.5 s while work is outstanding."""
        if not self._outstanding:
            return
        now = time.monotonic_ns()
        busy = sorted({rank for rank, _ in self._outstanding.values()})
        last = self._last_event
        stalest, stalest_t = busy[0], None
        for r in busy:
            rec = self._record(r)
            t = int(rec.progress_ns) if rec is not None else 0
            last = max(last, t)
            if stalest_t is None or t < stalest_t:
                stalest, stalest_t = r, t
        limit = (float(self.config.timeout) + WATCHDOG_SLACK_S) * 1e9
        if now - last > limit:
            rec = self._record(stalest)
            op = boardlib.op_name(rec) if rec is not None and rec.op_active else None
            raise DistributedRunFailure(stalest, self.device_ids[stalest], CODE_NO_PROGRESS,
                                        f"no progress on any rank for {(now - last) / 1e9:.2f} s "
                                        f"(timeout {self.config.timeout:g} s)", op=op, board=self._board_lines())


def _overlap(a, b) -> bool:
    return a[0] == b[0] and a[1] < b[2] and b[1] < a[2]


__all__ = ["Session"]
