"""Memory-space inference and checking.

Type rules already give every tile a memory space (loads default to Vec,
matmul results live in Acc, ``pl.move`` names its target).  This pass checks
what depends on the platform: which on-chip moves exist (runtime.md), and
that no Acc->Vec move is left for a non-mixed kernel.
"""
from __future__ import annotations

from ..errors import CompileError
from ..ir import nodes as N
from ..ir.ops import OPS, OpTypeError, infer
from ..ir.ops.memory import MX_SCALE_LAYOUT
from ..ir.types import DType, MemorySpace, TileType


def tile_shape_problem(t: TileType):
    """The hardware's tile shape rules (the tile library enforces the same at compile time)."""
    size = t.dtype.size
    if t.dtype is DType.FP8E8M0 and (t.memory in (MemorySpace.LeftScale, MemorySpace.RightScale) or
                                     t.layout in MX_SCALE_LAYOUT.values()):
        return None      # MX scales: the 32-byte scale fractal, any shape (tmatmul.mx checks the geometry)
    if t.layout is not None:   # a layout other than the space's default: its own box (tile.hpp's rule)
        bl, sl = t.layout
        if sl == "none_box":
            n = t.cols if bl == "row_major" else t.rows
            return None if (n * size) % 32 == 0 else f"a flat {bl} tile needs {n} x {size} bytes to be a multiple of 32"
        box = (16, 32 // size) if sl == "row_major" else (32 // size, 16)
        if (t.rows != 1 and t.rows % box[0]) or t.cols % box[1]:
            return (f"a {t.memory.name} tile of {t.dtype.name} with slayout={sl} is stored in {box[0]}x{box[1]} "
                    f"fractal boxes, so its shape must be a multiple of [{box[0]}, {box[1]}]")
        return None
    if t.memory in (MemorySpace.Vec, MemorySpace.Bias):
        if t.cols == 1 and t.rows > 1:
            if (t.rows * size) % 32:
                return f"a [{t.rows}, 1] column tile needs rows * {size} bytes to be a multiple of 32"
        elif (t.cols * size) % 32:
            return f"a row-major tile needs cols * {size} bytes to be a multiple of 32 (got {t.cols} columns)"
        return None
    box = {MemorySpace.Mat: (16, 32 // size), MemorySpace.Left: (16, 32 // size),
           MemorySpace.Right: (32 // size, 16), MemorySpace.Acc: (16, 16)}[t.memory]
    if (t.rows != 1 and t.rows % box[0]) or t.cols % box[1]:
        return (f"a {t.memory.name} tile of {t.dtype.name} is stored in {box[0]}x{box[1]} fractal boxes, so its "
                f"shape must be a multiple of [{box[0]}, {box[1]}]")
    return None


def check_memory_spaces(prog: N.Program, ctx) -> N.Program:
    target = ctx.target
    for fn in prog.functions.values():
        for s in N.walk_stmts(fn.body):
            if isinstance(s, N.Assign):
                for t in s.targets:
                    if isinstance(t.type, TileType):
                        problem = tile_shape_problem(t.type)
                        if problem:
                            raise CompileError(f"tile {t.name!r} {t.type} has an unsupported shape: {problem}",
                                               s.loc)
        for s, sub in N.walk_ops(fn.body):
            if not target.mx_scales and OPS[sub.op].has("a5_only"):
                raise CompileError(f"pl.{sub.op} exists on the a5 chip family only (platform a5sim or a5), but this "
                                   f"program is compiled for {target.arch}", sub.loc or s.loc)
            if sub.op == "move":
                attrs = dict(sub.attrs, target=target)
                try:
                    infer("move", [a.type for a in sub.args], attrs)
                except OpTypeError as exc:
                    raise CompileError(str(exc), sub.loc or s.loc) from None
            if isinstance(sub.type, TileType) and fn.kind is N.FunctionType.Orchestration:
                raise CompileError(f"tile op pl.{sub.op} in an Orchestration function; tile ops "
                                   f"belong in InCore functions", sub.loc or s.loc)
    return prog
