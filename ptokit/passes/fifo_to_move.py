"""FifoToMove: explicit cross-core FIFO ops written by the user become the Acc->Vec moves
that SplitMixed understands.

``pl.tile.tpush_to_aiv(acc)`` ... ``v = pl.tile.tpop_from_aic(shape=..., dtype=...)`` pairs
the k-th pop of a block with the k-th push before it (FIFO order) and becomes
``v = pl.move(acc, target_memory=pl.Mem.Vec)``; ``pl.tile.tfree_from_aic(...)`` is dropped,
since SplitMixed frees each slot after the popped tile's last use.  Pushes and pops must
pair up within one block (a loop body, an if arm, or the function body).
"""
from __future__ import annotations

from typing import List, Tuple

from ..errors import CompileError
from ..ir import nodes as N
from ..ir.types import MemorySpace, TileType


def fifo_to_move(prog: N.Program, ctx) -> N.Program:
    for fn in prog.functions.values():
        fn.body = _pair(fn.body)
    return prog


def _is(s: N.Stmt, op: str) -> bool:
    e = s.value if isinstance(s, N.Assign) else s.expr if isinstance(s, N.ExprStmt) else None
    return isinstance(e, N.OpCall) and e.op == op


def _pair(body: List[N.Stmt]) -> List[N.Stmt]:
    pushed: List[Tuple[N.Expr, N.Stmt]] = []
    out: List[N.Stmt] = []
    for s in body:
        for sub in N.child_bodies(s):
            sub[:] = _pair(sub)
        if _is(s, "tpush_to_aiv"):
            pushed.append((s.expr.args[0], s))
            continue
        if _is(s, "tfree_from_aic"):
            continue
        if _is(s, "tpop_from_aic"):
            if not isinstance(s, N.Assign):
                raise CompileError("the tile popped by pl.tile.tpop_from_aic must be assigned to a name", s.loc)
            if not pushed:
                raise CompileError("pl.tile.tpop_from_aic has no matching pl.tile.tpush_to_aiv before it in the "
                                   "same block", s.loc)
            src, _ = pushed.pop(0)
            want: TileType = s.value.type
            got = src.type
            if (got.shape, got.dtype) != (want.shape, want.dtype):
                raise CompileError(f"pl.tile.tpop_from_aic receives {want} but the matching push sends {got}", s.loc)
            out.append(N.Assign(s.targets, N.OpCall("move", [src], {"target_memory": MemorySpace.Vec},
                                                    type=want, loc=s.value.loc), loc=s.loc))
            continue
        out.append(s)
    if pushed:
        raise CompileError("pl.tile.tpush_to_aiv has no matching pl.tile.tpop_from_aic after it in the same block",
                           pushed[0][1].loc)
    return out
