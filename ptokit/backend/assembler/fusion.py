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


# ---------------------------------------------------------------- loads and stores in a run
@dataclass
class GmRun:
    """A run that absorbed the TLOADs feeding it and the TSTOREs draining it: on its fused path the
    instructions read the loaded windows and write the stored windows in place of the tile buffers
    (``pto::cpu::gm_tile``), so the data is not copied into and out of the Vec buffers."""
    ops: List[Op]                    # every op of the stretch, in order
    hoisted: List[Op]                # its scalar ops and partition views (no tile access): emitted first
    loads: List[Op]
    stores: List[Op]
    compute: List[Op]                # the row-local instructions
    rows: int
    chunk: int
    backing: Dict[int, Op]           # id(use) of a compute operand -> the load / store whose window it is
    row_uses: Dict[int, object]      # id(use) -> ValueInfo of every row operand


def tile_reads(body, planned) -> List[Tuple[Op, Tuple[int, int]]]:
    """Every op with a tile operand and the Vec bytes it may touch ((0, 1 << 62) when unknown): what
    a run's tile buffers must not be read by elsewhere to be skipped."""
    out: List[Tuple[Op, Tuple[int, int]]] = []

    def walk(block):
        for op in block.ops:
            for u in op.operands:
                ty = u.value.type
                if isinstance(ty, TileBufType):
                    m = tile_mem(u.value, planned)
                    span = (0, 1 << 62) if m is None else (m.addr, m.addr + m.rows * m.pitch)
                    if ty.loc == "vec" or m is None:
                        out.append((op, span))
            for r in op.regions:
                walk(r)

    if body is not None:
        walk(body)
    return out


def _valid_cols(vi) -> Optional[int]:
    ty = vi.type
    if ty.v_col is not None:
        return ty.v_col
    g = vi.op.group("valid_col") if getattr(vi, "op", None) is not None else None
    return _const(g.uses[0].value) if g is not None and g.uses else None


def find_gm_run(ops: List[Op], start: int, planned: Dict[int, int], reads) -> Optional[Tuple[GmRun, int]]:
    """The stretch from the TLOAD at ``ops[start]``: TLOADs, scalar ops, partition views and tile
    allocations, then row-local instructions, then TSTOREs of their results, when every tile it
    loads or stores can be read and written through its global window instead (see GmRun); else
    None. All-or-nothing: one tile that cannot leaves the whole stretch to the plain lowering."""
    if ops[start].name != "pto.tload":
        return None
    taken: List[Op] = []
    loads, stores, compute, hoisted = [], [], [], []
    k = start
    end = start
    while k < len(ops):
        op = ops[k]
        n = op.name
        if n in dialect.ARITH_OPS or n in ("pto.partition_view", "pto.make_tensor_view"):
            hoisted.append(op)
        elif n == "pto.alloc_tile":
            pass
        elif n == "pto.tload" and not compute and not stores:
            loads.append(op)
        elif n == "pto.tstore" and compute and not op.attrs:
            stores.append(op)
        elif n not in ("pto.tload", "pto.tstore") and not stores and _access(op, planned) is not None:
            compute.append(op)
        else:
            break
        taken.append(op)
        if n in ("pto.tstore",):
            end = len(taken)
        k += 1
    if not loads or not compute or not stores:
        return None
    taken = taken[:end]
    ops_set = {id(o) for o in taken}
    hoisted = [o for o in hoisted if id(o) in ops_set]
    load_tiles = [op.group("outs").uses[0] for op in loads]
    store_tiles = [op.group("ins").uses[0] for op in stores]
    mems = {}
    for u in load_tiles + store_tiles:
        m = tile_mem(u.value, planned)
        mems[id(u)] = m
    # the windows: same element type as the tile, 2-D tiles of R rows
    for op, u in [(o, t) for o, t in zip(loads, load_tiles)] + [(o, t) for o, t in zip(stores, store_tiles)]:
        m = mems[id(u)]
        g = (op.group("ins") if op.name == "pto.tload" else op.group("outs")).uses[0].value.type
        if m is None or m.col_major or getattr(g, "elem", None) != u.value.type.dtype:
            return None
    accs = [_access(op, planned) for op in compute]
    first_rows = [m for _, m, row, _ in accs[0].items if row]
    R, V = first_rows[0].rows, first_rows[0].vrow
    for a in accs:
        if any(row and (m.rows != R or m.vrow != V) for _, m, row, _ in a.items):
            return None
    if any(mems[id(u)].rows != R or mems[id(u)].vrow != V for u in load_tiles + store_tiles):
        return None
    # a buffer = the byte range of a loaded or stored tile; every tile touching it must be it exactly
    bufs = {}
    for u in load_tiles + store_tiles:
        m = mems[id(u)]
        bufs[(m.addr, m.rows * m.pitch)] = m
    touched = [(id(u), m, row, w, i) for i, a in enumerate(accs) for u, m, row, w in a.items]

    def buf_of(m):
        for (addr, size), _ in bufs.items():
            lo, hi = m.addr, m.addr + m.rows * m.pitch
            if lo < addr + size and addr < hi:
                return (addr, size) if (m.addr, m.rows * m.pitch) == (addr, size) and \
                    (m.cols, m.esize) == (bufs[(addr, size)].cols, bufs[(addr, size)].esize) else False
        return None

    # walk the stretch in order: each buffer's current backing (a load's or a store's window)
    seq = []                          # (kind, op, use, buf)
    for op in taken:
        if op.name == "pto.tload":
            u = op.group("outs").uses[0]
            seq.append(("load", op, u, buf_of(mems[id(u)])))
        elif op.name == "pto.tstore":
            u = op.group("ins").uses[0]
            seq.append(("store", op, u, buf_of(mems[id(u)])))
        elif id(op) in {id(c) for c in compute}:
            a = accs[[id(c) for c in compute].index(id(op))]
            dst_vc = [_valid_cols(u.value) for u, m, row, w in a.items if w][0]
            reduce = op.name.startswith("pto.trow") and not op.name.startswith("pto.trowexpand")
            for u, m, row, w in a.items:
                b = buf_of(m)
                if b is False:
                    return None
                if b is not None:
                    vc = _valid_cols(u.value)
                    # the op must touch the window only inside the tile's valid region: an element-wise
                    # op reads its sources over the result's, a row reduction its source's own
                    if not row or vc is None or not (w or reduce or vc == dst_vc):
                        return None
            for u, m, row, w in a.items:
                if not w:
                    seq.append(("read", op, u, buf_of(m)))
            for u, m, row, w in a.items:
                if w:
                    seq.append(("write", op, u, buf_of(m)))
    backing: Dict[int, Op] = {}
    for buf in bufs:
        items = [x for x in seq if x[3] == buf]
        cur = None                        # the load or store whose window the buffer is now
        for idx, (kind, op, u, _) in enumerate(items):
            if kind == "load":
                cur = op
            elif kind == "read":
                if cur is None:
                    return None           # read before it is loaded or written
                backing[id(u)] = cur
            elif kind == "write":
                # the written bytes are the next store's, which must come before any reload
                nxt = next((x for x in items[idx + 1:] if x[0] in ("store", "load")), None)
                if nxt is None or nxt[0] != "store":
                    return None
                cur = nxt[1]
                backing[id(u)] = cur
            elif kind == "store":
                if cur is not op:
                    return None           # stores a loaded buffer, or a phase stored twice
    # small kernels keep their plain C++, as for runs (MIN_RUN_BYTES)
    if sum(size for _, size in bufs) < MIN_RUN_BYTES:
        return None
    # the buffers are not read anywhere else in the function (flow-insensitive)
    for op, (lo, hi) in reads:
        if id(op) in ops_set:
            continue
        for addr, size in bufs:
            if lo < addr + size and addr < hi:
                return None
    mems_rows = [m for a in accs for _, m, row, _ in a.items if row]
    ch = _chunk_rows(R, mems_rows)
    if ch is None or not _safe(accs, R, ch):
        return None
    row_uses = {id(u): u.value for a in accs for u, _, row, _ in a.items if row}
    return GmRun(taken, hoisted, loads, stores, compute, R, ch, backing, row_uses), start + len(taken)

