"""The front end's part of distributed programs: pld markers, the hidden CommContext
parameters of window params, and located errors for pld names used where they do not belong.

Each ``pld.DistributedTensor`` parameter ``w`` of a chip (orchestration) or kernel function
brings a hidden trailing INT64 parameter ``w__ctx`` (the CommContext address), after the user
scalars, in parameter order; calls of such a function pass the caller's ``w__ctx`` for it
(signatures.py).  Kernel ops find it by the window's name (codegen/pto_comm.py).
"""
from __future__ import annotations

import ast
from typing import List, Optional

from ..errors import CompileError
from ..ir import nodes as N
from ..ir.comm import CTX_SUFFIX, ctx_name, is_ctx_param  # noqa: F401
from ..ir.types import DType, ScalarType, TensorType


# host-level names (H): a host function's body; elsewhere a located error
HOST_NAMES = ("pld.world_size", "pld.window", "pld.alloc_window_buffer",
              # pypto's short forms of the host collectives (language/host_collectives.py)
              "pld.all_reduce", "pld.all_gather", "pld.all_to_all", "pld.reduce_scatter", "pld.broadcast",
              "pld.barrier")
# names of the spec's P1/P2 rows that kernel code cannot use yet in ptokit (none today: the kernel
# collectives are op-table composites, ir/ops/comm.py)
KERNEL_PENDING = ()
# the spec's P3 names: they exist; using one is a located "not supported yet"
P3_NAMES = ("pld.tensor.all_to_all_v", "pld.system.defer_wait", "pld.all_to_all_v")


class CommCtx:
    """``pld.CommCtx``: the type of ``pld.get_comm_ctx(t)`` (an INT64 CommContext address)."""


def is_window(t) -> bool:
    return isinstance(t, TensorType) and t.window


def add_ctx_params(fn: N.Function) -> None:
    """Append the hidden CommContext parameter of each window parameter (after the user scalars);
    tensors come before scalars in a function with windows (else a located error)."""
    windows = [p for p in fn.params if is_window(p.type)]
    if not windows:
        return
    seen_scalar = None
    for p in fn.params:
        if isinstance(p.type, ScalarType):
            seen_scalar = seen_scalar or p
        elif isinstance(p.type, TensorType) and seen_scalar is not None:
            raise CompileError(f"{fn.name}: tensor parameter {p.name!r} comes after scalar parameter "
                               f"{seen_scalar.name!r}; in a distributed program tensors come before scalars",
                               p.loc or fn.loc)
    for w in windows:
        fn.params.append(N.Param(ctx_name(w.name), ScalarType(DType.INT64), N.Direction.IN, w.loc))


def user_params(fn: N.Function) -> List[N.Param]:
    return [p for p in fn.params if not is_ctx_param(p)]


def ctx_args(callee: N.Function, args: List[N.Expr], err, nodes) -> List[N.Expr]:
    """The hidden CommContext arguments of a call: the caller's own for each window argument."""
    out = []
    for p, a, node in zip(callee.params, args, nodes):
        if not is_window(p.type):
            continue
        if not (isinstance(a, N.Var) and is_window(a.type)):
            raise err(f"argument {p.name!r} of {callee.name} is a pld.DistributedTensor (a window), but got "
                      f"{a.type}: pass a window parameter of the caller", node)
        out.append(N.Var(ctx_name(a.name), type=ScalarType(DType.INT64), loc=a.loc))
    return out


def call_hook(parser, target, e: ast.Call) -> Optional[N.Expr]:
    """Located errors for pld names the calling code cannot use."""
    full = getattr(target, "__pld_name__", None)
    if full is None:
        return None
    if full in P3_NAMES:
        raise parser.err(f"{full} is not supported yet", e.func)
    if full in HOST_NAMES:
        hint = (" ; in kernel code the rank count is pld.nranks(pld.get_comm_ctx(t)) of a window t"
                if full == "pld.world_size" else "")
        raise parser.err(f"{full} is host code: it may only be used in a host function "
                         f"(level=pl.Level.HOST){hint}", e.func)
    raise parser.err(f"{full} in kernel or chip code is not supported yet", e.func)
