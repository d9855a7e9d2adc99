"""FlattenTileNdTo2D: kernels see only 2-D tiles afterwards (pypto's pass of the same name,
``docs/en/dev/passes/13-flatten_tile_nd_to_2d.md``).

The front end keeps an N-D tile as written: its type is the 2-D tile whose rows are the leading
axes folded in row-major order (``[2, 3, 4]`` is ``[6, 4]``) and carries the written shape in
``TileType.nd``.  Most ops need nothing more (an element-wise op on the folded rows is the same
op).  This pass lowers the ops whose meaning depends on the batch axes, and then clears ``nd``:

* ``batch_matmul`` of N-D Mat tiles (``pl.load(..., target_memory=Mat)`` of an N-D window, through
  ``pl.tile.transpose_view`` or not): per batch index, the operand's one-batch window is loaded into
  Mat (its ``transpose_view`` when the operand was one), moved to Left / Right, multiplied, and the
  product written into its row band of the ``[B * M, N]`` Acc result; batch axes broadcast as numpy's.
  The whole N-D loads and views become dead and are dropped.
* ``transpose`` of the last two axes of an N-D Vec tile: per batch, the batch's rows are sliced,
  transposed (with a scratch tile of their own) and assembled into the ``[B * C, R]`` result.
* ``store`` of an N-D tile into a rank > 2 tensor without ``shapes``: the written shape becomes the
  partition shape (pypto injects it the same way), so the rows fold back into the batch axes.

An N-D Mat tile used any other way (a Mat tile is loaded from one contiguous 2-D block) is a
located error.
"""
from __future__ import annotations

import itertools
from math import prod
from typing import Dict, List, Optional

from ..errors import CompileError
from ..ir import nodes as N
from ..ir.ops import OPS, OpTypeError, infer
from ..ir.ops.cube import broadcast_batch
from ..ir.ops.memory import MAT_ND_REFUSAL
from ..ir.types import INDEX, AtomicType, MemorySpace, TensorType, TileType, TupleType, fmt_shape

_KERNELS = (N.FunctionType.InCore, N.FunctionType.AIC, N.FunctionType.AIV)
MAX_BATCHES = 64        # as many as the front end unrolls for a batched matmul of tensors


def flatten_tile_nd_to_2d(prog: N.Program, ctx) -> N.Program:
    for fn in prog.of_kind(*_KERNELS):
        if not _has_nd(fn.body):
            continue
        defs = {s.targets[0].name: s.value for s in N.walk_stmts(fn.body)
                if isinstance(s, N.Assign) and len(s.targets) == 1 and isinstance(s.value, N.OpCall)}
        rw = _Rewriter(defs)
        fn.body = rw.body(fn.body)
        fn.body = _drop_dead(fn.body, rw.replaced)
        _refuse_nd_mat(fn.body)
        fn.body = _strip(fn.body)
    return prog


def _has_nd(body) -> bool:
    return any(_nd(e.type) is not None for _, e in N.iter_exprs(body)) or \
        any(_nd(t.type) is not None for s in N.walk_stmts(body) for t in getattr(s, "targets", ()))


def _nd(t) -> Optional[tuple]:
    return t.nd if isinstance(t, TileType) else None


def _const(v: int, loc) -> N.Const:
    return N.Const(v, type=INDEX, loc=loc)


def _offsets(items, loc) -> N.ListExpr:
    return N.ListExpr(list(items), type=TupleType(tuple(i.type for i in items)), loc=loc)


class _Rewriter:
    def __init__(self, defs: Dict[str, N.OpCall]):
        self.defs = defs
        self.count = itertools.count()
        self.replaced = set()     # names whose only reader may have been rewritten away

    def body(self, body: List[N.Stmt]) -> List[N.Stmt]:
        out: List[N.Stmt] = []
        for s in body:
            for sub in N.child_bodies(s):
                sub[:] = self.body(sub)
            v = s.value if isinstance(s, N.Assign) else s.expr if isinstance(s, N.ExprStmt) else None
            if isinstance(v, N.OpCall) and v.op in OPS:
                op = OPS[v.op]
                if op.has("nd_batched") and any(_nd(a.type) is not None for a in v.args[:2]):
                    out.extend(self.batch_matmul(s, v))
                    continue
                if op.has("nd_swap") and _nd(v.args[0].type) is not None:
                    out.extend(self.transpose(s, v))
                    continue
                if op.form == "store" and _nd(v.args[0].type) is not None:
                    self.partition(v)
            out.append(s)
        return out

    # ------------------------------------------------------------ helpers
    def emit(self, stmts: List[N.Stmt], what: str, op: str, args, attrs, loc) -> N.Var:
        try:
            t = infer(op, [a.type for a in args], attrs)
        except OpTypeError as exc:
            raise CompileError(f"{what}: {exc}", loc) from None
        name = f"_nd{next(self.count)}"
        stmts.append(N.Assign([N.Var(name, type=t, loc=loc)], N.OpCall(op, list(args), dict(attrs), type=t, loc=loc),
                              loc=loc))
        return N.Var(name, type=t, loc=loc)

    @staticmethod
    def finish(s: N.Stmt, stmts: List[N.Stmt]) -> List[N.Stmt]:
        """The last step's value bound to the statement's own target (or a statement of its own)."""
        last = stmts.pop()
        if isinstance(s, N.Assign):
            t = s.targets[0]
            stmts.append(N.Assign([N.Var(t.name, type=last.value.type, loc=t.loc)], last.value, loc=s.loc))
        else:
            stmts.append(N.ExprStmt(last.value, loc=s.loc))
        return stmts

    # ------------------------------------------------------------ batch_matmul
    def operand(self, v: N.Expr, loc):
        """(load call, transposed) of an N-D operand, traced back through its transpose_views."""
        trans = False
        while True:
            call = self.defs.get(v.name) if isinstance(v, N.Var) else v if isinstance(v, N.OpCall) else None
            if call is None or call.op not in OPS or not OPS[call.op].has("nd_rebuilt"):
                raise CompileError(f"pl.batch_matmul of N-D tiles loads each batch's matrix again, so an N-D operand "
                                   f"must be a pl.load(..., target_memory=pl.Mem.Mat) of the window (or its "
                                   f"pl.tile.transpose_view), but this one is {v.type}", loc)
            if isinstance(v, N.Var):
                self.replaced.add(v.name)
            if isinstance(call.args[0].type, TensorType):
                return call, trans
            trans, v = not trans, call.args[0]

    def batch_matmul(self, s: N.Stmt, call: N.OpCall) -> List[N.Stmt]:
        loc = call.loc or s.loc
        spaces = (MemorySpace.Left, MemorySpace.Right)
        parts = []
        for a in call.args[:2]:
            nd = _nd(a.type)
            parts.append((a, None, ()) if nd is None else (a, self.operand(a, loc), nd[:-2]))
        batch = broadcast_batch(*(p[2] for p in parts))
        res = call.type
        m, n = res.nd[-2:] if res.nd is not None else res.shape
        stmts: List[N.Stmt] = []
        what = "pl.batch_matmul per batch"
        count = prod(batch)
        if count > MAX_BATCHES:
            raise CompileError(f"pl.batch_matmul of N-D tiles: {count} batches are unrolled one matmul each; at most "
                               f"{MAX_BATCHES} fit one kernel call (split the batch over tasks or a pl.range loop)", loc)
        acc = None
        if count > 1:
            acc = self.emit(stmts, what, "create_tile", [], {"shape": [count * m, n], "dtype": res.dtype,
                                                            "target_memory": MemorySpace.Acc}, loc)
        for b, idx in enumerate(itertools.product(*(range(d) for d in batch))):
            ins = []
            for (a, src, own), space in zip(parts, spaces):
                if src is None:
                    ins.append(a)       # a 2-D operand: the same matrix for every batch
                    continue
                mine = idx[len(idx) - len(own):] if own else ()
                t = self.batch_load(stmts, src[0], own, mine, loc)
                if src[1]:
                    t = self.emit(stmts, what, "transpose_view", [t], {}, loc)
                ins.append(self.emit(stmts, what, "move", [t], {"target_memory": space}, loc))
            p = self.emit(stmts, what, "matmul", ins, {}, loc)
            if acc is None:
                continue
            offs = _offsets([_const(b * m, loc), _const(0, loc)], loc)
            acc = self.emit(stmts, what, "assemble", [acc, p, offs],
                            {"offsets_static": (b * m, 0), "atomic": AtomicType.None_}, loc)
        return self.finish(s, stmts)

    def batch_load(self, stmts, load: N.OpCall, own, mine, loc) -> N.Var:
        """The load of one batch's matrix of an N-D window: leading extents 1, offsets moved on."""
        offs = list(load.args[1].items)
        shape = list(load.attrs["shape"])
        lead = len(shape) - 2
        static = list(load.attrs.get("offsets_static") or (None,) * len(shape))
        for d in range(lead):       # the window's leading axes are the operand's batch axes (``own``)
            i = mine[d] if shape[d] != 1 else 0         # an axis of 1 broadcasts: every batch reads it
            if i and isinstance(offs[d], N.Const):
                offs[d] = _const(offs[d].value + i, loc)
            elif i:
                args = [offs[d], _const(i, loc)]
                offs[d] = N.OpCall("scalar.add", args, {}, type=infer("scalar.add", [a.type for a in args], {}),
                                   loc=loc)
            if i:
                static[d] = static[d] + i if static[d] is not None else None
        attrs = dict(load.attrs)
        attrs["shape"] = [1] * lead + shape[-2:]
        attrs["offsets_static"] = tuple(static)
        valid = attrs.get("valid")
        if valid is not None:
            attrs["valid"] = (1,) * lead + tuple(valid[-2:])
        return self.emit(stmts, "pl.batch_matmul per batch", load.op,
                         [load.args[0], _offsets(offs, loc)], attrs, loc)

    # ------------------------------------------------------------ transpose of the last two axes
    def transpose(self, s: N.Stmt, call: N.OpCall) -> List[N.Stmt]:
        loc = call.loc or s.loc
        src = call.args[0]
        nd = src.type.nd
        if len(call.args) > 1 and isinstance(call.args[1], N.Var):
            self.replaced.add(call.args[1].name)       # the whole tile's scratch: each batch has its own
        batches, (r, c) = prod(nd[:-2]), nd[-2:]
        dt = src.type.dtype
        what = f"pl.transpose of {fmt_shape(nd)} per batch"
        stmts: List[N.Stmt] = []
        out = self.emit(stmts, what, "create_tile", [], {"shape": [batches * c, r], "dtype": dt,
                                                        "target_memory": MemorySpace.Vec}, loc)
        for b in range(batches):
            at = _offsets([_const(b * r, loc), _const(0, loc)], loc)
            part = self.emit(stmts, what, "slice", [src, at], {"shape": [r, c], "offsets_static": (b * r, 0)}, loc)
            tmp = self.emit(stmts, what, "create_tile", [], {"shape": [r, c], "dtype": dt,
                                                            "target_memory": MemorySpace.Vec}, loc)
            t = self.emit(stmts, what, call.op, [part, tmp], {"axis1": 0, "axis2": 1}, loc)
            to = _offsets([_const(b * c, loc), _const(0, loc)], loc)
            out = self.emit(stmts, what, "assemble", [out, t, to],
                            {"offsets_static": (b * c, 0), "atomic": AtomicType.None_}, loc)
        return self.finish(s, stmts)

    # ------------------------------------------------------------ store
    @staticmethod
    def partition(call: N.OpCall) -> None:
        """A store of an N-D tile into a rank > 2 tensor: the written shape is the partition."""
        nd = call.args[0].type.nd
        tensor = call.args[1].type
        if call.attrs.get("shape") is None and isinstance(tensor, TensorType) and len(tensor.shape) >= len(nd):
            call.attrs = {**call.attrs, "shape": [1] * (len(tensor.shape) - len(nd)) + list(nd)}


def _uses(body) -> Dict[str, int]:
    used: Dict[str, int] = {}
    for _, e in N.iter_exprs(body):
        if isinstance(e, N.Var):
            used[e.name] = used.get(e.name, 0) + 1
    return used


def _drop_dead(body: List[N.Stmt], names) -> List[N.Stmt]:
    """The rewritten ops' whole N-D loads, views and scratch tiles no other op reads."""
    while True:
        used = _uses(body)
        dead = {s.targets[0].name for s in N.walk_stmts(body) if isinstance(s, N.Assign) and len(s.targets) == 1
                and s.targets[0].name in names and used.get(s.targets[0].name, 0) == 0}
        if not dead:
            return body
        body = _without(body, dead)


def _without(body: List[N.Stmt], dead) -> List[N.Stmt]:
    out = []
    for s in body:
        if isinstance(s, N.Assign) and len(s.targets) == 1 and s.targets[0].name in dead:
            continue
        for sub in N.child_bodies(s):
            sub[:] = _without(sub, dead)
        out.append(s)
    return out


def _refuse_nd_mat(body: List[N.Stmt]) -> None:
    for s in N.walk_stmts(body):
        if isinstance(s, N.Assign) and isinstance(s.value, N.OpCall):
            t = s.value.type
            if _nd(t) is not None and t.memory is MemorySpace.Mat:
                raise CompileError(f"{s.value.op} of an N-D window {fmt_shape(t.nd)} into Mat {MAT_ND_REFUSAL}",
                                   s.value.loc or s.loc)


# ------------------------------------------------------------ clearing nd
def _flat(t):
    return t.with_(nd=None) if _nd(t) is not None else t


def _strip_expr(e):
    if isinstance(e, (N.Var, N.OpCall, N.FuncCall, N.ListExpr)):
        e.type = _flat(e.type)
    for sub in getattr(e, "args", None) or getattr(e, "items", None) or ():
        _strip_expr(sub)
    return e


def _strip(body: List[N.Stmt]) -> List[N.Stmt]:
    for s in N.walk_stmts(body):
        for e in N.stmt_exprs(s):
            _strip_expr(e)
        for t in list(getattr(s, "targets", ())) + list(getattr(s, "results", ())):
            t.type = _flat(t.type)
        if isinstance(s, (N.For, N.While)):
            for v, _ in s.iter_args:
                v.type = _flat(v.type)
    return body
