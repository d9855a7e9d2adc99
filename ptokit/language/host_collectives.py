"""Host collectives (``pld.tensor.allreduce(...)`` and friends in a host function): not yet."""
from __future__ import annotations


def collective_call(reader, full: str, call) -> bool:
    """Handle a host collective call; False when ``full`` is not one."""
    return False


def builtin_program(op: str, spec: dict):
    raise NotImplementedError(op)
