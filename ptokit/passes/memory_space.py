"""Memory-space inference and checking.

Type rules already give every tile a memory space (loads default to Vec,
matmul results live in Acc, ``pl.move`` names its target).  This pass checks
what depends on the platform: which on-chip moves exist (runtime.md), and
that no Acc->Vec move is left for a non-mixed kernel.
"""
from __future__ import annotations

from typing import Dict, List, Optional

from ..errors import CompileError, InternalError
from ..ir import nodes as N
from ..ir.access import tensor_accesses
from ..ir.ops import OPS, OpTypeError, infer
from ..ir.ops.memory import MX_SCALE_LAYOUT
from ..ir.types import DType, MemorySpace, TileType
from .matmul_ops import accumulates
from .rewrite import subst_body


def tile_shape_problem(t: TileType):
    """The hardware's tile shape rules (the tile library enforces the same at compile time)."""
    size = t.dtype.size
    if t.dtype is DType.FP8E8M0 and (t.memory in (MemorySpace.LeftScale, MemorySpace.RightScale) or
                                     t.layout in MX_SCALE_LAYOUT.values()):
        return None      # MX scales: the 32-byte scale fractal, any shape (tmatmul.mx checks the geometry)
    if t.layout is not None:   # a layout other than the space's default: its own box (tile.hpp's rule)
        bl, sl = t.layout
        if sl == "none_box":
            n = t.cols if bl == "row_major" else t.rows
            return None if (n * size) % 32 == 0 else f"a flat {bl} tile needs {n} x {size} bytes to be a multiple of 32"
        box = (16, 32 // size) if sl == "row_major" else (32 // size, 16)
        if (t.rows != 1 and t.rows % box[0]) or t.cols % box[1]:
            return (f"a {t.memory.name} tile of {t.dtype.name} with slayout={sl} is stored in {box[0]}x{box[1]} "
                    f"fractal boxes, so its shape must be a multiple of [{box[0]}, {box[1]}]")
        return None
    if t.memory in (MemorySpace.Vec, MemorySpace.Bias):
        if t.cols == 1 and t.rows > 1:
            if (t.rows * size) % 32:
                return f"a [{t.rows}, 1] column tile needs rows * {size} bytes to be a multiple of 32"
        elif (t.cols * size) % 32:
            return f"a row-major tile needs cols * {size} bytes to be a multiple of 32 (got {t.cols} columns)"
        return None
    box = {MemorySpace.Mat: (16, 32 // size), MemorySpace.Left: (16, 32 // size),
           MemorySpace.Right: (32 // size, 16), MemorySpace.Acc: (16, 16)}[t.memory]
    if (t.rows != 1 and t.rows % box[0]) or t.cols % box[1]:
        return (f"a {t.memory.name} tile of {t.dtype.name} is stored in {box[0]}x{box[1]} fractal boxes, so its "
                f"shape must be a multiple of [{box[0]}, {box[1]}]")
    return None


def check_memory_spaces(prog: N.Program, ctx) -> N.Program:
    target = ctx.target
    for fn in prog.functions.values():
        for s in N.walk_stmts(fn.body):
            if isinstance(s, N.Assign):
                for t in s.targets:
                    if isinstance(t.type, TileType):
                        problem = tile_shape_problem(t.type)
                        if problem:
                            raise CompileError(f"tile {t.name!r} {t.type} has an unsupported shape: {problem}",
                                               s.loc)
        for s, sub in N.walk_ops(fn.body):
            if not target.mx_scales and OPS[sub.op].has("a5_only"):
                raise CompileError(f"pl.{sub.op} exists on the a5 chip family only (platform a5sim or a5), but this "
                                   f"program is compiled for {target.arch}", sub.loc or s.loc)
            if accumulates(sub.op) and isinstance(sub.args[0].type, TileType) and \
                    sub.args[0].type.memory is not MemorySpace.Acc:
                acc = sub.args[0]
                what = f"{acc.name!r}" if isinstance(acc, N.Var) else "its accumulator"
                raise CompileError(f"pl.{sub.op} accumulates in place into an Acc tile, but {what} is a "
                                   f"{acc.type.memory.name} tile and nothing moves a tile into Acc; start the "
                                   f"accumulator with pl.matmul, or make it with pl.create_tensor / "
                                   f"pl.create_tile and bind it only to matmul products", sub.loc or s.loc)
            if sub.op == "move":
                attrs = dict(sub.attrs, target=target)
                try:
                    infer("move", [a.type for a in sub.args], attrs)
                except OpTypeError as exc:
                    raise CompileError(str(exc), sub.loc or s.loc) from None
            if isinstance(sub.type, TileType) and fn.kind is N.FunctionType.Orchestration:
                raise CompileError(f"tile op pl.{sub.op} in an Orchestration function; tile ops "
                                   f"belong in InCore functions", sub.loc or s.loc)
    return prog


# ----------------------------------------------------------------- InferTileMemorySpace
# The spaces a cube op names for its operands (``Param.space``): a tile elsewhere is brought there.
_OPERAND_SPACES = (MemorySpace.Left, MemorySpace.Right, MemorySpace.Bias)
# moves that cross between the cube and a vector core: a mixed kernel's split turns each into the
# cross-core FIFO (passes/split_mixed.py), on every platform
_CROSSING = frozenset({(MemorySpace.Vec, MemorySpace.Mat)})


def move_path(src: MemorySpace, dst: MemorySpace, target) -> Optional[List[MemorySpace]]:
    """The spaces a tile in ``src`` passes through to reach ``dst`` (``dst`` last), by the fewest
    moves that exist on ``target`` (its on-chip moves and the FIFO's Vec->Mat); None: no way."""
    edges = {(MemorySpace(s), MemorySpace(d)) for s, d in target.moves} | _CROSSING
    paths = {src: []}
    frontier = [src]
    while frontier:
        nxt = []
        for here in frontier:
            for s, d in sorted(edges, key=lambda e: (e[0].value, e[1].value)):
                if s is here and d not in paths:
                    paths[d] = paths[here] + [d]
                    nxt.append(d)
        frontier = nxt
    return paths.get(dst)


def demanded_operands(op: N.OpCall):
    """(argument index, space, transpose flag or None) of each tile operand ``op`` wants in a cube
    operand space: one elsewhere, or one whose ``a_trans`` / ``b_trans`` is set."""
    params = OPS[op.op].operand_params
    for i, (a, p) in enumerate(zip(op.args, params)):
        flag = p.transposed_by if p.transposed_by and op.attrs.get(p.transposed_by) else None
        if p.space in _OPERAND_SPACES and isinstance(a.type, TileType) and (a.type.memory is not p.space or flag):
            yield i, p.space, flag


class _Names:
    def __init__(self, fn: N.Function):
        self.used = {p.name for p in fn.params}
        for s in N.walk_stmts(fn.body):
            for v in _defined(s):
                self.used.add(v.name)

    def fresh(self, base: str) -> str:
        name, k = base, 1
        while name in self.used:
            name, k = f"{base}_{k}", k + 1
        self.used.add(name)
        return name


def _defined(s: N.Stmt) -> List[N.Var]:
    if isinstance(s, N.Assign):
        return list(s.targets)
    if isinstance(s, (N.For, N.While)):
        return ([s.var] if isinstance(s, N.For) else []) + [p for p, _ in s.iter_args] + list(s.results)
    if isinstance(s, N.If):
        return list(s.results)
    return []


def _reads(s: N.Stmt) -> List[N.Var]:
    """Variables a statement reads itself (its expressions and yields; not its nested bodies)."""
    exprs = list(N.stmt_exprs(s))
    if isinstance(s, (N.For, N.While)):
        exprs += list(s.yields)
    elif isinstance(s, N.If):
        exprs += list(s.then_yields) + list(s.else_yields)
    return [e for x in exprs for e in N.walk_expr(x) if isinstance(e, N.Var)]


def _bring(fn: N.Function, body: List[N.Stmt], ctx, names: _Names, made: Dict[tuple, N.Var]) -> List[N.Stmt]:
    """``body`` with a move chain before each cube op whose operand sits elsewhere; ``made`` caches
    the chains of this scope (a nested body sees its enclosing scope's, never a sibling's)."""
    out: List[N.Stmt] = []
    for s in body:
        for sub in N.child_bodies(s):
            sub[:] = _bring(fn, sub, ctx, names, dict(made))
        op = s.value if isinstance(s, N.Assign) else s.expr if isinstance(s, N.ExprStmt) else None
        if isinstance(op, N.OpCall) and op.op in OPS:
            args, attrs = list(op.args), dict(op.attrs)
            for i, space, flag in demanded_operands(op):
                if flag:       # through Mat, where a transpose_view swaps it (pypto's tensor-level b_trans)
                    attrs[flag] = False
                    args[i] = _transposed(_moved(args[i], MemorySpace.Mat, fn, op, s, ctx, names, made, out),
                                          op, s, names, out)
                args[i] = _moved(args[i], space, fn, op, s, ctx, names, made, out)
            if args != list(op.args):
                call = N.OpCall(op.op, args, attrs, type=op.type, loc=op.loc)
                s = N.Assign(s.targets, call, loc=s.loc) if isinstance(s, N.Assign) else N.ExprStmt(call, loc=s.loc)
        out.append(s)
    return out


def _transposed(v: N.Var, op: N.OpCall, s: N.Stmt, names: _Names, out: List[N.Stmt]) -> N.Var:
    try:
        t = infer("transpose_view", [v.type], {})
    except OpTypeError as exc:
        raise CompileError(f"pl.{op.op}: {exc}", op.loc or s.loc) from None
    new = N.Var(names.fresh(f"{v.name}_T"), type=t, loc=op.loc or s.loc)
    out.append(N.Assign([new], N.OpCall("transpose_view", [v], {}, type=t, loc=new.loc), loc=s.loc))
    return N.Var(new.name, type=t, loc=new.loc)


def _moved(v: N.Expr, space: MemorySpace, fn, op: N.OpCall, s: N.Stmt, ctx, names, made, out) -> N.Expr:
    if not isinstance(v, N.Var):        # pragma: no cover - Flatten names every tile operand
        raise InternalError(f"{fn.name}: an unnamed operand of {op.op} reached InferTileMemorySpace")
    key = (v.name, space)
    if key in made:
        return made[key]
    if v.type.memory is space:
        return v
    path = move_path(v.type.memory, space, ctx.target)
    if path is None:
        raise CompileError(f"pl.{op.op} needs its operand {v.name!r} in {space.name}, but it is a "
                           f"{v.type.memory.name} tile and {ctx.target.arch} has no moves from "
                           f"{v.type.memory.name} to {space.name}", op.loc or s.loc)
    cur = v
    for step in path:
        done = made.get((v.name, step))
        if done is not None:
            cur = done
            continue
        try:
            t = infer("move", [cur.type], {"target_memory": step, "target": ctx.target})
        except OpTypeError as exc:
            raise CompileError(f"pl.{op.op} needs its operand {v.name!r} in {space.name}: {exc}",
                               op.loc or s.loc) from None
        new = N.Var(names.fresh(f"{v.name}_{step.name}"), type=t, loc=op.loc or s.loc)
        out.append(N.Assign([new], N.OpCall("move", [cur], {"target_memory": step}, type=t, loc=new.loc),
                            loc=s.loc))
        made[(v.name, step)] = cur = N.Var(new.name, type=t, loc=new.loc)
    return cur


def _copyless(s: N.Stmt, target) -> Optional[N.Var]:
    """The source of ``y = pl.move(x)`` into x's own space where the target has no such copy
    (Acc->Acc, Mat->Mat): what Flatten makes of a plain ``y = x``."""
    if isinstance(s, N.Assign) and isinstance(s.value, N.OpCall) and s.value.op == "move" \
            and isinstance(s.value.args[0], N.Var) and isinstance(s.value.args[0].type, TileType):
        src = s.value.args[0]
        if s.value.attrs.get("target_memory") is src.type.memory and not target.can_move(src.type.memory,
                                                                                           src.type.memory) \
                and s.value.attrs.get("blayout") is None and s.value.attrs.get("slayout") is None:
            return src
    return None


def _alias_copies(fn: N.Function, target) -> None:
    """pypto keeps ``y = x`` an SSA alias that inherits x's space.  Where the space has no copy of
    its own (Acc, Mat), the alias stands: a dead one goes, and one whose source is read nowhere else
    and defined in the same block (not outside an enclosing loop, whose later rounds would see the
    changes) names the source, so no in-place update of one is seen through the other.  Any other
    copy is left to the move check (a located error)."""
    while True:
        uses: Dict[str, int] = {}
        home: Dict[str, int] = {p.name: id(fn.body) for p in fn.params}
        for body in [fn.body] + [b for st in N.walk_stmts(fn.body) for b in N.child_bodies(st)]:
            for st in body:
                for v in _reads(st):
                    uses[v.name] = uses.get(v.name, 0) + 1
                for v in _defined(st):
                    home[v.name] = id(body)
                if isinstance(st, (N.For, N.While)):
                    for p, _ in st.iter_args:
                        home[p.name] = id(st.body)
        env: Dict[str, N.Expr] = {}

        def walk(body: List[N.Stmt]) -> List[N.Stmt]:
            out = []
            for st in body:
                for sub in N.child_bodies(st):
                    sub[:] = walk(sub)
                src = _copyless(st, target)
                if src is not None and len(st.targets) == 1:
                    if not uses.get(st.targets[0].name):
                        continue
                    if uses.get(src.name, 0) == 1 and home.get(src.name) == id(body) and src.name not in env:
                        env[st.targets[0].name] = src
                        continue
                out.append(st)
            return out

        before = sum(1 for _ in N.walk_stmts(fn.body))
        fn.body = walk(fn.body)
        if env:
            fn.body = subst_body(fn.body, env)
        if sum(1 for _ in N.walk_stmts(fn.body)) == before:
            return


def _acc_written(s: N.Stmt) -> Optional[tuple]:
    """(the Acc tile, the tensor name) of a statement that writes an Acc tile into a tensor."""
    e = s.value if isinstance(s, N.Assign) else s.expr if isinstance(s, N.ExprStmt) else None
    if not isinstance(e, N.OpCall):
        return None
    acc = next((a for a in e.args if isinstance(a, N.Var) and isinstance(a.type, TileType)
                and a.type.memory is MemorySpace.Acc), None)
    _, writes = tensor_accesses([s], {})
    return (acc, next(iter(writes))) if acc is not None and len(writes) == 1 else None


def _vector_reads(body: List[N.Stmt], tensor: str) -> bool:
    """Whether ``body`` loads a window of ``tensor`` into a Vec tile."""
    for _, e in N.iter_exprs(body):
        if isinstance(e, N.OpCall) and isinstance(e.type, TileType) and e.type.memory is MemorySpace.Vec:
            reads, _ = tensor_accesses([N.ExprStmt(e)], {})
            if tensor in reads:
                return True
    return False


def _fence_gm_handoffs(body: List[N.Stmt], names: _Names) -> List[N.Stmt]:
    """pypto's GM-mediated cross-lane sync (ExpandMixedKernel, CollectGmCrossLaneSyncs): where the
    cube stores an Acc tile into a tensor that vector work after it, in the same block, loads back,
    the stored tile is also moved to Vec right after the store.  The split makes that move the
    cross-core FIFO, so the vector side's pop waits for the store: the data still goes through the
    tensor, the move only orders the two sides."""
    out: List[N.Stmt] = []
    for i, s in enumerate(body):
        for sub in N.child_bodies(s):
            sub[:] = _fence_gm_handoffs(sub, names)
        out.append(s)
        hit = _acc_written(s)
        if hit is not None and _vector_reads(body[i + 1:], hit[1]):
            acc = hit[0]
            t = acc.type.with_(memory=MemorySpace.Vec, layout=None)
            fence = N.Var(names.fresh(f"{acc.name}_fence"), type=t, loc=s.loc)
            out.append(N.Assign([fence], N.OpCall("move", [acc], {"target_memory": MemorySpace.Vec}, type=t,
                                                  loc=s.loc), loc=s.loc))
    return out


def infer_tile_memory_space(prog: N.Program, ctx) -> N.Program:
    """pypto's InferTileMemorySpace, on a program whose tiles the type rules already placed: a cube
    operand in another space gets the moves that bring it there, a copy of a tile in a space without
    a copy of its own stays an alias; then the platform checks (``check_memory_spaces``)."""
    for fn in prog.of_kind(N.FunctionType.InCore, N.FunctionType.AIC, N.FunctionType.AIV):
        _alias_copies(fn, ctx.target)
        names = _Names(fn)
        fn.body = _bring(fn, fn.body, ctx, names, {})
        fn.body = _fence_gm_handoffs(fn.body, names)
    return check_memory_spaces(prog, ctx)
