"""Memory planning for tiles without a compiler-assigned address (``--pto-level=level2``).

A bump allocator per memory space: tiles keep their ``addr`` operand when they
have one; every other ``pto.alloc_tile`` gets the next aligned offset after the
highest byte used so far in its space.  No reuse: a function whose tiles do not
fit is an AssemblerError located at the first tile that overflows.
"""
from __future__ import annotations

import copy
from typing import Dict

from ...pto.ast import Block, Clause, Func, Module, Op, ResultDef, Use
from ...pto.lexer import SourceText
from ...pto.types import ALIGN, CAPACITY, TILE_LOCS, ScalarType, scale_side


def _align(x: int, a: int) -> int:
    return (x + a - 1) // a * a


def _allocs(block: Block):
    for op in block.ops:
        if op.name == "pto.alloc_tile":
            yield op
        for r in op.regions:
            yield from _allocs(r)


def plan_function(f: Func, arch: str, src: SourceText, plan_all: bool) -> Dict[int, int]:
    """Return {id(alloc op): byte offset} for the tiles that need an address."""
    if f.body is None:
        return {}
    cap = CAPACITY.get(arch, CAPACITY["a2a3"])
    used = {loc: 0 for loc in cap}

    def space(tt):   # the buffer a tile lives in (loc=scaling: the left or right operand's scales)
        return scale_side(tt.blayout) if tt.loc == "scaling" else tt.loc
    todo = []
    for op in _allocs(f.body):
        tt = op.result_types[0]
        addr = op.group("addr")
        if addr is not None and not plan_all:
            vi = addr.uses[0].value
            if vi is not None and isinstance(vi.const, int):
                used[space(tt)] = max(used[space(tt)], vi.const + tt.nbytes)
            continue
        todo.append(op)
    planned: Dict[int, int] = {}
    for op in todo:
        tt = op.result_types[0]
        sp = space(tt)
        off = _align(used[sp], ALIGN[sp])
        if off + tt.nbytes > cap[sp]:
            name = op.results[0].name if op.results else "?"
            raise src.error(
                f"tile '%{name}' ({tt.rows}x{tt.cols} {tt.dtype}, {tt.nbytes} bytes) does not fit in the "
                f"{TILE_LOCS.get(sp, sp)} buffer: it would end at byte {off + tt.nbytes} of {cap[sp]} ({arch})",
                op.line, op.col)
        planned[id(op)] = off
        used[sp] = off + tt.nbytes
    return planned


def planned_module(mod: Module, planned: Dict[int, int]) -> Module:
    """A copy of ``mod`` whose planned tiles carry ``addr = %__plan_<N>_i64`` (the level2 dump).

    Each function that got planned addresses starts with their ``arith.constant``s, so the dump
    is itself valid input.
    """
    memo: dict = {}
    out = copy.deepcopy(mod, memo)
    for f, f_copy in zip(mod.funcs, out.funcs):
        if f.body is None:
            continue
        addrs = set()
        for op in _allocs(f.body):
            if id(op) in planned and op.group("addr") is None:
                a = planned[id(op)]
                addrs.add(a)
                twin = memo[id(op)]
                twin.clauses.insert(0, Clause("kw", "addr", [Use(f"__plan_{a}_i64", op.line, op.col)],
                                              line=op.line, col=op.col))
        consts = []
        for a in sorted(addrs):
            c = Op("arith.constant", f.line, f.col, [ResultDef(f"__plan_{a}_i64", 1, f.line, f.col)])
            c.extra["literal"] = str(a)
            c.colon_types = [ScalarType("i64")]
            consts.append(c)
        f_copy.body.ops[:0] = consts
    return out
