"""RunConfig: how a program is compiled and run on the CPU simulator.

Every field pypto's ``pypto.runtime.RunConfig`` has is accepted under its pypto name, and each
one either does what it says on the simulator or is documented (docs/simulator.md, "RunConfig
fields") as having nothing to act on here; ptokit's own simulator options follow.  A value that
cannot be honoured is a ``ValueError`` saying why, never silently dropped.
"""
from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from typing import Optional, Tuple, Union

from ..targets import (PLATFORMS, SIM_AICPU_THREADS, SIM_CLUSTERS, SIM_PLATFORMS, BackendType, MemoryPlanner,
                       OptimizationStrategy, RuntimeKind, backend_type_of, coerce_backend_type, coerce_named,
                       coerce_runtime_kind, notice_once, platform_to_use, target_arch, validate_ptoas_compat)

DEFAULT_AICPU_THREADS = dict(SIM_AICPU_THREADS)     # the targets' facts, by simulator platform
HARDWARE_CLUSTERS = dict(SIM_CLUSTERS)
DEFAULT_PLATFORM = "a2a3sim"
DEFAULT_CLUSTERS = 8             # simulated clusters when RunConfig.clusters is None (a small host's choice)
RING_DEPTH = 4                   # pypto's per-ring overrides list one size per scope-depth ring
SWIMLANE_LEVELS = range(0, 5)    # pypto: 0 off .. 4 full (True = 4)
DUMP_ARGS_LEVELS = range(0, 3)   # pypto: 0 off, 1 tagged tensors, 2 all
RACE_CHECK_MODES = ("off", "manual", "all")    # race checker: off / MANUAL scopes / every scope
RACE_REPORTS = ("error", "warn")               # a race found: RaceError / RaceWarning
SCHEDULES = ("default", "reverse", "random", "auto")   # order among ready tasks ("reverse", "random":
# adversarial; "auto": "reverse" where the race checker checks a task -- race_check="all", or the
# tasks of MANUAL scopes under "manual" -- else "default")

# ptokit's simulator sizes, and the pypto override that sets each (same meaning, pypto's name)
_RING_FIELDS = (("ring_task_window", "task_ring_size"), ("ring_heap", "heap_size"),
                ("ring_dep_pool", "dep_pool_size"))
_RING_DEFAULTS = {"task_ring_size": 16384, "heap_size": 1 << 30, "dep_pool_size": 1 << 18}


def valid_aicpu_thread_nums(platform: str) -> list:
    """0 (= the platform default) and 2..default (1 orchestrator + at least 1 scheduler)."""
    return [0] + list(range(2, DEFAULT_AICPU_THREADS[platform] + 1))


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_pow2(v: int) -> bool:
    return v > 0 and v & (v - 1) == 0


# pypto's rule for each ring override (what the runtime accepts), as (phrase, test)
_RING_RULES = {
    "ring_task_window": ("a power of 2 >= 4", lambda v: _is_int(v) and _is_pow2(v) and v >= 4),
    "ring_heap": ("a power of 2 >= 4096 (bytes per ring)", lambda v: _is_int(v) and _is_pow2(v) and v >= 4096),
    "ring_dep_pool": ("in [4, INT32_MAX]", lambda v: _is_int(v) and 4 <= v <= 2**31 - 1),
}


# fields set together: assigning one after construction lets the other follow it again
_LINKED = {"platform": "backend_type", "backend_type": "platform"}
_LINKED.update({a: b for a, b in _RING_FIELDS})
_LINKED.update({b: a for a, b in _RING_FIELDS})

# pypto's device-only options: accepted, and said once (when a hardware program is simulated,
# ``ptokit pypto``) to have nothing to act on here -- (field, is it set?, what ptokit does)
_NOT_SIMULATED = (
    ("device_id", lambda v: v != 0, "the simulator is one device; device_id={v} is recorded in the run result"),
    ("enable_pmu", bool, "enable_pmu={v}: the simulator has no PMU counters, none are captured"),
    ("enable_scope_stats", bool, "enable_scope_stats: the simulator keeps no ring-fill statistics"),
    ("analyze_auto_scopes_for_deps", bool, "analyze_auto_scopes_for_deps: dependencies are derived at run time "
     "(same results)"),
    ("diagnostic_phase", lambda v: v is not None, "diagnostic_phase: ptokit emits no compile diagnostics"),
    ("disabled_diagnostics", lambda v: v is not None, "disabled_diagnostics: ptokit emits no compile diagnostics"),
)


@dataclass(frozen=True)    # the generated __init__ sets fields directly; assignment is _assign below
class RunConfig:
    """Validated on construction; an invalid value is a ValueError naming the field and listing
    what is valid.  ``platform`` and ``backend_type`` describe one target: give either (the other
    follows) or both in agreement.

    As in pypto, a field may be assigned after construction (``config.rtol = 2e-2``); the
    assignment is validated when the config is next used (``checked()``, called by every run,
    compile and jit entry), with the same ValueError a constructor would raise.  Assigning
    ``platform`` lets ``backend_type`` follow it again (and vice versa), and a ring override
    (``ring_heap``) and the simulator size it sets (``heap_size``) likewise.  A name that is no
    field is an AttributeError at once."""

    # ---- pypto's fields, in pypto's order
    platform: Optional[str] = None                    # None: a2a3sim, or backend_type's simulator
    device_id: int = 0                                # recorded; the simulator is one device
    rtol: float = 1e-5                                # golden comparisons (golden_data_dir, run())
    atol: float = 1e-5
    strategy: OptimizationStrategy = OptimizationStrategy.Default
    backend_type: Optional[BackendType] = None        # None: from the platform
    dump_passes: bool = False
    save_kernels: bool = False                        # run(): keep the artifact tree
    save_kernels_dir: Optional[str] = None            # where the tree is written / copied
    codegen_only: bool = False                        # compile, never run
    enable_chip_swimlane: int = 0                     # >0: a Perfetto trace of the run
    enable_dump_args: int = 0                         # 0 off, 1 the tagged task args, 2 every task arg
    enable_pmu: int = 0                               # accepted; no PMU on the simulator
    enable_dep_gen: bool = False                      # deps.json from the run's dependency edges
    enable_scope_stats: bool = False                  # accepted; see docs/simulator.md
    compile_profiling: bool = False                   # report/pipeline_profile.{txt,json}
    diagnostic_phase: object = None                   # accepted; ptokit emits no compile diagnostics
    disabled_diagnostics: object = None
    golden_data_dir: Optional[str] = None             # outputs compared with <dir>/out/<name>.npy
    aicpu_thread_num: Optional[int] = 0               # 0 / None: the tree's, else the platform default
    ring_task_window: Union[int, Tuple[int, ...], None] = None    # -> task_ring_size
    ring_heap: Union[int, Tuple[int, ...], None] = None           # -> heap_size
    ring_dep_pool: Union[int, Tuple[int, ...], None] = None       # -> dep_pool_size
    distributed_config: object = None                 # handed to the compile of a distributed program
    analyze_auto_scopes_for_deps: bool = False        # accepted; dependencies are derived at run time
    memory_planner: Optional[MemoryPlanner] = None    # compile option: PTOAS refuses what pypto refuses under it
    dump_ptoas_passes: bool = False
    # ---- ptokit's simulator options
    runtime: Union[RuntimeKind, str, None] = None     # None: from the tree's kernel_config.py
    clusters: Optional[int] = None                    # None: DEFAULT_CLUSTERS, or what sync-start tasks need
    timeout: float = 60.0                             # seconds without progress -> error 100
    debug_nan_fill: bool = False
    task_ring_size: int = _RING_DEFAULTS["task_ring_size"]   # task slots per ring
    heap_size: int = _RING_DEFAULTS["heap_size"]              # bytes per heap ring (virtual, touched on use)
    dep_pool_size: int = _RING_DEFAULTS["dep_pool_size"]      # dependency edges per ring
    trace: Optional[str] = None                       # Perfetto trace path (written by the trace step)
    ptoas_compat: Optional[str] = None                # None: the tree's; "0.27": ptoas 0.27's .pto and FIFO rule
    race_check: str = "manual"                        # race checker: "off", "manual" scopes, "all" scopes
    race_report: str = "error"                        # a race found: "error" (RaceError) or "warn" (RaceWarning)
    schedule: Optional[str] = "auto"                  # order of ready tasks (None = "auto"; SCHEDULES above)
    schedule_seed: int = 0                            # seed of schedule="random"
    in_place: bool = True                             # False: copy every array argument (docs/simulator.md)
    fusion: bool = True                               # False: fused runs take their unfused path (docs/assembler.md)
    estimate: bool = False                            # estimated device time (RunResult.estimate, docs/estimate.md)

    def __post_init__(self):
        # what was given (values other than the defaults): a later assignment revalidates from these
        given = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                 if not _is_default(f, getattr(self, f.name))}
        self._validate()
        for k, v in (("_given", given), ("_stale", set()), ("_version", 0)):
            object.__setattr__(self, k, v)

    def _assign(self, name, value):
        """``config.name = value`` (RunConfig's ``__setattr__``): kept, checked on use."""
        if "_version" not in self.__dict__:          # not constructed yet
            object.__setattr__(self, name, value)
            return
        if name not in _FIELD_SET:
            raise AttributeError(f"RunConfig has no field {name!r}; fields are: {', '.join(FIELDS)}")
        object.__setattr__(self, name, value)
        stale = self.__dict__["_stale"]
        stale.add(name)
        self._given[name] = value
        other = _LINKED.get(name)
        if other is not None and other not in stale:
            self._given.pop(other, None)
        object.__setattr__(self, "_version", self._version + 1)

    def checked(self) -> "RunConfig":
        """This config, its fields validated (and the derived ones re-derived) if any was
        assigned since the last check; a bad value is the constructor's ValueError."""
        if self.__dict__.get("_stale"):
            fresh = RunConfig(**self._given)           # the constructor's rules, from the given values
            for f in FIELDS:
                object.__setattr__(self, f, getattr(fresh, f))
            self._stale.clear()
        return self

    @property
    def version(self) -> int:
        """Counts assignments since construction (a cache keyed on this config compares it)."""
        return self._version

    def _validate(self):
        self._set("platform", self._resolve_platform())
        self._set("backend_type", backend_type_of(self.platform))
        if self.platform not in SIM_PLATFORMS and not self.codegen_only:
            raise ValueError(f"platform {self.platform!r} is real hardware: running needs the vendor toolchain "
                             f"(CANN runtime); ptokit can only compile for it (RunConfig(codegen_only=True), or "
                             f"ptokit.compile(..., platform={self.platform!r})). Run on one of "
                             f"{', '.join(SIM_PLATFORMS)} instead")
        self._set("runtime", coerce_runtime_kind(self.runtime))
        validate_ptoas_compat(self.ptoas_compat)
        self._set("strategy", coerce_named(OptimizationStrategy, self.strategy, "strategy")
                  if self.strategy is not None else OptimizationStrategy.Default)
        self._set("memory_planner", coerce_named(MemoryPlanner, self.memory_planner, "memory_planner"))
        if isinstance(self.device_id, bool) or not isinstance(self.device_id, int) or self.device_id < 0:
            raise ValueError(f"device_id={self.device_id!r}: must be an integer >= 0")
        for name in ("rtol", "atol"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not v >= 0:
                raise ValueError(f"{name}={v!r}: must be a number >= 0")
        self._check_levels()
        for name in ("debug_nan_fill", "dump_passes", "dump_ptoas_passes", "save_kernels", "codegen_only",
                     "enable_dep_gen", "enable_scope_stats", "compile_profiling", "analyze_auto_scopes_for_deps",
                     "in_place", "fusion", "estimate"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name}={getattr(self, name)!r}: must be True or False")
        for name in ("save_kernels_dir", "golden_data_dir", "trace"):
            v = getattr(self, name)
            if v is not None:
                if not isinstance(v, (str, os.PathLike)):
                    raise ValueError(f"{name}={v!r}: must be a path")
                self._set(name, os.fspath(v))
        if self.any_dfx_enabled() and not self.save_kernels:
            self._set("save_kernels", True)          # pypto: diagnostics outputs are kept with the tree
        if self.aicpu_thread_num is None:
            self._set("aicpu_thread_num", 0)
        self._check_sim_sizes()
        self._apply_ring_overrides()
        self._check_races()
        for name, is_set, text in _NOT_SIMULATED:
            v = getattr(self, name)
            if is_set(v):
                notice_once(f"field:{name}", "not simulated: " + text.format(v=v))
        if self.estimate and target_arch(self.platform) != "a2a3":
            raise ValueError(f"estimate=True: estimated device time is modelled for a2a3 only (docs/estimate.md), "
                             f"not {self.platform}; not supported yet there")

    # ------------------------------------------------------------ validation parts
    def _set(self, name, value):
        object.__setattr__(self, name, value)

    def _resolve_platform(self) -> str:
        platform = platform_to_use(self.platform)     # a hardware platform, simulated (ptokit pypto)
        if platform is not None and platform not in PLATFORMS:
            raise ValueError(f"unknown platform {platform!r}; valid platforms are {', '.join(PLATFORMS)}")
        if self.backend_type is None:
            return platform or DEFAULT_PLATFORM
        bt = coerce_backend_type(self.backend_type)
        if platform is None:
            notice_once(f"backend:{bt.name}", f"backend_type={bt!r} is the {bt.arch} chip: running it on the "
                        f"{bt.sim_platform()} simulator")
            return bt.sim_platform()
        if backend_type_of(platform) is not bt:
            raise ValueError(f"backend_type={bt!r} is the {bt.arch} chip family, but platform={platform!r} is "
                             f"{backend_type_of(platform).arch}; give one of them, or both for the same chip "
                             f"({bt.sim_platform()} / {bt.arch})")
        return platform

    def _check_levels(self):
        swim = self.enable_chip_swimlane
        if isinstance(swim, bool):
            self._set("enable_chip_swimlane", 4 if swim else 0)
        elif not _is_int(swim) or swim not in SWIMLANE_LEVELS:
            raise ValueError(f"enable_chip_swimlane={swim!r}: must be True/False or a level 0..4")
        dump = self.enable_dump_args
        if isinstance(dump, bool):
            self._set("enable_dump_args", int(dump))
        elif not _is_int(dump) or dump not in DUMP_ARGS_LEVELS:
            raise ValueError(f"enable_dump_args={dump!r}: must be 0 (off), 1 (tagged tensors) or 2 (all)")
        pmu = self.enable_pmu
        if isinstance(pmu, bool):
            self._set("enable_pmu", int(pmu))
        elif not _is_int(pmu) or pmu < 0:
            raise ValueError(f"enable_pmu={pmu!r}: must be 0 (off) or a PMU event type > 0")

    def _check_sim_sizes(self):
        if self.platform in SIM_PLATFORMS:
            valid = valid_aicpu_thread_nums(self.platform)
            if not _is_int(self.aicpu_thread_num) or self.aicpu_thread_num not in valid:
                raise ValueError(f"aicpu_thread_num={self.aicpu_thread_num!r} is not valid on {self.platform}; "
                                 f"valid values are {', '.join(map(str, valid))} (0 = default "
                                 f"{DEFAULT_AICPU_THREADS[self.platform]}: 1 orchestrator + schedulers)")
            hw = HARDWARE_CLUSTERS[self.platform]
            if self.clusters is not None and (not _is_int(self.clusters) or not 1 <= self.clusters <= hw):
                raise ValueError(f"clusters={self.clusters!r} is not valid on {self.platform}; valid values are 1..{hw} "
                                 f"(None: {DEFAULT_CLUSTERS}, or as many as the program's sync-start tasks need)")
        if isinstance(self.timeout, bool) or not isinstance(self.timeout, (int, float)) or not self.timeout > 0:
            raise ValueError(f"timeout={self.timeout!r}: must be a positive number of seconds")
        for name, lo in (("task_ring_size", 1), ("heap_size", 4096), ("dep_pool_size", 1)):
            v = getattr(self, name)
            if not _is_int(v) or v < lo:
                raise ValueError(f"{name}={v!r}: must be an integer >= {lo}")

    def _check_races(self):
        if self.schedule is None:
            self._set("schedule", "auto")
        for name, allowed in (("race_check", RACE_CHECK_MODES), ("race_report", RACE_REPORTS),
                              ("schedule", SCHEDULES)):
            v = getattr(self, name)
            if v not in allowed:
                raise ValueError(f"{name}={v!r}: must be one of {', '.join(repr(a) for a in allowed)}")
        seed = self.schedule_seed
        if not _is_int(seed) or not 0 <= seed < 2 ** 64:
            raise ValueError(f"schedule_seed={seed!r}: must be an integer 0 .. 2**64-1")

    def _apply_ring_overrides(self):
        """pypto's ``ring_*`` overrides set ptokit's ring sizes.  A per-ring list (one size per
        scope depth, 0 = leave that ring at its default) must size its rings alike: the
        simulator gives every ring the same capacity."""
        for pypto_name, own in _RING_FIELDS:
            value = getattr(self, pypto_name)
            if value is None:
                continue
            phrase, ok = _RING_RULES[pypto_name]
            if isinstance(value, (list, tuple)):
                value = tuple(value)
                if len(value) != RING_DEPTH:
                    raise ValueError(f"{pypto_name} must have exactly {RING_DEPTH} entries (one per scope-depth "
                                     f"ring), got {len(value)}")
                for v in value:
                    if not _is_int(v) or (v != 0 and not ok(v)):
                        raise ValueError(f"{pypto_name} entries must be {phrase} (or 0 to keep the default), "
                                         f"got {v!r}")
                self._set(pypto_name, value)
                sizes = {v for v in value if v != 0}
                if len(sizes) > 1:
                    raise ValueError(f"{pypto_name}={list(value)}: the simulator gives every scope-depth ring the "
                                     f"same size; give one value (or equal entries, 0 for the default)")
                if not sizes:
                    continue
                size = sizes.pop()
            elif not ok(value):
                raise ValueError(f"{pypto_name} must be {phrase}, got {value!r}")
            else:
                size = value
            current = getattr(self, own)
            if current not in (_RING_DEFAULTS[own], size):
                raise ValueError(f"{pypto_name}={size} and {own}={current} set the same ring size differently; "
                                 f"give one of them")
            self._set(own, size)

    # ------------------------------------------------------------ queries
    def any_dfx_enabled(self) -> bool:
        """Is any of pypto's five run-diagnostics switches on (swimlane, args dump, PMU,
        dependency graph, scope statistics)?"""
        return bool(self.enable_chip_swimlane or self.enable_dump_args or self.enable_pmu or self.enable_dep_gen
                    or self.enable_scope_stats)

    @property
    def runtime_kind(self) -> RuntimeKind:
        return self.runtime or RuntimeKind.TENSORMAP_AND_RINGBUFFER

    @property
    def effective_aicpu_thread_num(self) -> int:
        return self.aicpu_thread_num or DEFAULT_AICPU_THREADS[self.platform]

    def compile_kwargs(self) -> dict:
        """The compile-side fields as ``ptokit.compile`` keyword arguments (pypto's
        ``RunConfig.compile_kwargs``): platform, runtime, dumps, ``output_dir`` from
        ``save_kernels_dir``, ``profiling`` from ``compile_profiling``, and ``distributed_config``
        and ``memory_planner`` when set."""
        kw = {"platform": self.platform, "runtime": self.runtime, "dump_passes": self.dump_passes,
              "dump_ptoas_passes": self.dump_ptoas_passes, "output_dir": self.save_kernels_dir,
              "profiling": self.compile_profiling}
        if self.distributed_config is not None:
            kw["distributed_config"] = self.distributed_config
        if self.memory_planner is not None:
            kw["memory_planner"] = self.memory_planner
        return kw

    def replace(self, **changes) -> "RunConfig":
        """A copy with ``changes``; changing the platform re-derives the backend and vice versa,
        and a ring override given here replaces the size it set before."""
        self.checked()
        if "platform" in changes and "backend_type" not in changes:
            changes["backend_type"] = None
        if "backend_type" in changes and "platform" not in changes:
            changes["platform"] = None
        for pypto_name, own in _RING_FIELDS:
            if pypto_name in changes and own not in changes:
                changes[own] = _RING_DEFAULTS[own] if changes[pypto_name] is not None else getattr(self, own)
        return dataclasses.replace(self, **changes)


# pypto's RunConfig is a plain (mutable) dataclass: fields are assigned after construction, and a
# mutable value is not hashable.  The class is declared frozen so that the dataclass __init__ (and a
# subclass's) fills the fields without going through assignment; assignment is then opened here.
RunConfig.__setattr__ = RunConfig._assign
RunConfig.__hash__ = None

FIELDS = tuple(f.name for f in dataclasses.fields(RunConfig))
_FIELD_SET = frozenset(FIELDS)


def _is_default(f, value) -> bool:
    default = f.default_factory() if f.default is dataclasses.MISSING else f.default
    return type(value) is type(default) and value == default
