"""Estimated device cycles of one PTO instruction (docs/estimate.md): the cost kinds the dialect's rows
declare (``OpSpec.cost``, ``dialect.py``) and the arithmetic that turns a row's cost and an instruction's
operand types into cycles on its pipe.

The numbers are a2a3 facts carried over from the vendor's cost model (pto-isa, ``include/pto/costmodel``):
the per-intrinsic start-up and per-repeat cycles of the vector unit, the transfer bandwidths of each
memory path and the cube's fractal rate, plus the fitted per-shape table of ``costdata/a2a3_fitted.csv``.
A vector instruction works in *repeats* of 256 bytes; how many it issues for a tile follows the shape
rules below.  An instruction whose row has no cost gets no estimate (``estimate`` returns None) and is
listed as such in docs/estimate.md; nothing is guessed for it.
"""
from __future__ import annotations

import csv
import math
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable, Dict, Iterator, Optional, Sequence, Tuple

from .facts import SCALARS
from .types import PartitionViewType, TileBufType

REPEAT_BYTES = 256          # one vector repeat: 8 blocks of 32 bytes
MASK_SET_CYCLES = 2         # setting a partial vector mask and restoring the full one (1 cycle each)
CLOCK_HZ = 1.85e9           # a2a3 AI Core clock (the vendor cost model's main frequency)
GIB = float(1 << 30)

# bytes per second (GiB/s in the vendor's table) of each a2a3 memory path
BANDWIDTH_GIBS = {
    "GM_TO_UB": 100.9, "GM_TO_L1": 135.0, "UB_TO_GM": 188.46, "L1_TO_GM": 32.0, "UB_TO_UB": 1024.0,
    "L0C_TO_GM": 70.0, "L0C_TO_L1": 128.0, "L1_TO_L0A": 441.0, "L1_TO_L0B": 220.5, "L1_TO_BT": 32.0,
    "L1_TO_FB": 32.0,
}
# GM -> UB loads (TLOAD into a Vec tile): a start-up latency per contiguous GM block and a rate, fitted to
# the vendor's hardware figures of TLOAD (tests/estimate calibration: 10 shapes, 1..32 blocks); GM -> L1
# loads pay the same latency (same MTE2 engine, no measurement of their own) at their path's bandwidth
UB_LOAD_LATENCY = 266
UB_LOAD_BYTES_PER_CYCLE = 128

# the pipes of the estimate, in the order the simulator and the reports use (C++ pipe_t values)
PIPE_IDS = {"S": 0, "V": 1, "M": 2, "MTE1": 3, "MTE2": 4, "MTE3": 5, "FIX": 10}
PIPE_LABELS = {"S": "Scalar", "V": "VEC", "M": "CUBE", "MTE1": "MTE1", "MTE2": "MTE2", "MTE3": "MTE3", "FIX": "FIXP"}


@dataclass(frozen=True)
class Repeat:
    """A vector instruction: ``fixed + slope * repeats`` cycles (+ MASK_SET_CYCLES, and ``floor`` for the
    binary ALU ops, when its last repeat is masked).  ``shape`` is how repeats follow from the tile:

    * ``binary``: element-wise over tiles or a tile and a scalar; rows shorter than one repeat take one
      masked repeat each, a tile whose valid columns span its rows is one run of repeats, else each row;
    * ``unary``: the same, but short full-width rows are one contiguous run;
    * ``rows``: each row apart (row reductions); ``cols``: one repeat per column chunk per row after the
      first (column reductions); ``bytes``: the source bytes in repeats (transpose).

    ``fitted`` names this instruction in the fitted table: a (dtype, valid columns) entry there wins
    (with ``interpolate``, columns between two entries take the line between them)."""

    fixed: float
    slope: float
    floor: float = 0.0
    shape: str = "binary"
    fitted: Optional[str] = None
    interpolate: bool = False
    operand: str = "dst"        # the tile whose shape counts: "dst" or "src" (reductions)
    wide: bool = False          # elements per repeat of the wider element type of dst and src (tcvt)
    source: str = ""            # where the numbers come from (docs table)


@dataclass(frozen=True)
class Composite:
    """Two vector steps one after the other (a broadcast then an element-wise op)."""

    parts: Tuple[Repeat, ...]
    source: str = ""


@dataclass(frozen=True)
class Transfer:
    """A copy between memory spaces: its bytes at the path's bandwidth (``path`` picks it from the operand
    spaces); GM -> UB loads use the fitted latency + rate of UB_LOAD_*."""

    source: str = ""


@dataclass(frozen=True)
class Mad:
    """A cube matrix multiply: 6 + r x ceil(m/16) x ceil(k/(32/elem)) x ceil(n/16) cycles, r = 2 for fp32
    operands, else 1."""

    source: str = ""


@dataclass(frozen=True)
class Fixed:
    """A fixed number of cycles (scalar-pipe instructions)."""

    cycles: int
    source: str = ""


Cost = object   # one of Repeat, Composite, Transfer, Mad, Fixed

_FITTED_DTYPES = {"f32": "fp32", "f16": "fp16"}


@lru_cache(maxsize=None)
def fitted_table() -> Dict[Tuple[str, str], Tuple[Tuple[int, float, float], ...]]:
    """(instruction, fp32|fp16) -> ((cols, slope, bias), ...) sorted by cols, from costdata/a2a3_fitted.csv."""
    path = Path(__file__).with_name("costdata") / "a2a3_fitted.csv"
    rows: Dict[Tuple[str, str], list] = {}
    with open(path, newline="") as f:
        for rec in csv.DictReader(line for line in f if not line.startswith("#")):
            rows.setdefault((rec["op"], rec["dtype"]), []).append(
                (int(rec["cols"]), float(rec["slope"]), float(rec["bias"])))
    return {k: tuple(sorted(v)) for k, v in rows.items()}


def _fitted(c: Repeat, dtype: str, vr: int, vc: int) -> Optional[float]:
    entries = fitted_table().get((c.fitted, _FITTED_DTYPES.get(dtype, "")), ()) if c.fitted else ()
    for cols, slope, bias in entries:
        if cols == vc:
            return slope * vr * vc + bias
    if c.interpolate and entries and entries[0][0] < vc < entries[-1][0]:
        lo = max(e for e in entries if e[0] < vc)
        hi = min(e for e in entries if e[0] > vc)
        t = (vc - lo[0]) / (hi[0] - lo[0])
        slope, bias = lo[1] + t * (hi[1] - lo[1]), lo[2] + t * (hi[2] - lo[2])
        return slope * vr * vc + bias
    return None


def vector_repeats(shape: str, vr: int, vc: int, cols: int, elem: int) -> Tuple[int, bool]:
    """(repeats, last repeat masked) of a vector instruction over a vr x vc region of a tile ``cols`` wide."""
    per = max(1, REPEAT_BYTES // elem)
    if vr <= 0 or vc <= 0:
        return 0, False
    if shape == "rows":
        return vr * math.ceil(vc / per), vc % per != 0
    if shape == "cols":
        return max(vr - 1, 1) * math.ceil(vc / per), vc % per != 0
    if shape == "bytes":
        return math.ceil(vr * vc * elem / REPEAT_BYTES), False
    if shape == "binary" and cols < per:
        return vr, True
    if vc == cols or vr == 1:
        n = vr * vc
        return math.ceil(n / per), n % per != 0
    return vr * math.ceil(vc / per), vc % per != 0


def _region(t) -> Tuple[int, int]:
    """The valid rows and columns of a tile type (its full shape where they are dynamic)."""
    return (t.rows if t.v_row is None else t.v_row), (t.cols if t.v_col is None else t.v_col)


def _elem(dtype: str) -> int:
    return SCALARS.get(dtype, ("", 4))[1]


def _repeat_cycles(c: Repeat, tile, other=None) -> int:
    vr, vc = _region(tile)
    got = _fitted(c, tile.dtype, vr, vc)
    if got is not None:
        return max(1, int(round(got)))
    elem = _elem(tile.dtype)
    if c.wide and other is not None:
        elem = max(elem, _elem(other.dtype))
    reps, masked = vector_repeats(c.shape, vr, vc, tile.cols, elem)
    cycles = c.fixed + c.slope * reps + ((MASK_SET_CYCLES + c.floor) if masked else 0)
    return max(1, int(round(cycles)))


def transfer_path(op: str, src_loc: Optional[str], dst_loc: Optional[str]) -> Optional[str]:
    """The vendor's name of the memory path a load, store or move takes (None: no figure for it)."""
    if op == "pto.tload":
        return {"vec": "GM_TO_UB", "mat": "GM_TO_L1"}.get(dst_loc)
    if op == "pto.tstore":
        return {"vec": "UB_TO_GM", "acc": "L0C_TO_GM", "mat": "L1_TO_GM"}.get(src_loc)
    return {("mat", "left"): "L1_TO_L0A", ("mat", "right"): "L1_TO_L0B", ("mat", "bias"): "L1_TO_BT",
            ("mat", "scaling"): "L1_TO_FB", ("acc", "mat"): "L0C_TO_L1", ("vec", "vec"): "UB_TO_UB"}.get(
        (src_loc, dst_loc))


def transfer_cycles(path: str, nbytes: int, blocks: int = 1) -> int:
    if path == "GM_TO_UB":
        return blocks * (UB_LOAD_LATENCY + math.ceil(nbytes / max(1, blocks) / UB_LOAD_BYTES_PER_CYCLE))
    cycles = max(1, math.ceil(nbytes / (BANDWIDTH_GIBS[path] * GIB) * CLOCK_HZ))
    if path == "GM_TO_L1":   # the same MTE2 engine and GM latency as a UB load, at the L1 path's bandwidth
        return blocks * UB_LOAD_LATENCY + cycles
    return cycles


# a2a3 cross-core FIFOs go through a GM slot: a push stores the tile (from Acc on the FIXP pipe, from a
# Vec tile on MTE3), a pop loads it (into Vec or Mat, on MTE2)
_FIFO_PATHS = {("push", "acc"): ("FIX", "L0C_TO_GM"), ("push", "vec"): ("MTE3", "UB_TO_GM"),
               ("pop", "vec"): ("MTE2", "GM_TO_UB"), ("pop", "mat"): ("MTE2", "GM_TO_L1")}


def fifo_transfer(way: str, tile) -> Optional[Tuple[str, int]]:
    """(pipe, cycles) of an a2a3 TPUSH (``way`` "push") or TPOP ("pop") of ``tile``; None: no figure."""
    got = _FIFO_PATHS.get((way, tile.loc))
    if got is None:
        return None
    vr, vc = _region(tile)
    cycles = transfer_cycles(got[1], vr * vc * _elem(tile.dtype))
    return got[0], _substituted(f"pto.t{way}", [tile] if way == "push" else [], [tile] if way == "pop" else [], cycles)


def mad_cycles(m: int, k: int, n: int, dtype: str) -> int:
    elem = _elem(dtype)
    tiles = math.ceil(m / 16) * math.ceil(k / max(1, 32 // elem)) * math.ceil(n / 16)
    return 6 + (2 if dtype == "f32" else 1) * tiles


def _blocks(view) -> int:
    """Contiguous GM blocks of a partition view: its three outer extents (1 when dynamic)."""
    shape = tuple(getattr(view, "shape", ()) or ())
    n = 1
    for d in shape[:-2]:
        n *= d if isinstance(d, int) and d > 0 else 1
    return n


# A comparison hook, not a cost source: while ``substituted(fn)`` is active, every estimate ptokit makes
# goes through fn(op, ins, outs, ptokit's cycles) and fn's answer is used (bench/vendor_perfsim.py's
# ``--costs perfsim`` feeds ptokit's pipe model another model's per-instruction cycles this way)
Substitute = Callable[[str, Sequence, Sequence, int], int]
_SUBSTITUTE: Optional[Substitute] = None


@contextmanager
def substituted(fn: Substitute) -> Iterator[None]:
    """Within the block, each instruction's cycles are ``fn(op, ins, outs, cycles)``."""
    global _SUBSTITUTE
    before, _SUBSTITUTE = _SUBSTITUTE, fn
    try:
        yield
    finally:
        _SUBSTITUTE = before


def _substituted(op: str, ins: Sequence, outs: Sequence, cycles: Optional[int]) -> Optional[int]:
    if cycles is None or _SUBSTITUTE is None:
        return cycles
    return max(0, int(_SUBSTITUTE(op, ins, outs, cycles)))


def estimate(op: str, cost: Cost, ins: Sequence, outs: Sequence, tiles: Dict[str, object]) -> Optional[int]:
    """Cycles of one instruction: ``cost`` its row's cost, ``ins`` / ``outs`` the operand types in row
    order, ``tiles`` the tile operands by role.  None when the instruction has no estimate."""
    return _substituted(op, ins, outs, _estimate(op, cost, ins, outs, tiles))


def _estimate(op: str, cost: Cost, ins: Sequence, outs: Sequence, tiles: Dict[str, object]) -> Optional[int]:
    tile_ins = [t for t in ins if isinstance(t, TileBufType)]
    tile_outs = [t for t in outs if isinstance(t, TileBufType)]
    if isinstance(cost, Fixed):
        return cost.cycles
    if isinstance(cost, (Repeat, Composite)):
        dst = tile_outs[0] if tile_outs else None
        src = tile_ins[0] if tile_ins else None
        total = 0
        for part in (cost.parts if isinstance(cost, Composite) else (cost,)):
            tile = src if part.operand == "src" else dst
            if tile is None:
                return None
            total += _repeat_cycles(part, tile, src if part.operand == "dst" else dst)
        return total
    if isinstance(cost, Mad):
        lhs, rhs = tiles.get("lhs"), tiles.get("rhs")
        if lhs is None or rhs is None:
            return None
        m, k = _region(lhs)
        n = _region(rhs)[1]
        return mad_cycles(m, k, n, lhs.dtype)
    if isinstance(cost, Transfer):
        src = tile_ins[0] if tile_ins else None
        dst = tile_outs[0] if tile_outs else None
        path = transfer_path(op, src.loc if src else None, dst.loc if dst else None)
        tile = src if op == "pto.tstore" else dst
        if path is None or tile is None:
            return None
        vr, vc = _region(tile)
        nbytes = vr * vc * _elem(tile.dtype)
        view = next((t for t in ins if isinstance(t, PartitionViewType)), None)
        return transfer_cycles(path, nbytes, _blocks(view) if view is not None else 1)
    return None


def describe(cost: Cost) -> str:
    """One line for the docs table: the formula a row's cost uses."""
    if isinstance(cost, Fixed):
        return f"{cost.cycles} cycle(s)"
    if isinstance(cost, Mad):
        return "6 + r·⌈m/16⌉·⌈k/(32/elem)⌉·⌈n/16⌉ (r = 2 fp32, else 1)"
    if isinstance(cost, Transfer):
        return "bytes at the path's bandwidth; GM loads: +266 per GM block (GM→UB: 266 + bytes/128 per block)"
    if isinstance(cost, Composite):
        return " then ".join(describe(p) for p in cost.parts)
    if isinstance(cost, Repeat):
        text = f"{cost.fixed:g} + {cost.slope:g}·repeats ({cost.shape})"
        if cost.floor:
            text += f", +{cost.floor:g} masked"
        if cost.fitted:
            text += f"; fitted {cost.fitted} table first"
        return text
    return "?"
