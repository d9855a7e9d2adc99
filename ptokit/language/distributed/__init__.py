"""Distributed programs: ``import ptokit.language.distributed as pld``.

Names only, as ``ptokit.language``: the kernel-level ops come from the op table
(``ptokit/ir/ops/comm.py``: namespaces ``pld``, ``pld.system``, ``pld.tensor``, ``pld.tile``);
the other names are markers the front end recognises (``front.py``).  Names the spec orders P3
exist and give a located "not supported yet" error.
"""
from __future__ import annotations

import types as _types

from ...ir.comm import NotifyOp, ReduceOp, WaitCmp
from ...ir.distributed_compiled_program import DistributedConfig
from ...ir.ops import OPS as _TABLE
from ...ir.ops import dsl_name as _dsl_name
from ...ir.types import AtomicType
from ..decorators import dsl_marker
from ..types import DistributedTensor
from ..dist_front import CommCtx, HOST_NAMES, KERNEL_PENDING, P3_NAMES


def pld_marker(full: str):
    """A pld name that is not an op of the table (the front end's call_hook explains where it belongs)."""
    return dsl_marker(full, "__pld_name__")


def _namespace(ns: str) -> dict:
    names = {_dsl_name(name, ns): dsl_marker(name, "__pto_op__") for name, op in _TABLE.items() if ns in op.namespaces}
    for name, op in _TABLE.items():
        for alias in op.dsl_aliases:
            where, _, short = alias.rpartition(".")
            if where == ns:
                names[short] = dsl_marker(name, "__pto_op__")
    return names


def _markers(prefix: str) -> dict:
    out = {}
    for full in HOST_NAMES + KERNEL_PENDING + P3_NAMES:
        where, _, short = full.rpartition(".")
        if where == prefix:
            out[short] = pld_marker(full)
    return out


_OPS = _namespace("pld")
_NAMES = _markers("pld")
globals().update(_OPS)
globals().update(_NAMES)
system = _types.SimpleNamespace(**_namespace("pld.system"), **_markers("pld.system"))
tensor = _types.SimpleNamespace(**_namespace("pld.tensor"), **_markers("pld.tensor"))
tile = _types.SimpleNamespace(**_namespace("pld.tile"), **_markers("pld.tile"))

__all__ = ["DistributedTensor", "DistributedConfig", "NotifyOp", "WaitCmp", "AtomicType", "ReduceOp", "CommCtx",
           "system", "tensor", "tile"] + sorted(_OPS) + sorted(_NAMES)
