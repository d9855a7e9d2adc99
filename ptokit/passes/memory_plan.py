"""Buffer planning: lifetime-based reuse and an address per tile, per memory space.

1. Tile values that must share storage form a *buffer group*: a loop-carried
   tile (init, iteration value, yield, result), the arms of a merged ``if``,
   ``pl.assemble``'s result and its target, ``pl.matmul_acc``'s result and its
   accumulator, ``pl.reshape``'s result and its source (a view of the same bytes).  Where sharing would let a write clobber a value still read
   later, a copy (``pl.move``) is inserted first.
2. Each group lives from its first definition to its last use, stretched to
   the end of any loop that uses it but defined it outside.
3. Groups get first-fit addresses per memory space (aligned as runtime.md
   says); a dead group's space is reused.  A kernel whose live tiles do not fit
   is rejected with the space, the bytes needed and the capacity.

Results land in ``fn.attrs``: ``buffer_of`` (var -> group representative),
``tile_addr`` (representative -> byte offset), ``memory_peak`` (space -> bytes).
"""
from __future__ import annotations

import dataclasses
from typing import Dict, List, Tuple

from ..errors import CompileError
from ..ir import nodes as N
from ..ir.ops import OPS, ops_with
from ..ir.types import ALIGNMENT, MemorySpace, MemRefBind, TileType, fmt_shape
from ..targets import MemoryPlanner, Target
from .ptoas_planner import check_ptoas_regions

_ELEMENTWISE = ops_with("elementwise")
_SHARES_OPERAND0 = ops_with("shares_operand0")   # assemble, matmul_acc: in place; reshape: a view

_SPACE_NAMES = {MemorySpace.Vec: "Vec (UB)", MemorySpace.Mat: "Mat (L1)", MemorySpace.Left: "Left (L0A)",
                MemorySpace.Right: "Right (L0B)", MemorySpace.Acc: "Acc (L0C)", MemorySpace.Bias: "Bias"}


def plan_memory(prog: N.Program, ctx) -> N.Program:
    ptoas = ctx.memory_planner is MemoryPlanner.PTOAS
    for fn in prog.of_kind(N.FunctionType.AIV, N.FunctionType.AIC, N.FunctionType.InCore):
        if ptoas:
            check_ptoas_regions(fn)
        plan_function(fn, ctx.target)
    return prog


def plan_function(fn: N.Function, target: Target) -> None:
    """Plan one kernel (also the vector side of a split kernel again, at its per-lane tile sizes)."""
    fn.body = _break_interference(fn.body)
    _plan_function(fn, target)


# ----------------------------------------------------------------- interference

def _uses(e: N.Expr):
    for sub in N.walk_expr(e):
        if isinstance(sub, N.Var):
            yield sub.name
        if isinstance(sub, N.OpCall) and sub.attrs.get("valid"):
            for v in sub.attrs["valid"]:
                if isinstance(v, N.Expr):
                    yield from _uses(v)
        if isinstance(sub, N.OpCall) and sub.attrs.get("memref") is not None \
                and isinstance(sub.attrs["memref"].index, N.Expr):
            yield from _uses(sub.attrs["memref"].index)


def _linear(body) -> List[Tuple[List[str], List[str]]]:
    """(defs, uses) per statement in execution order (nested bodies inlined)."""
    out = []
    for s in body:
        if isinstance(s, (N.For, N.While)):
            out.append(([s.var.name] * isinstance(s, N.For) + [p.name for p, _ in s.iter_args],
                        [u for e in N.stmt_exprs(s) for u in _uses(e)]))
            out.extend(_linear(s.body))
            out.append(([r.name for r in s.results], [u for y in s.yields for u in _uses(y)]))
        elif isinstance(s, N.If):
            out.append(([], [u for u in _uses(s.cond)]))
            out.extend(_linear(s.then_body))
            out.append(([], [u for y in s.then_yields for u in _uses(y)]))
            out.extend(_linear(s.else_body))
            out.append(([r.name for r in s.results], [u for y in s.else_yields for u in _uses(y)]))
        else:
            defs = [t.name for t in s.targets] if isinstance(s, N.Assign) else []
            out.append((defs, [u for e in N.stmt_exprs(s) for u in _uses(e)]))
    return out


def _read_after_def(body, defined: str, others: List[str]) -> bool:
    seen = False
    for defs, uses in _linear(body):
        if seen and any(o in uses for o in others):
            return True
        if defined in defs:
            seen = True
    return False


def _copy(var: N.Var, loc) -> Tuple[N.Stmt, N.Var]:
    cp = N.Var(f"{var.name}_copy", type=var.type, loc=loc)
    return N.Assign([cp], N.OpCall("move", [var], {"target_memory": var.type.memory}, type=var.type, loc=loc),
                    loc=loc), N.Var(cp.name, type=cp.type)


def _break_interference(body: List[N.Stmt]) -> List[N.Stmt]:
    for s in body:
        for sub in N.child_bodies(s):
            sub[:] = _break_interference(sub)
        if isinstance(s, (N.For, N.While)):
            for i, ((param, init), y) in enumerate(zip(s.iter_args, s.yields)):
                if isinstance(param.type, TileType) and isinstance(y, N.Var) and y.name != param.name:
                    if _read_after_def(s.body, y.name, [param.name]):
                        st, cp = _copy(y, s.loc)
                        s.body.append(st)
                        s.yields[i] = cp
        elif isinstance(s, N.If):
            for i, r in enumerate(s.results):
                if not isinstance(r.type, TileType):
                    continue
                members = [y.name for y in (s.then_yields[i], s.else_yields[i]) if isinstance(y, N.Var)]
                for arm, yields in ((s.then_body, s.then_yields), (s.else_body, s.else_yields)):
                    y = yields[i]
                    others = [m for m in members if m != y.name]
                    if isinstance(y, N.Var) and others and _read_after_def(arm, y.name, others):
                        st, cp = _copy(y, s.loc)
                        arm.append(st)
                        yields[i] = cp
    return body


# ----------------------------------------------------------------- groups & lifetimes

class _UF:
    def __init__(self):
        self.parent: Dict[str, str] = {}

    def find(self, x):
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[rb] = ra


def _plan_function(fn: N.Function, target: Target):
    tiles: Dict[str, N.Var] = {}
    uf = _UF()
    def_pos: Dict[str, int] = {}
    last_use: Dict[str, int] = {}
    def_loc: Dict[str, object] = {}
    pos = [0]
    loops: List[Tuple[int, List[int]]] = []   # (start, [end]) of enclosing loops

    def define(v: N.Var, loc):
        if isinstance(v.type, TileType):
            tiles.setdefault(v.name, v)
            uf.find(v.name)
            def_pos.setdefault(v.name, pos[0])
            last_use.setdefault(v.name, pos[0])
            def_loc.setdefault(v.name, loc or v.loc)

    use_records: List[Tuple[str, int, List[List[int]]]] = []
    in_place: set = set()     # results that may take the buffer of an operand dying at their op

    def use(e: N.Expr):
        # a use inside a loop of a value defined before it lasts until the loop ends;
        # loop ends are known only later, so keep references and resolve after the walk
        for name in _uses(e):
            if name in tiles:
                refs = [end for start, end in loops if def_pos[name] < start]
                use_records.append((name, pos[0], refs))

    def walk(body):
        for s in body:
            pos[0] += 1
            if isinstance(s, N.Assign):
                for e in N.stmt_exprs(s):
                    use(e)
                for t in s.targets:
                    define(t, s.loc)
                    if _in_place_capable(s.value, t):
                        in_place.add(t.name)
                # ops whose result lives in an operand's storage: assemble/matmul_acc write in place,
                # reshape makes a view of its source's bytes
                if isinstance(s.value, N.OpCall) and s.value.op in _SHARES_OPERAND0:
                    tgt = s.value.args[0]
                    if isinstance(tgt, N.Var) and tgt.name in tiles:
                        uf.union(tgt.name, s.targets[0].name)
            elif isinstance(s, (N.For, N.While)):
                for e in N.stmt_exprs(s):
                    use(e)
                end = [0]
                loops.append((pos[0], end))
                for p, init in s.iter_args:
                    define(p, s.loc)
                    if isinstance(init, N.Var) and init.name in tiles:
                        uf.union(init.name, p.name)
                walk(s.body)
                pos[0] += 1
                end[0] = pos[0]
                loops.pop()
                for y in s.yields:
                    use(y)
                for (p, _), y, r in zip(s.iter_args, s.yields, s.results):
                    define(r, s.loc)
                    if isinstance(p.type, TileType):
                        uf.union(p.name, r.name)
                        if isinstance(y, N.Var) and y.name in tiles:
                            uf.union(p.name, y.name)
                        use_records.append((p.name, end[0], []))
            elif isinstance(s, N.If):
                use(s.cond)
                walk(s.then_body)
                pos[0] += 1
                for y in s.then_yields:
                    use(y)
                walk(s.else_body)
                pos[0] += 1
                for y in s.else_yields:
                    use(y)
                for r, ty, ey in zip(s.results, s.then_yields, s.else_yields):
                    define(r, s.loc)
                    for y in (ty, ey):
                        if isinstance(y, N.Var) and y.name in tiles:
                            uf.union(r.name, y.name)
            else:
                for e in N.stmt_exprs(s):
                    use(e)

    walk(fn.body)
    for name, p, refs in use_records:
        last_use[name] = max([last_use.get(name, p), p] + [r[0] for r in refs])

    groups: Dict[str, List[str]] = {}
    for name in tiles:
        groups.setdefault(uf.find(name), []).append(name)
    intervals = []
    for rep, members in groups.items():
        t0 = tiles[members[0]].type
        for m in members[1:]:
            tm = tiles[m].type
            if tm.memory != t0.memory or tm.nbytes != t0.nbytes:
                raise CompileError(f"tiles {members[0]!r} and {m!r} must share a buffer but differ "
                                   f"({t0} vs {tm})", def_loc.get(m))
        first = min(members, key=lambda m: def_pos[m])
        # positions are doubled so that an element-wise result can start just after the
        # operands that die at its op (reading a[i] then writing a[i] is safe in place)
        start = 2 * def_pos[first] + (1 if first in in_place else 0)
        end = 2 * max(last_use[m] for m in members)
        intervals.append((start, end, first, members, t0))
    intervals.sort(key=lambda iv: (iv[0], iv[2]))

    buffer_of: Dict[str, str] = {}
    addr_of: Dict[str, int] = {}
    peak: Dict[MemorySpace, int] = {}
    active: Dict[MemorySpace, List[Tuple[int, int, int, str, TileType]]] = {}
    declared = _declared_regions(fn, intervals, target, active, peak)
    slot_of: Dict[str, Tuple[int, N.Expr]] = {}
    for start, end, first, members, t in intervals:
        space = t.memory
        if first in declared:       # a pl.MemRef: its slot of the region reserved for it
            base, slot, index = declared[first]
            if isinstance(index, N.Expr):
                slot_of[first] = (slot, index)
            for m in members:
                buffer_of[m] = first
            addr_of[first] = base + (0 if isinstance(index, N.Expr) else index * slot)
            continue
        live = [a for a in active.get(space, []) if a[0] >= start]     # (end, addr, size, name, type)
        active[space] = live
        align = ALIGNMENT[space]
        size = t.nbytes
        addr = 0
        for a_end, a_addr, a_size, _, _ in sorted(live, key=lambda a: a[1]):
            if addr + size <= a_addr:
                break
            addr = max(addr, _align_up(a_addr + a_size, align))
        if addr + size > target.capacity(space):
            live_desc = ", ".join(f"{n} {fmt_shape(tt.shape)} {tt.dtype.name} ({sz} B)" if tt is not None
                                  else f"{n} ({sz} B)" for _, _, sz, n, tt in sorted(live, key=lambda a: a[1]))
            need = sum(a[2] for a in live) + size
            raise CompileError(
                f"kernel {fn.name} does not fit in {_SPACE_NAMES[space]}: {need} bytes needed for the tiles "
                f"live here, capacity on {target.arch} is {target.capacity(space)} bytes (tile {first!r} "
                f"{fmt_shape(t.shape)} {t.dtype.name} needs {size} B; live: {live_desc or 'none'})",
                def_loc.get(first) or fn.loc)
        live.append((end, addr, size, first, t))
        peak[space] = max(peak.get(space, 0), addr + size)
        for m in members:
            buffer_of[m] = first
        addr_of[first] = addr
    fn.attrs["buffer_of"] = buffer_of
    fn.attrs["tile_addr"] = addr_of
    fn.attrs["tile_slot"] = slot_of     # representative -> (slot bytes, run-time slot index): addr + index * slot
    fn.attrs["memory_peak"] = {s.name: v for s, v in peak.items()}




def _declared(fn: N.Function) -> Dict[str, MemRefBind]:
    """tile -> the pl.MemRef its defining op names (language/memrefs.py)."""
    out: Dict[str, MemRefBind] = {}
    for s in N.walk_stmts(fn.body):
        if isinstance(s, N.Assign) and isinstance(s.value, N.OpCall) and s.value.attrs.get("memref") is not None:
            ref = s.value.attrs["memref"]
            if isinstance(ref.index, N.Const):       # a slot made constant by unrolling
                ref = dataclasses.replace(ref, index=ref.index.value)
            if not isinstance(ref.index, N.Expr) and not 0 <= ref.index < ref.slots:
                raise CompileError(f"slot {ref.index} of pl.MemRef {ref.name!r} is out of range: it has {ref.slots} "
                                   f"slot{'s' if ref.slots > 1 else ''} (0..{ref.slots - 1})", ref.loc or s.loc)
            out[s.targets[0].name] = ref
    return out


def _same_slot(a: MemRefBind, b: MemRefBind) -> bool:
    if isinstance(a.index, N.Expr) or isinstance(b.index, N.Expr):
        return False
    return a.name == b.name and a.index == b.index


def _declared_regions(fn: N.Function, intervals, target: Target, active, peak) -> Dict[str, Tuple[int, int, object]]:
    """One region per pl.MemRef of the kernel, reserved for the whole kernel at the bottom of its space
    (nothing else is packed there): slot size = the largest tile naming it (aligned), times its slots.
    Returns group representative -> (region base, slot bytes, slot index: int or run-time expression)
    and seeds ``active``/``peak`` with the regions."""
    bound = _declared(fn)
    if not bound:
        return {}
    group_ref: Dict[str, MemRefBind] = {}
    regions: Dict[str, dict] = {}
    for start, end, first, members, t in intervals:
        refs = [(m, bound[m]) for m in members if m in bound]
        if not refs:
            continue
        m0, r0 = refs[0]
        for m, r in refs[1:]:
            if not _same_slot(r0, r):
                raise CompileError(f"tiles {m0!r} and {m!r} must share one buffer (a carried value, the arms of an "
                                   f"if, an in-place op or a reshape) but are placed in pl.MemRef {r0} and {r}",
                                   r.loc)
        if len(members) > 1 and isinstance(r0.index, N.Expr):
            other = next(m for m in members if m != m0)
            raise CompileError(f"tile {m0!r} is in a run-time slot of pl.MemRef {r0.name!r} but must share one buffer "
                               f"with {other!r} (a carried value, the arms of an if, an in-place op or a reshape), "
                               f"whose storage does not move from slot to slot; give it a constant slot", r0.loc)
        group_ref[first] = r0
        reg = regions.setdefault(r0.name, {"space": t.memory, "slots": r0.slots, "bytes": 0, "tile": m0,
                                           "type": t, "loc": r0.loc, "static": {}, "key": r0.key})
        if r0.key != reg["key"]:     # two functions inlined into one kernel, each with its own declaration
            raise CompileError(f"two distinct pl.MemRef declarations claim the name {r0.name!r} in kernel "
                               f"{fn.name} (the other at {reg['loc']}): tiles naming either would silently share "
                               f"or split one allocation; give each its own name (pypto refuses this too)", r0.loc)
        if t.memory != reg["space"]:
            raise CompileError(f"pl.MemRef {r0.name!r} holds tiles of two memory spaces: {reg['tile']!r} is in "
                               f"{_SPACE_NAMES[reg['space']]} and {m0!r} in {_SPACE_NAMES[t.memory]}; one allocation "
                               f"lives in one space", r0.loc)
        if t.nbytes > reg["bytes"]:
            reg.update(bytes=t.nbytes, tile=m0, type=t, loc=r0.loc)
        if not isinstance(r0.index, N.Expr):
            for s2, e2, other, oref in reg["static"].get(r0.index, []):
                if start < e2 and s2 < end:
                    later, lref = (m0, r0) if start >= s2 else (other, oref)
                    earlier = other if later == m0 else m0
                    raise CompileError(f"tiles {earlier!r} and {later!r} are both in slot {r0.index} of pl.MemRef "
                                       f"{r0.name!r} and live at the same time: {later!r} is written while "
                                       f"{earlier!r} is still read later, so it would overwrite it (pypto refuses "
                                       f"this too); use another slot or another pl.MemRef", lref.loc)
            reg["static"].setdefault(r0.index, []).append((start, end, m0, r0))
    used: Dict[MemorySpace, int] = {}
    base_of: Dict[str, Tuple[int, int]] = {}
    for name in sorted(regions):
        reg = regions[name]
        space = reg["space"]
        slot = _align_up(reg["bytes"], ALIGNMENT[space])
        base = _align_up(used.get(space, 0), ALIGNMENT[space])
        size = slot * reg["slots"]
        if base + size > target.capacity(space):
            t = reg["type"]
            before = f"after {base} B of other pl.MemRef regions, " if base else ""
            raise CompileError(f"pl.MemRef {name!r} does not fit in {_SPACE_NAMES[space]}: {reg['slots']} slot"
                               f"{'s' if reg['slots'] > 1 else ''} of {slot} B (its largest tile {reg['tile']!r} "
                               f"{fmt_shape(t.shape)} {t.dtype.name} is {t.nbytes} B) = {size} B, {before}capacity "
                               f"on {target.arch} is {target.capacity(space)} B", reg["loc"] or fn.loc)
        used[space] = base + size
        base_of[name] = (base, slot)
        active.setdefault(space, []).append((float("inf"), base, size, f"pl.MemRef {name}", None))
        peak[space] = max(peak.get(space, 0), base + size)
    return {first: base_of[r.name] + (r.index,) for first, r in group_ref.items()}


def _in_place_capable(value, target: N.Var) -> bool:
    """An element-wise op whose tile operands all have the result's shape and element size, and none of
    them the hardware's scratch (rsqrt's tmp: the instruction writes it while it writes the result)."""
    if not isinstance(value, N.OpCall) or value.op not in _ELEMENTWISE or not isinstance(target.type, TileType):
        return False
    params = OPS[value.op].operand_params
    if any(p.scratch is not None or p.name == "tmp" for p in params[:len(value.args)]):
        return False
    for a in value.args:
        if isinstance(a.type, TileType):
            if a.type.shape != target.type.shape or a.type.dtype.size != target.type.dtype.size:
                return False
    return True


def _align_up(x: int, a: int) -> int:
    return (x + a - 1) // a * a
