"""``memory_planner=PTOAS``: the declared allocations pypto refuses when the assembler plans memory.

Under pypto's PTOAS planner the compiler places no tile: the assembler's PlanMemory does, and a
``pl.MemRef`` survives only as a multi-buffer region (``pto.alloc_multi_tile`` plus one
``pto.multi_tile_get`` per slot use), whose slots the assembler keeps apart.  pypto therefore
refuses, at the tile that shows it, every declaration that cannot become such a region:

* one slot (``pl.MemRef("x")``): nothing would keep other tiles out of it;
* more slots than a region holds (2..16);
* a space other than Vec, Mat or Acc;
* slots holding tiles of different shapes, dtypes or valid shapes, or a run-time valid shape
  (a region declares one slot type and one static valid extent);
* two slots selected in one loop body: the assembler guards only the first slot an iteration
  selects, so the next iteration could overwrite the second while it is still read.

pypto also refuses a slot carried out of a loop or an ``if`` (a phi); in ptokit such a value is
a copy (SSA's ``pl.move``), never the slot, so that form runs.  ptokit places the buffers itself
under every planner (its PlanMemory), so what the option changes here is which programs compile;
see docs/decisions.md ("29").
"""
from __future__ import annotations

from typing import Dict, List, Tuple

from ..errors import CompileError
from ..ir import nodes as N
from ..ir.types import MemorySpace, MemRefBind, TileType

REGION_SLOTS = (2, 16)            # slots a multi-buffer region may have
REGION_SPACES = (MemorySpace.Vec, MemorySpace.Mat, MemorySpace.Acc)
_FALLBACK = "or compile with the default planner (memory_planner=PYPTO)"


def check_ptoas_regions(fn: N.Function) -> None:
    """Refuse, located, the first ``pl.MemRef`` of ``fn`` that cannot be a multi-buffer region."""
    binds = _bindings(fn.body)
    if not binds:
        return
    by_name: Dict[str, List[Tuple[N.Var, MemRefBind]]] = {}
    for var, ref in binds:
        by_name.setdefault(ref.name, []).append((var, ref))
    for name, uses in by_name.items():
        var0, ref0 = uses[0]
        why = _blocker(uses)
        if why is not None:
            var, ref, reason = why
            raise CompileError(f"pl.MemRef {name!r} (slots={ref0.slots}) cannot be kept under memory_planner=PTOAS: "
                               f"{reason}", ref.loc or var.loc)
    _check_one_slot_per_iteration(fn.body)


def _blocker(uses):
    var0, ref0 = uses[0]
    t0: TileType = var0.type
    if ref0.slots == 1:
        return var0, ref0, (f"the assembler plans every tile there and nothing keeps other tiles out of a one-slot "
                            f"allocation; declare it pl.MemRef(slots=N) with N >= 2 (a multi-buffer region whose "
                            f"slots stay apart), {_FALLBACK}")
    lo, hi = REGION_SLOTS
    if not lo <= ref0.slots <= hi:
        return var0, ref0, f"a multi-buffer region has {lo} to {hi} slots; {_FALLBACK}"
    for var, ref in uses:
        t: TileType = var.type
        if t.memory not in REGION_SPACES:
            return var, ref, (f"tile {var.name!r} is in {t.memory.name}, and a multi-buffer region lives in "
                              f"{', '.join(s.name for s in REGION_SPACES)} only; {_FALLBACK}")
        if any(not isinstance(d, int) for d in (t.valid or ())):
            return var, ref, (f"tile {var.name!r} has a run-time valid shape, and a region states one static valid "
                              f"extent for all its slots; {_FALLBACK}")
        if (t.shape, t.dtype) != (t0.shape, t0.dtype) or (t.valid or t.shape) != (t0.valid or t0.shape):
            return var, ref, (f"its slots hold different tiles ({var0.name!r}: {t0}, {var.name!r}: {t}), and a "
                              f"region's slots are all of one type and valid shape; {_FALLBACK}")
    return None


def _bindings(body) -> List[Tuple[N.Var, MemRefBind]]:
    out = []
    for s in N.walk_stmts(body):
        if isinstance(s, N.Assign) and isinstance(s.value, N.OpCall) and s.value.attrs.get("memref") is not None \
                and s.targets and isinstance(s.targets[0].type, TileType):
            out.append((s.targets[0], s.value.attrs["memref"]))
    return out


def _check_one_slot_per_iteration(body) -> None:
    """Two tiles of one multi-slot pl.MemRef defined in one loop body (a nested loop's body counts
    on its own, as each is one iteration) are refused at the second."""
    def walk(stmts, seen):
        for s in stmts:
            if isinstance(s, (N.For, N.While)):
                walk(s.body, {})
                continue
            if isinstance(s, N.If):
                walk(s.then_body, seen)
                walk(s.else_body, seen)
                continue
            if isinstance(s, N.Assign) and seen is not None and isinstance(s.value, N.OpCall):
                ref = s.value.attrs.get("memref")
                if ref is not None and ref.slots > 1:
                    first = seen.setdefault(ref.name, s.targets[0].name)
                    if first != s.targets[0].name:
                        raise CompileError(
                            f"pl.MemRef {ref.name!r} (slots={ref.slots}) cannot be kept under memory_planner=PTOAS: "
                            f"tiles {first!r} and {s.targets[0].name!r} take two of its slots in one loop iteration, "
                            f"and the assembler guards only the first slot an iteration selects, so the next "
                            f"iteration could overwrite the second while it is still read; take one slot per "
                            f"iteration, {_FALLBACK}", ref.loc or s.loc)
            for sub in N.child_bodies(s):      # a scope: same iteration
                walk(sub, seen)
    walk(body, None)
