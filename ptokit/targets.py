"""Targets: the platform names and runtime kinds every stage may ask about.

The lowest floor of the package besides ``errors``: the front end, passes, backend, runtime and
jit read platform and runtime-kind facts here, so none of them imports another stage to learn
them.  The runtime kind is an enum; its wire name crosses the boundary in exactly one place each
way (``runtime_kind_to_name`` / ``runtime_kind_from_name``).
"""
from __future__ import annotations

import enum
from typing import Optional, Union

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


def target_arch(platform: str) -> str:
    """'a2a3' or 'a5': the pto.target_arch of a platform."""
    return "a5" if validate_platform(platform).startswith("a5") else "a2a3"


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
