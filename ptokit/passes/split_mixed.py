"""SplitMixed: a mixed cube+vector InCore kernel becomes a Group of an AIC and an AIV function.

Runs last (after memory planning and argument directions).  For every function
that ClassifyKernels marked ``attrs["mixed"]``:

* statements are partitioned per side: cube work (Mat/Left/Right/Acc/Bias tiles,
  matmul, Acc stores, DDR->Mat loads) goes to ``<fn>_aic``; vector work (Vec
  tiles) to ``<fn>_aiv``; scalar statements and control flow are duplicated on
  both sides and pruned where unused;
* the cross-core boundaries become the two ends of one FIFO pipe:
  ``v = pl.move(acc, target_memory=pl.Mem.Vec)`` (C2V) is ``tpush_to_aiv(acc)`` on
  the AIC side and ``v = tpop_from_aic()`` on the AIV side; ``m = pl.move(t,
  target_memory=pl.Mem.Mat)`` (V2C) is ``tpush_to_aic(t)`` on the AIV side and
  ``m = tpop_from_aiv()`` on the AIC side.  Each pop is followed by its free after
  the last use of the popped tile in the pop's block (a C2V tile that shares a
  buffer or is live at the next pop is copied out of its slot first; a V2C Mat
  tile cannot be copied, so that case is a located error);
* on the AIV side the vector work is guarded by ``lane == 0`` (an IR ``Scope``
  of kind ``lane_guard``); both lanes execute every push, pop and free, because a
  NO_SPLIT transfer is 1:2 (a cube push reaches both lanes; a cube pop takes one
  tile from each lane and keeps lane 0's: lane 1's is "the empty push");
* each direction's consumer reserves ``slot_num`` slots of ``slot_size`` (the
  largest pushed tile) after its planned tiles: C2V in Vec (AIV), V2C in Mat
  (AIC); ``dir_mask`` 1, 2 or 3; a located CompileError when one slot does not fit.

The original function stays in the program as kind Group with
``attrs = {"aic": "<fn>_aic", "aiv": "<fn>_aiv", "fifo": {...}}``; the
orchestration's ``kernel_ids`` are renumbered so the AIC and AIV functions get
consecutive ids where the group was first used.  See docs/mixed-kernels.md.
"""
from __future__ import annotations

import copy
from typing import Dict, List, Optional, Set

from ..errors import CompileError, ToolRefusal
from ..targets import Target
from ..ir import nodes as N
from ..ir.ops import OPS, ops_with
from ..ir.ops.fifo import DIRECTIONS
from .memory_plan import plan_function
from .split_lanes import check_pushed, split_lanes, split_mode
from ..ir.types import ALIGNMENT, DType, MemorySpace, ScalarType, TileType

_CUBE = {MemorySpace.Mat, MemorySpace.Left, MemorySpace.Right, MemorySpace.Acc, MemorySpace.Bias}
FIFO_OPS = ops_with("fifo")
C2V_BUFFER = "c2v_slot_buffer"
V2C_BUFFER = "v2c_slot_buffer"
# direction -> (source space, target space, push op (producer side), pop op, free op (consumer side))
_DIR = {d.name: (d.sources, d.target, d.push, d.pop, d.free) for d in DIRECTIONS.values()}
_PRODUCER = {d.name: d.producer for d in DIRECTIONS.values()}
_POPS = {d.pop: d.name for d in DIRECTIONS.values()}


def split_mixed(prog: N.Program, ctx) -> N.Program:
    new_funcs: Dict[str, N.Function] = {}
    for name, fn in prog.functions.items():
        if fn.kind is N.FunctionType.InCore and fn.attrs.get("mixed"):
            group, aic, aiv = _split(fn, ctx)
            new_funcs[name] = group
            new_funcs[aic.name] = aic
            new_funcs[aiv.name] = aiv
        else:
            new_funcs[name] = fn
    prog.functions = new_funcs
    for orch in prog.of_kind(N.FunctionType.Orchestration):
        ids = orch.attrs.get("kernel_ids")
        if ids is None:
            continue
        renum: Dict[str, int] = {}
        for k in sorted(ids, key=ids.get):
            f = prog.functions[k]
            if f.kind is N.FunctionType.Group:
                renum[f.attrs["aic"]] = len(renum)
                renum[f.attrs["aiv"]] = len(renum)
            else:
                renum[k] = len(renum)
        orch.attrs["kernel_ids"] = renum
    return prog


# ----------------------------------------------------------------- classification

def _tile_spaces(e: N.Expr) -> Set[MemorySpace]:
    spaces = set()
    for sub in N.walk_expr(e):
        if isinstance(sub.type, TileType):
            spaces.add(sub.type.memory)
    return spaces


def _boundary(s: N.Stmt) -> Optional[str]:
    """'c2v' for ``v = pl.move(acc, Vec)``, 'v2c' for ``m = pl.move(vec, Mat)``, else None."""
    if not (isinstance(s, N.Assign) and isinstance(s.value, N.OpCall) and s.value.op == "move"
            and isinstance(s.value.args[0].type, TileType) and isinstance(s.targets[0].type, TileType)):
        return None
    src_space, dst_space = s.value.args[0].type.memory, s.targets[0].type.memory
    for d, (srcs, dst, *_ops) in _DIR.items():
        if src_space in srcs and dst_space == dst:
            return d
    return None


def _is_boundary(s: N.Stmt) -> bool:
    return _boundary(s) is not None


def _side_of_op(e: N.Expr) -> Optional[str]:
    """'aic', 'aiv' or None (scalar only) for an expression."""
    spaces = _tile_spaces(e)
    if spaces & _CUBE:
        return "aic"
    if MemorySpace.Vec in spaces:
        return "aiv"
    if isinstance(e, N.OpCall) and isinstance(e.type, TileType) and OPS[e.op].cube:
        return "aic"
    return None


def _prefetch(s: N.Stmt) -> bool:
    """A pl.prefetch statement (ir/ops/prefetch.py): vector-core work with scalar handles, never pruned."""
    e = s.value if isinstance(s, N.Assign) else s.expr if isinstance(s, N.ExprStmt) else None
    return isinstance(e, N.OpCall) and OPS[e.op].form == "prefetch"


def _side_of_type(t) -> Optional[str]:
    if isinstance(t, TileType):
        return "aiv" if t.memory is MemorySpace.Vec else "aic"
    return None


# ----------------------------------------------------------------- partition

def _part(body: List[N.Stmt], side: str, pushed: Dict[str, list], split: int = 0) -> List[N.Stmt]:
    """The statements of ``side``; a boundary move becomes this side's end of the FIFO (the
    producer's push, or the consumer's pop); ``pushed[dir]`` collects the producer's pushed types."""
    out: List[N.Stmt] = []
    for s in body:
        if isinstance(s, N.Assign):
            d = _boundary(s)
            if d is not None:
                src, dst = s.value.args[0], s.targets[0]
                _, _, push, pop, _ = _DIR[d]
                if side == _PRODUCER[d]:
                    pushed[d].append((src.type, s.loc))
                    out.append(N.ExprStmt(N.OpCall(push, [src], {"split": split}, type=src.type,
                                                   loc=s.value.loc), loc=s.loc))
                else:
                    out.append(N.Assign([dst], N.OpCall(pop, [], {"split": split},
                                                        type=dst.type, loc=s.value.loc), loc=s.loc))
                continue
            if _prefetch(s):
                if side == "aiv":      # the SDMA prefetch runs on the vector cores (their workspace)
                    out.append(s)
                continue
            if all(isinstance(t.type, ScalarType) for t in s.targets):
                out.append(s)
                continue
            where = _side_of_type(s.targets[0].type) or _side_of_op(s.value)
            if where == side:
                out.append(s)
        elif isinstance(s, N.ExprStmt):
            where = "aiv" if _prefetch(s) else _side_of_op(s.expr)
            if where is None or where == side:
                out.append(s)
        elif isinstance(s, N.Return):
            out.append(N.Return([], loc=s.loc))
        elif isinstance(s, N.For):
            keep = [i for i, (p, _) in enumerate(s.iter_args) if _side_of_type(p.type) in (None, side)]
            out.append(N.For(s.var, s.start, s.stop, s.step, _part(s.body, side, pushed, split), kind=s.kind,
                             iter_args=[s.iter_args[i] for i in keep], yields=[s.yields[i] for i in keep],
                             results=[s.results[i] for i in keep], loc=s.loc))
        elif isinstance(s, N.While):
            keep = [i for i, (p, _) in enumerate(s.iter_args) if _side_of_type(p.type) in (None, side)]
            out.append(N.While(_part(s.body, side, pushed, split), iter_args=[s.iter_args[i] for i in keep],
                               yields=[s.yields[i] for i in keep], results=[s.results[i] for i in keep], loc=s.loc))
        elif isinstance(s, N.Condition):
            out.append(s)         # both halves run the same scalar loop
        elif isinstance(s, N.If):
            keep = [i for i, r in enumerate(s.results) if _side_of_type(r.type) in (None, side)]
            out.append(N.If(s.cond, _part(s.then_body, side, pushed, split), _part(s.else_body, side, pushed, split),
                            results=[s.results[i] for i in keep], then_yields=[s.then_yields[i] for i in keep],
                            else_yields=[s.else_yields[i] for i in keep], loc=s.loc))
        else:
            raise CompileError(f"{type(s).__name__} is not allowed inside a kernel", s.loc)
    return out


# ----------------------------------------------------------------- uses and pruning

def _expr_reads(e: N.Expr, acc: Set[str]) -> None:
    for sub in N.walk_expr(e):
        if isinstance(sub, N.Var):
            acc.add(sub.name)
        t = sub.type
        if isinstance(t, TileType) and t.valid:
            for v in t.valid:
                if isinstance(v, N.Expr):
                    _expr_reads(v, acc)
        if isinstance(sub, N.OpCall):
            for v in sub.attrs.get("valid") or ():
                if isinstance(v, N.Expr):
                    _expr_reads(v, acc)
            ref = sub.attrs.get("memref")
            if ref is not None and isinstance(ref.index, N.Expr):
                _expr_reads(ref.index, acc)


def _reads(s: N.Stmt) -> Set[str]:
    acc: Set[str] = set()
    for e in N.stmt_exprs(s):
        _expr_reads(e, acc)
    if isinstance(s, N.Assign):
        for t in s.targets:
            if isinstance(t.type, TileType) and t.type.valid:
                for v in t.type.valid:
                    if isinstance(v, N.Expr):
                        _expr_reads(v, acc)
    if isinstance(s, (N.For, N.While)):
        for y in s.yields:
            _expr_reads(y, acc)
    if isinstance(s, N.If):
        for y in list(s.then_yields) + list(s.else_yields):
            _expr_reads(y, acc)
    for sub in N.child_bodies(s):
        for x in sub:
            acc |= _reads(x)
    return acc


def _effectful(s: N.Stmt) -> bool:
    if isinstance(s, N.Condition):
        return True            # a loop's test is never pruned
    if _prefetch(s):
        return True            # a started prefetch and its wait stay (a hint with no value to read)
    if isinstance(s, N.Assign):
        return any(not isinstance(t.type, ScalarType) for t in s.targets)
    if isinstance(s, N.ExprStmt):
        return isinstance(s.expr, N.OpCall) and (s.expr.op == "store" or s.expr.op in FIFO_OPS)
    return any(_effectful(x) for sub in N.child_bodies(s) for x in sub)


def _defs(s: N.Stmt) -> List[str]:
    if isinstance(s, N.Assign):
        return [t.name for t in s.targets]
    if isinstance(s, (N.For, N.While, N.If)):
        return [r.name for r in s.results]
    return []


def _prune(body: List[N.Stmt]) -> List[N.Stmt]:
    """Drop scalar statements and effect-free loops/branches whose results nobody reads."""
    while True:
        used: Set[str] = set()
        for s in body:
            used |= _reads(s)
        changed = [False]

        def walk(stmts: List[N.Stmt]) -> List[N.Stmt]:
            out = []
            for s in stmts:
                if isinstance(s, N.Return):
                    out.append(s)
                    continue
                if not _effectful(s) and not any(d in used for d in _defs(s)):
                    changed[0] = True
                    continue
                if isinstance(s, (N.For, N.While)):
                    s.body = walk(s.body)
                elif isinstance(s, N.If):
                    s.then_body = walk(s.then_body)
                    s.else_body = walk(s.else_body)
                out.append(s)
            return out

        body = walk(body)
        if not changed[0]:
            return body


# ----------------------------------------------------------------- AIV: frees and lane guards

def _is_pop(s: N.Stmt) -> bool:
    return isinstance(s, N.Assign) and isinstance(s.value, N.OpCall) and s.value.op in _POPS


def _has_fifo(s: N.Stmt) -> bool:
    if _is_pop(s):
        return True
    if isinstance(s, N.ExprStmt) and isinstance(s.expr, N.OpCall) and s.expr.op in FIFO_OPS:
        return True
    return any(_has_fifo(x) for sub in N.child_bodies(s) for x in sub)


def _free(op: str, loc, split: int = 0) -> N.Stmt:
    return N.ExprStmt(N.OpCall(op, [], {"split": split}, type=ScalarType(_bool_dtype()), loc=loc), loc=loc)


def _bool_dtype():
    return DType.BOOL


def _views_of(body: List[N.Stmt], name: str) -> Set[str]:
    """The names ``body`` binds to views of ``name`` (ops whose result is operand 0's storage)."""
    seen = {name}
    for s in body:
        if isinstance(s, N.Assign) and isinstance(s.value, N.OpCall) and s.value.op in OPS \
                and OPS[s.value.op].has("shares_operand0") and s.value.args \
                and isinstance(s.value.args[0], N.Var) and s.value.args[0].name in seen:
            seen.update(t.name for t in s.targets)
    return seen


def _insert_frees(body: List[N.Stmt], buffer_of: Dict[str, str], split: int = 0) -> List[N.Stmt]:
    for s in body:
        if isinstance(s, (N.For, N.While)):
            s.body = _insert_frees(s.body, buffer_of, split)
        elif isinstance(s, N.If):
            s.then_body = _insert_frees(s.then_body, buffer_of, split)
            s.else_body = _insert_frees(s.else_body, buffer_of, split)
    pops = [i for i, s in enumerate(body) if _is_pop(s)]
    if not pops:
        return body
    after: Dict[int, List[N.Stmt]] = {}
    replace: Dict[int, List[N.Stmt]] = {}
    for k, i in enumerate(pops):
        s = body[i]
        v = s.targets[0]
        rep = buffer_of.get(v.name, v.name)
        sharing = {m for m, r in buffer_of.items() if r == rep} | {v.name}
        last = i
        for j in range(i + 1, len(body)):
            if _reads(body[j]) & sharing:
                last = j
        d = _POPS[s.value.op]
        free = _DIR[d][4]
        same = [j for j in pops if _POPS[body[j].value.op] == d]
        nxt = next((j for j in same if j > i), None)
        views = _views_of(body[i + 1:], v.name)       # a transpose_view of it reads the same slot
        if sharing - views or (nxt is not None and last > nxt):
            if d == "v2c":
                # a Mat tile cannot be copied on the cube core (no Mat->Mat move): it must die in its slot
                why = ("shares its buffer with other tiles (loop-carried or merged)" if sharing - views else
                       "is still read after the next vector-to-cube transfer")
                raise CompileError(f"the Mat tile {v.name!r} received from the vector side {why}; the cube reads "
                                   f"it straight from its FIFO slot, which is released before the next transfer. "
                                   f"Move it to Left/Right (pl.move) before the next Vec->Mat move", s.loc)
            # the tile must outlive its slot: copy it out of the slot and free the slot at once
            slot = N.Var(f"{v.name}__slot", type=v.type, loc=v.loc)
            pop = N.Assign([slot], s.value, loc=s.loc)
            cp = N.Assign([v], N.OpCall("move", [N.Var(slot.name, type=v.type)],
                                        {"target_memory": MemorySpace.Vec}, type=v.type, loc=s.loc), loc=s.loc)
            replace[i] = [pop, cp, _free(free, s.loc, split)]
        else:
            after.setdefault(last, []).append(_free(free, s.loc, split))
    out: List[N.Stmt] = []
    for i, s in enumerate(body):
        out.extend(replace.get(i, [s]))
        out.extend(after.get(i, []))
    return out


def _scalar_results(s: N.Stmt) -> bool:
    return any(isinstance(r.type, ScalarType) for r in getattr(s, "results", []))


def _guard(body: List[N.Stmt]) -> List[N.Stmt]:
    """Wrap runs of vector work in ``Scope('lane_guard')`` (lane 0 only); FIFO traffic stays unguarded."""
    out: List[N.Stmt] = []
    run: List[N.Stmt] = []
    hoisted: List[N.Stmt] = []

    def flush():
        out.extend(hoisted)
        if run:
            out.append(N.Scope("lane_guard", list(run), {"lane": 0}, loc=run[0].loc))
        hoisted.clear()
        run.clear()

    for s in body:
        if isinstance(s, N.Return):
            flush()
            out.append(s)
        elif isinstance(s, N.Condition):
            flush()            # the test of a while loop stays between the statements around it
            out.append(s)
        elif _prefetch(s) or isinstance(s, N.Assign) and all(isinstance(t.type, ScalarType) for t in s.targets):
            (hoisted if run else out).append(s)     # scalar work (and prefetch handles): both lanes
        elif _has_fifo(s) or _scalar_results(s):
            flush()
            if isinstance(s, (N.For, N.While)):
                s.body = _guard(s.body)
            elif isinstance(s, N.If):
                s.then_body = _guard(s.then_body)
                s.else_body = _guard(s.else_body)
            out.append(s)
        elif _effectful(s):
            run.append(s)
        else:
            (hoisted if run else out).append(s)
    flush()
    return out


# ----------------------------------------------------------------- the split

def _split(fn: N.Function, ctx):
    if not any(_is_boundary(s) for s in N.walk_stmts(fn.body)):
        cube_at, vec_at = fn.attrs.get("mixed_at", (fn.loc, fn.loc))
        raise CompileError(f"kernel {fn.name} mixes cube work (line {cube_at.line if cube_at else '?'}) and vector "
                           f"work but never moves an Acc tile to Vec or a Vec tile to Mat; a mixed kernel hands "
                           f"the cube's result to the vector side with pl.move(acc, target_memory=pl.Mem.Vec) and a "
                           f"vector tile to the cube with pl.move(t, target_memory=pl.Mem.Mat) (the cross-core FIFO). "
                           f"Otherwise split it into two InCore functions", vec_at or fn.loc)
    buffer_of = dict(fn.attrs.get("buffer_of", {}))
    pushed: Dict[str, list] = {"c2v": [], "v2c": []}
    split = split_mode(fn)
    if ctx.ptoas_compat == "0.27" and (split or fn.attrs.get("dual_lanes")):
        raise ToolRefusal(f"kernel {fn.name}: under ptoas_compat=\"0.27\" cross-core transfers are unsplit only: "
                           f"0.27 runs the vector body on subblock 0 and lets lane 1 idle, so a split (or an explicit "
                           f"region that runs both lanes) cannot run as written; compile without ptoas_compat",
                           fn.loc)
    aic_body = _part(copy.deepcopy(fn.body), "aic", pushed, split)
    _no_prefetch_reads(fn, aic_body)
    aic_body = _prune(_insert_frees(aic_body, buffer_of, split))
    aiv_body = _part(copy.deepcopy(fn.body), "aiv", pushed, split)
    aiv_body = _prune(_insert_frees(aiv_body, buffer_of, split))
    lane_plan = None
    if split:
        check_pushed(fn, split, pushed)
        aiv_body = split_lanes(fn, aiv_body, split)     # both lanes work, each on its half
        # each lane's Vec holds its halves only (as on the device): the vector side is planned again
        # at its halved sizes, and the FIFO's slots go after that per-lane peak
        lane_plan = N.Function(fn.name, fn.kind, list(fn.params), list(fn.return_types), aiv_body, loc=fn.loc,
                               attrs={k: v for k, v in fn.attrs.items()
                                      if k not in ("buffer_of", "tile_addr", "memory_peak")})
        plan_function(lane_plan, ctx.target)
        aiv_body = lane_plan.body
    elif not fn.attrs.get("dual_lanes"):                 # (a NONE split region: both lanes run it all)
        aiv_body = _guard(aiv_body)                      # lane 0 works, lane 1 only moves FIFO traffic
    fifo = _geometry(fn, ctx.target, pushed, ctx.ptoas_compat,
                     vec_peak=lane_plan.attrs["memory_peak"].get("Vec", 0) if lane_plan else None)
    fifo["split"] = split
    if fn.attrs.get("dual_lanes"):
        fifo["dual_lanes"] = True

    def member(name, kind, core, body, role):
        attrs = {k: v for k, v in fn.attrs.items() if k not in ("mixed", "mixed_at", "split", "dual_lanes", "slot_num")}
        attrs["core_type"] = core
        attrs["fifo"] = dict(fifo, role=role)
        attrs["group"] = fn.name
        return N.Function(name, kind, list(fn.params), list(fn.return_types), body, loc=fn.loc, attrs=attrs)

    aic = member(fifo["aic"], N.FunctionType.AIC, "aic", aic_body, "aic")
    aiv = member(fifo["aiv"], N.FunctionType.AIV, "aiv", aiv_body, "aiv")
    if lane_plan is not None:
        for k in ("buffer_of", "tile_addr", "memory_peak"):
            aiv.attrs[k] = lane_plan.attrs[k]
    size, num = fifo["slot_size"], fifo["local_slot_num"]
    if fifo["dir_mask"] & 1:
        aiv.attrs["memory_peak"] = dict(aiv.attrs.get("memory_peak", {}), Vec=fifo["base"] + num * size)
    if fifo["dir_mask"] & 2:
        aic.attrs["memory_peak"] = dict(aic.attrs.get("memory_peak", {}), Mat=fifo["v2c_base"] + num * size)
    group = N.Function(fn.name, N.FunctionType.Group, list(fn.params), list(fn.return_types),
                       [N.Return([], loc=fn.loc)], loc=fn.loc,
                       attrs={"aic": aic.name, "aiv": aiv.name, "core_type": "mixed", "fifo": fifo})
    return group, aic, aiv


def _no_prefetch_reads(fn: N.Function, aic_body: List[N.Stmt]) -> None:
    """The pl.prefetch statements went to the vector side: cube work reading one of their results
    (the wait's done flag) is a located error."""
    names = {t.name for s in N.walk_stmts(fn.body) if isinstance(s, N.Assign) and _prefetch(s) for t in s.targets}
    if not names:
        return
    for s in N.walk_stmts(aic_body):
        read: Set[str] = set()
        if N.child_bodies(s):
            for e in _own_exprs(s):
                _expr_reads(e, read)
        else:
            read = _reads(s)
        if read & names:
            raise CompileError(f"'{sorted(read & names)[0]}' comes from pl.prefetch, which runs on the vector side of "
                               f"mixed kernel '{fn.name}' (the SDMA prefetch is vector-core work); the cube side "
                               f"cannot read it: keep the prefetch results to vector work",
                               getattr(getattr(s, "cond", None), "loc", None) or s.loc)


def _own_exprs(s: N.Stmt) -> List[N.Expr]:
    """The expressions a compound statement reads itself (not its bodies)."""
    if isinstance(s, N.If):
        return [s.cond] + list(s.then_yields) + list(s.else_yields)
    if isinstance(s, N.For):
        return [s.start, s.stop, s.step] + [i for _, i in s.iter_args] + list(s.yields)
    return [i for _, i in s.iter_args] + list(s.yields)


def _geometry(fn: N.Function, target: Target, pushed: Dict[str, list], compat: Optional[str] = None,
              vec_peak: Optional[int] = None) -> dict:
    """One pipe (FlagID 0) for the used directions: dir_mask 1 (C2V), 2 (V2C) or 3 (both).
    ``slot_size`` = the largest pushed tile of either direction; each consumer reserves
    ``slot_num`` slots after its planned tiles (C2V: the AIV side, in Vec; V2C: the AIC side, in
    Mat).  ``slot_num``: 2 when they fit, else 1 (one direction); 4, else 2, else 1 (both).
    ``compat="0.27"``: the .pto gives no slot_num (ptoas 0.27 refuses it) and the slot counts are
    the ones the assembler then chooses (``Target.pipe_slots``): the consumer reserves its
    local share of them, and a kernel whose buffers cannot hold that many is refused."""
    dir_mask = (1 if pushed["c2v"] else 0) | (2 if pushed["v2c"] else 0)
    slot_size = max(t.nbytes for t, _ in pushed["c2v"] + pushed["v2c"])
    peaks = dict(fn.attrs.get("memory_peak", {}))
    if vec_peak is not None:           # a split kernel: one lane's Vec tiles (planned at their halved sizes)
        peaks["Vec"] = vec_peak
    consumers = []       # (direction, space, base)
    for d, bit in (("c2v", 1), ("v2c", 2)):
        if dir_mask & bit:
            space = _DIR[d][1]
            align = ALIGNMENT[space]
            base = (peaks.get(space.name, 0) + align - 1) // align * align
            consumers.append((d, space, base))
    if compat == "0.27":
        slot_num, local = target.pipe_slots(dir_mask)
        for d, space, base in consumers:
            if base + local * slot_size > target.capacity(space):
                unit = {"Vec": "Vec (UB)", "Mat": "Mat (L1)"}[space.name]
                raise ToolRefusal(f"kernel {fn.name}: under ptoas_compat=\"0.27\" the assembler picks {local} "
                                   f"local slots of {slot_size} bytes for the cross-core FIFO, which do not fit in "
                                   f"{unit} after the kernel's tiles ({base} + {local * slot_size} bytes needed, "
                                   f"capacity on {target.arch} is {target.capacity(space)} bytes); push smaller tiles or "
                                   f"compile without ptoas_compat (pypto HEAD's form sizes the ring itself)", fn.loc)
    else:
        choices = (4, 2, 1) if dir_mask == 3 else (2, 1)
        if fn.attrs.get("slot_num"):     # pl.cross_core_slot(slot_num=N): that depth, or a located error
            choices = (fn.attrs["slot_num"],)
        slot_num = next((n for n in choices
                         if all(base + n * slot_size <= target.capacity(space) for _, space, base in consumers)), None)
        if slot_num is None:
            least = choices[-1] * slot_size
            d, space, base = next(c for c in consumers if c[2] + least > target.capacity(c[1]))
            what = ("the largest pushed tile" if dir_mask == 3
                    else {"c2v": "the pushed Acc tile", "v2c": "the pushed Vec tile"}[d])
            unit = {"Vec": "Vec (UB)", "Mat": "Mat (L1)"}[space.name]
            raise CompileError(f"kernel {fn.name}: the cross-core FIFO slot buffer ({slot_size} bytes, {what}) does "
                               f"not fit in {unit} after the kernel's tiles: {base} + {least} bytes needed"
                               f"{f' (pl.cross_core_slot(slot_num={choices[0]}))' if fn.attrs.get('slot_num') else ''}, "
                               f"capacity on {target.arch} is {target.capacity(space)} bytes", fn.loc)
        local = slot_num
    bases = {d: base for d, _, base in consumers}
    return {"slot_size": slot_size, "slot_num": slot_num, "local_slot_num": local, "ptoas_compat": compat,
            "base": bases.get("c2v", 0), "split": 0,
            "dir_mask": dir_mask, "buffer": C2V_BUFFER, "v2c_base": bases.get("v2c", 0), "v2c_buffer": V2C_BUFFER,
            "gm_pipe": target.gm_pipe, "gm_bytes": slot_size * slot_num * (2 if dir_mask == 3 else 1),
            "aic": f"{fn.name}_aic", "aiv": f"{fn.name}_aiv", "group": fn.name}
