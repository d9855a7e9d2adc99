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
