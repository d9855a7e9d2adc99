"""FifoToMove: explicit cross-core FIFO ops written by the user become the moves that
SplitMixed understands, in either direction.

* cube -> vector (C2V): ``pl.tile.tpush_to_aiv(acc)`` ... ``v = pl.tile.tpop_from_aic(shape=..., dtype=...)``
  becomes ``v = pl.move(acc, target_memory=pl.Mem.Vec)``;
* vector -> cube (V2C): ``pl.tile.tpush_to_aic(t)`` ... ``m = pl.tile.tpop_from_aiv(shape=..., dtype=...)``
  becomes ``m = pl.move(t, target_memory=pl.Mem.Mat)``.

Each direction is its own FIFO: the k-th pop of a block pairs with the k-th push of the same
direction before it.  ``pl.tile.tfree_from_aic/tfree_from_aiv(...)`` are dropped, since
SplitMixed frees each slot after the popped tile's last use.  Pushes and pops must pair up
within one block (a loop body, an if arm, or the function body).
"""
from __future__ import annotations

from typing import Dict, List, Tuple

from ..errors import CompileError
from ..ir import nodes as N
from ..ir.ops.fifo import DIRECTIONS
from ..ir.types import TileType

# pop op -> (its push, the free, the memory space the popped tile lives in)
_DIRS = {d.pop: (d.push, d.free, d.target) for d in DIRECTIONS.values()}
_PUSH_TO_POP = {push: pop for pop, (push, _, _) in _DIRS.items()}
_FREES = {free for _, free, _ in _DIRS.values()}


def fifo_to_move(prog: N.Program, ctx) -> N.Program:
    for fn in prog.functions.values():
        if fn.attrs.get("fifo", {}).get("hand"):
            continue       # a hand-written AIC/AIV pipe (passes/hand_pipes.py): its ends are in two functions
        fn.body = _pair(fn.body, fn)
        fn.attrs.pop("fifo_split_seen", None)
    return prog


def _split_of(fn: N.Function, push: N.Stmt, pop: N.Stmt) -> None:
    """A pair's split= (both ends agree) is the kernel's split mode (docs/mixed-kernels.md)."""
    a, b = push.expr.attrs.get("split", 0), pop.value.attrs.get("split", 0)
    if a != b:
        raise CompileError(f"pl.{pop.value.op}(split={b}) pairs with a pl.{push.expr.op}(split={a}); both ends of a "
                           f"transfer use the same split mode", pop.loc)
    have = fn.attrs.get("split", 0)
    if fn.attrs.get("fifo_split_seen") and have != a:
        raise CompileError(f"this transfer says split={a}, but an earlier one of kernel {fn.name} says split={have}; "
                           f"the transfers of one kernel share one split mode", pop.loc)
    if not fn.attrs.get("fifo_split_seen") and "split" in fn.attrs and have != a:
        raise CompileError(f"this transfer says split={a}, but kernel {fn.name} is split {have} "
                           f"(attrs or optimizations=)", pop.loc)
    fn.attrs["fifo_split_seen"] = True
    if a:
        fn.attrs["split"] = a


def _op(s: N.Stmt):
    e = s.value if isinstance(s, N.Assign) else s.expr if isinstance(s, N.ExprStmt) else None
    return e.op if isinstance(e, N.OpCall) else None


def _pair(body: List[N.Stmt], fn: N.Function) -> List[N.Stmt]:
    pushed: Dict[str, List[Tuple[N.Expr, N.Stmt]]] = {pop: [] for pop in _DIRS}
    out: List[N.Stmt] = []
    for s in body:
        for sub in N.child_bodies(s):
            sub[:] = _pair(sub, fn)
        op = _op(s)
        if op in _PUSH_TO_POP or op in _DIRS or op in _FREES:
            e = s.value if isinstance(s, N.Assign) else s.expr
            if e.attrs.get("id") not in (None, 0):
                raise CompileError(f"pl.{op}(id={e.attrs['id']}): a kernel whose transfers become pl.move has one "
                                   f"pipe (id=0); several pipes are hand-written AIC/AIV/Group functions", s.loc)
        if op in _PUSH_TO_POP:
            pushed[_PUSH_TO_POP[op]].append((s.expr.args[0], s))
            continue
        if op in _FREES:
            continue
        if op in _DIRS:
            push, _, space = _DIRS[op]
            if not isinstance(s, N.Assign):
                raise CompileError(f"the tile popped by pl.tile.{op} must be assigned to a name", s.loc)
            if not pushed[op]:
                raise CompileError(f"pl.tile.{op} has no matching pl.tile.{push} before it in the same block", s.loc)
            src, push_stmt = pushed[op].pop(0)
            _split_of(fn, push_stmt, s)
            want: TileType = s.value.type
            got = src.type
            if (got.shape, got.dtype) != (want.shape, want.dtype):
                raise CompileError(f"pl.tile.{op} receives {want} but the matching push sends {got}", s.loc)
            out.append(N.Assign(s.targets, N.OpCall("move", [src], {"target_memory": space},
                                                    type=want, loc=s.value.loc), loc=s.loc))
            continue
        out.append(s)
    for pop, left in pushed.items():
        if left:
            raise CompileError(f"pl.tile.{_DIRS[pop][0]} has no matching pl.tile.{pop} after it in the same block",
                               left[0][1].loc)
    return out
