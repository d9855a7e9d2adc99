"""InferAccumulatorSpace: a placeholder accumulator the program makes in kernel code is an Acc tile
(pypto's InferTileMemorySpace, its loop-carry rule; docs/passes.md).

pypto's canonical split-K reduction makes its accumulator with ``pl.create_tensor`` (in kernel code
an uninitialised tile, Vec by default) and binds it in a loop to a matmul product (Acc) on the first
K block and to ``pl.matmul_acc`` of itself on the others.  pypto's memory-space inference forces the
loop-carried value, and the tile that starts it, into the space the loop writes.  ptokit's SSA form
refuses a value merged from two spaces, so this part of the inference runs before ConvertToSSA:

* a name bound once to a ``create_tile`` in Vec (``pl.create_tensor`` / ``pl.create_tile``), every
  other binding of it an Acc tile of the same shape and dtype (a product), and every read of its Vec
  value the accumulator of an accumulating cube op (``matmul_acc`` and its family: the ``cube`` ops
  whose result lives in operand 0's storage) is created in Acc: the create and each read are retyped;
* the same for zeros (``pl.full(..., 0)``), which Acc cannot be filled with: each read's first product
  is made the plain one (``init_cond = (i == start)`` at the top of a loop with constant bounds that
  runs at least once; ``matmul`` where it is read beside the zeros, which then go).

Anything else keeps its space; an accumulator that stays in Vec is refused by the op's own rule in
InferTileMemorySpace's check (a located error naming the tile).
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from ..errors import CompileError
from ..ir import nodes as N
from ..ir.ops import OPS, infer
from ..ir.types import MemorySpace, TileType
from .matmul_ops import CREATE_TILE, EQ, FULL, MOVE, SLICE, accumulates, init_cond_given, init_form, operand_index

_KERNELS = (N.FunctionType.InCore, N.FunctionType.AIC)


def infer_accumulator_space(prog: N.Program, ctx) -> N.Program:
    for fn in prog.functions.values():
        if fn.kind in _KERNELS:
            _refuse_acc_windows(fn)
            _place(fn)
    return prog


def _refuse_acc_windows(fn: N.Function) -> None:
    """``w = pl.tile.slice(acc, ...)`` of an Acc tile, then ``w = pl.matmul_acc(w, ...)``: pypto's slice of
    an Acc tile is a view, so the products land in ``acc``.  ptokit's slice is a copy (the front end
    hands the Acc tile to it through a move to Vec), and the simulator stores Acc tiles row-major, where
    a column window is no contiguous view: a located error naming the way that works."""
    slices = {s.targets[0].name: s for s in N.walk_stmts(fn.body)
              if isinstance(s, N.Assign) and len(s.targets) == 1 and isinstance(s.value, N.OpCall)
              and s.value.op == SLICE and _acc_source(s.value.args[0]) is not None}
    for st, e in N.iter_exprs(fn.body):
        if isinstance(e, N.OpCall) and accumulates(e.op) and e.args and isinstance(e.args[0], N.Var) and \
                e.args[0].name in slices and _is_vec(e.args[0].type):
            src = _acc_source(slices[e.args[0].name].value.args[0])
            raise CompileError(f"pl.{e.op} accumulates in place into {e.args[0].name!r}, a pl.tile.slice of the Acc "
                               f"tile {src.name!r}: a slice is a copy here, not a window of {src.name!r}'s bytes, so "
                               f"the products would never reach {src.name!r}; accumulate into an Acc tile of the "
                               f"window's own shape (pl.tile.create(..., target_memory=pl.Mem.Acc)) and store it at "
                               f"the window's place (pl.store(t, [0, col], out))", e.loc or st.loc)


def _acc_source(e: N.Expr) -> Optional[N.Var]:
    """The Acc tile a slice reads: itself, or through the front end's hand-over move to Vec."""
    if isinstance(e, N.OpCall) and e.op == MOVE and e.attrs.get("target_memory") is MemorySpace.Vec:
        e = e.args[0]
    if isinstance(e, N.Var) and isinstance(e.type, TileType) and e.type.memory is MemorySpace.Acc:
        return e
    return None


def _is_vec(t) -> bool:
    return isinstance(t, TileType) and t.memory is MemorySpace.Vec


def _place(fn: N.Function) -> None:
    defs: Dict[str, List[N.Assign]] = {}
    for s in N.walk_stmts(fn.body):
        if isinstance(s, N.Assign):
            for t in s.targets:
                defs.setdefault(t.name, []).append(s)
    # reads of a name's Vec value: fine while every one is the accumulator of an accumulating op
    seen: Dict[str, int] = {}
    as_acc: Dict[str, List[Tuple[N.Stmt, N.OpCall]]] = {}
    for st, e in N.iter_exprs(fn.body):
        if isinstance(e, N.Var) and _is_vec(e.type):
            seen[e.name] = seen.get(e.name, 0) + 1
        if isinstance(e, N.OpCall) and accumulates(e.op) and e.args and isinstance(e.args[0], N.Var) \
                and _is_vec(e.args[0].type):
            as_acc.setdefault(e.args[0].name, []).append((st, e))
    where = _homes(fn.body)
    for name, ds in defs.items():
        creates = [d for d in ds if _creates_vec(d) or _zeros(d)]
        others = [d for d in ds if d not in creates]
        reads = as_acc.get(name, [])
        if len(creates) != 1 or not others or not reads or seen.get(name) != len(reads):
            continue
        t = creates[0].targets[0].type
        if not all(len(d.targets) == 1 and isinstance(d.targets[0].type, TileType) and
                   d.targets[0].type.memory is MemorySpace.Acc and d.targets[0].type.shape == t.shape and
                   d.targets[0].type.dtype is t.dtype for d in others):
            continue
        if _zeros(creates[0]):
            # a zero accumulator: the first product each read adds is the plain product instead
            firsts = [_first_product(st, e, name, creates[0], where) for st, e in reads]
            if any(f is None for f in firsts):
                continue
            for f in firsts:
                f()
            if all(f.__name__ == "plain" for f in firsts):     # nothing reads the zeros any more
                home = where[id(creates[0])][0]
                home.remove(creates[0])
                continue
        _to_acc(fn, name, creates[0])


def _to_acc(fn: N.Function, name: str, d: N.Assign) -> None:
    call = d.value
    attrs = {"shape": list(d.targets[0].type.shape), "dtype": d.targets[0].type.dtype,
             "target_memory": MemorySpace.Acc}
    if call.op == CREATE_TILE:
        attrs = dict(call.attrs, target_memory=MemorySpace.Acc)
    t = infer(CREATE_TILE, [], attrs)
    d.value = N.OpCall(CREATE_TILE, [], attrs, type=t, loc=call.loc)
    d.targets = [N.Var(name, type=t, loc=d.targets[0].loc)]
    for _, e in N.iter_exprs(fn.body):
        for sub in N.walk_expr(e):
            if isinstance(sub, N.Var) and sub.name == name and _is_vec(sub.type):
                sub.type = t


def _homes(body: List[N.Stmt], loop: Optional[N.For] = None, out=None) -> Dict[int, tuple]:
    """id(statement) -> (the statement list holding it, the loop whose body that list is, or None)."""
    out = {} if out is None else out
    for s in body:
        out[id(s)] = (body, loop)
        for sub in N.child_bodies(s):
            _homes(sub, s if isinstance(s, N.For) and sub is s.body else None, out)
    return out


def _first_product(st: N.Stmt, e: N.OpCall, name: str, zero: N.Assign, where):
    """How the accumulating call ``e`` (in ``st``) that may read the zero tile becomes right: None when it
    cannot, else a function that rewrites it.  In the zero's own statement list: the plain product
    (``matmul``).  At the top of a loop with constant bounds that runs at least once (nothing before
    it in the body rebinds the name): ``init_cond = (i == start)``, the plain product on the first
    iteration."""
    body, loop = where[id(st)]
    if not isinstance(st, N.Assign) or init_cond_given(e):
        return None
    if body is where[id(zero)][0]:
        def plain():
            op = init_form(e.op)
            args = [e.args[operand_index(e.op, sp)] for sp in (MemorySpace.Left, MemorySpace.Right)]
            attrs = {k: v for k, v in e.attrs.items() if k in {p.key for p in OPS[op].params}}
            st.value = N.OpCall(op, args, attrs, type=infer(op, [a.type for a in args], attrs), loc=e.loc)
        return plain
    if loop is None or not all(isinstance(x, N.Const) for x in (loop.start, loop.stop, loop.step)) or \
            loop.stop.value <= loop.start.value or where[id(loop)][0] is not where[id(zero)][0]:
        return None
    before = body[:body.index(st)]
    if any(isinstance(x, N.Assign) and any(t.name == name for t in x.targets) for x in N.walk_stmts(before)):
        return None

    def first_round():
        i = N.Var(loop.var.name, type=loop.var.type, loc=e.loc)
        cond = N.OpCall(EQ, [i, loop.start], {}, type=infer(EQ, [i.type, loop.start.type], {}),
                        loc=e.loc)
        e.args.append(cond)
    return first_round


def _creates_vec(s: N.Assign) -> bool:
    v = s.value
    return len(s.targets) == 1 and isinstance(v, N.OpCall) and v.op == CREATE_TILE and not v.args and \
        _is_vec(v.type) and not v.attrs.get("transpose") and not v.attrs.get("flat_layout")


def _zeros(s: N.Assign) -> bool:
    """``pl.full(shape, dtype, 0)``: a zero-filled Vec tile."""
    v = s.value
    return len(s.targets) == 1 and isinstance(v, N.OpCall) and v.op == FULL and _is_vec(v.type) and \
        isinstance(v.args[0], N.Const) and v.args[0].value == 0
