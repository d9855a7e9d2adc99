"""Python driver of the simulator runtime library (libptosim).

``run_image`` unpacks a callable image, puts each binary into a sealed in-memory file
(``_image_path``; a re-hashed content-addressed file where that is not available), and
hands the paths, the device tensors and the scalars to ``ptosim_run``.
``run_binaries`` is the same without the image (paths of already-built objects).
"""
from __future__ import annotations

import atexit
import ctypes
import fcntl
import hashlib
import os
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional, Sequence

import numpy as np

from ...errors import InternalError, RuntimeFailure
from ...targets import RuntimeKind, runtime_kind_from_name
from .. import abi
from .. import build
from .. import cachedir
from ..callable import unpack_chip_callable
from ..config import DEFAULT_CLUSTERS, RACE_CHECK_MODES, SCHEDULES, RunConfig
from ..external import ExternalTensor
from ..estimate import device_estimate
from ..records import BLOCK_RECORD_DTYPE, EDGE_DTYPE, ESTIMATE_DTYPE, FIFO_WAIT_DTYPE, RunResult, Timeline
from . import comm_abi
from . import aliasing
from .races import Race, RaceList, report

try:
    from numpy.lib.array_utils import byte_bounds
except ImportError:            # numpy < 2
    byte_bounds = np.byte_bounds

SIM_DIR = Path(__file__).resolve().parent
RUNTIME_SOURCE = SIM_DIR / "ptosim.cpp"

# ArgDirection (runtime.md "Callable image")
SCALAR, IN, OUT, INOUT = 0, 1, 2, 3
_DIRECTION_NAMES = {"SCALAR": SCALAR, "IN": IN, "OUT": OUT, "INOUT": INOUT}

# ---------------------------------------------------------------------------
# C API mirror (ptosim_api.h)
# ---------------------------------------------------------------------------


class PtoSimConfig(ctypes.Structure):
    _fields_ = [("platform", ctypes.c_int32), ("runtime_kind", ctypes.c_int32),
                ("aicpu_thread_num", ctypes.c_int32), ("clusters", ctypes.c_int32),
                ("debug_nan_fill", ctypes.c_int32), ("record_args", ctypes.c_int32), ("dump_args", ctypes.c_int32),
                ("timeout_s", ctypes.c_double), ("task_ring_size", ctypes.c_uint64),
                ("heap_size", ctypes.c_uint64), ("dep_pool_size", ctypes.c_uint64),
                ("race_check", ctypes.c_int32), ("schedule", ctypes.c_int32), ("schedule_seed", ctypes.c_uint64),
                ("no_fusion", ctypes.c_int32), ("estimate", ctypes.c_int32)]


class PtoSimKernel(ctypes.Structure):
    _fields_ = [("func_id", ctypes.c_int32), ("core_type", ctypes.c_int32),
                ("path", ctypes.c_char_p), ("name", ctypes.c_char_p)]


class PtoSimStats(ctypes.Structure):
    _fields_ = [("elapsed_ns", ctypes.c_int64), ("tasks", ctypes.c_uint64), ("blocks", ctypes.c_uint64),
                ("edges", ctypes.c_uint64), ("records", ctypes.c_uint64), ("abandoned", ctypes.c_int32),
                ("schedulers", ctypes.c_int32), ("schedule", ctypes.c_int32), ("schedule_from", ctypes.c_uint64)]


class PtoSimDump(ctypes.Structure):
    _fields_ = [("task_seq", ctypes.c_uint64), ("offset", ctypes.c_uint64), ("bytes", ctypes.c_uint64),
                ("func_id", ctypes.c_int32), ("arg", ctypes.c_uint32), ("kind", ctypes.c_uint32),
                ("dtype", ctypes.c_uint32), ("ndims", ctypes.c_uint32), ("shapes", ctypes.c_uint32 * 5),
                ("name", ctypes.c_char * 64)]


class PtoSimRace(ctypes.Structure):
    _fields_ = [("seq_a", ctypes.c_uint64), ("seq_b", ctypes.c_uint64), ("site_a", ctypes.c_int32),
                ("site_b", ctypes.c_int32), ("func_a", ctypes.c_int32), ("func_b", ctypes.c_int32),
                ("arg_a", ctypes.c_uint32), ("arg_b", ctypes.c_uint32), ("kind", ctypes.c_int32),
                ("manual", ctypes.c_int32), ("buffer", ctypes.c_uint64), ("lo", ctypes.c_uint64),
                ("hi", ctypes.c_uint64), ("dtype", ctypes.c_uint32), ("untracked", ctypes.c_uint32),
                ("block_a", ctypes.c_int32), ("block_b", ctypes.c_int32)]


_SIZEOF_IDS = {0: abi.ChipTensor, 1: PtoSimConfig, 2: PtoSimKernel, 3: PtoSimStats, 6: abi.LocalContext,
               7: abi.GlobalContext, 13: PtoSimDump, 14: PtoSimRace}

# ---------------------------------------------------------------------------
# the library
# ---------------------------------------------------------------------------

_lib: Optional[ctypes.CDLL] = None
_lib_lock = threading.Lock()
_run_lock = threading.Lock()
_zombie_buffers: list = []   # device buffers of abandoned runs: a stuck kernel may still touch them


CUBE_SOURCE = SIM_DIR / "ptosim_cube.cpp"
OPS_SOURCE = SIM_DIR / "ptosim_ops.cpp"
OPS_REDUCE_SOURCE = SIM_DIR / "ptosim_ops_reduce.cpp"

# libptosim's translation units, compiled at the same time (one object each, cached by its own
# key) and linked: the runtime, the cube's blocked inner product (pto/cpu/gemm_hooks.hpp) and the
# tile operations for runtime shapes that kernels built with -DPTO_CPU_OOL_OPS call
# (pto/cpu/ops_hooks_main.hpp, pto/cpu/ops_hooks_reduce.hpp). The runtime is built at -O1: 29% less
# g++ than -O2 (5.2 vs 7.2 CPU s) for 2-4% more of its own instructions on 1000-task chains and fans
# (callgrind, race checker off / all; docs/benchmarks.md, issue 33). The operations but the
# reductions are built at OPS_FLAGS, -O1 with the vectoriser and strict aliasing: a third less g++
# than -O2 for loops as fast (element-wise, loads, stores, conversions, the cube: within 2%,
# docs/benchmarks.md); the reductions, whose max/min loops run at half speed so, and the cube's
# kernel keep -O2
OPS_FLAGS = ("-O1", "-ftree-vectorize", "-fstrict-aliasing")
LIBRARY_JOB = build.BuildJob(RUNTIME_SOURCE, include_dirs=(build.INCLUDE_DIR,),
                             extra_flags=("-pthread", "-Werror", "-O1"), name_hint="libptosim")
LIBRARY_UNITS = (LIBRARY_JOB,
                 build.BuildJob(CUBE_SOURCE, include_dirs=(build.INCLUDE_DIR,), extra_flags=("-Werror",),
                                name_hint="libptosim:cube"),
                 build.BuildJob(OPS_SOURCE, include_dirs=(build.INCLUDE_DIR,), extra_flags=("-Werror",) + OPS_FLAGS,
                                name_hint="libptosim:ops"),
                 build.BuildJob(OPS_REDUCE_SOURCE, include_dirs=(build.INCLUDE_DIR,), extra_flags=("-Werror",),
                                name_hint="libptosim:ops-reduce"))
LIBRARY_LINK_FLAGS = ("-pthread",)


def library_path(announce: Optional[Callable[[], None]] = None) -> Path:
    """Build (or find in the build cache) libptosim and return its path; ``announce()`` is called
    first when it has to be built (once per cache: several seconds of g++)."""
    if announce is not None and build.cached_library(LIBRARY_UNITS, LIBRARY_LINK_FLAGS) is None:
        announce()
    return build.build_library(LIBRARY_UNITS, LIBRARY_LINK_FLAGS, name_hint="libptosim")


def start_library_build() -> Optional[threading.Thread]:
    """Build libptosim in the background, when this process has not loaded it yet.

    On an empty cache it is the longest single compile of a first run (~4 s of g++, against
    well under a second for a kernel): started before the kernels of the first tree, it shares
    the cores with them instead of running after them. Joining the thread is optional (the
    build cache's per-key lock makes ``load_library`` wait for it or find its object); a
    failure is left for ``load_library``'s own build to report.
    """
    with _lib_lock:
        if _lib is not None:
            return None

    def build():
        try:
            library_path()
        except Exception:   # reported by load_library, which builds it again
            pass

    t = threading.Thread(target=build, name="ptokit-libptosim-build", daemon=True)
    t.start()
    return t


def load_library() -> ctypes.CDLL:
    """libptosim, loaded RTLD_GLOBAL once per process (kernels' weak hooks bind to it)."""
    global _lib
    with _lib_lock:
        if _lib is not None:
            return _lib
        lib = ctypes.CDLL(str(library_path()), mode=os.RTLD_NOW | os.RTLD_GLOBAL)
        lib.ptosim_run.restype = ctypes.c_int
        lib.ptosim_run.argtypes = [
            ctypes.POINTER(PtoSimConfig), ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(PtoSimKernel),
            ctypes.c_int32, ctypes.c_void_p, ctypes.c_int32, ctypes.POINTER(ctypes.c_uint64), ctypes.c_int32,
            ctypes.c_char_p, ctypes.c_int32, ctypes.POINTER(PtoSimStats), ctypes.POINTER(ctypes.c_void_p)]
        lib.ptosim_result_records.restype = ctypes.c_uint64
        lib.ptosim_result_records.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint64]
        lib.ptosim_result_edges.restype = ctypes.c_uint64
        lib.ptosim_result_edges.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint64]
        lib.ptosim_result_args.restype = ctypes.c_uint64
        lib.ptosim_result_args.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint64]
        lib.ptosim_result_fifo_waits.restype = ctypes.c_uint64
        lib.ptosim_result_fifo_waits.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint64]
        for fn, item in (("ptosim_result_skipped", ctypes.c_uint64), ("ptosim_result_dumps", PtoSimDump),
                         ("ptosim_result_races", PtoSimRace),
                         ("ptosim_result_dump_data", ctypes.c_uint8)):
            getattr(lib, fn).restype = ctypes.c_uint64
            getattr(lib, fn).argtypes = [ctypes.c_void_p, ctypes.POINTER(item), ctypes.c_uint64]
        lib.ptosim_result_free.restype = None
        lib.ptosim_result_free.argtypes = [ctypes.c_void_p]
        lib.ptosim_shutdown.restype = None
        lib.ptosim_shutdown.argtypes = []
        lib.ptosim_set_extra_gm.restype = None
        lib.ptosim_set_extra_gm.argtypes = [ctypes.POINTER(ctypes.c_uint64), ctypes.c_int32]
        lib.ptosim_set_readonly.restype = None
        lib.ptosim_set_comm_ctx.restype = None
        lib.ptosim_set_comm_ctx.argtypes = [ctypes.POINTER(ctypes.c_uint64), ctypes.c_int32]
        lib.ptosim_set_readonly.argtypes = [ctypes.POINTER(ctypes.c_uint64), ctypes.c_int32]
        lib.ptosim_comm_install.restype = ctypes.c_int
        lib.ptosim_comm_install.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        lib.ptosim_comm_shm_table.restype = None
        lib.ptosim_comm_shm_table.argtypes = [ctypes.c_void_p]
        lib.ptosim_sizeof.restype = ctypes.c_uint64
        lib.ptosim_sizeof.argtypes = [ctypes.c_int32]
        lib.ptosim_result_estimates.restype = ctypes.c_uint64
        lib.ptosim_result_estimates.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint64]
        sizes = {4: BLOCK_RECORD_DTYPE.itemsize, 5: EDGE_DTYPE.itemsize, 9: FIFO_WAIT_DTYPE.itemsize,
                 15: ESTIMATE_DTYPE.itemsize}
        sizes.update({k: ctypes.sizeof(v) for k, v in {**_SIZEOF_IDS, **comm_abi.SIZEOF_IDS}.items()})
        for which, size in sizes.items():
            got = lib.ptosim_sizeof(which)
            if got != size:
                raise InternalError(f"libptosim struct {which} is {got} bytes, the Python mirror {size}")
        atexit.register(lib.ptosim_shutdown)
        _lib = lib
        return lib


def comm_install(table: Optional["comm_abi.PtoCommOps"], board_addr: int = 0) -> None:
    """Install ``table`` (a ``comm_abi.PtoCommOps`` with its window list) as this process's
    window transport for the following runs, with the status-board record at ``board_addr``
    (0: none); ``None`` removes it. The caller keeps ``table`` and its windows alive."""
    lib = load_library()
    rc = lib.ptosim_comm_install(ctypes.addressof(table) if table is not None else None, board_addr or None)
    if rc != 0:
        raise InternalError(f"libptosim refused the comm table (abi {getattr(table, 'abi', '?')}, "
                            f"{getattr(table, 'nwindows', '?')} windows)")


def comm_shm_table() -> "comm_abi.PtoCommOps":
    """A ``PtoCommOps`` with the shared-memory transport's functions (windows still to fill in)."""
    table = comm_abi.PtoCommOps()
    load_library().ptosim_comm_shm_table(ctypes.addressof(table))
    return table


def shutdown() -> None:
    """Join the simulator's device threads (they are restarted by the next run)."""
    if _lib is not None:
        _lib.ptosim_shutdown()

# ---------------------------------------------------------------------------
# arguments
# ---------------------------------------------------------------------------


def _torch_tensor_type():
    torch = sys.modules.get("torch")  # never import torch ourselves
    return getattr(torch, "Tensor", None) if torch is not None else None


def _host_array(arg):
    """(numpy view of the caller's data, is_tensor)."""
    if isinstance(arg, np.ndarray):
        return arg, True
    tt = _torch_tensor_type()
    if tt is not None and isinstance(arg, tt):
        if arg.device.type != "cpu":
            raise ValueError(f"torch tensor on {arg.device}: only CPU tensors can be passed to the simulator")
        t = arg.detach()
        torch = sys.modules["torch"]
        if t.dtype == torch.bfloat16:
            import ml_dtypes   # lazy: half a second to import, and only a torch bfloat16 tensor needs it
            return t.view(torch.int16).numpy().view(ml_dtypes.bfloat16), True
        return t.numpy(), True
    return None, False


def _device_copy(arr: np.ndarray) -> np.ndarray:
    """A 64-byte-aligned C-contiguous copy of ``arr`` in native byte order, at an address of its
    own even when it is empty (an empty tensor is a valid argument, never a null buffer)."""
    dtype = arr.dtype.newbyteorder("=")
    nbytes = max(arr.nbytes, 1)
    raw = np.empty(nbytes + 64, dtype=np.uint8)
    off = (-raw.ctypes.data) % 64
    dev = raw[off:off + arr.nbytes].view(dtype).reshape(arr.shape)
    if arr.nbytes:
        np.copyto(dev, arr)
    return dev


def copy_reason(arr: np.ndarray, addr: Optional[int] = None) -> Optional[str]:
    """Why ``arr`` cannot be the device buffer itself (None: it can, used in place). The device
    code needs a C-contiguous array in native byte order whose address (``addr``, when the caller
    has it) is a multiple of its element size (every GM access is a typed load or store of whole
    elements)."""
    if not arr.flags.c_contiguous:
        return "not C-contiguous"
    if not arr.dtype.isnative:
        return "not in native byte order"
    if (arr.ctypes.data if addr is None else addr) % arr.dtype.itemsize:
        return f"address not a multiple of its {arr.dtype.itemsize}-byte element"
    return None


@dataclass
class _Marshalled:
    tensors: ctypes.Array
    ntensors: int
    scalars: ctypes.Array
    nscalars: int
    keep: list
    copy_back: list   # (host view, device copy)
    copied: tuple = ()      # (argument index, reason) of every array argument copied into a device buffer
    in_place: tuple = ()    # argument indices of the arrays the run uses in place
    readonly: tuple = ()    # (addr, nbytes, argument index) of the inputs used in place (never written)


def _shares_elements(a: np.ndarray, b: np.ndarray, real_a, real_b) -> bool:
    """Whether two arrays whose byte ranges overlap share an element: exact for views of one
    virtual range (two interleaved column views do not), the ranges' word for mapped files."""
    if all(k == ("mem",) for k, _, _ in list(real_a) + list(real_b)):
        try:
            return bool(np.shares_memory(a, b, max_work=1 << 20))
        except getattr(np, "exceptions", np).TooHardError:
            return True
    return True


def _arg_name(i: int, names: Optional[Sequence[str]]) -> str:
    return f"argument {i} ({names[i]})" if names and i < len(names) and names[i] else f"argument {i}"


def marshal_args(args: Sequence, signature: Optional[Sequence[int]] = None,
                 scalar_dtypes: Optional[Sequence] = None, in_place: bool = True,
                 arg_names: Optional[Sequence[str]] = None) -> _Marshalled:
    """Device tensors + scalar bit patterns for the orchestration arguments.

    ``signature``: ArgDirection per arg (SCALAR/IN/OUT/INOUT) or None (copy every tensor
    back).  ``scalar_dtypes``: per-arg dtype for scalars (IR name / numpy dtype / None).

    An array is the device buffer itself (``in_place``) unless ``copy_reason`` names why not, or
    it is written (OUT / INOUT) and shares bytes with another argument used in place (the copy
    keeps today's order: the run reads the others, then the result is copied back). Inputs used
    in place are listed in ``readonly``: the simulator refuses a write into them. Sharing is
    judged by the memory behind the addresses (``aliasing``: one file mapped twice shares its
    bytes); two written arrays that share an element are a ValueError naming both
    (``arg_names``: the parameters' names, for the message).
    """
    signature = list(signature or [])
    per_arg = len(signature) == len(args)
    tensor_dirs = None
    hosts = [None if isinstance(a, ExternalTensor) else _host_array(a) for a in args]
    if signature and not per_arg:
        tensor_dirs = [d for d in signature if d != SCALAR]
        n_tensors = sum(1 for a, h in zip(args, hosts) if isinstance(a, ExternalTensor) or h[1])
        if len(tensor_dirs) != n_tensors:
            raise ValueError(f"the program takes {len(signature)} arguments "
                             f"({len(tensor_dirs)} tensors), {len(args)} were given ({n_tensors} tensors)")
    # pass 1: what every argument is, and the direction of each tensor
    plan = []   # (i, kind, host, direction); kind: "ext" | "array" | "scalar"
    t_index = 0
    for i, a in enumerate(args):
        if isinstance(a, ExternalTensor):   # in place: no copy in, no copy back
            if tensor_dirs is None and per_arg and signature[i] == SCALAR:
                raise ValueError(f"argument {i} is a tensor but the program expects a scalar there")
            plan.append((i, "ext", a, None))
            t_index += 1
            continue
        host, is_tensor = hosts[i]
        if is_tensor and host.ndim == 0 and per_arg and signature[i] == SCALAR:
            is_tensor = False          # a 0-d array where the program takes a scalar: its value
        if not is_tensor:
            if per_arg and signature[i] != SCALAR:
                raise ValueError(f"argument {i} ({a!r}) is a scalar but the program expects a tensor there")
            plan.append((i, "scalar", a, None))
            continue
        if host.ndim > abi.MAX_DIMS:
            raise ValueError(f"argument {i}: {host.ndim}-d array, the device supports at most {abi.MAX_DIMS} dims")
        abi.datatype_of_numpy(host.dtype)
        if tensor_dirs is not None:
            direction = tensor_dirs[t_index]
        elif per_arg:
            direction = signature[i]
            if direction == SCALAR:
                raise ValueError(f"argument {i} is a tensor but the program expects a scalar there")
        else:
            direction = INOUT
        if direction in (OUT, INOUT) and not host.flags.writeable:
            raise ValueError(f"argument {i} is an output but its array is read-only")
        plan.append((i, "array", host, direction))
        t_index += 1
    # pass 2: which arrays are copied, and why
    reasons = {}
    spans = {}    # argument index -> byte span of what the run uses in place
    bounds = {}   # argument index -> the bytes every array (used in place or not) spans
    arrays = {}
    for i, kind, a, direction in plan:
        if kind == "ext":
            spans[i] = bounds[i] = (a.addr, a.addr + a.nbytes)
        elif kind == "array" and a.nbytes:
            addr = a.ctypes.data      # once: each .ctypes costs microseconds
            why = "RunConfig(in_place=False)" if not in_place else copy_reason(a, addr)
            bounds[i] = (addr, addr + a.nbytes) if a.flags.c_contiguous else byte_bounds(a)
            arrays[i] = a
            if why:
                reasons[i] = why
            else:
                spans[i] = bounds[i]
    # what backs each span: one file mapped twice is one memory at two addresses (aliasing.py)
    real = aliasing.backed_spans(bounds, arrays)
    ext = {i for i, kind, _, _ in plan if kind == "ext"}
    written_args = [i for i, kind, a, direction in plan if kind == "array" and i in bounds and direction in (OUT, INOUT)]
    for x, i in enumerate(written_args):
        for j in written_args[x + 1:]:
            if aliasing.overlapping(real[i], real[j]) and _shares_elements(hosts[i][0], hosts[j][0], real[i], real[j]):
                raise ValueError(f"{_arg_name(i, arg_names)} and {_arg_name(j, arg_names)} are both outputs and share "
                                 f"memory (the same array, views of one array, or one file mapped twice): the run "
                                 f"would write both and only one result could be kept; pass a separate array for "
                                 f"each output")
    for i, kind, a, direction in plan:
        if kind == "array" and i in spans:
            written = direction in (OUT, INOUT)
            other = next((j for j in spans if j != i and (written or j in ext)
                          and aliasing.overlapping(real[i], real[j])), None)
            if other is not None:
                reasons[i] = f"{'written' if written else 'read'}, and shares memory with argument {other}"
    for i in reasons:
        spans.pop(i, None)
    # pass 3: descriptors
    descs, scalars, keep, back, readonly, placed = [], [], [], [], [], []
    for i, kind, a, direction in plan:
        if kind == "ext":
            descs.append(a.descriptor())
        elif kind == "scalar":
            dtype = scalar_dtypes[i] if scalar_dtypes and i < len(scalar_dtypes) else None
            scalars.append(abi.to_u64(a, dtype, f"argument {i}"))
        else:
            host = a
            dt = abi.datatype_of_numpy(host.dtype)
            shape = host.shape or (1,)
            if i in reasons or not host.nbytes:
                dev = _device_copy(host)
                if host.nbytes and direction in (OUT, INOUT):
                    back.append((host, dev))
                addr = dev.ctypes.data
            else:
                dev = host
                placed.append(i)
                addr = spans[i][0]
                if direction == IN:
                    readonly.append((addr, host.nbytes, i))
            keep.append(dev)
            descs.append(abi.make_chip_tensor(addr, dev.nbytes, shape, dt))
    if len(descs) > abi.CHIP_MAX_TENSOR_ARGS:
        raise ValueError(f"{len(descs)} tensor arguments: at most {abi.CHIP_MAX_TENSOR_ARGS}")
    tarr = (abi.ChipTensor * max(len(descs), 1))(*descs)
    sarr = (ctypes.c_uint64 * max(len(scalars), 1))(*scalars)
    return _Marshalled(tarr, len(descs), sarr, len(scalars), keep, back, tuple(sorted(reasons.items())),
                       tuple(placed), tuple(readonly))


# ---------------------------------------------------------------------------
# running
# ---------------------------------------------------------------------------


@dataclass
class KernelBinary:
    func_id: int
    path: str
    name: str = ""
    core_type: Optional[str] = None   # "aiv" | "aic" | None (unknown)


def _sim_config(config: RunConfig, runtime: RuntimeKind) -> PtoSimConfig:
    c = PtoSimConfig()
    c.platform = 1 if config.platform == "a5sim" else 0
    c.runtime_kind = 1 if runtime == RuntimeKind.HOST_BUILD_GRAPH else 0
    c.aicpu_thread_num = config.aicpu_thread_num
    c.clusters = config.clusters or DEFAULT_CLUSTERS
    c.debug_nan_fill = 1 if config.debug_nan_fill else 0
    c.no_fusion = 0 if config.fusion else 1
    c.estimate = 1 if config.estimate else 0
    c.record_args = 1 if config.trace else 0
    c.dump_args = config.enable_dump_args
    c.timeout_s = float(config.timeout)
    c.task_ring_size = config.task_ring_size
    c.heap_size = config.heap_size
    c.dep_pool_size = config.dep_pool_size
    c.race_check = RACE_CHECK_MODES.index(config.race_check)
    c.schedule = SCHEDULES.index(config.schedule)
    c.schedule_seed = config.schedule_seed
    return c


def run_binaries(orchestration: str, kernels: Sequence[KernelBinary], args: Sequence,
                 config: Optional[RunConfig] = None, *, func_name: str = "aicpu_orchestration_entry",
                 signature: Optional[Sequence[int]] = None, scalar_dtypes: Optional[Sequence] = None,
                 runtime=None, dump_dir=None, extra_gm: Sequence = (), sites=None,
                 arg_names: Optional[Sequence[str]] = None, comm_ctx: Sequence[int] = ()) -> RunResult:
    """Run an orchestration .so with kernel .so files (paths) on the simulator.

    With ``config.enable_dump_args`` the dumped task arguments are written under ``dump_dir``
    (``dumps.write_dumps``; default: ``dumps`` in the current folder).  ``extra_gm``: ``(addr,
    nbytes)`` ranges, beyond the tensor arguments, that the run's live-buffer check
    (``pto_cpu_check_gm``) accepts (the windows and arena of a distributed run).  Races the
    ``comm_ctx``: addresses of the CommContexts the kernels read (a window's context parameter, one u64
    slot per ``pto.load_scalar``; a read of a peer's window base outside the run's ranks is a fatal
    error naming the peer).  Races the
    checker found (``config.race_check``) are a ``races.RaceError`` after the outputs are copied
    back, or a ``RaceWarning`` (``race_report="warn"``); ``sites`` (the tree's site table)
    locates them in the DSL.
    """
    config = config or RunConfig()
    kind = runtime if isinstance(runtime, RuntimeKind) else (
        runtime_kind_from_name(runtime) if runtime else config.runtime_kind)
    lib = load_library()
    m = marshal_args(args, signature, scalar_dtypes, in_place=config.in_place, arg_names=arg_names)
    ks = (PtoSimKernel * max(len(kernels), 1))()
    names = {}
    enc = []
    for i, k in enumerate(kernels):
        p, n = str(k.path).encode(), (k.name or f"func_{k.func_id}").encode()
        enc += [p, n]
        ks[i].func_id = int(k.func_id)
        ks[i].core_type = {"aic": 0, "aiv": 1}.get(k.core_type or "", -1)
        ks[i].path = p
        ks[i].name = n
        names[int(k.func_id)] = n.decode()
    cfg = _sim_config(config, kind)
    err = ctypes.create_string_buffer(4096)
    stats = PtoSimStats()
    handle = ctypes.c_void_p()
    pairs = [int(v) for rng in extra_gm for v in (rng[0], rng[1])]
    gm = (ctypes.c_uint64 * max(len(pairs), 1))(*pairs)
    triples = [int(v) for t in m.readonly for v in t]
    ro = (ctypes.c_uint64 * max(len(triples), 1))(*triples)
    ctxs = (ctypes.c_uint64 * max(len(comm_ctx), 1))(*[int(a) for a in comm_ctx])
    with _run_lock:
        lib.ptosim_set_extra_gm(gm, len(pairs) // 2)
        lib.ptosim_set_comm_ctx(ctxs, len(comm_ctx))
        lib.ptosim_set_readonly(ro, len(m.readonly))
        code = lib.ptosim_run(ctypes.byref(cfg), str(orchestration).encode(), func_name.encode(), ks, len(kernels),
                              ctypes.cast(m.tensors, ctypes.c_void_p), m.ntensors, m.scalars, m.nscalars,
                              err, len(err), ctypes.byref(stats), ctypes.byref(handle))
    try:
        if stats.abandoned:
            _zombie_buffers.append(m.keep)   # the caller's arrays used in place too: kept alive
        if code != 0:
            raise RuntimeFailure(code, err.value.decode("utf-8", "replace") + _failed_outputs_note(m, stats))
        n = lib.ptosim_result_records(handle, None, 0)
        blocks = np.zeros(n, dtype=BLOCK_RECORD_DTYPE)
        if n:
            lib.ptosim_result_records(handle, blocks.ctypes.data, n)
        ne = lib.ptosim_result_edges(handle, None, 0)
        edges = np.zeros(ne, dtype=EDGE_DTYPE)
        if ne:
            lib.ptosim_result_edges(handle, edges.ctypes.data, ne)
        skipped = _result_array(lib.ptosim_result_skipped, handle, ctypes.c_uint64)
        estimates = None
        if config.estimate:
            estimates = np.zeros(n, dtype=ESTIMATE_DTYPE)
            if n:
                lib.ptosim_result_estimates(handle, estimates.ctypes.data, n)
        found = lib.ptosim_result_races(handle, None, 0) if config.race_check != "off" else 0
        races = _result_array(lib.ptosim_result_races, handle, PtoSimRace) if found else []
        dumped = None
        if config.enable_dump_args:
            dumped = (_result_array(lib.ptosim_result_dumps, handle, PtoSimDump),
                      _result_array(lib.ptosim_result_dump_data, handle, ctypes.c_uint8))
        task_args, fifo_waits = {}, None
        if config.trace:
            nf = lib.ptosim_result_fifo_waits(handle, None, 0)
            fifo_waits = np.zeros(nf, dtype=FIFO_WAIT_DTYPE)
            if nf:
                lib.ptosim_result_fifo_waits(handle, fifo_waits.ctypes.data, nf)
            nw = lib.ptosim_result_args(handle, None, 0)
            words = np.zeros(nw, dtype=np.uint32)
            if nw:
                lib.ptosim_result_args(handle, words.ctypes.data, nw)
            task_args = _decode_task_args(words)
    finally:
        if handle.value:
            lib.ptosim_result_free(handle)
    for host, dev in m.copy_back:
        np.copyto(host, dev)
    result = RunResult(elapsed=stats.elapsed_ns / 1e9, tasks=int(stats.tasks), blocks=int(stats.blocks),
                       timeline=Timeline(blocks, edges, names, task_args, fifo_waits, tuple(int(s) for s in skipped),
                                         estimates),
                       schedulers=int(stats.schedulers), runtime=kind, clusters=config.clusters or DEFAULT_CLUSTERS,
                       platform=config.platform, schedule=SCHEDULES[stats.schedule],
                       schedule_from=int(stats.schedule_from) if stats.schedule else None,
                       copied=m.copied, in_place=m.in_place)
    if estimates is not None:
        result.estimate = device_estimate(result.timeline, config.platform)
    if found:
        result.races = race_records(races, found, names, m.tensors[:m.ntensors])
    if dumped is not None:
        from .dumps import write_dumps   # only a run that dumps needs it
        result.dump_dir = write_dumps(Path(dump_dir) if dump_dir is not None else Path("dumps"),
                                      dumped[0], dumped[1], names)
    if config.trace:   # tracing hook (ptokit/runtime/trace.py); nothing to do when off
        from ..trace import write_trace   # lazy: only a traced run needs it (and the summary it imports)
        write_trace(config.trace, result)
    if result.races:
        report(result.races, sites, config.race_report)
    return result


def _failed_outputs_note(m: _Marshalled, stats: PtoSimStats) -> str:
    """What a failed run left in the output arrays it wrote in place (docs/decisions.md)."""
    ro = {t[2] for t in m.readonly}
    outs = [i for i in m.in_place if i not in ro]
    if not outs:
        return ""
    which = ", ".join(map(str, outs))
    note = (f"\n(the output arrays used in place, arguments {which}, hold what the run wrote before it stopped; "
            f"RunConfig(in_place=False) leaves them untouched on failure")
    if stats.abandoned:
        note += "; kernels that did not stop may still write them, and ptokit keeps them alive for that"
    return note + ")"


def race_records(races, found: int, names: dict, tensors) -> "RaceList":
    """The checker's PtoSimRace records as ``races.Race`` values (sites still unresolved),
    naming an orchestration argument when the buffer is one."""
    args = {int(t.buffer.addr): i for i, t in enumerate(tensors)}
    out = RaceList(found=int(found))
    for x in races:
        out.append(Race(seq_a=int(x.seq_a), seq_b=int(x.seq_b), site_a=int(x.site_a), site_b=int(x.site_b),
                        kernel_a=names.get(int(x.func_a), f"func_{x.func_a}"),
                        kernel_b=names.get(int(x.func_b), f"func_{x.func_b}"), arg_a=int(x.arg_a),
                        arg_b=int(x.arg_b), kind=("RAW", "WAR", "WAW")[x.kind], manual=bool(x.manual & 1),
                        nested=("", "b", "a")[(x.manual >> 1) & 3 if (x.manual >> 1) & 3 < 3 else 0],
                        buffer=int(x.buffer), lo=int(x.lo), hi=int(x.hi), dtype=int(x.dtype),
                        untracked=bool(x.untracked), orch_arg=args.get(int(x.buffer)), block_a=int(x.block_a),
                        block_b=int(x.block_b)))
    return out


def _result_array(fn, handle, item) -> list:
    """All items of one ``ptosim_result_*`` list (asked for its length first)."""
    n = fn(handle, None, 0)
    buf = (item * max(n, 1))()
    if n:
        fn(handle, buf, n)
    return bytes(buf)[:n] if item is ctypes.c_uint8 else list(buf[:n])


_ARG_KINDS = {0: "in", 1: "out", 2: "out", 3: "inout", 4: "no_dep"}   # PTO2ArgKind


def _decode_task_args(words: np.ndarray) -> dict:
    """ptosim_result_args words -> {task seq: ("in float32[32, 64]", ...)}."""
    w = words.tolist()
    out, i = {}, 0
    while i + 3 <= len(w):
        seq, nt = w[i] | (w[i + 1] << 32), w[i + 2]
        i += 3
        descs = []
        for _ in range(nt):
            head = w[i]
            kind, dt, nd = head & 0xFF, (head >> 8) & 0xFF, (head >> 16) & 0xFF
            shape = w[i + 1:i + 1 + nd]
            i += 1 + nd
            try:
                dname = abi.DataType(dt).name.lower()
            except ValueError:
                dname = f"dtype{dt}"
            descs.append(f"{_ARG_KINDS.get(kind, str(kind))} {dname}{list(shape)}")
        out[seq] = tuple(descs)
    return out


def _image_dir() -> Path:
    return cachedir.checked_subdir("sim_images")


def _content_file(data: bytes, suffix: str = ".so") -> Path:
    """A file named by the sha256 of ``data`` holding exactly ``data`` (the fallback of
    ``_image_path``): an existing one is re-hashed before every use (a private file of the
    user whose content matches its name), anything else is replaced, never loaded."""
    digest = hashlib.sha256(data).hexdigest()
    folder = _image_dir() / digest[:2]
    path = folder / f"{digest}{suffix}"
    if cachedir.sha256_verified(path, digest):
        return path
    cachedir.ensure_dir(folder)
    cachedir.sweep_temp_files(folder)
    cachedir.write_private(path, data, cachedir.EXEC_MODE)
    if not cachedir.sha256_verified(path, digest):
        raise RuntimeFailure(10, f"{path} does not hold the bytes just written to it; "
                                 f"is another process writing the cache?")
    return path


_memfds: dict = {}            # sha256 -> fd of a sealed in-memory file with those bytes (kept open:
_memfd_lock = threading.Lock()  # the simulator never dlcloses, and the path names the content)
_SEALS = ("F_SEAL_SEAL", "F_SEAL_SHRINK", "F_SEAL_GROW", "F_SEAL_WRITE")


def _image_path(data: bytes, label: str = "so") -> str:
    """A path the simulator can ``dlopen`` that holds exactly ``data``.

    The bytes go into a sealed ``memfd`` (no write, shrink or grow once sealed) opened as
    ``/proc/self/fd/N``: nothing on disk is loaded, so nothing on disk can be swapped in.
    Where that is not available, a content-named file in the cache, re-hashed before use.
    """
    digest = hashlib.sha256(data).hexdigest()
    with _memfd_lock:
        fd = _memfds.get(digest)
        if fd is None and hasattr(os, "memfd_create") and os.path.isdir("/proc/self/fd"):
            try:
                fd = os.memfd_create(f"ptokit-{label[:40]}-{digest[:12]}", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
            except OSError:       # no memfd (or out of descriptors): the file fallback below
                fd = None
            if fd is not None:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
                seals = 0
                for name in _SEALS:
                    seals |= getattr(fcntl, name, 0)
                if hasattr(fcntl, "F_ADD_SEALS"):
                    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, seals)
                _memfds[digest] = fd
    if fd is None:
        return str(_content_file(data))
    return f"/proc/self/fd/{fd}"


def run_image(image: bytes, args: list, config: Optional[RunConfig] = None, kernel_names=None, *,
              scalar_dtypes: Optional[Sequence] = None, kernel_core_types=None, dump_dir=None,
              extra_gm: Sequence = (), sites=None, comm_ctx: Sequence[int] = ()) -> RunResult:
    """Run a callable image (``ptokit.runtime.callable``) on the simulator.

    Tensor arguments are numpy arrays / torch CPU tensors (used in place when ``copy_reason``
    allows, else copied in and outputs copied back: ``marshal_args``) or
    ``ptokit.runtime.ExternalTensor`` (used in place); ``extra_gm`` as for ``run_binaries``.

    ``kernel_names`` / ``kernel_core_types``: optional ``{func_id: str}`` for messages and
    core-type checks.  The runtime kind is ``config.runtime`` (default tensormap_and_ringbuffer).
    """
    loaded = load_image(image, kernel_names, kernel_core_types)
    return run_binaries(loaded.orchestration, loaded.kernels, args, config or RunConfig(),
                        func_name=loaded.func_name, signature=loaded.signature, scalar_dtypes=scalar_dtypes,
                        dump_dir=dump_dir, extra_gm=extra_gm, sites=sites, comm_ctx=comm_ctx)


@dataclass(frozen=True)
class LoadedImage:
    """A callable image's binaries as sealed in-memory files (``_image_path``), ready for
    ``run_binaries``; a caller that runs one image many times keeps this instead of the image
    while ``sealed`` (content files of the fallback must be loaded again: re-hashed before use)."""

    orchestration: str
    kernels: tuple
    func_name: str
    signature: Optional[list]
    sealed: bool = True    # every binary in a sealed memfd (else content files, re-hashed before each use)


def load_image(image: bytes, kernel_names=None, kernel_core_types=None) -> LoadedImage:
    view = unpack_chip_callable(image)
    orch = _image_path(view.orchestration, view.func_name or "orchestration")
    names = dict(kernel_names or {})
    types = dict(kernel_core_types or {})
    kernels = tuple(KernelBinary(c.func_id, _image_path(c.binary, names.get(c.func_id, f"func_{c.func_id}")),
                                 names.get(c.func_id, f"func_{c.func_id}"),
                                 types.get(c.func_id)) for c in view.children)
    sealed = all(p.startswith("/proc/self/fd/") for p in [orch] + [k.path for k in kernels])
    return LoadedImage(str(orch), kernels, view.func_name or "aicpu_orchestration_entry",
                       list(view.signature) or None, sealed)
