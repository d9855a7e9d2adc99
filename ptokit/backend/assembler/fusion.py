"""Fused runs: consecutive row-local tile instructions executed one row chunk at a time.

A *run* is a stretch of one block holding only ``pto.alloc_tile`` and tile ops whose dialect row
declares them row-local (``OpSpec.row_local`` / ``row_whole``), at least two of them, on Vec tiles
of one shape in rows (R rows, the same constant valid rows) with constant addresses, whose tiles
together do not fit an L1 (``MIN_RUN_BYTES``; smaller runs gain nothing). The emitter
lowers it to a loop over chunks of CH rows, each instruction called on row-chunk views
(``pto::cpu::row_chunk<CH>``), so a chunk's data stays in L1 across the run; see docs/assembler.md,
"Fused runs". Nothing else may stand inside a run: a load, store, sync, FIFO op, view, scalar op or
a non-row-local instruction ends it.

The run is fused only when the chunk-major order provably gives the same bytes as the
instruction-major order: for instructions i < j and chunks p < q, what j does on chunk p must not
touch what i writes on chunk q (and must not write what i reads on chunk q). Footprints are byte
ranges in the Vec space (whole rows for row operands, the whole tile for ``row_whole`` operands),
so aliasing through shared addresses, reshaped views or shifted tiles is all covered.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from ...pto import dialect
from ...pto.ast import Op
from ...pto.types import SCALARS, TileBufType

# bytes of one tile's chunk: a few of them stay in a 32 KiB L1 together
CHUNK_BYTES = 8192
# a run whose tiles fit an L1 together gains nothing from chunks: not fused
MIN_RUN_BYTES = 32 * 1024


@dataclass(frozen=True)
class TileMem:
    addr: int
    rows: int
    cols: int
    esize: int
    vrow: int
    col_major: bool

    @property
    def pitch(self) -> int:
        return self.cols * self.esize


@dataclass
class Run:
    ops: List[Op]                    # the run's ops in order (allocs and tile ops)
    rows: int                        # R
    chunk: int                       # CH
    row_uses: Dict[int, object]      # id(use) -> ValueInfo of the tile given as a row chunk


def _const(vi) -> Optional[int]:
    c = getattr(vi, "const", None)
    return c if isinstance(c, int) and not isinstance(c, bool) else None


def tile_mem(vi, planned: Dict[int, int]) -> Optional[TileMem]:
    """Address and shape of a tile value made by ``pto.alloc_tile`` with a known address, a Vec tile
    without boxes and with constant valid rows; None otherwise."""
    op = getattr(vi, "op", None)
    ty = vi.type
    if op is None or op.name != "pto.alloc_tile" or not isinstance(ty, TileBufType):
        return None
    if ty.loc != "vec" or ty.boxed or ty.dtype not in SCALARS:
        return None
    addr = op.group("addr")
    a = _const(addr.uses[0].value) if addr is not None else planned.get(id(op))
    vr = ty.v_row
    if vr is None:
        g = op.group("valid_row")
        vr = _const(g.uses[0].value) if g is not None and g.uses else None
    if a is None or vr is None:
        return None
    return TileMem(a, ty.rows, ty.cols, SCALARS[ty.dtype][1], vr, ty.blayout == "col_major")


def _roles(spec: dialect.OpSpec, op: Op):
    ins = op.group("ins").uses
    if spec.optional and not spec.pass_optional:
        ins = ins[:len(spec.ins) - spec.optional]
    outs = op.group("outs").uses
    return [(o.role, u, False) for o, u in zip(spec.ins, ins)] + [(o.role, u, True) for o, u in zip(spec.outs, outs)]


class _OpAccess:
    """One instruction's tile operands: (use, mem, is_row, written)."""

    def __init__(self, op: Op, items):
        self.op = op
        self.items = items


def _access(op: Op, planned) -> Optional[_OpAccess]:
    spec = op.extra.get("row") or dialect.PTO_OPS.get(op.name)
    if spec is None or spec.form != "dps" or not spec.row_local or spec.variants:
        return None
    items = []
    for role, use, written in _roles(spec, op):
        ty = use.value.type
        if not isinstance(ty, TileBufType):
            continue
        row = role in spec.row_local
        if not row and role not in spec.row_whole:
            return None                  # a tile operand the row does not declare: not row-local
        if written and not row:
            return None
        mem = tile_mem(use.value, planned)
        if mem is None:
            return None
        items.append((use, mem, row, written))
    if not any(row for _, _, row, _ in items):
        return None
    return _OpAccess(op, items)


def _chunk_rows(rows: int, mems: List[TileMem]) -> Optional[int]:
    """CH: a divisor of R near CHUNK_BYTES per tile chunk, >= 2 chunks; a column-major ([R, 1]) tile's
    chunk keeps the tile library's rule rows * sizeof % 32 == 0."""
    pitch = max(m.pitch for m in mems)
    want = max(1, CHUNK_BYTES // pitch)
    for ch in sorted((d for d in range(1, rows) if rows % d == 0), key=lambda d: (abs(d - want), -d)):
        if all((ch * m.esize) % 32 == 0 for m in mems if m.col_major):
            return ch
    return None


def _safe(accs: List[_OpAccess], rows: int, ch: int) -> bool:
    """Chunk-major order gives the bytes of instruction-major order (see the module docstring)."""
    n = rows // ch

    def spans(acc: _OpAccess, p: int):
        reads, writes = [], []
        for _, m, row, written in acc.items:
            lo, hi = (m.addr + p * ch * m.pitch, m.addr + (p + 1) * ch * m.pitch) if row else \
                (m.addr, m.addr + m.rows * m.pitch)
            (writes if written else reads).append((lo, hi))
        return reads, writes

    def hit(xs, ys) -> bool:
        return any(a < d and c < b for a, b in xs for c, d in ys)

    table = [[spans(a, p) for p in range(n)] for a in accs]
    for j in range(len(accs)):
        for i in range(j):
            for p in range(n):
                rj, wj = table[j][p]
                for q in range(p + 1, n):
                    ri, wi = table[i][q]
                    if hit(wj, ri) or hit(wj, wi) or hit(rj, wi):
                        return False
    return True


def find_run(ops: List[Op], start: int, planned: Dict[int, int]) -> Optional[Tuple[Run, int]]:
    """The longest fusable run starting at ``ops[start]`` (a tile op), and the index after it."""
    first = _access(ops[start], planned)
    if first is None:
        return None
    rows_mem = [m for _, m, row, _ in first.items if row]
    R, V = rows_mem[0].rows, rows_mem[0].vrow
    accs: List[_OpAccess] = []
    taken: List[Op] = []
    k = start
    last_tile = -1
    while k < len(ops):
        op = ops[k]
        if op.name == "arith.constant" or op.name == "pto.alloc_tile":
            taken.append(op)
            k += 1
            continue
        acc = _access(op, planned)
        if acc is None or any(row and (m.rows != R or m.vrow != V) for _, m, row, _ in acc.items):
            break
        trial = accs + [acc]
        mems = [m for a in trial for _, m, row, _ in a.items if row]
        ch = _chunk_rows(R, mems)
        if ch is None or not _safe(trial, R, ch):
            break
        accs = trial
        taken.append(op)
        last_tile = len(taken)
        k += 1
    if len(accs) < 2:
        return None
    taken = taken[:last_tile]
    mems = [m for a in accs for _, m, row, _ in a.items if row]
    if sum(m.rows * m.pitch for m in set(mems)) < MIN_RUN_BYTES:
        return None
    ch = _chunk_rows(R, mems)
    row_uses = {id(u): u.value for a in accs for u, _, row, _ in a.items if row}
    return Run(taken, R, ch, row_uses), start + len(taken)
