"""Memory planning for tiles without a compiler-assigned address (``--pto-level=level2``).

A bump allocator per memory space: tiles keep their ``addr`` operand when they
have one; every other ``pto.alloc_tile`` gets the next aligned offset after the
highest byte used so far in its space.  No reuse: a function whose tiles do not
fit is an AssemblerError located at the first tile that overflows.
"""
from __future__ import annotations

from typing import Dict

from .ast import Block, Func
from .lexer import SourceText
from .types import TILE_LOCS

# bytes per memory space (runtime.md "Buffer capacities")
CAPACITY = {
    "a2a3": {"vec": 188416, "mat": 524288, "left": 65536, "right": 65536, "acc": 131072, "bias": 1024},
    "a5": {"vec": 245760, "mat": 524288, "left": 65536, "right": 65536, "acc": 262144, "bias": 4096},
}
ALIGN = {"vec": 128, "mat": 128, "acc": 128, "left": 64, "right": 64, "bias": 64}


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
    used = {loc: 0 for loc in TILE_LOCS}
    todo = []
    for op in _allocs(f.body):
        tt = op.result_types[0]
        addr = op.group("addr")
        if addr is not None and not plan_all:
            vi = addr.uses[0].value
            if vi is not None and isinstance(vi.const, int):
                used[tt.loc] = max(used[tt.loc], vi.const + tt.nbytes)
            continue
        todo.append(op)
    planned: Dict[int, int] = {}
    for op in todo:
        tt = op.result_types[0]
        off = _align(used[tt.loc], ALIGN[tt.loc])
        if off + tt.nbytes > cap[tt.loc]:
            name = op.results[0].name if op.results else "?"
            raise src.error(
                f"tile '%{name}' ({tt.rows}x{tt.cols} {tt.dtype}, {tt.nbytes} bytes) does not fit in the "
                f"{TILE_LOCS[tt.loc]} buffer: it would end at byte {off + tt.nbytes} of {cap[tt.loc]} ({arch})",
                op.line, op.col)
        planned[id(op)] = off
        used[tt.loc] = off + tt.nbytes
    return planned
