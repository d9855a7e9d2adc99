"""ConvertTensorToTileOps: tensor-level ops in kernels become tile ops (pypto's pass of that name).

The front end keeps a vector op over tensors as written when the program annotates its result as a
tensor (``r: pl.Tensor[[M, N], pl.FP32] = pl.div(a, b)``; ``ir/ops/tensor_level.py`` types it).  In
each kernel this pass:

* loads each tensor operand into a Vec tile right before the op (a window ``x[a:b, :]`` loads that
  window, a 1-D ``[n]`` tensor is a ``[1, n]`` tile), sized against the target's Vec buffer
  (``PassContext.target``, not the smallest of all platforms);
* makes the scratch tiles the op needs (``row_prod``'s tmp), as the front end does for tile code;
* types the op by its tile rule; the name it is assigned to becomes that tile;
* replaces a whole-tensor load of such a name (``pl.assemble(out, r, [0, 0])`` stores ``r``) by the
  tile itself.

A name converted here used in any other way (a window of it, a task argument) is a located error:
pypto would keep it as an intermediate tensor in global memory, which ptokit does not do yet.
"""
from __future__ import annotations

import itertools
from typing import Dict, List, Set

from ..errors import CompileError
from ..ir import nodes as N
from ..ir.ops import OPS, infer
from ..ir.ops.tensor_level import CREATE_TILE, LOAD, as_window, is_tensor_level, load_attrs, loaded_tile_type, scratch_types
from ..ir.types import INDEX, MemorySpace, TensorType, TileType, TupleType

_KERNELS = (N.FunctionType.InCore, N.FunctionType.AIC, N.FunctionType.AIV)


def convert_tensor_to_tile_ops(prog: N.Program, ctx) -> N.Program:
    for fn in prog.functions.values():
        if fn.kind in _KERNELS:
            _Converter(fn, ctx.target).run()
    return prog


class _Converter:
    def __init__(self, fn: N.Function, target):
        self.fn = fn
        self.target = target
        self.tiles: Dict[str, TileType] = {}          # converted name -> its tile type
        taken: Set[str] = {p.name for p in fn.params}
        for s in N.walk_stmts(fn.body):
            if isinstance(s, N.Assign):
                taken.update(t.name for t in s.targets)
        self.taken = taken
        self.counter = itertools.count()

    def run(self) -> None:
        self.fn.body = self.body(self.fn.body)

    def fresh(self, base: str) -> str:
        while True:
            name = f"{base}{next(self.counter)}"
            if name not in self.taken:
                self.taken.add(name)
                return name

    # ------------------------------------------------------------ statements
    def body(self, stmts: List[N.Stmt]) -> List[N.Stmt]:
        out: List[N.Stmt] = []
        for s in stmts:
            pre: List[N.Stmt] = []
            for sub in N.child_bodies(s):
                sub[:] = self.body(sub)
            if isinstance(s, N.Assign):
                s.value = self.expr(s.value, pre, s)
                for t in s.targets:
                    self.tiles.pop(t.name, None)          # a name assigned again is another value
                if isinstance(s.value.type, TileType) and len(s.targets) == 1 and \
                        isinstance(s.targets[0].type, TensorType):
                    t = s.targets[0]
                    self.tiles[t.name] = s.value.type
                    s.targets[0] = N.Var(t.name, type=s.value.type, loc=t.loc)
            elif isinstance(s, N.ExprStmt):
                s.expr = self.expr(s.expr, pre, s)
            elif isinstance(s, N.Return):
                s.values = [self.expr(v, pre, s) for v in s.values]
            else:
                self.check_untouched(s)
            out.extend(pre)
            out.append(s)
        return out

    def check_untouched(self, s: N.Stmt) -> None:
        """A loop or branch header reading a converted name as a tensor: not lowered yet."""
        for e in N.stmt_exprs(s):
            for sub in N.walk_expr(e):
                if isinstance(sub, N.Var) and sub.name in self.tiles:
                    self.unsupported(sub, s)

    def unsupported(self, v: N.Var, s: N.Stmt):
        raise CompileError(f"{v.name!r} is a tensor computed in this kernel (a tensor-level op, now a tile); it can "
                           f"be used by vector ops and stored whole (pl.assemble(out, {v.name}, offsets)), but not "
                           f"this way yet", v.loc or s.loc)

    # ------------------------------------------------------------ expressions
    def expr(self, e: N.Expr, pre: List[N.Stmt], s: N.Stmt) -> N.Expr:
        if isinstance(e, N.Var):
            if e.name in self.tiles:
                self.unsupported(e, s)
            return e
        if isinstance(e, N.ListExpr):
            e.items = [self.expr(i, pre, s) for i in e.items]
            return e
        if isinstance(e, N.FuncCall):
            e.args = [self.expr(a, pre, s) for a in e.args]
            return e
        if not isinstance(e, N.OpCall):
            return e
        whole = self.whole_load(e)
        if whole is not None:
            return whole
        if is_tensor_level(e):
            return self.lower(e, pre, s)
        e.args = [self.expr(a, pre, s) for a in e.args]
        return e

    def whole_load(self, e: N.OpCall):
        """``load(r, [0, ...], r's shape)`` of a converted ``r``: the tile itself."""
        if e.op != LOAD or not e.args or not isinstance(e.args[0], N.Var) or e.args[0].name not in self.tiles:
            return None
        v, offs = e.args[0], e.args[1]
        zero = all(isinstance(o, N.Const) and o.value == 0 for o in offs.items)
        tile = self.tiles[v.name]
        if not zero or list(e.attrs.get("shape") or ()) != list(v.type.shape) or e.attrs.get("valid") is not None \
                or e.attrs.get("target_memory", MemorySpace.Vec) is not MemorySpace.Vec:
            return None
        return N.Var(v.name, type=tile, loc=v.loc)

    def lower(self, e: N.OpCall, pre: List[N.Stmt], s: N.Stmt) -> N.OpCall:
        op = OPS[e.op]
        args = []
        for p, a in zip(op.operand_params, e.args):
            if p.kind == "tile" and isinstance(a.type, TensorType):
                a = self.load(a, pre, s, e)
            else:
                a = self.expr(a, pre, s)
            args.append(a)
        for p, t in scratch_types(op, [a.type for a in args], e.attrs):
            name = self.fresh(p.name)
            attrs = {"shape": list(t.shape), "dtype": t.dtype, "target_memory": t.memory}
            made = N.OpCall(CREATE_TILE, [], attrs, type=infer(CREATE_TILE, [], attrs), loc=e.loc)
            pre.append(N.Assign([N.Var(name, type=made.type, loc=e.loc)], made, loc=e.loc))
            args.append(N.Var(name, type=made.type, loc=e.loc))
        return N.OpCall(e.op, args, dict(e.attrs), type=infer(e.op, [a.type for a in args], e.attrs), loc=e.loc)

    def load(self, a: N.Expr, pre: List[N.Stmt], s: N.Stmt, at: N.OpCall) -> N.Expr:
        """A tensor operand as a Vec tile: a converted name is its tile; a tensor or a window of one
        is loaded into a fresh tile right before the statement."""
        if isinstance(a, N.Var) and a.name in self.tiles:
            return N.Var(a.name, type=self.tiles[a.name], loc=a.loc)
        window = as_window(a)
        if window is not None:
            base, offsets, shape = window
            base = self.expr(base, pre, s)
            offsets = self.expr(offsets, pre, s)
        else:
            base, shape = a, list(a.type.shape)
            offsets = N.ListExpr([N.Const(0, type=INDEX, loc=a.loc) for _ in shape], loc=a.loc)
        offsets.type = TupleType(tuple(i.type for i in offsets.items))
        tile = loaded_tile_type(base.type, shape)
        cap = self.target.capacity(MemorySpace.Vec)
        if tile.nbytes > cap:
            what = f"tensor {base.name!r}" if isinstance(base, N.Var) else "a tensor"
            raise CompileError(f"tensor-level pl.{at.op} loads {what} ({a.type}) as a {tile.nbytes}-byte tile, more than the {cap}-byte Vec buffer on "
                               f"{self.target.arch}; split it with pl.load / pl.store over tiles in a pl.range loop",
                               at.loc or s.loc)
        attrs = load_attrs(shape)
        attrs["offsets_static"] = tuple(o.value if isinstance(o, N.Const) else None for o in offsets.items)
        name = self.fresh(f"{base.name}_tile" if isinstance(base, N.Var) else "tile")
        value = N.OpCall(LOAD, [base, offsets], attrs, type=infer(LOAD, [base.type, offsets.type], attrs), loc=at.loc)
        pre.append(N.Assign([N.Var(name, type=value.type, loc=at.loc)], value, loc=at.loc))
        return N.Var(name, type=value.type, loc=at.loc)
