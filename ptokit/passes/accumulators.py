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
  whose result lives in operand 0's storage) is created in Acc: the create and each read are retyped.

Anything else keeps its space; an accumulator that stays in Vec is refused by the op's own rule in
InferTileMemorySpace's check (a located error naming the tile).
"""
from __future__ import annotations

from typing import Dict, List

from ..ir import nodes as N
from ..ir.ops import infer
from ..ir.types import MemorySpace, TileType
from .matmul_ops import CREATE_TILE, accumulates

_KERNELS = (N.FunctionType.InCore, N.FunctionType.AIC)


def infer_accumulator_space(prog: N.Program, ctx) -> N.Program:
    for fn in prog.functions.values():
        if fn.kind in _KERNELS:
            _place(fn)
    return prog


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
    as_acc: Dict[str, int] = {}
    for _, e in N.iter_exprs(fn.body):
        if isinstance(e, N.Var) and _is_vec(e.type):
            seen[e.name] = seen.get(e.name, 0) + 1
        if isinstance(e, N.OpCall) and accumulates(e.op) and e.args and isinstance(e.args[0], N.Var) \
                and _is_vec(e.args[0].type):
            as_acc[e.args[0].name] = as_acc.get(e.args[0].name, 0) + 1
    placed = {}
    for name, ds in defs.items():
        creates = [d for d in ds if _creates_vec(d)]
        others = [d for d in ds if d not in creates]
        if len(creates) != 1 or not others or not as_acc.get(name) or seen.get(name) != as_acc[name]:
            continue
        t = creates[0].targets[0].type
        if all(len(d.targets) == 1 and isinstance(d.targets[0].type, TileType) and
               d.targets[0].type.memory is MemorySpace.Acc and d.targets[0].type.shape == t.shape and
               d.targets[0].type.dtype is t.dtype for d in others):
            placed[name] = creates[0]
    for name, d in placed.items():
        call = d.value
        attrs = dict(call.attrs, target_memory=MemorySpace.Acc)
        t = infer(call.op, [], attrs)
        d.value = N.OpCall(call.op, [], attrs, type=t, loc=call.loc)
        d.targets = [N.Var(name, type=t, loc=d.targets[0].loc)]
        for _, e in N.iter_exprs(fn.body):
            for sub in N.walk_expr(e):
                if isinstance(sub, N.Var) and sub.name == name and _is_vec(sub.type):
                    sub.type = t


def _creates_vec(s: N.Assign) -> bool:
    v = s.value
    return len(s.targets) == 1 and isinstance(v, N.OpCall) and v.op == CREATE_TILE and not v.args and \
        _is_vec(v.type) and not v.attrs.get("transpose") and not v.attrs.get("flat_layout")
