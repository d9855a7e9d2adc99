"""PassContext: what every pass may ask about the compilation target.

Target facts themselves (platform names, ``RuntimeKind``, the ``Target`` with its capacities and
chip features) live in ``ptokit.targets``; this module only binds them to one compilation.
"""
from __future__ import annotations

import contextvars
from dataclasses import dataclass
from typing import Optional, Union

from ..targets import (PLATFORMS, SIM_PLATFORMS, MemoryPlanner, RuntimeKind, Target, coerce_named,  # noqa: F401
                       coerce_runtime_kind, notice_once,
                       runtime_kind_from_name, runtime_kind_to_name, target_arch, validate_platform,
                       validate_ptoas_compat, default_ptoas_compat)

_ACTIVE: contextvars.ContextVar[Optional["PassContext"]] = contextvars.ContextVar("ptokit_pass_context", default=None)


@dataclass
class PassContext:
    """Target facts for the passes.  Usable as a context manager:

    ``with ptokit.PassContext(runtime="host_build_graph"): ptokit.compile(prog)``
    """

    platform: Optional[str] = None
    runtime: Union[RuntimeKind, str, None] = None
    verify: bool = True
    ptoas_compat: Optional[str] = None     # None: pypto HEAD's .pto; "0.27": what ptoas 0.27 accepts
    memory_planner: Optional[MemoryPlanner] = None    # None = PYPTO; PTOAS refuses what pypto's PTOAS path refuses

    def __post_init__(self):
        if isinstance(self.platform, (list, tuple)):
            # pypto's PassContext(instruments, *, runtime=...): its first argument is a list of pass
            # instruments; ptokit has none to offer, so only the empty list is taken
            if self.platform:
                raise ValueError(f"PassContext: pass instruments are not supported by ptokit (got "
                                 f"{list(self.platform)!r}); pass [] or give the platform by name")
            self.platform = None
        self.runtime = coerce_runtime_kind(self.runtime)
        validate_ptoas_compat(self.ptoas_compat)
        self.memory_planner = coerce_named(MemoryPlanner, self.memory_planner, "memory_planner")
        if self.platform is not None:
            validate_platform(self.platform)

    @property
    def runtime_kind(self) -> RuntimeKind:
        return self.runtime or RuntimeKind.TENSORMAP_AND_RINGBUFFER

    @property
    def target(self) -> Target:
        """The target of this compilation (a2a3sim when no platform is given): what passes, codegen
        and backend ask about capacities and chip features."""
        return Target.of(self.platform or "a2a3sim")

    @property
    def arch(self) -> str:
        """The chip family's name, for rendering (``pto.target_arch``); decisions ask ``target``."""
        return self.target.arch

    def __enter__(self) -> "PassContext":
        self._token = _ACTIVE.set(self)
        return self

    def __exit__(self, *exc) -> None:
        _ACTIVE.reset(self._token)

    @staticmethod
    def current() -> Optional["PassContext"]:
        return _ACTIVE.get()


def resolve_context(platform: str, runtime, ptoas_compat: Optional[str] = None,
                    memory_planner=None) -> PassContext:
    """The PassContext of one compile: ``platform``/``runtime``/``ptoas_compat`` merged with an active context
    (a ``ptoas_compat`` neither gives is ``$PTOKIT_PTOAS_COMPAT``'s, ``targets.default_ptoas_compat``).

    Lives here (not in ``ptokit.toolchain``) so a ``@pl.jit`` cache hit can compute its key
    without importing the compiler."""
    validate_platform(platform)
    active = PassContext.current()
    kind = coerce_runtime_kind(runtime)
    if active is not None and active.runtime is not None and kind is not None:
        raise ValueError("runtime= was given to compile() inside a PassContext that also sets the runtime "
                         "kind; give it in one place only")
    if kind is None and active is not None:
        kind = active.runtime
    verify = active.verify if active is not None else True
    if ptoas_compat is None and active is not None:
        ptoas_compat = active.ptoas_compat
    if ptoas_compat is None:
        ptoas_compat = default_ptoas_compat()
    planner = coerce_named(MemoryPlanner, memory_planner, "memory_planner")
    if planner is not None and active is not None and active.memory_planner is not None:
        raise ValueError("memory_planner= was given to compile() inside a PassContext that also sets the memory "
                         "planner; give it in one place only")
    if planner is None and active is not None:
        planner = active.memory_planner
    if planner is MemoryPlanner.DSA_RP:
        notice_once("memory_planner:DSA_RP", "memory_planner=DSA_RP: ptokit's own planner places the on-chip "
                    "buffers (pypto's DSA-RP placement is not reproduced: addresses differ, results do not)")
    return PassContext(platform=platform, runtime=kind, verify=verify, ptoas_compat=ptoas_compat,
                       memory_planner=planner)
