"""Memory-space inference and checking.

Type rules already give every tile a memory space (loads default to Vec,
matmul results live in Acc, ``pl.move`` names its target).  This pass checks
what depends on the platform: which on-chip moves exist (runtime.md), and
that no Acc->Vec move is left for a non-mixed kernel.
"""
from __future__ import annotations

from ..errors import CompileError
from ..ir import nodes as N
from ..ir.ops import OpTypeError, infer
from ..ir.types import TileType


def check_memory_spaces(prog: N.Program, ctx) -> N.Program:
    arch = ctx.arch
    for fn in prog.functions.values():
        for s in N.walk_stmts(fn.body):
            for e in N.stmt_exprs(s):
                for sub in N.walk_expr(e):
                    if isinstance(sub, N.OpCall) and sub.op == "move":
                        attrs = dict(sub.attrs, arch=arch)
                        try:
                            infer("move", [a.type for a in sub.args], attrs)
                        except OpTypeError as exc:
                            raise CompileError(str(exc), sub.loc or s.loc) from None
                    if isinstance(sub, N.OpCall) and isinstance(sub.type, TileType) and fn.kind is N.FunctionType.Orchestration:
                        raise CompileError(f"tile op pl.{sub.op} in an Orchestration function; tile ops "
                                           f"belong in InCore functions", sub.loc or s.loc)
    return prog
