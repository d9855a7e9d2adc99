"""The parent's host runtime: the ``rt`` that ``host_orch.py``'s ``entry(rt, tensors, world_size)``
receives, and the handles it deals in.

* ``rt.alloc_domain(slots)`` -> ``[Slot]``: one window per rank holding the slots in allocation
  order (each 32-byte aligned, sizes rounded up to 32, the window at least 4 KiB), zero-filled,
  at the same offsets on every rank; it lives until the host call ends.  ``slots``: byte
  counts, ``(name, nbytes)`` pairs, or the name of a domain recorded in DISTRIBUTED["domains"].
* ``rt.window(slot, shape, dtype)`` -> ``WindowTensor``: a DistributedTensor view of a slot
  (ValueError when it does not fit).
* ``rt.dispatch(rank | None, chip, tensors, scalars)``: queue a chip program on a rank (after
  that rank's earlier dispatches; ranks run concurrently).  ``None``: no windows, round-robin
  over the ranks from rank 0 each host call.  Returns the dispatch's sequence number.
* ``rt.collective(op, args, attrs)``: a host collective -- the builtin chip program
  ``attrs["chip"]`` (or the one DISTRIBUTED["collectives"] lists for ``op`` and ``attrs["key"]``)
  dispatched to every rank with ``args`` and ``attrs.get("scalars", [])``.
* ``rt.sub(name, args)``: run SubWorker ``name`` (a verified sub_workers/<name>.py) on numpy
  views of ``args``, after the dispatches writing them.
* ``rt.wait_for(tensors)``: block until every dispatch so far that writes one of ``tensors``
  has finished.
* ``rt.private_signal(site, shape)``: the private INT32 signal window of a host collective whose
  signal was omitted (one per call site and host call, zero-filled, reused by the site's later runs).
* ``rt.host_tensor(shape, dtype)``: a host intermediate (zero-filled, in the arena).

Host tensors (``HostTensor``) are views into the call's arena; ``x[r]`` drops dim 0.
"""
from __future__ import annotations

from dataclasses import dataclass
from math import prod
from typing import List, Optional, Sequence, Tuple

import numpy as np

from ..artifacts.kernel_config import param_direction
from ..errors import UserError
from ..runtime import abi
from .messages import ArenaRef, WindowRef
from .segments import Segment, round_up

SLOT_ALIGN = 32
MIN_WINDOW = 4096


def _dtype(dtype) -> np.dtype:
    if isinstance(dtype, str) and dtype.upper() in abi.IR_DTYPE_TO_DATATYPE:
        return abi.numpy_dtype_of(abi.IR_DTYPE_TO_DATATYPE[dtype.upper()])
    if isinstance(dtype, abi.DataType):
        return abi.numpy_dtype_of(dtype)
    return np.dtype(dtype)


def _ir_name(dt: np.dtype) -> str:
    code = abi.datatype_of_numpy(dt)
    return next(n for n, d in abi.IR_DTYPE_TO_DATATYPE.items() if d == code)


@dataclass(frozen=True)
class Slot:
    """A window slot: ``nbytes`` at ``offset`` in every rank's window of ``domain``."""
    domain: int
    index: int
    name: str
    offset: int
    nbytes: int


class WindowTensor:
    """A DistributedTensor: a row-major ``shape``/``dtype`` view of a slot (the executing rank's
    own window when dispatched)."""

    __slots__ = ("slot", "shape", "dtype")

    def __init__(self, slot: Slot, shape: Tuple[int, ...], dtype: np.dtype):
        self.slot, self.shape, self.dtype = slot, tuple(shape), dtype

    @property
    def nbytes(self) -> int:
        return prod(self.shape) * self.dtype.itemsize

    def ref(self) -> WindowRef:
        return WindowRef(self.slot.domain, self.slot.offset, self.shape, int(abi.datatype_of_numpy(self.dtype)))

    def region(self):
        return ("window", self.slot.domain), self.slot.offset, self.slot.offset + self.nbytes

    def __repr__(self) -> str:
        return f"<window {self.slot.name} {self.dtype.name}{list(self.shape)}>"


class HostTensor:
    """A host tensor: a row-major view ``offset`` bytes into an arena segment."""

    __slots__ = ("segment", "offset", "shape", "dtype")

    def __init__(self, segment: Segment, offset: int, shape: Tuple[int, ...], dtype: np.dtype):
        self.segment, self.offset, self.shape, self.dtype = segment, offset, tuple(shape), dtype

    @property
    def nbytes(self) -> int:
        return prod(self.shape) * self.dtype.itemsize

    def numpy(self) -> np.ndarray:
        """A numpy view of the tensor's bytes in the arena (valid until the host call ends)."""
        buf = self.segment.view()[self.offset:self.offset + self.nbytes]
        return np.frombuffer(buf, dtype=self.dtype).reshape(self.shape)

    def __getitem__(self, r):
        if not isinstance(r, (int, np.integer)) or isinstance(r, bool):
            raise TypeError(f"a host tensor is indexed by one integer (x[r] drops dim 0), got {r!r}")
        if not self.shape:
            raise TypeError("a 0-d host tensor cannot be indexed")
        n = self.shape[0]
        i = int(r) + n if r < 0 else int(r)
        if not 0 <= i < n:
            raise IndexError(f"index {r} is out of range for dim 0 of size {n}")
        row = prod(self.shape[1:]) * self.dtype.itemsize
        return HostTensor(self.segment, self.offset + i * row, self.shape[1:] or (1,), self.dtype)

    def __len__(self) -> int:
        return self.shape[0] if self.shape else 0

    def ref(self) -> ArenaRef:
        return ArenaRef(self.segment.name, self.offset, self.shape, int(abi.datatype_of_numpy(self.dtype)))

    def region(self):
        return ("arena", self.segment.name), self.offset, self.offset + self.nbytes

    def __repr__(self) -> str:
        return f"<host tensor {self.dtype.name}{list(self.shape)}>"


def _shape_ok(want, got: Sequence[int], dims: dict) -> bool:
    if not isinstance(want, (list, tuple)):
        return True
    if len(want) != len(got):
        return False
    for w, g in zip(want, got):
        if isinstance(w, int):
            if w != g:
                return False
        elif dims.setdefault(str(w), g) != g:
            return False
    return True


class HostRuntime:
    """The ``rt`` of one host call (built by the session; see the module docstring)."""

    def __init__(self, session):
        self._s = session
        self._rr = 0
        self._signals: dict = {}

    @property
    def world_size(self) -> int:
        return self._s.world_size

    # ------------------------------------------------------------------ windows
    def alloc_domain(self, slots) -> List[Slot]:
        if isinstance(slots, str):
            try:
                plan = self._s.domain_plan(slots)
            except KeyError:
                raise ValueError(f"no window domain named {slots!r} in DISTRIBUTED['domains']") from None
            slots = [(s["name"], s["nbytes"]) for s in plan["slots"]]
        items = []
        for i, s in enumerate(slots):
            name, nbytes = (s if isinstance(s, (tuple, list)) else (f"slot{i}", s))
            if isinstance(nbytes, bool) or not isinstance(nbytes, (int, np.integer)) or nbytes <= 0:
                raise ValueError(f"window slot {name!r}: {nbytes!r} bytes; a slot has a positive byte count")
            items.append((str(name), int(nbytes)))
        if not items:
            raise ValueError("a window domain needs at least one slot")
        offset, layout = 0, []
        for name, nbytes in items:
            offset = round_up(offset, SLOT_ALIGN)
            layout.append((name, offset, nbytes))
            offset += round_up(nbytes, SLOT_ALIGN)
        size = max(offset, MIN_WINDOW)
        domain = self._s.create_windows(size)
        return [Slot(domain, i, name, off, n) for i, (name, off, n) in enumerate(layout)]

    def window(self, slot: Slot, shape, dtype) -> WindowTensor:
        if not isinstance(slot, Slot):
            raise TypeError(f"rt.window takes a slot from rt.alloc_domain, got {slot!r}")
        shape = (shape,) if isinstance(shape, int) else tuple(int(s) for s in shape)
        dt = _dtype(dtype)
        need = prod(shape) * dt.itemsize
        if need > slot.nbytes:
            raise ValueError(f"window {dt.name}{list(shape)} needs {need} bytes but slot {slot.name!r} has "
                             f"{slot.nbytes}")
        return WindowTensor(slot, shape, dt)

    def private_signal(self, site: int, shape) -> WindowTensor:
        """The private INT32 signal of the host collective at call site ``site`` (its signal omitted):
        a window domain of its own, zero-filled, made at the site's first run in this host call and
        reused by its later runs (the collectives' reusable-signal protocol leaves it zero again)."""
        shape = tuple(int(d) for d in shape)
        w = self.world_size
        if shape not in ((w, 1), (2 * (w - 1) + 1, w)):
            raise ValueError(f"a private collective signal {list(shape)} is made for another world size: the "
                             f"program was compiled for {shape[0] if shape[1] == 1 else shape[1]} rank(s) but "
                             f"runs on {w}; compile it for this DistributedConfig")
        sig = self._signals.get(site)
        if sig is None or sig.shape != shape:
            slot = self.alloc_domain([(f"__signal{site}", prod(shape) * 4)])[0]
            sig = self._signals[site] = WindowTensor(slot, shape, np.dtype(np.int32))
        return sig

    def host_tensor(self, shape, dtype) -> HostTensor:
        shape = (shape,) if isinstance(shape, int) else tuple(int(s) for s in shape)
        dt = _dtype(dtype)
        seg = self._s.new_arena(max(prod(shape) * dt.itemsize, 1))
        return HostTensor(seg, 0, shape, dt)

    # ------------------------------------------------------------------ work
    def dispatch(self, rank: Optional[int], chip: str, tensors: Sequence = (), scalars: Sequence = ()) -> int:
        img = self._s.chip(chip)
        params = img.params
        has_windows = any(p["kind"] == "window" for p in params)
        w = self.world_size
        if rank is None:
            if has_windows:
                raise ValueError(f"chip '{chip}' takes windows, so its call needs device=: a call without device= "
                                 f"uses no windows (it goes round-robin over the ranks)")
            rank = self._rr % w
            self._rr += 1
        if isinstance(rank, bool) or not isinstance(rank, (int, np.integer)) or not 0 <= int(rank) < w:
            raise ValueError(f"device={rank!r} is out of range: the program runs on {w} rank(s), 0..{w - 1}")
        rank = int(rank)
        tparams = [p for p in params if p["kind"] in ("tensor", "window")]
        sparams = [p for p in params if p["kind"] == "scalar"]
        tensors, scalars = list(tensors), list(scalars)
        if len(tensors) != len(tparams) or len(scalars) != len(sparams):
            raise TypeError(f"chip '{chip}' takes {len(tparams)} tensor(s) "
                            f"({', '.join(p['name'] for p in tparams) or 'none'}) and {len(sparams)} scalar(s) "
                            f"({', '.join(p['name'] for p in sparams) or 'none'}); got {len(tensors)} and {len(scalars)}")
        dims: dict = {}
        refs, writes = [], []
        for p, t in zip(tparams, tensors):
            if p["kind"] == "window" and not isinstance(t, WindowTensor):
                raise TypeError(f"chip '{chip}' parameter '{p['name']}' is a DistributedTensor: pass a window "
                                f"(rt.window), not {t!r}")
            if not isinstance(t, (WindowTensor, HostTensor)):
                raise TypeError(f"chip '{chip}' parameter '{p['name']}': expected a host tensor or a window, got {t!r}")
            want = p.get("dtype")
            if want and _ir_name(t.dtype) != str(want).upper():
                raise TypeError(f"chip '{chip}' parameter '{p['name']}' is {want}, got {t!r}")
            if not _shape_ok(p.get("shape"), t.shape, dims):
                raise TypeError(f"chip '{chip}' parameter '{p['name']}' has shape {p.get('shape')}, got {list(t.shape)}")
            refs.append(t.ref())
            if param_direction(p) in ("OUT", "INOUT"):
                writes.append(t.region())
        return self._s.send_dispatch(rank, chip, refs, scalars, writes)

    def collective(self, op: str, args: Sequence = (), attrs: Optional[dict] = None) -> List[int]:
        attrs = dict(attrs or {})
        chip = attrs.get("chip") or self._s.collective_chip(op, attrs.get("key"))
        if chip is None:
            raise UserError(f"host collective '{op}' is not supported yet: this tree has no builtin chip program "
                            f"for it (DISTRIBUTED['collectives'] lists none for key {attrs.get('key')!r})")
        scalars = list(attrs.get("scalars", ()))
        return [self.dispatch(r, chip, args, scalars) for r in range(self.world_size)]

    def wait_for(self, tensors: Sequence) -> None:
        regions = [t.region() for t in tensors if isinstance(t, (WindowTensor, HostTensor))]
        self._s.wait_for_regions(regions)

    def sub(self, name: str, args: Sequence = ()):
        fn = self._s.sub_worker(name)
        self.wait_for(args)
        views = [a.numpy() if isinstance(a, HostTensor) else a for a in args]
        if any(isinstance(a, WindowTensor) for a in args):
            raise TypeError(f"SubWorker '{name}' gets host tensors and scalars, not windows")
        return fn(*views)


__all__ = ["HostRuntime", "HostTensor", "WindowTensor", "Slot", "SLOT_ALIGN", "MIN_WINDOW"]
