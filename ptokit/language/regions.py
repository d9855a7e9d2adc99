"""Explicit split regions in kernel code (pypto-parity E2)::

    for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
        v = pl.exp(pl.aiv_shard(mm))          # C->V: each lane gets its half
        back = pl.aic_gather(v)                # V->C: the cube gets the joined tile

The region is not a loop: its body is the vector part of the mixed kernel, run by both vector
lanes, and ``aiv_id`` is the lane (``pl.tile.get_subblock_idx()``).  The region's mode becomes the
kernel's split mode (docs/mixed-kernels.md, "Split transfers"; NONE: both lanes run the whole body).
Rules, each a located error: ``pl.split_aiv(2, mode=...)`` only; not in orchestration, not nested;
the regions of one kernel share one mode; once a kernel has a region, vector work sits inside
regions and cube work outside; ``pl.aiv_shard`` / ``pl.aic_gather`` only inside a region.
"""
from __future__ import annotations

import ast
from typing import Dict, List

from ..errors import CompileError
from ..ir import nodes as N
from ..ir.types import INDEX, MemorySpace, TileType
from .source import eval_static
from .types import SplitMode

_CUBE = {MemorySpace.Mat, MemorySpace.Left, MemorySpace.Right, MemorySpace.Acc, MemorySpace.Bias}
_EDGES = ("aiv_shard", "aic_gather")


def _produced(s: N.Stmt):
    """(memory spaces of the tiles statement ``s`` itself writes or stores, op name)."""
    spaces, op = set(), None
    if isinstance(s, N.Assign):
        op = s.value.op if isinstance(s.value, N.OpCall) else None
        spaces = {t.type.memory for t in s.targets if isinstance(t.type, TileType)}
        if op == "store":
            spaces.add(s.value.args[0].type.memory)
    elif isinstance(s, N.ExprStmt) and isinstance(s.expr, N.OpCall):
        op = s.expr.op
        if op == "store" and isinstance(s.expr.args[0].type, TileType):
            spaces.add(s.expr.args[0].type.memory)
    return spaces, op


def _edge_calls(s: N.Stmt) -> List[N.OpCall]:
    return [e for x in N.stmt_exprs(s) for e in N.walk_expr(x) if isinstance(e, N.OpCall) and e.op in _EDGES]


def split_aiv_region(parser, s: ast.For, it: ast.Call) -> N.Stmt:
    """``for aiv_id in pl.split_aiv(2, mode=...)``: the parsed body, after ``aiv_id = lane``."""
    fn = parser.fn
    if parser.in_orchestration or fn is None:
        raise parser.err("pl.split_aiv is a region of a mixed kernel's vector work; it belongs in kernel code "
                         "(a pl.at block or an InCore function)", it)
    if getattr(parser, "region_depth", 0):
        raise parser.err("pl.split_aiv regions cannot be nested", it)
    if not isinstance(s.target, ast.Name):
        raise parser.err("a split region binds one name, the lane: `for aiv_id in pl.split_aiv(2, mode=...)`", s.target)
    kw = {k.arg: k.value for k in it.keywords}
    if len(it.args) != 1 or set(kw) - {"mode"} or "mode" not in kw:
        raise parser.err("pl.split_aiv takes the lane count and the mode: pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN)", it)
    n = eval_static(it.args[0], parser.src, parser.g, "lane count")
    if n != 2:
        raise parser.err(f"pl.split_aiv({n!r}): a cluster has 2 vector lanes, so the count is 2", it.args[0])
    mode = eval_static(kw["mode"], parser.src, parser.g, "mode")
    if not isinstance(mode, SplitMode):
        raise parser.err(f"mode= of pl.split_aiv takes a pl.SplitMode, got {mode!r}", kw["mode"])
    regions: Dict[str, object] = fn.attrs.setdefault("split_regions", {})
    split = int(fn.attrs.get("split", 0)) if "split" in fn.attrs else None
    first = regions.get("mode")
    if first is not None and first != mode:
        raise parser.err(f"this region's mode {mode!r} differs from the kernel's first region ({first!r}); regions "
                         f"of different modes in one kernel are not supported yet", kw["mode"])
    if first is None and split not in (None, int(mode)):
        raise parser.err(f"the kernel is already split with mode {split} (attrs or optimizations=), but this region "
                         f"says {mode!r}", kw["mode"])
    regions["mode"] = mode
    if int(mode):
        fn.attrs["split"] = int(mode)
    else:
        fn.attrs["dual_lanes"] = True          # NONE: both lanes run the whole vector body
    loc = parser.loc(s.target)
    lane = N.Var(s.target.id, type=INDEX, loc=loc)
    parser.env[lane.name] = INDEX
    parser.region_depth = 1
    try:
        body = parser.block(s.body)
    finally:
        parser.region_depth = 0
    for st in N.walk_stmts(body):
        spaces, op = _produced(st)
        if op not in _EDGES and op != "move" and spaces & _CUBE and not isinstance(st, (N.For, N.If, N.While)):
            raise CompileError("cube work inside a pl.split_aiv region: the region is the vector lanes' part of the "
                               "kernel; compute the cube tile before the region and hand it over with "
                               "pl.aiv_shard", st.loc)
    ids = parser.__dict__.setdefault("region_stmt_ids", set())
    ids.update(id(st) for st in N.walk_stmts(body))
    stmts = [N.Assign([lane], N.OpCall("get_subblock_idx", [], {}, type=INDEX, loc=parser.loc(it)), loc=loc)] + body
    parser.pre.extend(stmts[:-1])
    return stmts[-1]


def _own_stmts(body):
    """The statements of ``body``, nested ones included, but not those of its blocks of kernel code
    (``incore`` scopes: checked as the kernels they are when they were parsed)."""
    for st in body:
        yield st
        if not (isinstance(st, N.Scope) and st.kind == "incore"):
            for sub in N.child_bodies(st):
                yield from _own_stmts(sub)


def check_regions(fn: N.Function, parser) -> None:
    """After a kernel with regions is parsed: vector work outside every region, or an edge op
    outside one, is a located error."""
    ids = getattr(parser, "region_stmt_ids", set())
    if "split_regions" not in fn.attrs:
        for st in _own_stmts(fn.body):
            for e in _edge_calls(st):
                raise CompileError(f"pl.{e.op} names a value crossing the edge of a pl.split_aiv region, but it is "
                                   f"not inside one", e.loc or st.loc)
        return
    fn.attrs.pop("split_regions")
    for st in N.walk_stmts(fn.body):
        if id(st) in ids:
            continue
        for e in _edge_calls(st):
            raise CompileError(f"pl.{e.op} outside a pl.split_aiv region", e.loc or st.loc)
        spaces, op = _produced(st)
        if MemorySpace.Vec in spaces and not isinstance(st, (N.For, N.If, N.While)):
            raise CompileError("vector work outside the pl.split_aiv regions: once a kernel has a region, its vector "
                               "work belongs inside one (the lanes run only the regions)", st.loc)
