"""PTO codegen of control flow: ``scf.for`` / ``scf.while`` / ``scf.if``.

Scalars travel through iteration arguments and results; tiles carried or merged share one
buffer (memory planning made them one group), so they need none; pl.array values share their
local array's storage (``pto_element``).
"""
from __future__ import annotations

from ..ir import nodes as N
from ..ir.types import INDEX, ArrayType, ScalarType, TileType
from ..pto import types as P
from ..pto.builder import Builder, Value
from . import pto_element


def _carried_arrays(em, s) -> None:
    pto_element.alias_arrays(em, [(p.name, init.name) for p, init in s.iter_args
                                  if isinstance(p.type, ArrayType) and isinstance(init, N.Var)])


def _array_results(em, s) -> None:
    pto_element.alias_arrays(em, [(r.name, p.name) for (p, _), r in zip(s.iter_args, s.results)
                                  if isinstance(r.type, ArrayType)])


def _shaped_views(em, names, b: Builder, loc, carried: set) -> None:
    """A carried tile whose shared buffer was first made with another shape (``m =
    pl.reshape(pl.full([1, r], ...), [r, 1])`` then carried): its own tile_buf over the same bytes,
    before the loop, so every use inside and after it is typed as the tile is."""
    for v in names:     # alloc gives the buffer's value as it is when the types agree
        if isinstance(v.type, TileType) and v.name not in em.tile_views \
                and em.buffer_of.get(v.name, v.name) in em.values and not _names_carried(v, carried):
            em.alloc(v, b, loc)


def _names_carried(v, carried: set) -> bool:
    """A carried tile whose valid extents are the loop's carried scalars (language/loop_valid.py)."""
    return any(isinstance(d, N.Expr) and any(isinstance(e, N.Var) and e.name in carried for e in N.walk_expr(d))
               for d in (v.type.valid or ()))


def _track_valid(em, tiles, carried: set) -> None:
    """The shared buffer of a tile whose valid extents are carried scalars holds them: the body
    ends by setting them (``set_validshape``), so they are its region at the top of every
    iteration and after the loop."""
    for v in tiles:
        rep = em.buffer_of.get(v.name, v.name)
        if isinstance(v.type, TileType) and rep in em.values and _names_carried(v, carried):
            em.values[rep] = (em.values[rep][0], v.type)


def _carried_scalars(s) -> set:
    return {v.name for (p, _), r in zip(s.iter_args, s.results) if isinstance(p.type, ScalarType) for v in (p, r)}


def _carried(em, s, b: Builder) -> list:
    """The loop's carried scalars as (param, init, yield, result); the tiles it carries share their
    buffer, so that buffer is made to exist (in each carried tile's own shape) before the loop."""
    for (p, init) in s.iter_args:
        if isinstance(p.type, TileType):
            rep = em.buffer_of.get(p.name, p.name)
            if rep not in em.values and isinstance(init, N.Var):
                em.alloc(init, b, s.loc)
    _shaped_views(em, [p for p, _ in s.iter_args] + list(s.results), b, s.loc, _carried_scalars(s))
    return [(p, init, y, r) for (p, init), y, r in zip(s.iter_args, s.yields, s.results)
            if isinstance(p.type, ScalarType)]


def for_loop(em, s: N.For, b: Builder):
    lo = em.scalar(s.start, "index", b)
    hi = em.scalar(s.stop, "index", b)
    st = em.scalar(s.step, "index", b)
    iv = em.fresh(s.var.name)
    em.values[s.var.name] = (Value(iv, P.ScalarType("index")), INDEX)
    sc = _carried(em, s, b)
    iter_args = []
    res = ""
    if sc:
        inits = [em.scalar(init, p.type.dtype.mlir, b) for p, init, _, _ in sc]
        for (p, _, _, _), i in zip(sc, inits):
            iter_args.append((em.fresh(p.name), i))
        res_names = [em.fresh(r.name) for _, _, _, r in sc]
        res = res_names[0] if len(res_names) == 1 else em.fresh("loop_res")
    body, _, iters, results = b.for_(iv, lo, hi, st, iter_args, res)
    for (p, _, _, _), it in zip(sc, iters):
        em.values[p.name] = (it, p.type)
    _track_valid(em, [p for p, _ in s.iter_args], _carried_scalars(s))
    _carried_arrays(em, s)
    em.body(s.body, body)
    if sc:
        body.yield_([em.scalar(y, p.type.dtype.mlir, body) for p, _, y, _ in sc])
    for (_, _, _, r), val in zip(sc, results):
        em.values[r.name] = (val, r.type)
    _track_valid(em, s.results, _carried_scalars(s))
    _array_results(em, s)


def while_loop(em, s: N.While, b: Builder):
    """``scf.while``: the statements before the loop's Condition fill the condition region, which
    passes the carried scalars on to the body region; tiles carried share their buffer."""
    sc = _carried(em, s, b)
    inits = [(em.fresh(p.name), em.scalar(init, p.type.dtype.mlir, b)) for p, init, _, _ in sc]
    after_names = [em.fresh(p.name) for p, _, _, _ in sc]
    res = ""
    if sc:
        res = em.fresh(sc[0][3].name) if len(sc) == 1 else em.fresh("loop_res")
    before, bargs, after, aargs, results = b.while_(inits, after_names, res, em.srcloc(s.loc))
    pre, cond, post = s.split()
    for (p, _, _, _), v in zip(sc, bargs):
        em.values[p.name] = (v, p.type)
    _track_valid(em, [p for p, _ in s.iter_args], _carried_scalars(s))
    _carried_arrays(em, s)
    em.body(pre, before)
    before.condition(em.scalar(cond.cond, "i1", before), bargs)
    for (p, _, _, _), v in zip(sc, aargs):
        em.values[p.name] = (v, p.type)
    em.body(post, after)
    if sc:
        after.yield_([em.scalar(y, p.type.dtype.mlir, after) for p, _, y, _ in sc])
    for (_, _, _, r), val in zip(sc, results):
        em.values[r.name] = (val, r.type)
    _track_valid(em, s.results, _carried_scalars(s))
    _array_results(em, s)


def if_stmt(em, s: N.If, b: Builder):
    cond = em.scalar(s.cond, "i1", b)
    # merged tiles: allocate the shared buffer before the branch (static valid shape)
    for r, ty, ey in zip(s.results, s.then_yields, s.else_yields):
        if isinstance(r.type, TileType):
            em.alloc(r, b, s.loc, static_valid=True)
    sc = [(r, ty, ey) for r, ty, ey in zip(s.results, s.then_yields, s.else_yields)
          if isinstance(r.type, ScalarType)]
    res = em.fresh(sc[0][0].name if len(sc) == 1 else "if_res") if sc else ""
    types = [P.ScalarType(r.type.dtype.mlir) for r, _, _ in sc]
    then, other, results = b.if_(cond, types, res, with_else=bool(s.else_body))
    em.body(s.then_body, then)
    if sc:
        then.yield_([em.scalar(ty, r.type.dtype.mlir, then) for r, ty, _ in sc])
    if other is not None:
        em.body(s.else_body, other)
        if sc:
            other.yield_([em.scalar(ey, r.type.dtype.mlir, other) for r, _, ey in sc])
    for (r, _, _), val in zip(sc, results):
        em.values[r.name] = (val, r.type)
    pto_element.alias_arrays(em, [(r.name, y.name) for r, y in zip(s.results, s.then_yields)
                                  if isinstance(r.type, ArrayType) and isinstance(y, N.Var)])
