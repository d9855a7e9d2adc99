"""HandPipes: hand-written AIC/AIV/Group functions and their cross-core pipes (pypto-parity E3).

A ``FunctionType.Group`` function the user wrote calls one ``FunctionType.AIC`` and one
``FunctionType.AIV`` function with its own parameters; orchestration calls the group, which runs
as one ``MixedKernels`` task.  ``attrs={"dual_aiv_dispatch": True}`` (on the AIV function or the
group) runs the AIV function on both vector lanes; without it only lane 0 (AIV0) runs it, as a
pypto group does (``MixedKernels {aic, aiv, INVALID_KERNEL_ID}``).

This pass (right after inlining) checks the two sides against each other, each problem a
located CompileError:

* every ``pl.import_peer_buffer(name=, peer_func=)`` names the group's other function and a
  buffer it reserves; each direction's consumer passes a reserved buffer to its
  ``*_initialize_pipe``, the producer the imported one;
* the two sides initialize each pipe ``id`` with the same ``dir_mask``, ``slot_size`` and slot
  counts, and a consumer's reserved buffer holds its local slots (on a2a3, a pipe that gives no
  slot counts keeps as many local slots as its consumer's buffer holds, ``local_slot_num``, when
  that is fewer than the default: pypto leaves the sizing to the program);
* a push / pop / free comes after the ``*_initialize_pipe`` of its ``id`` whose ``dir_mask``
  covers its direction; a pushed tile fits the slot; every pop is freed (``pl.tfree_to_aic`` /
  ``pl.tfree_to_aiv``) later in its block, and a free follows a pop.

It stamps the group (``attrs = {"aic", "aiv", "fifo"}`` as SplitMixed does, ``fifo["hand"] =
True``) and its members (``core_type``, ``group``, ``fifo`` with ``role``), numbers the pipes'
GM rings (a2a3) and gives each free the split of its pop.  ``attrs={"split": 1|2}`` on the AIV
function (or the AIC function / group, agreeing) makes the group split: every push and pop says
that split, both lanes run the AIV function, and ``SplitHandLanes`` (after memory planning) halves
it as SplitMixed halves a split mixed kernel's vector side (passes/split_lanes.py).  ``PlacePipeBuffers`` (after memory
planning) places ``base=pl.AUTO`` reservations after the function's tiles and checks explicit
bases.  See docs/mixed-kernels.md, "Hand-written pipes and events".
"""
from __future__ import annotations

from typing import Dict, List, Optional

from ..errors import CompileError, ToolRefusal
from ..ir import nodes as N
from ..ir.ops.fifo import DIRECTIONS
from ..ir.ops.pipes import AUTO
from ..ir.types import ALIGNMENT, MemorySpace, TileType
from ..targets import Target
from .split_lanes import MODES, axis_of, split_lanes, split_mode

_BIT = {"c2v": 1, "v2c": 2}
# op -> (direction, end)
_FIFO = {}
for _d in DIRECTIONS.values():
    _FIFO[_d.push], _FIFO[_d.pop], _FIFO[_d.free] = (_d.name, "push"), (_d.name, "pop"), (_d.name, "free")
_INIT = {"aic_initialize_pipe": "aic", "aiv_initialize_pipe": "aiv"}
_SPACE = {"aiv": MemorySpace.Vec, "aic": MemorySpace.Mat}
_KIND = {N.FunctionType.AIC: "aic", N.FunctionType.AIV: "aiv"}


def _expr(s: N.Stmt) -> Optional[N.OpCall]:
    e = s.value if isinstance(s, N.Assign) else s.expr if isinstance(s, N.ExprStmt) else None
    return e if isinstance(e, N.OpCall) else None


def _pid(e: N.OpCall) -> int:
    return e.attrs.get("id") or 0


def hand_pipes(prog: N.Program, ctx) -> N.Program:
    grouped = set()
    for g in list(prog.functions.values()):
        if g.kind is N.FunctionType.Group and "aic" not in g.attrs:
            aic, aiv = _members(prog, g)
            _check_pair(g, aic, aiv, ctx)
            grouped |= {aic.name, aiv.name}
    for fn in prog.functions.values():
        if fn.kind in _KIND and fn.name not in grouped:
            for s in N.walk_stmts(fn.body):
                e = _expr(s)
                if e is not None and (e.op in _INIT or e.op in _FIFO):
                    raise CompileError(f"pl.{e.op} in {fn.kind.name} function {fn.name}, which no Group function "
                                       f"calls: a hand-written pipe joins the AIC and the AIV function of one "
                                       f"FunctionType.Group function", s.loc)
    return prog


def _members(prog: N.Program, g: N.Function):
    found: Dict[str, N.Function] = {}
    names = [p.name for p in g.params]
    for s in g.body:
        call = s.value if isinstance(s, N.Assign) else s.expr if isinstance(s, N.ExprStmt) else None
        if isinstance(s, N.Return):
            continue
        if not isinstance(call, N.FuncCall):
            raise CompileError(f"Group function {g.name} only calls its AIC and its AIV function (and returns)",
                               s.loc)
        fn = prog.functions.get(call.callee)
        side = _KIND.get(fn.kind) if fn is not None else None
        if side is None:
            raise CompileError(f"Group function {g.name} calls {call.callee}, which is not a FunctionType.AIC or "
                               f"FunctionType.AIV function", s.loc)
        if side in found:
            raise CompileError(f"Group function {g.name} calls two {side.upper()} functions ({found[side].name} and "
                               f"{fn.name}); a group runs one AIC and one AIV function", s.loc)
        args = [a.name if isinstance(a, N.Var) else None for a in call.args]
        if args != names or len(fn.params) != len(names):
            raise CompileError(f"Group function {g.name} passes its parameters ({', '.join(names)}), in order, to "
                               f"{fn.name}; the task's arguments are the group's", s.loc)
        for p, q in zip(fn.params, g.params):
            if p.type != q.type:
                raise CompileError(f"parameter {p.name} of {fn.name} is {p.type}, but the group's {q.name} is "
                                   f"{q.type}", p.loc or s.loc)
        found[side] = fn
    for side in ("aic", "aiv"):
        if side not in found:
            raise CompileError(f"Group function {g.name} calls no {side.upper()} function; a hand-written group "
                               f"calls one FunctionType.AIC and one FunctionType.AIV function", g.loc)
    return found["aic"], found["aiv"]


class _Side:
    """What one member function declares: its reservations, imports and pipe initializations."""

    def __init__(self, fn: N.Function, side: str):
        self.fn, self.side = fn, side
        self.reserved: Dict[str, N.Stmt] = {}       # buffer name -> its reserve_buffer statement
        self.var_of: Dict[str, tuple] = {}          # scalar var -> ("reserve" | "import", buffer name)
        self.imports: List[N.Stmt] = []
        self.pipes: Dict[int, N.Stmt] = {}          # id -> its initialize_pipe statement
        for s in N.walk_stmts(fn.body):
            e = _expr(s)
            if e is None:
                continue
            if e.op in ("reserve_buffer", "import_peer_buffer") and not isinstance(s, N.Assign):
                raise CompileError(f"the address pl.{e.op} gives must be assigned to a name", s.loc)
            if e.op == "reserve_buffer":
                name = e.attrs["name"]
                if name in self.reserved:
                    raise CompileError(f"{fn.name} reserves buffer {name!r} twice", s.loc)
                self.reserved[name] = s
                self.var_of[s.targets[0].name] = ("reserve", name)
            elif e.op == "import_peer_buffer":
                self.imports.append(s)
                self.var_of[s.targets[0].name] = ("import", e.attrs["name"])
            elif e.op in _INIT:
                if _INIT[e.op] != side:
                    raise CompileError(f"pl.{e.op} belongs in a FunctionType.{_INIT[e.op].upper()} function, but "
                                       f"{fn.name} is FunctionType.{side.upper()}", s.loc)
                pid = _pid(e)
                if pid in self.pipes:
                    raise CompileError(f"{fn.name} initializes pipe id={pid} twice", s.loc)
                self.pipes[pid] = s

    def slots(self, e: N.OpCall, target: Target):
        num, local = target.pipe_slots(e.attrs["dir_mask"])
        if e.attrs.get("slot_num") is not None:
            num = local = e.attrs["slot_num"]
        if e.attrs.get("local_slot_num") is not None:
            local = e.attrs["local_slot_num"]
        return num, local


def _check_pair(g: N.Function, aic: N.Function, aiv: N.Function, ctx) -> None:
    sides = {"aic": _Side(aic, "aic"), "aiv": _Side(aiv, "aiv")}
    for me, peer in (("aic", "aiv"), ("aiv", "aic")):
        for s in sides[me].imports:
            e = s.value
            want = sides[peer].fn.name
            if e.attrs["peer_func"] != want:
                raise CompileError(f"pl.import_peer_buffer(peer_func={e.attrs['peer_func']!r}): the peer of "
                                   f"{sides[me].fn.name} in group {g.name} is {want!r}", s.loc)
            if e.attrs["name"] not in sides[peer].reserved:
                have = ", ".join(repr(n) for n in sides[peer].reserved) or "none"
                raise CompileError(f"pl.import_peer_buffer(name={e.attrs['name']!r}): {want} never reserves a buffer "
                                   f"of that name (it reserves: {have})", s.loc)
    ids = sorted(set(sides["aic"].pipes) | set(sides["aiv"].pipes))
    geometry = {}
    gm_offset = 0
    for pid in ids:
        inits = {k: sides[k].pipes.get(pid) for k in sides}
        for k, s in inits.items():
            if s is None:
                other = inits["aiv" if k == "aic" else "aic"]
                raise CompileError(f"pipe id={pid} is initialized in {sides['aiv' if k == 'aic' else 'aic'].fn.name} "
                                   f"but not in {sides[k].fn.name} (pl.{k}_initialize_pipe(..., id={pid}))", other.loc)
        a, v = inits["aic"].expr, inits["aiv"].expr
        for key in ("dir_mask", "slot_size"):
            if a.attrs[key] != v.attrs[key]:
                raise CompileError(f"pipe id={pid}: {aic.name} initializes it with {key}={a.attrs[key]} but {aiv.name} "
                                   f"with {key}={v.attrs[key]}; both ends of a pipe agree", inits["aiv"].loc)
        na, nv = sides["aic"].slots(a, ctx.target), sides["aiv"].slots(v, ctx.target)
        if na != nv:
            raise CompileError(f"pipe id={pid}: {aic.name} has {na[0]} slots ({na[1]} local) but {aiv.name} "
                               f"{nv[0]} ({nv[1]} local); both ends of a pipe agree", inits["aiv"].loc)
        mask, size = a.attrs["dir_mask"], a.attrs["slot_size"]
        given = {k: any(inits[k].expr.attrs.get(x) is not None for x in ("slot_num", "local_slot_num")) for k in inits}
        for d, bit in _BIT.items():
            consumer = DIRECTIONS[d].consumer
            arg = 0 if d == "c2v" else 1
            for k in ("aic", "aiv"):
                init = inits[k]
                val = init.expr.args[arg]
                role = "reserve" if k == consumer else "import"
                label = f"{d}_consumer_buf"
                if not mask & bit:
                    if not (isinstance(val, N.Const) and val.value in (0, AUTO)):
                        raise CompileError(f"pipe id={pid} has dir_mask={mask}, which does not include "
                                           f"{d.upper()}, but {label} is given", init.loc)
                    continue
                src = sides[k].var_of.get(val.name) if isinstance(val, N.Var) else None
                if src is None or src[0] != role:
                    what = ("a buffer it reserves (pl.reserve_buffer)" if role == "reserve"
                            else "the buffer imported from its peer (pl.import_peer_buffer)")
                    raise CompileError(f"pipe id={pid}: {sides[k].fn.name} is the {'consumer' if k == consumer else 'producer'} "
                                       f"of {d.upper()}, so its {label} is {what}", init.loc)
                if role == "reserve":
                    r = sides[k].reserved[src[1]]
                    local = sides[k].slots(init.expr, ctx.target)[1]
                    held = r.value.attrs["size"] // size
                    if r.value.attrs["size"] < local * size and held >= 1 and ctx.target.gm_pipe and not given[k]:
                        # a2a3: the consumer's local ring is what the buffer it reserved holds (the GM
                        # ring keeps its slot_num); pypto leaves the sizing to the program, and an
                        # assembler default larger than the buffer would run past it
                        for side in inits.values():
                            side.expr.attrs["local_slot_num"] = held
                        continue
                    if r.value.attrs["size"] < local * size:
                        raise CompileError(f"buffer {src[1]!r} holds {r.value.attrs['size']} bytes, but pipe id={pid} "
                                           f"keeps {local} slots of {size} bytes here ({local * size} bytes)", r.loc)
        num = na[0]
        geometry[pid] = {"dir_mask": mask, "slot_size": size, "slot_num": num, "gm_offset": gm_offset}
        gm_offset += size * num * (2 if mask == 3 else 1)
    for k in ("aic", "aiv"):
        _check_uses(sides[k], geometry)
    split = _split_of(g, aic, aiv, ctx)
    dual = bool(split or aiv.attrs.get("dual_aiv_dispatch") or g.attrs.get("dual_aiv_dispatch"))
    fifo = {"hand": True, "pipes": geometry, "gm_pipe": ctx.target.gm_pipe and bool(geometry),
            "gm_bytes": gm_offset, "aic": aic.name, "aiv": aiv.name, "group": g.name,
            "aiv_lanes": 2 if dual else 1, "dual_lanes": dual,
            "slot_size": max((p["slot_size"] for p in geometry.values()), default=0),
            "slot_num": max((p["slot_num"] for p in geometry.values()), default=0), "split": split}
    for f, role in ((aic, "aic"), (aiv, "aiv")):
        f.attrs["core_type"] = role
        f.attrs["group"] = g.name
        f.attrs["fifo"] = dict(fifo, role=role)
        f.attrs.pop("split", None)          # the mode lives in fifo["split"] (SplitHandLanes halves the AIV side)
    g.attrs.pop("split", None)
    g.attrs.update({"aic": aic.name, "aiv": aiv.name, "core_type": "mixed", "fifo": fifo})
    g.body = [N.Return([], loc=g.loc)]


def _split_of(g: N.Function, aic: N.Function, aiv: N.Function, ctx) -> int:
    """The group's split mode: attrs={"split": 1|2} on the AIV function (or the AIC function or the
    group; those that give it agree).  Every push and pop of either side then carries that split."""
    given = [(f, split_mode(f)) for f in (aiv, aic, g) if split_mode(f)]
    if not given:
        return 0
    f0, mode = given[0]
    for f, m in given[1:]:
        if m != mode:
            raise CompileError(f"{f.name} has attrs split={m} ({MODES[m]}), but {f0.name} split={mode} "
                               f"({MODES[mode]}); the functions of group {g.name} share one split mode", f.loc)
    if ctx.ptoas_compat == "0.27":
        raise ToolRefusal(f"{f0.name}: attrs split= under ptoas_compat=\"0.27\": 0.27 runs the vector body on "
                           f"subblock 0 and lets lane 1 idle, so a split cannot run as written; compile without "
                           f"ptoas_compat", f0.loc)
    ax = axis_of(mode)
    for fn in (aic, aiv):
        for s in N.walk_stmts(fn.body):
            e = _expr(s)
            if e is None or e.op not in _FIFO or _FIFO[e.op][1] == "free":
                continue
            if e.attrs.get("split", 0) != mode:
                raise CompileError(f"pl.{e.op}(split={e.attrs.get('split', 0)}) in {fn.name}, but {f0.name} is split "
                                   f"{MODES[mode]} (attrs split={mode}): every push and pop of group {g.name} "
                                   f"says split={mode}", s.loc)
            t = e.args[0].type if _FIFO[e.op][1] == "push" else s.targets[0].type
            if isinstance(t, TileType) and t.shape[ax] < 2:
                what = "row" if ax == 0 else "column"
                raise CompileError(f"{f0.name} is split {MODES[mode]}, but the {t} crossing pipe id={_pid(e)} has "
                                   f"one {what}: it has no halves for the two vector lanes", s.loc)
    return mode


def _check_uses(side: _Side, geometry: Dict[int, dict]) -> None:
    fn = side.fn
    inited: Dict[int, int] = {}

    def walk(body: List[N.Stmt]) -> None:
        open_pops: List[tuple] = []      # (direction, id, stmt, split) popped and not yet freed in this block
        for s in body:
            e = _expr(s)
            if e is not None and e.op in _INIT:
                inited[_pid(e)] = e.attrs["dir_mask"]
            elif e is not None and e.op in _FIFO:
                d, end = _FIFO[e.op]
                pid = _pid(e)
                if pid not in inited or not inited[pid] & _BIT[d]:
                    why = (f"no pl.{side.side}_initialize_pipe(..., id={pid}) comes before it" if pid not in inited
                           else f"pipe id={pid} has dir_mask={inited[pid]}, which does not include {d.upper()}")
                    raise CompileError(f"pl.{e.op}(id={pid}) needs an initialized {d.upper()} pipe: {why}", s.loc)
                if end == "push":
                    t = e.args[0].type
                    if isinstance(t, TileType) and t.nbytes > geometry[pid]["slot_size"]:
                        raise CompileError(f"pl.{e.op} pushes {t.nbytes} bytes ({t}), but the slots of pipe id={pid} "
                                           f"hold {geometry[pid]['slot_size']} bytes", s.loc)
                elif end == "pop":
                    if not isinstance(s, N.Assign):
                        raise CompileError(f"the tile popped by pl.{e.op} must be assigned to a name", s.loc)
                    t = s.targets[0].type
                    if t.nbytes > geometry[pid]["slot_size"]:
                        raise CompileError(f"pl.{e.op} pops {t.nbytes} bytes ({t}), but the slots of pipe id={pid} "
                                           f"hold {geometry[pid]['slot_size']} bytes", s.loc)
                    open_pops.append((d, pid, s, e.attrs.get("split", 0)))
                else:
                    k = next((i for i, (pd, pp, _, _) in enumerate(open_pops) if (pd, pp) == (d, pid)), None)
                    if k is None:
                        raise CompileError(f"pl.{e.op}(id={pid}) frees a slot, but no pop of that pipe before it in "
                                           f"this block is still held", s.loc)
                    e.attrs["split"] = open_pops.pop(k)[3]
            for sub in N.child_bodies(s):
                walk(sub)
        if open_pops:
            d, pid, s, _ = open_pops[0]
            free = DIRECTIONS[d].free.replace("tfree_from_", "tfree_to_")
            raise CompileError(f"the tile popped here (pipe id={pid}) is never freed: call pl.{free}(tile) after its "
                               f"last use in the same block, or the producer waits for the slot", s.loc)

    walk(fn.body)


# ----------------------------------------------------------------- after memory planning

def place_pipe_buffers(prog: N.Program, ctx) -> N.Program:
    for fn in prog.functions.values():
        fifo = fn.attrs.get("fifo")
        if not fifo or not fifo.get("hand") or "role" not in fifo:
            continue
        space = _SPACE[fifo["role"]]
        align = ALIGNMENT[space]
        peaks = dict(fn.attrs.get("memory_peak", {}))
        tiles_end = peaks.get(space.name, 0)
        nxt = (tiles_end + align - 1) // align * align
        taken = []
        for s in N.walk_stmts(fn.body):
            e = _expr(s)
            if e is None or e.op != "reserve_buffer":
                continue
            size, base = e.attrs["size"], e.attrs.get("base", AUTO)
            if base == AUTO:
                base = nxt
            elif base < tiles_end:
                raise CompileError(f"pl.reserve_buffer(base={base}) overlaps the tiles of {fn.name}, which use "
                                   f"{space.name} bytes [0, {tiles_end}); give base >= {tiles_end} or base=pl.AUTO",
                                   s.loc)
            elif base % align:
                raise CompileError(f"pl.reserve_buffer(base={base}): {space.name} buffers are {align}-byte aligned",
                                   s.loc)
            for b0, b1, other in taken:
                if base < b1 and b0 < base + size:
                    raise CompileError(f"buffer {e.attrs['name']!r} [{base}, {base + size}) overlaps buffer {other!r} "
                                       f"[{b0}, {b1})", s.loc)
            if base + size > ctx.target.capacity(space):
                raise CompileError(f"buffer {e.attrs['name']!r} ({size} bytes at {base}) does not fit in {space.name}: "
                                   f"capacity on {ctx.arch} is {ctx.target.capacity(space)} bytes", s.loc)
            e.attrs["base_at"] = base
            taken.append((base, base + size, e.attrs["name"]))
            nxt = max(nxt, (base + size + align - 1) // align * align)
            peaks[space.name] = max(peaks.get(space.name, 0), base + size)
        fn.attrs["memory_peak"] = peaks
    return prog


def split_hand_lanes(prog: N.Program, ctx) -> N.Program:
    """The AIV function of a split hand-written group (attrs={"split": 1|2}): written at full size,
    both lanes run it, each on its half (the same halving as a split mixed kernel's vector side,
    passes/split_lanes.py).  After memory planning, so the planned buffers keep their full size."""
    for fn in prog.functions.values():
        fifo = fn.attrs.get("fifo")
        if fifo and fifo.get("hand") and fifo.get("role") == "aiv" and fifo.get("split"):
            fn.body = split_lanes(fn, fn.body, fifo["split"])
    return prog
