"""AutoTileMatmulL0's canonical split-K chain: an accumulator created whole, reduced over K by a loop
and stored once, whose output is too large for L0, is computed as a grid of output tiles around
the loop (pypto's ``15-auto_tile_matmul_l0.md``, "canonical frontend split-K reduction").

The chain, in one statement list of kernel code (before SSA)::

    acc = pl.create_tile([M, N], ..., target_memory=Acc)     # pl.create_tensor, placed in Acc
    for kb in pl.pipeline(...):                              # or any loop
        ...                                                  # scalars, loads of the operands
        if k0 == 0: acc = pl.matmul(A_k, B_k)                # every binding of acc in the loop a matmul
        else:       acc = pl.matmul_acc(acc, A_k, B_k)       #   or matmul_acc of acc itself
    pl.store(acc, offsets, out)                              # its one use after the loop

where each operand ``A_k`` / ``B_k`` is a whole Mat load of a 2-D tensor window (in the call, moved to
Left / Right, or a name the loop binds to it and reads only as such operands), and the loop holds nothing else
but control flow and scalar arithmetic (each copy runs it again).  When the L0 tile chooser cannot
hold the ``[M, N]`` output of one K block whole, each ``[m, n]`` output tile gets its own accumulator
and its own copy of the loop, whose loads are narrowed to the tile's rows of A and columns of B; the
tile is stored at its place.  The full ``[M, N]`` accumulator is never made.  The copies' matmuls are
then tiled along K by the ordinary rewrite where their operands still exceed Left / Right.
"""
from __future__ import annotations

import copy
from typing import Dict, List, Optional, Tuple

from ..ir import nodes as N
from ..ir.ops import infer
from ..ir.types import INDEX, AtomicType, MemorySpace, ScalarType, TensorType, TileType, TupleType
from .matmul_ops import (ADD, CREATE_TILE, LOAD, MOVE, STORE, accumulates, has_bias, init_cond_given, is_matmul,
                         operand_index)


def _expr_of(s: N.Stmt) -> Optional[N.Expr]:
    return s.value if isinstance(s, N.Assign) else s.expr if isinstance(s, N.ExprStmt) else None


def _reads(stmts: List[N.Stmt], name: str) -> List[Tuple[N.Stmt, N.Var]]:
    return [(s, e) for s, e in N.iter_exprs(stmts) if isinstance(e, N.Var) and e.name == name]


class Chain:
    """One matched chain: the statements, the product calls in the loop, the operand loads."""

    def __init__(self, create: N.Assign, loop: N.For, store: N.Stmt, calls, loads):
        self.create, self.loop, self.store = create, loop, store
        self.calls = calls                  # the product calls binding the accumulator
        self.loads = loads                  # id(load call) -> "rows" (of A) or "cols" (of B)

    @property
    def name(self) -> str:
        return self.create.targets[0].name

    @property
    def shape(self) -> Tuple[int, int]:
        return self.create.targets[0].type.shape


def match(stmts: List[N.Stmt], i: int, everything: List[N.Stmt], is_mat) -> Optional[Chain]:
    """The chain whose create is ``stmts[i]``, or None."""
    s = stmts[i]
    if not (isinstance(s, N.Assign) and len(s.targets) == 1 and isinstance(s.value, N.OpCall)
            and s.value.op == CREATE_TILE and not s.value.args and isinstance(s.targets[0].type, TileType)
            and s.targets[0].type.memory is MemorySpace.Acc):
        return None
    name = s.targets[0].name
    rest = stmts[i + 1:]
    loop_at = next((j for j, st in enumerate(rest) if _reads([st], name) or _binds(st, name)), None)
    if loop_at is None or not isinstance(rest[loop_at], N.For) or rest[loop_at].iter_args:
        return None
    loop = rest[loop_at]
    after = rest[loop_at + 1:]
    store_at = next((j for j, st in enumerate(after) if _reads([st], name) or _binds(st, name)), None)
    if store_at is None:
        return None
    store = after[store_at]
    e = _expr_of(store)
    if not (isinstance(e, N.OpCall) and e.op == STORE and isinstance(e.args[0], N.Var) and e.args[0].name == name
            and isinstance(e.args[1].type, TensorType) and len(e.args[1].type.shape) == 2
            and not e.attrs.get("shape") and e.attrs.get("atomic") in (None, AtomicType.None_)):
        return None
    # acc: read by the loop's accumulating products and the store only, bound by the create and the products
    total = len(_reads(everything, name))
    calls, loads = [], {}
    named: Dict[str, int] = {}          # a load bound to a name: read only as these products' operands
    in_loop = 0
    for st in N.walk_stmts(loop.body):
        if isinstance(st, N.Assign) and any(t.name == name for t in st.targets):
            v = _expr_of(st)
            if not (len(st.targets) == 1 and isinstance(v, N.OpCall)
                    and is_matmul(v.op) and not has_bias(v.op) and v.type == s.targets[0].type):
                return None
            if accumulates(v.op):
                if init_cond_given(v) or not (isinstance(v.args[0], N.Var) and v.args[0].name == name):
                    return None
                in_loop += 1
            if any(v.attrs.get(f) for f in ("a_trans", "b_trans", "c_matrix_nz")):
                return None
            for space, axis in ((MemorySpace.Left, "rows"), (MemorySpace.Right, "cols")):
                arg = v.args[operand_index(v.op, space)]
                load = _operand_load(arg, space, loop.body, everything, is_mat)
                if load is None or loads.get(id(load), axis) != axis:
                    return None
                loads[id(load)] = axis
                if isinstance(arg, N.Var):
                    named[arg.name] = named.get(arg.name, 0) + 1
            calls.append(v)
    if any(len(_reads(everything, n)) != k for n, k in named.items()):
        return None
    if not calls or in_loop + 1 != total or not all(_copyable(st, name, is_mat) for st in N.walk_stmts(loop.body)):
        return None
    return Chain(s, loop, store, calls, loads)


def _copyable(s: N.Stmt, name: str, is_mat) -> bool:
    """A statement each output tile's copy of the loop may run again: control flow, scalar arithmetic,
    the accumulator's products and Mat loads (nothing that writes memory)."""
    if isinstance(s, (N.If, N.For, N.Condition)):
        return True
    if not isinstance(s, N.Assign) or len(s.targets) != 1:
        return False
    t, v = s.targets[0], s.value
    if t.name == name or isinstance(t.type, ScalarType):
        return True
    return isinstance(v, N.OpCall) and v.op == LOAD and is_mat(t.type)


def _binds(s: N.Stmt, name: str) -> bool:
    return any(isinstance(st, N.Assign) and any(t.name == name for t in st.targets) for st in N.walk_stmts([s]))


def _operand_load(arg: N.Expr, space: MemorySpace, body: List[N.Stmt], everything, is_mat) -> Optional[N.OpCall]:
    """The whole Mat load behind a product's ``space`` operand: ``move(load(...), space)`` in the call,
    or a name the loop binds once to such a load (read only as the chain's operands: ``match``)."""
    if isinstance(arg, N.OpCall) and arg.op == MOVE and arg.attrs.get("target_memory") is space and \
            arg.attrs.get("blayout") is None and arg.attrs.get("slayout") is None:
        arg = arg.args[0]
    if isinstance(arg, N.Var) and is_mat(arg.type):
        defs = [st for st in N.walk_stmts(body) if isinstance(st, N.Assign) and
                any(t.name == arg.name for t in st.targets)]
        outside = [st for st in N.walk_stmts(everything) if isinstance(st, N.Assign) and
                   any(t.name == arg.name for t in st.targets)]
        if len(defs) != 1 or len(outside) != 1:
            return None
        arg = defs[0].value
    if isinstance(arg, N.OpCall) and arg.op == LOAD and is_mat(arg.type) and not arg.attrs.get("valid") and \
            not arg.attrs.get("clamp") and isinstance(arg.args[0].type, TensorType) and \
            len(arg.args[0].type.shape) == 2 and isinstance(arg.args[1], N.ListExpr):
        return arg
    return None


# ---------------------------------------------------------------- the copies

def add(a: N.Expr, b: N.Expr, loc) -> N.Expr:
    if isinstance(b, N.Const) and b.value == 0:
        return a
    if isinstance(a, N.Const) and a.value == 0:
        return b
    if isinstance(a, N.Const) and isinstance(b, N.Const):
        return N.Const(a.value + b.value, type=INDEX, loc=loc)
    return N.OpCall(ADD, [a, b], {}, type=infer(ADD, [a.type, b.type], {}), loc=loc)


def tile_loop(chain: Chain, acc: str, row: N.Expr, col: N.Expr, vm: int, vn: int) -> List[N.Stmt]:
    """The ``[vm, vn]`` output tile at (row, col): its accumulator ``acc`` and a copy of the loop whose
    loads read that tile's rows of A and columns of B."""
    loc = chain.loop.loc
    attrs = dict(chain.create.value.attrs, shape=[vm, vn])
    t = infer(CREATE_TILE, [], attrs)
    create = N.Assign([N.Var(acc, type=t, loc=chain.create.loc)],
                      N.OpCall(CREATE_TILE, [], attrs, type=t, loc=chain.create.value.loc), loc=chain.create.loc)
    # copy the loop with the loads marked, then narrow and retype
    marks: Dict[int, str] = {}
    originals = {id(e): e for _, e in N.iter_exprs(chain.loop.body)}
    memo: Dict[int, object] = {}
    loop = copy.deepcopy(chain.loop, memo)
    for key, axis in chain.loads.items():
        marks[id(memo[id(originals[key])])] = axis
    env: Dict[str, object] = {chain.name: t}

    def narrow(load: N.OpCall) -> N.OpCall:
        axis = marks[id(load)]
        items = list(load.args[1].items)
        shape = list(load.attrs["shape"])
        if axis == "rows":
            items[-2], shape[-2] = add(items[-2], row, loc), vm
        else:
            items[-1], shape[-1] = add(items[-1], col, loc), vn
        a = dict(load.attrs, shape=shape,
                 offsets_static=tuple(p.value if isinstance(p, N.Const) else None for p in items))
        offs = N.ListExpr(items, type=infer_offsets(items), loc=load.args[1].loc)
        return N.OpCall(LOAD, [load.args[0], offs], a, type=infer(LOAD, [load.args[0].type, offs.type], a),
                        loc=load.loc)

    def expr(e: N.Expr) -> N.Expr:
        if isinstance(e, N.Var):
            name = acc if e.name == chain.name else e.name
            return N.Var(name, type=env.get(e.name, e.type), loc=e.loc)
        if isinstance(e, N.OpCall):
            if id(e) in marks:
                return narrow(e)
            args = [expr(a) for a in e.args]
            if any(a.type is not b.type for a, b in zip(args, e.args)):
                return N.OpCall(e.op, args, dict(e.attrs), type=infer(e.op, [a.type for a in args], e.attrs),
                                loc=e.loc)
            return N.OpCall(e.op, args, dict(e.attrs), type=e.type, loc=e.loc)
        if isinstance(e, N.ListExpr):
            return N.ListExpr([expr(a) for a in e.items], type=e.type, loc=e.loc)
        return e

    def body(stmts: List[N.Stmt]) -> List[N.Stmt]:
        out = []
        for s in stmts:
            if isinstance(s, N.Assign):
                value = expr(s.value)
                targets = []
                for tv in s.targets:
                    if value.type is not None and len(s.targets) == 1 and value.type != tv.type:
                        env[tv.name] = value.type
                    targets.append(N.Var(acc if tv.name == chain.name else tv.name,
                                         type=env.get(tv.name, tv.type), loc=tv.loc))
                out.append(N.Assign(targets, value, loc=s.loc))
            elif isinstance(s, N.ExprStmt):
                out.append(N.ExprStmt(expr(s.expr), loc=s.loc))
            elif isinstance(s, N.If):
                out.append(N.If(expr(s.cond), body(s.then_body), body(s.else_body), loc=s.loc))
            elif isinstance(s, N.For):
                out.append(N.For(s.var, expr(s.start), expr(s.stop), expr(s.step), body(s.body), kind=s.kind,
                                 stage=s.stage, loc=s.loc))
            else:
                out.append(s)
        return out

    new = N.For(loop.var, loop.start, loop.stop, loop.step, body(loop.body), kind=loop.kind, stage=loop.stage,
                loc=loop.loc)
    return [create, new]


def infer_offsets(items: List[N.Expr]):
    return TupleType(tuple(i.type for i in items))
