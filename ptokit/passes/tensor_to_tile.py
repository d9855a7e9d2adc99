"""ConvertTensorToTileOps: tensor-level ops in kernels become tile ops (pypto's pass of that name).

The front end keeps a vector op over tensors as it is written (``e = pl.exp(a)``,
``d = pl.sub(a[16:32, :], v)``, ``pl.add(acc, x[i])``; ``ir/ops/tensor_level.py`` types it).  In
each kernel this pass:

* loads each tensor operand into a Vec tile right before the statement (a window ``x[a:b, :]``
  loads that window, a 1-D ``[n]`` tensor is a ``[1, n]`` tile), sized against the target's Vec
  buffer (``PassContext.target``);
* makes the scratch tiles the op needs (``row_prod``'s tmp), as the front end does for tile code;
* types the op by its tile rule; the name it is assigned to becomes that tile;
* reads a converted name where the front end wrote a load of it: a whole load into Vec is the
  tile itself, a window of it a ``slice``, a load into Mat (a cube operand) a move;
* carries converted names through loops and branches: a tensor a loop body converts is loaded
  before the loop, an ``if`` arm that leaves a name a tensor while the other converts it loads it;
* writes an output: a tensor-level result bound to a ``pl.Out`` / ``pl.InOut`` tensor parameter
  (``result = pl.add(x, 1.0)``, also in a ``pl.at`` block, whose outlining makes ``result`` a
  parameter) is stored into it, and the name stays that tensor.

A converted name used in any other way (a task argument, a loop bound) is a located error: pypto
would keep it as an intermediate tensor in global memory, which ptokit does not do yet.  So is a
tensor-level op in orchestration code (outside a ``pl.at`` block), which the front end keeps as
written too.
"""
from __future__ import annotations

import itertools
from typing import Dict, List, Optional, Set

from ..errors import CompileError
from ..ir import nodes as N
from ..ir.ops import OPS, infer
from ..ir.ops.tensor_level import (CREATE_TILE, LOAD, as_window, is_tensor_level, keeps_tensor_operand, load_attrs,
                                   loaded_tile_type, scratch_types, whole_store)
from ..ir.types import INDEX, MemorySpace, TensorType, TileType, TupleType

_KERNELS = (N.FunctionType.InCore, N.FunctionType.AIC, N.FunctionType.AIV)
_SLICE = "slice"           # the ops this pass builds besides LOAD and CREATE_TILE
_MOVE = "move"
_ADD, _MUL = "scalar.add", "scalar.mul"      # the folded row index of an N-D window


def convert_tensor_to_tile_ops(prog: N.Program, ctx) -> N.Program:
    for fn in prog.functions.values():
        if fn.kind in _KERNELS:
            _Converter(fn, ctx.target).run()
        elif fn.kind is N.FunctionType.Orchestration:
            _check_orchestration(fn)
    return prog


def _folded_row(offsets, dims, loc) -> N.Expr:
    """The row of an N-D value's folded tile at ``offsets`` (all axes but the last):
    ``((o0 * d1 + o1) * d2 + ...) * d[-1] + o[-1]``, folded to a constant where the offsets are."""
    row: N.Expr = offsets[0]
    for o, d in zip(offsets[1:], dims[1:]):
        row = _index_op(_ADD, _index_op(_MUL, row, N.Const(d, type=INDEX, loc=loc), loc), o, loc)
    return row


def _index_op(op: str, a: N.Expr, b: N.Expr, loc) -> N.Expr:
    if isinstance(a, N.Const) and isinstance(b, N.Const):
        return N.Const(a.value * b.value if op == _MUL else a.value + b.value, type=INDEX, loc=loc)
    return N.OpCall(op, [a, b], {}, type=infer(op, [a.type, b.type], {}), loc=loc)


def _check_orchestration(fn: N.Function) -> None:
    """A tensor-level vector op the front end kept in orchestration code (outside any ``pl.at``
    block) computes on a core: a located error saying where it belongs."""
    for s, e in N.walk_ops(fn.body):
        if keeps_tensor_operand(e):
            raise CompileError(f"pl.{e.op} on tensors computes on a core, but {fn.name} is orchestration code: put it "
                               f"in a `with pl.at(level=pl.Level.CORE_GROUP):` block (or a kernel function)",
                               e.loc or s.loc)


class _Converter:
    def __init__(self, fn: N.Function, target):
        self.fn = fn
        self.target = target
        self.tiles: Dict[str, TileType] = {}          # converted name -> its tile type, where the walk is
        self.tensors: Dict[str, TensorType] = {p.name: p.type for p in fn.params if isinstance(p.type, TensorType)}
        self.outputs = {p.name: p.type for p in fn.params if isinstance(p.type, TensorType)
                        and p.direction in (N.Direction.OUT, N.Direction.INOUT)}
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
            if isinstance(s, (N.For, N.While)):
                self.check_untouched(s)
                self.loop(s, pre)
            elif isinstance(s, N.If):
                self.check_untouched(s)
                self.branch(s)
            elif isinstance(s, N.Scope):
                s.body = self.body(s.body)
            elif isinstance(s, N.Assign):
                s = self.assign(s, pre)
            elif isinstance(s, N.ExprStmt):
                s.expr = self.expr(s.expr, pre, s)
            elif isinstance(s, N.Return):
                s.values = [self.expr(v, pre, s) for v in s.values]
            else:
                self.check_untouched(s)
            out.extend(pre)
            out.append(s)
        return out

    def assign(self, s: N.Assign, pre: List[N.Stmt]) -> N.Stmt:
        if isinstance(s.value, N.Var) and s.value.name in self.tiles:
            s.value = N.Var(s.value.name, type=self.tiles[s.value.name], loc=s.value.loc)    # a copy of the tile
        else:
            s.value = self.expr(s.value, pre, s)
        for t in s.targets:
            self.tiles.pop(t.name, None)          # a name assigned again is another value
        if len(s.targets) != 1:
            return s
        t = s.targets[0]
        if isinstance(s.value.type, TileType) and isinstance(t.type, TensorType):
            if t.name in self.outputs:
                return self.store_output(t, s)
            self.tiles[t.name] = s.value.type
            s.targets[0] = N.Var(t.name, type=s.value.type, loc=t.loc)
        elif isinstance(t.type, TensorType):
            self.tensors[t.name] = t.type
        return s

    def store_output(self, t: N.Var, s: N.Assign) -> N.Stmt:
        """``out = <tensor-level op>`` for an output tensor ``out``: the result is stored into it
        (pypto's tensor-level result bound to an output tensor)."""
        want, tile = self.outputs[t.name], s.value.type
        if loaded_tile_type(want).shape != tile.shape or want.dtype != tile.dtype:
            raise CompileError(f"{t.name!r} is an output tensor {want}, but this binds it to a value of shape "
                               f"{list(tile.shape)} and dtype {tile.dtype.name}; compute a value of the output's shape, "
                               f"or store a window of it (pl.assemble({t.name}, value, offsets))", t.loc or s.loc)
        return N.ExprStmt(whole_store(s.value, N.Var(t.name, type=want, loc=t.loc), s.loc), loc=s.loc)

    def loop(self, s, pre: List[N.Stmt]) -> None:
        """A loop body with the names it converts: a tensor the body converts that is a tensor on
        entry is loaded before the loop, so every iteration sees the tile."""
        for name in sorted(self.converted_in(s.body)):
            if name not in self.tiles and name in self.tensors:
                var = N.Var(name, type=self.tensors[name], loc=s.loc)
                self.tiles[name] = self.load(var, pre, s, s, into=name).type
        entry = dict(self.tiles)
        s.body = self.body(s.body)
        for name, t in entry.items():
            if self.tiles.get(name) != t:
                raise CompileError(f"{name!r} is a tile computed in this kernel (a tensor-level op) before the loop, "
                                   f"but the loop body binds it to {self.tiles.get(name, 'a tensor')}; keep one "
                                   f"shape and dtype across iterations", s.loc)

    def branch(self, s: N.If) -> None:
        """Both arms of an ``if``: a name one arm converts and the other leaves a tensor is loaded at
        the end of that arm, so after the ``if`` it is the tile either way."""
        entry = dict(self.tiles)
        s.then_body = self.body(s.then_body)
        then_tiles, self.tiles = self.tiles, dict(entry)
        s.else_body = self.body(s.else_body)
        else_tiles = self.tiles
        merged = {}
        for name in set(then_tiles) | set(else_tiles):
            a, b = then_tiles.get(name), else_tiles.get(name)
            if a is not None and b is not None and a != b:
                raise CompileError(f"the arms of this if bind {name!r} to different tiles ({a} and {b})", s.loc)
            if a is None or b is None:
                arm = s.then_body if a is None else s.else_body
                if name not in self.tensors:
                    continue                      # bound in one arm only: not a value after the if
                tail: List[N.Stmt] = []
                self.load(N.Var(name, type=self.tensors[name], loc=s.loc), tail, s, s, into=name)
                arm.extend(tail)
            merged[name] = a or b
        self.tiles = merged

    def converted_in(self, stmts: List[N.Stmt]) -> Set[str]:
        """Names bound, somewhere in ``stmts``, to a value this pass makes a tile of."""
        out: Set[str] = set()
        for s in N.walk_stmts(stmts):
            if isinstance(s, N.Assign) and len(s.targets) == 1 and isinstance(s.targets[0].type, TensorType) and \
                    s.targets[0].name not in self.outputs and (keeps_tensor_operand(s.value) or isinstance(
                        s.value, N.Var) and (s.value.name in self.tiles or s.value.name in out)):
                out.add(s.targets[0].name)
        return out

    def check_untouched(self, s: N.Stmt) -> None:
        """A loop or branch header reading a converted name as a tensor: not lowered yet."""
        for e in N.stmt_exprs(s):
            for sub in N.walk_expr(e):
                if isinstance(sub, N.Var) and sub.name in self.tiles:
                    self.unsupported(sub, s)

    def unsupported(self, v: N.Var, s: N.Stmt):
        raise CompileError(f"{v.name!r} is a tensor computed in this kernel (a tensor-level op, now a tile); it can "
                           f"be used by vector ops, stored (pl.assemble(out, {v.name}, offsets)) and windowed, but "
                           f"not this way yet", v.loc or s.loc)

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
        read = self.read_load(e, pre, s)
        if read is not None:
            return read
        if keeps_tensor_operand(e):
            return self.lower(e, pre, s)
        e.args = [self.expr(a, pre, s) for a in e.args]
        return e

    def on_chip(self, a: N.Expr, pre: List[N.Stmt], s: N.Stmt) -> Optional[N.Expr]:
        """The tile a tensor-typed expression stands for once converted (a converted name, a
        tensor-level op lowered here), else None."""
        if isinstance(a, N.Var) and a.name in self.tiles:
            return N.Var(a.name, type=self.tiles[a.name], loc=a.loc)
        if is_tensor_level(a):
            return self.lower(a, pre, s)
        return None

    def read_load(self, e: N.OpCall, pre: List[N.Stmt], s: N.Stmt) -> Optional[N.Expr]:
        """A load the front end wrote of a converted value: a whole load into Vec is the tile, a
        window of it a slice, a whole load into Mat a move there."""
        if e.op != LOAD or not e.args or not (isinstance(e.args[0], N.Var) and e.args[0].name in self.tiles
                                               or is_tensor_level(e.args[0])):
            return None
        src, offs = e.args[0], e.args[1]
        shape = list(e.attrs.get("shape") or ())
        space = e.attrs.get("target_memory", MemorySpace.Vec)
        tile = self.on_chip(src, pre, s)
        zero = all(isinstance(o, N.Const) and o.value == 0 for o in offs.items)
        if e.attrs.get("valid") is None and zero and shape == list(src.type.shape):
            if space is MemorySpace.Vec:
                return tile
            attrs = {"target_memory": space}
            return N.OpCall(_MOVE, [tile], attrs, type=infer(_MOVE, [tile.type], attrs), loc=e.loc)
        if e.attrs.get("valid") is None and space is MemorySpace.Vec:
            return self.window_of(tile, src, offs, shape, e.loc, s)
        if e.attrs.get("valid") is None and space is MemorySpace.Mat:
            # a window of a computed value as a cube operand (a batch of a batched matmul): its slice,
            # moved to Mat (InferTileMemorySpace takes it on to Left / Right)
            part = self.window_of(tile, src, offs, shape, e.loc, s)
            attrs = {"target_memory": space}
            return N.OpCall(_MOVE, [part], attrs, type=infer(_MOVE, [part.type], attrs), loc=e.loc)
        self.unsupported(src if isinstance(src, N.Var) else N.Var("a tensor-level value", loc=e.loc), s)

    def window_of(self, tile: N.Expr, src: N.Expr, offs: N.ListExpr, shape, loc, s: N.Stmt) -> N.Expr:
        """The window ``offs``/``shape`` of a converted 1-D or 2-D value: a slice of its tile."""
        rank = len(src.type.shape)
        if rank == 1:
            items, shape = [N.Const(0, type=INDEX, loc=loc)] + list(offs.items), [1] + list(shape)
        elif rank == 2:
            items = list(offs.items)
        elif all(d == 1 for d in shape[:-2]):
            # one matrix of an N-D value: the tile's rows are the leading axes folded in row-major order,
            # so the window is the row band starting at the folded row index of its offsets
            items, shape = [_folded_row(offs.items[:-1], src.type.shape[:-1], loc), offs.items[-1]], shape[-2:]
        else:
            raise CompileError(f"a window {list(shape)} of a {rank}-D tensor computed in this kernel is supported when "
                               f"it is one matrix (leading extents 1); compute the window itself (the op on a window "
                               f"of its operands)", loc or s.loc)
        offsets = N.ListExpr(items, loc=offs.loc)
        offsets.type = TupleType(tuple(i.type for i in items))
        attrs = {"shape": list(shape), "offsets_static": tuple(o.value if isinstance(o, N.Const) else None
                                                               for o in items)}
        return N.OpCall(_SLICE, [tile, offsets], attrs, type=infer(_SLICE, [tile.type, offsets.type], attrs), loc=loc)

    def lower(self, e: N.OpCall, pre: List[N.Stmt], s: N.Stmt) -> N.OpCall:
        op = OPS[e.op]
        args = []
        for p, a in zip(op.operand_params, e.args):
            if p.kind == "tile" and isinstance(a.type, TensorType):
                a = self.operand(a, pre, s, e)
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

    def operand(self, a: N.Expr, pre: List[N.Stmt], s: N.Stmt, at: N.OpCall) -> N.Expr:
        """A tensor operand as a Vec tile: a converted value is its tile, a window of one a slice;
        a tensor or a window of one is loaded into a fresh tile right before the statement."""
        tile = self.on_chip(a, pre, s)
        if tile is not None:
            return tile
        window = as_window(a)
        if window is not None:
            base, offsets, shape = window
            inner = self.on_chip(base, pre, s)
            if inner is not None and a.attrs.get("valid") is None:
                return self.window_of(inner, base, offsets, shape, a.loc or at.loc, s)
            if inner is not None:
                self.unsupported(base if isinstance(base, N.Var) else N.Var("a tensor-level value", loc=a.loc), s)
        return self.load(a, pre, s, at)

    def load(self, a: N.Expr, pre: List[N.Stmt], s: N.Stmt, at, into: Optional[str] = None) -> N.Expr:
        """A tensor or a window of one loaded into a Vec tile by a statement appended to ``pre``,
        bound to ``into`` (default: a fresh name); the bound name."""
        window = as_window(a)
        valid = None
        if window is not None:
            base, offsets, shape = window
            base = self.expr(base, pre, s)
            offsets = self.expr(offsets, pre, s)
            valid = a.attrs.get("valid")          # pl.slice(..., valid_shape=): only that part is read
        else:
            base, shape = a, list(a.type.shape)
            offsets = N.ListExpr([N.Const(0, type=INDEX, loc=a.loc) for _ in shape], loc=a.loc)
        offsets.type = TupleType(tuple(i.type for i in offsets.items))
        tile = loaded_tile_type(base.type, shape)
        cap = self.target.capacity(MemorySpace.Vec)
        if tile.nbytes > cap:
            what = f"tensor {base.name!r}" if isinstance(base, N.Var) else "a tensor"
            op = f"pl.{at.op}" if isinstance(at, N.OpCall) else "code"
            raise CompileError(f"tensor-level {op} loads {what} ({a.type}) as a {tile.nbytes}-byte tile, more than the "
                               f"{cap}-byte Vec buffer on {self.target.arch}; split it with pl.load / pl.store over "
                               f"tiles in a pl.range loop", at.loc or s.loc)
        attrs = load_attrs(shape)
        attrs["valid"] = valid
        attrs["offsets_static"] = tuple(o.value if isinstance(o, N.Const) else None for o in offsets.items)
        name = into or self.fresh(f"{base.name}_tile" if isinstance(base, N.Var) else "tile")
        value = N.OpCall(LOAD, [base, offsets], attrs, type=infer(LOAD, [base.type, offsets.type], attrs), loc=at.loc)
        pre.append(N.Assign([N.Var(name, type=value.type, loc=at.loc)], value, loc=at.loc))
        return N.Var(name, type=value.type, loc=at.loc)

