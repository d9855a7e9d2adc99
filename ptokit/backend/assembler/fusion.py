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


def _chunk_rows(rows: int, pitch: int, col_esizes) -> Optional[int]:
    """CH: a divisor of R near CHUNK_BYTES per tile chunk (the widest row ``pitch`` decides), >= 2
    chunks; a column-major ([R, 1]) tile's chunk keeps the tile library's rule rows * sizeof % 32 == 0
    (``col_esizes``: the element sizes of the run's column-major tiles)."""
    want = max(1, CHUNK_BYTES // pitch)
    for ch in sorted((d for d in range(1, rows) if rows % d == 0), key=lambda d: (abs(d - want), -d)):
        if all((ch * e) % 32 == 0 for e in col_esizes):
            return ch
    return None


def _row_mems(accs) -> List[TileMem]:
    return [m for a in accs for _, m, row, _ in a.items if row]


def _chunking(rows: int, mems) -> Optional[int]:
    return _chunk_rows(rows, max(m.pitch for m in mems), {m.esize for m in mems if m.col_major})


class _Hazards:
    """Whether chunk-major order gives the bytes of instruction-major order (see the module
    docstring), checked one instruction at a time as a run grows: for the new instruction j and each
    chunk p, what j touches on chunk p against what the earlier instructions read and wrote on the
    later chunks q > p. Those are kept per chunk as sets of byte spans, so repeated tiles count once
    and each check costs (chunks^2 x distinct spans), whatever the run's length."""

    def __init__(self, rows: int, ch: int):
        self.ch = ch
        self.n = rows // ch
        self.reads = [set() for _ in range(self.n)]
        self.writes = [set() for _ in range(self.n)]
        self.checks = 0                  # span comparisons made: a measure of the work, for tests

    def spans(self, acc: _OpAccess, p: int):
        reads, writes = [], []
        ch = self.ch
        for _, m, row, written in acc.items:
            lo, hi = (m.addr + p * ch * m.pitch, m.addr + (p + 1) * ch * m.pitch) if row else \
                (m.addr, m.addr + m.rows * m.pitch)
            (writes if written else reads).append((lo, hi))
        return reads, writes

    def _hit(self, xs, ys) -> bool:
        self.checks += len(xs) * len(ys)
        return any(a < d and c < b for a, b in xs for c, d in ys)

    def admits(self, acc: _OpAccess) -> bool:
        for p in range(self.n):
            rj, wj = self.spans(acc, p)
            for q in range(p + 1, self.n):
                ri, wi = self.reads[q], self.writes[q]
                if self._hit(wj, ri) or self._hit(wj, wi) or self._hit(rj, wi):
                    return False
        return True

    def add(self, acc: _OpAccess) -> None:
        for q in range(self.n):
            r, w = self.spans(acc, q)
            self.reads[q].update(r)
            self.writes[q].update(w)

    @classmethod
    def of(cls, accs: List[_OpAccess], rows: int, ch: int) -> Optional["_Hazards"]:
        """The checker holding ``accs`` in order, or None when one of them breaks the order."""
        hz = cls(rows, ch)
        for a in accs:
            if not hz.admits(a):
                return None
            hz.add(a)
        return hz


def _safe(accs: List[_OpAccess], rows: int, ch: int) -> bool:
    """Chunk-major order gives the bytes of instruction-major order (see the module docstring)."""
    return _Hazards.of(accs, rows, ch) is not None


def scan_run(ops: List[Op], start: int, planned: Dict[int, int]) -> Tuple[Optional[Run], int]:
    """The longest fusable run starting at ``ops[start]`` and the index after it; or (None, k):
    no run starts at any index in [start, k), so the caller emits those ops plainly and looks
    again at ``k``. Linear in the stretch's length: each instruction is checked against what the
    run already holds (``_Hazards``)."""
    first = _access(ops[start], planned)
    if first is None:
        return None, start + 1
    rows_mem = [m for _, m, row, _ in first.items if row]
    R, V = rows_mem[0].rows, rows_mem[0].vrow
    accs: List[_OpAccess] = []
    taken: List[Op] = []
    k = start
    last_tile = -1
    pitch, col_esizes = 0, frozenset()
    hz: Optional[_Hazards] = None
    stopped_by_order = False           # the run ended on a hazard or a chunking, not on the op itself
    while k < len(ops):
        op = ops[k]
        if op.name == "arith.constant" or op.name == "pto.alloc_tile":
            taken.append(op)
            k += 1
            continue
        acc = _access(op, planned)
        if acc is None or any(row and (m.rows != R or m.vrow != V) for _, m, row, _ in acc.items):
            break
        mems = [m for _, m, row, _ in acc.items if row]
        t_pitch = max([pitch] + [m.pitch for m in mems])
        t_esizes = col_esizes | {m.esize for m in mems if m.col_major}
        if hz is None or (t_pitch, t_esizes) != (pitch, col_esizes):
            ch = _chunk_rows(R, t_pitch, t_esizes)
            t_hz = _Hazards.of(accs, R, ch) if ch is not None else None
        else:
            t_hz = hz
        if t_hz is None or not t_hz.admits(acc):
            stopped_by_order = True
            break
        t_hz.add(acc)
        hz, pitch, col_esizes = t_hz, t_pitch, t_esizes
        accs.append(acc)
        taken.append(op)
        last_tile = len(taken)
        k += 1
    # Not fused: a run starting later in [start, k) holds a part of this stretch's instructions
    # and tiles (so it is as short or as small) unless a hazard or the chunking ended this one.
    give_up = (None, start + 1) if stopped_by_order else (None, max(k, start + 1))
    if len(accs) < 2:
        return give_up
    taken = taken[:last_tile]
    mems = _row_mems(accs)
    if sum(m.rows * m.pitch for m in set(mems)) < MIN_RUN_BYTES:
        return give_up
    row_uses = {id(u): u.value for a in accs for u, _, row, _ in a.items if row}
    return Run(taken, R, hz.ch, row_uses), start + len(taken)


def find_run(ops: List[Op], start: int, planned: Dict[int, int]) -> Optional[Tuple[Run, int]]:
    """The longest fusable run starting at ``ops[start]`` (a tile op), and the index after it."""
    run, end = scan_run(ops, start, planned)
    return None if run is None else (run, end)


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
    acc_of = {id(c): a for c, a in zip(compute, accs)}
    for op in taken:
        if op.name == "pto.tload":
            u = op.group("outs").uses[0]
            seq.append(("load", op, u, buf_of(mems[id(u)])))
        elif op.name == "pto.tstore":
            u = op.group("ins").uses[0]
            seq.append(("store", op, u, buf_of(mems[id(u)])))
        elif id(op) in acc_of:
            a = acc_of[id(op)]
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
    by_buf: Dict[object, list] = {buf: [] for buf in bufs}
    for x in seq:
        if x[3] in by_buf:
            by_buf[x[3]].append(x)
    for buf in bufs:
        items = by_buf[buf]
        # for each position, the next load or store after it (None at the end)
        after, nxt = [None] * len(items), None
        for idx in range(len(items) - 1, -1, -1):
            after[idx] = nxt
            if items[idx][0] in ("store", "load"):
                nxt = items[idx]
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
                nxt = after[idx]
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
    ch = _chunking(R, _row_mems(accs))
    if ch is None or not _safe(accs, R, ch):
        return None
    row_uses = {id(u): u.value for a in accs for u, _, row, _ in a.items if row}
    return GmRun(taken, hoisted, loads, stores, compute, R, ch, backing, row_uses), start + len(taken)

