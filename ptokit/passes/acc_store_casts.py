"""An Acc tile narrowed only to be stored is stored from the accumulator (pypto HEAD's form).

``pl.matmul(..., out_dtype=pl.FP16)`` is the product in the accumulator's FP32 converted to
FP16 (language/cube.py): a ``cast`` of the Acc tile.  The cube keeps its accumulators in
f32 / i32, and its fix-pipe narrows on the way out to GM; pypto HEAD writes that store
(``pto.tstore`` of the f32 Acc tile into an f16 / bf16 view), and the real dialect's verifier
refuses a ``pto.tstore`` from an f16 / bf16 Acc tile.  So a cast of an Acc tile to FP16 / BF16
with the nearest-even rounding, whose every use is the tile of a ``store``, is dropped and those
stores take the accumulator itself: one rounding either way, so the same numbers.  A cast with
any other use is left as written (refused under ``ptoas_compat="0.27"``, rules.py).
"""
from __future__ import annotations

from typing import Dict, List

from ..ir import nodes as N
from ..ir.ops.memory import ACC_STORE_NARROWS
from ..ir.types import MemorySpace, TileType
from .rewrite import subst_body

_CONVERT, _STORE = "cast", "store"


def _narrowing(s: N.Stmt):
    """(result name, the Acc tile) of ``t = cast(acc, FP16 | BF16, rint)``, else None."""
    if not isinstance(s, N.Assign) or len(s.targets) != 1 or not isinstance(s.value, N.OpCall):
        return None
    e = s.value
    if e.op != _CONVERT or e.attrs.get("mode") != "rint" or not isinstance(e.args[0], N.Var):
        return None
    src, dst = e.args[0].type, s.targets[0].type
    if not (isinstance(src, TileType) and isinstance(dst, TileType) and src.memory is MemorySpace.Acc
            and dst.dtype in ACC_STORE_NARROWS.get(src.dtype, ())):
        return None
    return s.targets[0].name, e.args[0]


def _only_stored(body: List[N.Stmt], name: str) -> bool:
    seen = False
    for _, e in N.iter_exprs(body):
        if isinstance(e, N.OpCall):
            for i, a in enumerate(e.args):
                if isinstance(a, N.Var) and a.name == name:
                    if e.op != _STORE or i != 0:
                        return False
                    seen = True
    for s in N.walk_stmts(body):      # a loop's carried value or a returned tile is another use
        for e in N.stmt_exprs(s):
            if not isinstance(e, N.OpCall) and any(isinstance(x, N.Var) and x.name == name for x in N.walk_expr(e)):
                return False
    return seen


def fold_acc_store_casts(prog: N.Program, ctx) -> N.Program:
    for fn in prog.of_kind(N.FunctionType.InCore):
        env: Dict[str, N.Expr] = {}
        drop = set()
        for s in N.walk_stmts(fn.body):
            hit = _narrowing(s)
            if hit is not None and _only_stored(fn.body, hit[0]):
                env[hit[0]] = hit[1]
                drop.add(id(s))
        if env:
            fn.body = subst_body(_without(fn.body, drop), env)
    return prog


def _without(body: List[N.Stmt], drop) -> List[N.Stmt]:
    out = []
    for s in body:
        if id(s) in drop:
            continue
        for sub in N.child_bodies(s):
            sub[:] = _without(sub, drop)
        out.append(s)
    return out
