"""Targets: the platform names and runtime kinds every stage may ask about.

The lowest floor of the package besides ``errors``: the front end, passes, backend, runtime and
jit read platform and runtime-kind facts here, so none of them imports another stage to learn
them.  The runtime kind is an enum; its wire name crosses the boundary in exactly one place each
way (``runtime_kind_to_name`` / ``runtime_kind_from_name``).
"""
from __future__ import annotations

import enum
import os
import sys
from dataclasses import dataclass
from typing import Dict, FrozenSet, Optional, Tuple, Union

PLATFORMS = ("a2a3sim", "a5sim", "a2a3", "a5")
SIM_PLATFORMS = ("a2a3sim", "a5sim")


class RuntimeKind(enum.Enum):
    TENSORMAP_AND_RINGBUFFER = "tensormap_and_ringbuffer"
    HOST_BUILD_GRAPH = "host_build_graph"


_NAMES = {
    RuntimeKind.TENSORMAP_AND_RINGBUFFER: "tensormap_and_ringbuffer",
    RuntimeKind.HOST_BUILD_GRAPH: "host_build_graph",
}
_KINDS = {name: kind for kind, name in _NAMES.items()}


def runtime_kind_to_name(kind: RuntimeKind) -> str:
    """The wire name written into kernel_config.py."""
    if not isinstance(kind, RuntimeKind):
        raise TypeError(f"expected a RuntimeKind, got {kind!r}")
    return _NAMES[kind]


def runtime_kind_from_name(name: str) -> RuntimeKind:
    """Parse a wire name; an unknown one is a ValueError listing the valid names."""
    try:
        return _KINDS[name]
    except (KeyError, TypeError):
        valid = ", ".join(repr(n) for n in _KINDS)
        raise ValueError(f"unknown runtime kind {name!r}; valid names are {valid}") from None


def coerce_runtime_kind(value: Union[RuntimeKind, str, None]) -> Optional[RuntimeKind]:
    if value is None or isinstance(value, RuntimeKind):
        return value
    return runtime_kind_from_name(value)


def validate_platform(platform: str) -> str:
    if platform not in PLATFORMS:
        raise ValueError(f"unknown platform {platform!r}; valid platforms are {', '.join(PLATFORMS)}")
    return platform


# runtime scopes that may be open at once, the function's own included (PTO2_MAX_SCOPE_DEPTH of the
# orchestration API header, ptokit/runtime/include/pto_orchestration_api.h)
MAX_RUNTIME_SCOPE_DEPTH = 4

# AI Core clock of each architecture, for estimated device time (docs/estimate.md): a2a3 runs at 1.85 GHz
# (the vendor cost model's main frequency); a5 has no figure here, and no estimate
DEVICE_CLOCK_HZ = {"a2a3": 1.85e9}
# the pipes an estimate reports, in its order (the simulator's PtoSimEstimate arrays)
ESTIMATE_PIPES = ("Scalar", "MTE2", "MTE1", "CUBE", "FIXP", "VEC", "MTE3")


def target_arch(platform: str) -> str:
    """'a2a3' or 'a5': the pto.target_arch of a platform."""
    return "a5" if validate_platform(platform).startswith("a5") else "a2a3"


# ``ptoas_compat``: the assembler release a tree is written for. None is pypto HEAD's `.pto`; "0.27"
# is what ptoas 0.27 accepts (no ``slot_num`` on ``*_initialize_pipe``: it picks the slot counts
# itself, see ``default_pipe_slots``; on a5 it runs the AIV body on subblock 0 only).
PTOAS_COMPAT = ("0.27",)


def validate_ptoas_compat(value) -> Optional[str]:
    """None or one of PTOAS_COMPAT; anything else is a ValueError naming the valid values."""
    if value is None or value in PTOAS_COMPAT:
        return value
    raise ValueError(f"unknown ptoas_compat {value!r}; valid values are None (pypto HEAD's .pto) or "
                     f"{', '.join(repr(v) for v in PTOAS_COMPAT)}")


# The ``ptoas_compat`` of a compile that gives none (nor an active PassContext): a user whose installed
# ptoas is 0.27 sets it once instead of passing the option to every compile (the suite's
# ``--real-tools`` sets it from the tool's ``--version``).
PTOAS_COMPAT_ENV = "PTOKIT_PTOAS_COMPAT"


def default_ptoas_compat() -> Optional[str]:
    """``$PTOKIT_PTOAS_COMPAT`` (unset or empty: None, pypto HEAD's `.pto`); another value than
    PTOAS_COMPAT's is a ValueError naming the variable."""
    value = os.environ.get(PTOAS_COMPAT_ENV, "").strip() or None
    try:
        return validate_ptoas_compat(value)
    except ValueError as exc:
        raise ValueError(f"{PTOAS_COMPAT_ENV}: {exc}") from None


def default_pipe_slots(arch: str, dir_mask: int) -> Tuple[int, int]:
    """(SlotNum, LocalSlotNum) of a pipe whose ``*_initialize_pipe`` gives no ``slot_num``: 8 slots
    one way, 4 per direction both ways (pypto-parity.md, section E); the consumer's local ring holds
    all of them on a2a3 and 2 on a5 (what ptoas 0.27 then chooses, shared/interop/API.md)."""
    return Target.of_arch(arch).pipe_slots(dir_mask)


# ---------------------------------------------------------------------------
# the target as an object: what the passes, codegen and backend ask instead of comparing names
# ---------------------------------------------------------------------------

# bytes per on-chip memory space (runtime.md "Buffer capacities"), by chip family; the space names are
# ``ir.MemorySpace`` values and the ``.pto`` loc names alike
BUFFER_CAPACITY = {
    "a2a3": {"vec": 188416, "mat": 524288, "left": 65536, "right": 65536, "acc": 131072, "bias": 1024,
             "left_scale": 0, "right_scale": 0},
    "a5": {"vec": 245760, "mat": 524288, "left": 65536, "right": 65536, "acc": 262144, "bias": 4096,
           "left_scale": 2048, "right_scale": 2048},
}
# legal same-core on-chip moves (runtime.md), (source space, destination space); Acc->Vec and Mat->Vec
# cross cores and go through the FIFO on every family
_MOVES_A2A3 = frozenset({("mat", "left"), ("mat", "right"), ("mat", "bias"), ("acc", "mat"), ("vec", "vec")})
ON_CHIP_MOVES = {
    "a2a3": _MOVES_A2A3,
    "a5": _MOVES_A2A3 | {("vec", "mat"), ("mat", "left_scale"), ("mat", "right_scale")},
}
# cube passes per K fractal of an FP32 (full precision) matmul, by chip family (pypto's L0 cost model:
# a2a3 2, a5 8); 2-byte operands take one, INT8 one
CUBE_FP32_PASSES = {"a2a3": 2, "a5": 8}
# the simulator's defaults per platform: AICPU threads (1 orchestrator + schedulers) and clusters
SIM_AICPU_THREADS = {"a2a3sim": 4, "a5sim": 5}
SIM_CLUSTERS = {"a2a3sim": 24, "a5sim": 36}


@dataclass(frozen=True)
class Target:
    """One compilation target: a platform and the facts of its chip family.  Carried by the pass
    context (``PassContext.target``); stages ask its facts (``capacity("vec")``, ``mx_scales``,
    ``gm_pipe``, ...) rather than comparing the platform or arch name."""

    platform: str

    def __post_init__(self):
        validate_platform(self.platform)

    @staticmethod
    def of(platform: str) -> "Target":
        return _target(platform)

    @staticmethod
    def of_arch(arch: str) -> "Target":
        """The simulator target of a chip family ("a2a3" or "a5")."""
        if arch not in BUFFER_CAPACITY:
            raise ValueError(f"unknown arch {arch!r}; valid archs are {', '.join(BUFFER_CAPACITY)}")
        return _target(f"{arch}sim")

    @property
    def arch(self) -> str:
        """The chip family, "a2a3" or "a5" (the ``.pto`` module's ``pto.target_arch``)."""
        return target_arch(self.platform)

    @property
    def backend_type(self) -> "BackendType":
        return BackendType(self.arch)

    @property
    def is_simulator(self) -> bool:
        return self.platform in SIM_PLATFORMS

    @property
    def capacities(self) -> Dict[str, int]:
        return dict(BUFFER_CAPACITY[self.arch])

    def capacity(self, space) -> int:
        """Bytes of one on-chip memory space, by name or by an enum whose value is the name."""
        return BUFFER_CAPACITY[self.arch][getattr(space, "value", space)]

    def can_move(self, src, dst) -> bool:
        """Whether a same-core ``tile.move`` from ``src`` to ``dst`` exists (names or MemorySpace)."""
        return (getattr(src, "value", src), getattr(dst, "value", dst)) in ON_CHIP_MOVES[self.arch]

    @property
    def moves(self) -> FrozenSet[Tuple[str, str]]:
        return ON_CHIP_MOVES[self.arch]

    @property
    def cube_fp32_passes(self) -> int:
        """Cube passes per K fractal of an FP32 matmul (the L0 tile chooser's cost model)."""
        return CUBE_FP32_PASSES[self.arch]

    @property
    def mx_scales(self) -> bool:
        """The MX scale buffers (left_scale / right_scale) and the MX matmul exist."""
        return BUFFER_CAPACITY[self.arch]["left_scale"] > 0

    @property
    def gm_pipe(self) -> bool:
        """The cube <-> vector pipes of a split kernel go through a ring in global memory (a2a3); a5
        cores talk on chip."""
        return self.arch == "a2a3"

    def pipe_slots(self, dir_mask: int) -> Tuple[int, int]:
        """(SlotNum, LocalSlotNum) of a pipe whose ``*_initialize_pipe`` gives no ``slot_num``
        (see ``default_pipe_slots``)."""
        num = 4 if dir_mask == 3 else 8
        return num, (num if self.gm_pipe else 2)

    @property
    def simt_anchor(self) -> bool:
        """AIV entries of a compile-only hardware tree carry the SIMT anchor (a5 hardware)."""
        return not self.is_simulator and self.arch == "a5"

    @property
    def sim_aicpu_threads(self) -> int:
        return SIM_AICPU_THREADS[self.sim_platform]

    @property
    def sim_clusters(self) -> int:
        return SIM_CLUSTERS[self.sim_platform]

    @property
    def sim_platform(self) -> str:
        """The simulator platform of this chip family."""
        return f"{self.arch}sim"


_TARGETS: Dict[str, Target] = {}


def _target(platform: str) -> Target:
    t = _TARGETS.get(platform)
    if t is None:
        t = _TARGETS[platform] = Target(platform)
    return t


def smallest_capacity(space: str) -> int:
    """The least capacity of one memory space over every chip family: what a stage that does not know
    its target yet must size for (the front end's tile sizing does, until a pass reading
    ``PassContext.target`` sizes instead)."""
    return min(caps[space] for caps in BUFFER_CAPACITY.values())


class BackendType(enum.Enum):
    """pypto's code-generation backends (``pypto.backend.BackendType``): the chip family a
    platform belongs to.  ``Ascend910B`` is a2a3 (a2a3sim on the simulator), ``Ascend950`` a5."""

    Ascend910B = "a2a3"
    Ascend950 = "a5"

    @property
    def arch(self) -> str:
        return self.value

    def sim_platform(self) -> str:
        return f"{self.value}sim"

    def __repr__(self) -> str:
        return f"BackendType.{self.name}"


def backend_type_of(platform: str) -> BackendType:
    """The backend a platform compiles for: a2a3/a2a3sim -> Ascend910B, a5/a5sim -> Ascend950."""
    return BackendType(target_arch(platform))


def coerce_backend_type(value) -> BackendType:
    """A ``BackendType``, or its name (``"Ascend950"``) / arch (``"a5"``); else a ValueError."""
    if isinstance(value, BackendType):
        return value
    name = getattr(value, "name", value)       # another library's enum member of the same name
    if isinstance(name, str):
        for bt in BackendType:
            if name in (bt.name, bt.value):
                return bt
    raise ValueError(f"unknown backend_type {value!r}; valid values are "
                     f"{', '.join(f'BackendType.{b.name}' for b in BackendType)}")


class OptimizationStrategy(enum.Enum):
    """pypto's pass-pipeline strategies; ``Default`` is the only one (pypto has no other either)."""

    Default = "Default"


class MemoryPlanner(enum.Enum):
    """Who places on-chip buffers, in pypto's terms.  ptokit always plans them itself (its
    PlanMemory pass); the names are accepted so that pypto configurations read unchanged."""

    PYPTO = "PYPTO"
    DSA_RP = "DSA_RP"
    PTOAS = "PTOAS"


def coerce_named(enum_cls, value, field_name: str):
    """``value`` as a member of ``enum_cls``: a member, another library's member of the same name,
    or the name itself.  None stays None; anything else is a ValueError listing the names."""
    if value is None or isinstance(value, enum_cls):
        return value
    name = getattr(value, "name", value)
    if isinstance(name, str) and name in enum_cls.__members__:
        return enum_cls[name]
    raise ValueError(f"{field_name}={value!r} is not one of {', '.join(enum_cls.__members__)}")


# ---------------------------------------------------------------------------
# distributed programs (docs/distributed.md)
# ---------------------------------------------------------------------------

MAX_RANKS = 64                 # CommContext.windowsIn has 64 entries
TRANSPORTS = ("shm", "mpi")    # how ranks reach each other's windows (ptokit.distributed.transport)


def check_device_ids(device_ids, where: str = "device_ids") -> list:
    """A non-empty list of distinct ints >= 0, at most MAX_RANKS of them (ValueError otherwise)."""
    if isinstance(device_ids, (str, bytes)) or not hasattr(device_ids, "__iter__"):
        raise ValueError(f"{where}={device_ids!r}: expected a list of device ids")
    ids = list(device_ids)
    if not ids:
        raise ValueError(f"{where}=[]: a distributed program needs at least one device")
    bad = [d for d in ids if isinstance(d, bool) or not isinstance(d, int) or d < 0]
    if bad:
        raise ValueError(f"{where}={ids!r}: device ids are integers >= 0 ({bad[0]!r} is not)")
    if len(set(ids)) != len(ids):
        dup = sorted({d for d in ids if ids.count(d) > 1})
        raise ValueError(f"{where}={ids!r}: device ids must be distinct ({', '.join(map(str, dup))} repeated)")
    if len(ids) > MAX_RANKS:
        raise ValueError(f"{where}: {len(ids)} devices; at most {MAX_RANKS} ranks (CommContext.windowsIn)")
    return ids


class DistributedConfig:
    """How a distributed program runs: one rank per entry of ``device_ids`` (rank ``r`` is
    labelled ``device_ids[r]``; W = len(device_ids)), the runtime kind and AICPU thread count of
    every rank, the SubWorker count (0: one per SubWorker), and the transport between ranks
    (``"shm"``: shared memory on one host, the default; ``"mpi"``: mpi4py one-sided windows).
    ``block_dim`` exists for pypto compatibility and only takes ``None``.  Also importable as
    ``ptokit.DistributedConfig`` and ``ptokit.ir.distributed_compiled_program.DistributedConfig``.
    Invalid values are a ValueError naming the field."""

    __slots__ = ("device_ids", "num_sub_workers", "runtime", "block_dim", "aicpu_thread_num", "transport")

    def __init__(self, device_ids=(0,), num_sub_workers: int = 0, runtime="tensormap_and_ringbuffer",
                 block_dim=None, aicpu_thread_num: int = 0, transport: str = "shm"):
        self.device_ids = check_device_ids(device_ids)
        for name, v in (("num_sub_workers", num_sub_workers), ("aicpu_thread_num", aicpu_thread_num)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise ValueError(f"DistributedConfig {name}={v!r}: must be an integer >= 0")
        self.num_sub_workers = num_sub_workers
        self.aicpu_thread_num = aicpu_thread_num
        self.runtime = coerce_runtime_kind(runtime) or RuntimeKind.TENSORMAP_AND_RINGBUFFER
        if block_dim is not None:
            raise ValueError(f"DistributedConfig block_dim={block_dim!r}: not supported yet (ptokit sizes each "
                             f"dispatch by its own SPMD block counts; leave block_dim=None)")
        self.block_dim = None
        if transport not in TRANSPORTS:
            raise ValueError(f"DistributedConfig transport={transport!r}: valid transports are "
                             f"{', '.join(repr(t) for t in TRANSPORTS)}")
        self.transport = transport

    @property
    def world_size(self) -> int:
        return len(self.device_ids)

    def cache_key(self) -> tuple:
        """What a compiled tree depends on: W, runtime kind, aicpu_thread_num (the jit cache key)."""
        return (self.world_size, self.runtime.value, self.aicpu_thread_num)

    def __eq__(self, other):
        return isinstance(other, DistributedConfig) and all(getattr(self, k) == getattr(other, k)
                                                            for k in self.__slots__)

    def __hash__(self):
        return hash((tuple(self.device_ids), self.num_sub_workers, self.runtime, self.aicpu_thread_num, self.transport))

    def __repr__(self) -> str:
        return (f"DistributedConfig(device_ids={self.device_ids!r}, num_sub_workers={self.num_sub_workers}, "
                f"runtime={self.runtime.value!r}, aicpu_thread_num={self.aicpu_thread_num}, "
                f"transport={self.transport!r})")


# ---- programs written for a device, run where there is none (``ptokit pypto``, docs/pypto.md)
# Off by default: ptokit.compile / RunConfig refuse to *run* a hardware platform.  ``ptokit pypto``
# turns it on for its own process: a hardware platform then runs on its chip's simulator, saying
# so once, and the device-only run options are reported once each as not simulated.
_SIM_HW = {"on": False, "told": set()}


def simulate_hardware(on: bool) -> None:
    _SIM_HW["on"] = bool(on)
    _SIM_HW["told"] = set()


def simulating_hardware() -> bool:
    return _SIM_HW["on"]


def notice_once(key: str, text: str) -> None:
    """Print ``text`` on stderr the first time ``key`` is seen while hardware is simulated."""
    if _SIM_HW["on"] and key not in _SIM_HW["told"]:
        _SIM_HW["told"].add(key)
        print(f"ptokit pypto: {text}", file=sys.stderr, flush=True)


def platform_to_use(platform):
    """``platform``, or the simulator of its chip when it names hardware and hardware is
    simulated (said once per platform)."""
    if _SIM_HW["on"] and platform in PLATFORMS and platform not in SIM_PLATFORMS:
        sim = f"{platform}sim"
        notice_once(f"platform:{platform}", f"platform {platform!r} is hardware: running it on the {sim} "
                    f"simulator (--no-simulate-hardware refuses instead)")
        return sim
    return platform
