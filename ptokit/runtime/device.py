"""``ChipWorker`` and ``DeviceTensor``: pypto's explicit-dispatch API on the simulator.

On hardware a ``ChipWorker`` owns a device context and ``DeviceTensor`` s are device buffers that
skip the host-device copies.  Here the device is the simulator in this process: a
``DeviceTensor`` is host memory the worker allocated (64-byte aligned), passed to a run like an
array (copied into the run's device buffers and, for outputs, back), and it keeps its contents
across calls -- a resident weight or cache behaves as on hardware.  Read it with
``worker.copy_from`` (as on hardware) or ``DeviceTensor.host_array()``.

``worker.register(compiled)`` builds and packs the program's tree once and keeps the packed
image; the returned handle runs it without looking the tree up again (the simulator keeps each
loaded binary for the life of the process).  ``worker.run(compiled, *args)`` goes through the
same registration.
"""
from __future__ import annotations

import ctypes
import weakref
from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np

from ..targets import SIM_PLATFORMS, coerce_runtime_kind, runtime_kind_to_name
from .arrays import array_info, coerce_dtype, is_array, to_numpy
from .config import RunConfig
from .worker import Worker

ALIGN = 64
DEFAULT_RUNTIME = "tensormap_and_ringbuffer"

_OPEN_WORKERS: "weakref.WeakSet[ChipWorker]" = weakref.WeakSet()


@dataclass(frozen=True, init=False)
class DeviceTensor:
    """A buffer a ``ChipWorker`` allocated: ``(data_ptr, shape, dtype)``.  ``dtype`` is what was
    given (a pl dtype, numpy dtype or torch dtype)."""

    data_ptr: int
    shape: tuple
    dtype: object

    def __init__(self, data_ptr: int, shape: Sequence[int], dtype) -> None:
        if isinstance(data_ptr, bool) or not isinstance(data_ptr, int) or data_ptr <= 0:
            raise ValueError(f"DeviceTensor.data_ptr must be a positive int, got {data_ptr!r}")
        dims = tuple(shape)
        if not dims:
            raise ValueError("DeviceTensor.shape must be non-empty")
        for d in dims:
            if isinstance(d, bool) or not isinstance(d, int):
                raise TypeError(f"DeviceTensor.shape must contain ints, got {dims!r}")
        if any(d <= 0 for d in dims):
            raise ValueError(f"DeviceTensor.shape must be all positive, got {dims}")
        coerce_dtype(dtype, "DeviceTensor.dtype")
        object.__setattr__(self, "data_ptr", data_ptr)
        object.__setattr__(self, "shape", dims)
        object.__setattr__(self, "dtype", dtype)

    @property
    def ir_dtype(self):
        return coerce_dtype(self.dtype, "DeviceTensor.dtype")

    @property
    def nbytes(self) -> int:
        return int(np.prod(self.shape)) * self.ir_dtype.numpy().itemsize

    def host_array(self) -> np.ndarray:
        """The memory behind this tensor on the simulator, as a numpy array (a view, not a copy)."""
        return resolve_device_tensor(self)

    def __repr__(self) -> str:
        return f"DeviceTensor(data_ptr=0x{self.data_ptr:x}, shape={self.shape}, dtype={self.dtype})"


def resolve_device_tensor(t: DeviceTensor, worker: Optional["ChipWorker"] = None) -> np.ndarray:
    """The host array behind ``t``: in ``worker`` when given, else in any open ChipWorker."""
    workers = [worker] if worker is not None else list(_OPEN_WORKERS)
    for w in workers:
        view = w._view(t)
        if view is not None:
            return view
    where = "this ChipWorker" if worker is not None else "an open ChipWorker"
    raise ValueError(f"{t!r} is not memory of {where}: it was freed, its worker was closed, or it was "
                     f"allocated by another worker (a DeviceTensor belongs to the ChipWorker that allocated it)")


class ChipWorker:
    """A single-chip execution handle bound to ``(platform, device_id, runtime)``.

    ``config`` gives the platform and ``device_id`` (and is the default run configuration of
    ``run`` and registered handles); ``runtime`` is the runtime kind programs must be compiled
    for.  ``level`` must be 2 (one chip; distributed runs have their own worker).
    ``enable_sdma`` provisions the workspace pypto's prefetch artifacts need; ptokit emits none,
    so it only records the request.  ``auto_init`` (default True) initialises at construction.
    """

    def __init__(self, config: Optional[RunConfig] = None, *, level: int = 2, runtime=DEFAULT_RUNTIME,
                 enable_sdma: bool = False, auto_init: Optional[bool] = None) -> None:
        if level != 2:
            raise ValueError(f"ChipWorker only supports level=2 (one chip); got level={level}. Distributed runs "
                             f"go through a distributed program's own worker")
        if config is not None and not isinstance(config, RunConfig):
            raise TypeError(f"config must be a ptokit.runtime.RunConfig, got {type(config).__name__}")
        self._config = config.checked() if config is not None else RunConfig()
        if self._config.platform not in SIM_PLATFORMS:
            raise ValueError(f"a ChipWorker runs programs, and platform {self._config.platform!r} is hardware "
                             f"(it needs the vendor toolchain); use {' or '.join(SIM_PLATFORMS)}")
        self._runtime = runtime_kind_to_name(coerce_runtime_kind(runtime))
        self._enable_sdma = bool(enable_sdma)
        self._buffers: dict = {}          # base pointer -> aligned numpy uint8 buffer
        self._owned_tensors: set = set()  # data pointers of the tensors alloc_tensor made (pypto's name)
        self._registered: dict = {}       # id(compiled) -> (compiled, PreparedTree)
        self._loads = {"tensormap_and_ringbuffer": 0, "host_build_graph": 0}   # per runtime kind
        self._handles: "weakref.WeakSet[RegistrationHandle]" = weakref.WeakSet()
        self._initialized = False
        if auto_init is None or auto_init:
            self.init()

    # ------------------------------------------------------------ lifecycle
    def init(self) -> None:
        """Make the worker ready (idempotent)."""
        if not self._initialized:
            self._initialized = True
            _OPEN_WORKERS.add(self)

    def close(self) -> None:
        """Free every buffer (tensors never freed included), drop the registrations and close the
        handles.  Idempotent; ``init()`` opens it again."""
        if not self._initialized:
            return
        for handle in list(self._handles):
            handle._closed = True
        self._buffers.clear()
        self._owned_tensors.clear()
        self._registered.clear()
        self._handles = weakref.WeakSet()
        self._initialized = False
        _OPEN_WORKERS.discard(self)

    def __enter__(self) -> "ChipWorker":
        self.init()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _require(self, op: str) -> None:
        if not self._initialized:
            raise RuntimeError(f"ChipWorker.{op}() needs an initialised ChipWorker: use `with ChipWorker(...)` or "
                               f"call init() first (it was closed, or built with auto_init=False)")

    @staticmethod
    def _worker_id(worker_id: int, op: str) -> None:
        if worker_id != 0:
            raise ValueError(f"ChipWorker.{op}() only supports worker_id=0, got {worker_id}")

    # ------------------------------------------------------------ memory
    def malloc(self, nbytes: int, *, worker_id: int = 0) -> int:
        """``nbytes`` of memory (zero-filled, 64-byte aligned); returns its address."""
        self._require("malloc")
        self._worker_id(worker_id, "malloc")
        if isinstance(nbytes, bool) or not isinstance(nbytes, int) or nbytes <= 0:
            raise ValueError(f"nbytes must be a positive int, got {nbytes!r}")
        raw = np.zeros(nbytes + ALIGN, dtype=np.uint8)
        off = (-raw.ctypes.data) % ALIGN
        buf = raw[off:off + nbytes]
        ptr = int(buf.ctypes.data)
        self._buffers[ptr] = buf
        return ptr

    def _buffer(self, ptr: int, op: str) -> np.ndarray:
        buf = self._buffers.get(ptr)
        if buf is None:
            raise ValueError(f"ChipWorker.{op}() needs an address returned by this worker's malloc / alloc_tensor; "
                             f"0x{ptr:x} is not one (freed, or an interior pointer)")
        return buf

    def free(self, ptr: int, *, worker_id: int = 0) -> None:
        self._require("free")
        self._worker_id(worker_id, "free")
        self._buffer(ptr, "free")
        del self._buffers[ptr]
        self._owned_tensors.discard(ptr)

    def copy_to(self, dst_dev_ptr: int, src_host_ptr: int, nbytes: int, *, worker_id: int = 0) -> None:
        """Copy ``nbytes`` from host address ``src_host_ptr`` into this worker's ``dst_dev_ptr``."""
        self._require("copy_to")
        self._worker_id(worker_id, "copy_to")
        self._copy(self._buffer(dst_dev_ptr, "copy_to"), nbytes, "copy_to")
        ctypes.memmove(dst_dev_ptr, src_host_ptr, nbytes)

    def copy_from(self, dst_host_ptr: int, src_dev_ptr: int, nbytes: int, *, worker_id: int = 0) -> None:
        """Copy ``nbytes`` from this worker's ``src_dev_ptr`` to host address ``dst_host_ptr``."""
        self._require("copy_from")
        self._worker_id(worker_id, "copy_from")
        self._copy(self._buffer(src_dev_ptr, "copy_from"), nbytes, "copy_from")
        ctypes.memmove(dst_host_ptr, src_dev_ptr, nbytes)

    @staticmethod
    def _copy(buf: np.ndarray, nbytes: int, op: str) -> None:
        if isinstance(nbytes, bool) or not isinstance(nbytes, int) or nbytes <= 0:
            raise ValueError(f"ChipWorker.{op}(): nbytes must be a positive int, got {nbytes!r}")
        if nbytes > buf.nbytes:
            raise ValueError(f"ChipWorker.{op}(): {nbytes} bytes do not fit the {buf.nbytes}-byte buffer")

    def alloc_tensor(self, shape: Sequence[int], dtype, *, init=None, worker_id: int = 0) -> DeviceTensor:
        """A ``DeviceTensor`` of ``shape`` and ``dtype`` (zero-filled, or a copy of ``init``, which must
        have exactly that shape and dtype).  Freed by ``free_tensor`` or, at the latest, ``close``."""
        self._require("alloc_tensor")
        self._worker_id(worker_id, "alloc_tensor")
        dims = tuple(int(d) for d in shape)
        dt = coerce_dtype(dtype, "alloc_tensor dtype")
        if init is not None:
            if not is_array(init):
                raise TypeError(f"alloc_tensor init must be a numpy array or torch tensor, got {type(init).__name__}")
            got_shape, got_dt = array_info(init, "alloc_tensor init")
            if got_shape != dims or got_dt is not dt:
                raise ValueError(f"alloc_tensor init must have shape={dims} dtype={dt.name}, got shape={got_shape} "
                                 f"dtype={getattr(init, 'dtype', got_dt)}")
        nbytes = max(int(np.prod(dims)) * dt.numpy().itemsize, 1)
        ptr = self.malloc(nbytes)
        t = DeviceTensor(ptr, dims, dtype)
        if init is not None:
            np.copyto(self._view(t), to_numpy(init))
        self._owned_tensors.add(ptr)
        return t

    def free_tensor(self, t: DeviceTensor, *, worker_id: int = 0) -> None:
        """Release a tensor from ``alloc_tensor``; freeing it a second time does nothing."""
        self._worker_id(worker_id, "free_tensor")
        if t.data_ptr in self._owned_tensors:
            self.free(t.data_ptr)

    def _view(self, t: DeviceTensor) -> Optional[np.ndarray]:
        buf = self._buffers.get(t.data_ptr)
        if buf is None:
            return None
        np_dt = t.ir_dtype.numpy()
        n = int(np.prod(t.shape)) * np_dt.itemsize
        if n > buf.nbytes:
            raise ValueError(f"{t!r} needs {n} bytes, but its buffer holds {buf.nbytes}")
        return buf[:n].view(np_dt).reshape(t.shape)

    # ------------------------------------------------------------ binding
    @property
    def level(self) -> int:
        return 2

    @property
    def platform(self) -> str:
        return self._config.platform

    @property
    def device_id(self) -> int:
        return self._config.device_id

    @property
    def runtime(self) -> str:
        return self._runtime

    @property
    def enable_sdma(self) -> bool:
        return self._enable_sdma

    @property
    def initialized(self) -> bool:
        return self._initialized

    @property
    def aicpu_dlopen_count(self) -> int:
        """pypto's diagnostic counter: the programs whose orchestration this worker has loaded
        for the AICPU (tensormap_and_ringbuffer).  ``register`` loads a program once; running it
        again, or registering the same program again, loads nothing."""
        return self._loads["tensormap_and_ringbuffer"]

    @property
    def host_dlopen_count(self) -> int:
        """The same counter for host_build_graph programs (their orchestration runs on the host)."""
        return self._loads["host_build_graph"]

    def _check_binding(self, compiled) -> None:
        if compiled.platform != self.platform:
            raise ValueError(f"the program was compiled for {compiled.platform!r}, this ChipWorker runs "
                             f"{self.platform!r}: compile for {self.platform!r}, or use "
                             f"ChipWorker(config=RunConfig(platform={compiled.platform!r}))")
        if compiled.runtime_name != self._runtime:
            raise ValueError(f"the program needs runtime={compiled.runtime_name!r}, this ChipWorker was built with "
                             f"runtime={self._runtime!r}; use ChipWorker(..., runtime={compiled.runtime_name!r})")

    # ------------------------------------------------------------ dispatch
    def register(self, compiled) -> "RegistrationHandle":
        """Build and pack ``compiled``'s tree now and keep it; returns a handle that runs it."""
        self._require("register")
        self._check_binding(compiled)
        key = id(compiled)
        if key not in self._registered:
            from .launcher import prepare_tree   # lazy: the build cache
            self._registered[key] = (compiled, prepare_tree(compiled.output_dir, self._config))
            self._loads[compiled.runtime_name] += 1
        handle = RegistrationHandle(self, compiled, self._registered[key][1])
        self._handles.add(handle)
        return handle

    def run(self, compiled, *args, config: Optional[RunConfig] = None):
        """Run ``compiled`` on this worker (registering it on first use).  Returns what
        ``compiled(*args)`` returns: the outputs when they were left out, else the RunResult."""
        return self.register(compiled)(*args, config=config)


class RegistrationHandle:
    """A program registered on a ``ChipWorker``; call it like the program."""

    def __init__(self, worker: ChipWorker, compiled, prepared) -> None:
        self._worker = worker
        self._compiled = compiled
        self._prepared = prepared
        self._closed = False

    @property
    def compiled(self):
        return self._compiled

    def unregister(self) -> None:
        """Close this handle (the worker keeps the program until it is closed)."""
        self._closed = True

    def __enter__(self) -> "RegistrationHandle":
        return self

    def __exit__(self, *exc) -> None:
        self.unregister()

    def __call__(self, *args, config: Optional[RunConfig] = None):
        if self._closed:
            raise RuntimeError("this RegistrationHandle was unregistered or its ChipWorker was closed")
        worker = self._worker
        worker._require("run")
        cfg = config if config is not None else worker._config
        if not isinstance(cfg, RunConfig):
            raise TypeError(f"config must be a ptokit.runtime.RunConfig, got {type(cfg).__name__}")
        if cfg.platform != worker.platform:
            raise ValueError(f"config platform {cfg.platform!r} differs from the ChipWorker's {worker.platform!r}")
        orch, full, return_style = self._compiled.build_orch_args(*args, worker=worker)
        if cfg.codegen_only:
            return None
        self._compiled.save_tree(cfg)
        from .launcher import run_prepared   # lazy: the simulator driver
        result = run_prepared(self._prepared, orch, cfg)
        self._compiled.last_result = result
        if not return_style:
            return result
        outs = [full[i] for i in self._compiled.output_indices]
        return outs[0] if len(outs) == 1 else tuple(outs)


Worker.register(ChipWorker)   # pypto's abstract runtime handle (ptokit.runtime.Worker)

__all__ = ["ChipWorker", "DeviceTensor", "RegistrationHandle", "resolve_device_tensor"]
