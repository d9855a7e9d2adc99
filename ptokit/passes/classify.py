"""Classify each InCore function as a vector (AIV) or cube (AIC) kernel.

A kernel that touches Mat/Left/Right/Acc tiles or calls a cube op is AIC; one
that only uses Vec tiles is AIV.  A kernel that does both is *mixed*: it keeps
kind InCore with ``attrs["mixed"] = True`` and ``core_type = "mixed"``; the
SplitMixed pass (split_mixed.py) later turns it into a Group of one AIC and one
AIV function joined by the cross-core FIFO (docs/mixed-kernels.md).
"""
from __future__ import annotations

from ..ir import nodes as N
from ..ir.ops import OPS
from ..ir.types import MemorySpace, TileType

_CUBE_SPACES = {MemorySpace.Mat, MemorySpace.Left, MemorySpace.Right, MemorySpace.Acc, MemorySpace.Bias}


def classify_kernels(prog: N.Program, ctx) -> N.Program:
    for fn in prog.of_kind(N.FunctionType.InCore):
        cube_at = vec_at = None
        for s, sub in N.walk_ops(fn.body):
            if sub.op.startswith("scalar."):
                continue
            spaces = {a.type.memory for a in sub.args if isinstance(a.type, TileType)}
            if isinstance(sub.type, TileType):
                spaces.add(sub.type.memory)
            # a move is cube work only when it touches a cube buffer (Vec->Vec is a vector copy)
            is_cube = (OPS[sub.op].cube and sub.op != "move") or bool(spaces & _CUBE_SPACES)
            is_vec = MemorySpace.Vec in spaces
            if is_cube and sub.op in ("store",) and spaces == {MemorySpace.Acc}:
                is_vec = False
            if is_cube and cube_at is None:
                cube_at = sub.loc or s.loc
            if is_vec and vec_at is None:
                vec_at = sub.loc or s.loc
        if cube_at is not None and vec_at is not None:
            fn.attrs["mixed"] = True
            fn.attrs["mixed_at"] = (cube_at, vec_at)
            fn.attrs["core_type"] = "mixed"
            continue
        fn.kind = N.FunctionType.AIC if cube_at is not None else N.FunctionType.AIV
        fn.attrs["core_type"] = "aic" if cube_at is not None else "aiv"
    return prog
