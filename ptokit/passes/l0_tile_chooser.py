"""The L0 tile chooser of AutoTileMatmulL0 (pypto's ``l0_tile_chooser``): which ``(m, n, k)`` tile of
an ``[M, K] @ [K, N]`` matmul the cube computes at a time, and how the tiles are scheduled.

The names and semantics are pypto's (``Stationarity``, ``L0TileConfig``, ``L0TileResult``,
``choose_l0_tile``; docs/passes.md "AutoTileMatmulL0"): an exhaustive search over every legal aligned
design point ``(m, n, k, stationarity, dbC)`` for the least estimated wall time of a roofline model:

* ``C_load``: the bytes moved Mat -> Left / Right under the loop order (the stationary operand once,
  a moving one once per tile of the other axis), over each buffer's bandwidth;
* ``C_mad``: per output tile, a fixed issue cost per K block plus one cube pass per 16 x 16 x K-fractal
  (FP32 operands take ``mad_fp32_passes`` passes, 2-byte ones one);
* ``C_drain``: per output tile, a fixed cost plus, per row, the larger of a row floor and the
  throughput term, plus a penalty for a fractal count along N that is not a power of two.

``wall = max(C_load, C_mad) + C_drain`` with one accumulator, or ``max(compute, drain) +
min(compute, drain) / tiles`` with two (the drain of one tile overlaps the next tile's compute).
Ties break on padded compute, K blocks, load cycles, the larger area, the larger k.  The operand
budgets: a moving operand is double-buffered (half its buffer), a stationary one owns all of it;
the accumulator budget halves with ``dbC = 2``.  A tile's accumulator footprint counts its rows
rounded up to ``l0c_align_m`` (and both extents to the layout's box alignment).
"""
from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from typing import Optional

__all__ = ["Stationarity", "L0TileConfig", "L0TileResult", "choose_l0_tile"]


class Stationarity(enum.Enum):
    """Which operand stays in its L0 buffer across the tile loops (the others stream, double-buffered)."""

    OutputStationary = 0
    AStationary = 1
    BStationary = 2


@dataclass
class L0TileConfig:
    """What ``choose_l0_tile`` needs: the problem, the buffers, the cost-model constants and which
    design points the caller can lower (``allow_*``).  Defaults are pypto's (a2a3 cost constants)."""

    M: int = 0
    N: int = 0
    K: int = 0
    l0a_bytes: int = 0
    l0b_bytes: int = 0
    l0c_bytes: int = 0
    bytes_a: int = 2
    bytes_b: int = 2
    bytes_c: int = 4
    min_m: int = 16
    min_n: int = 16
    min_k: int = 16
    align_m: int = 16
    align_n: int = 16
    align_k: int = 16
    l0c_align_m: int = 16
    box_align_m: int = 1
    box_align_n: int = 1
    max_n: int = 0                 # 0: unbounded; caps a tile's N (a Bias window, for matmul_bias)
    max_n_pipelined: int = 0
    max_n_nested_pipelined: int = 0
    allow_a_stationary: bool = False
    allow_b_stationary: bool = False
    allow_double_buffer_c: bool = False
    c_read: bool = False           # matmul_acc: the accumulator is read as well as written
    bw_a: float = 129.7            # Mat -> Left bytes per cycle
    bw_b: float = 85.4             # Mat -> Right bytes per cycle
    bw_drain: float = 118.0        # Acc write-out bytes per cycle (per row)
    drain_fixed_cycles: float = 164.0
    drain_row_cycles: float = 4.45
    drain_penalty_cycles: float = 2.6
    drain_c0_bytes: int = 32
    mad_head: int = 21
    mad_k_fractal_bytes: int = 32
    mad_fp32_passes: int = 2
    allow_padding: bool = False
    allow_k_boundary: bool = False


@dataclass
class L0TileResult:
    m: int = 0
    n: int = 0
    k: int = 0
    estimated_traffic_bytes: int = 0
    estimated_cost_cycles: int = 0
    padded_compute_volume: int = 0
    stationarity: Stationarity = Stationarity.OutputStationary
    os_holds_a: bool = True
    double_buffer_c: bool = False
    perf_hint: str = ""


def _up(x: int, a: int) -> int:
    return -(-x // a) * a


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def _odd(x: int) -> int:
    while x and x % 2 == 0:
        x //= 2
    return x


class _Model:
    """The cost model of one configuration (every term a function of the candidate tile)."""

    def __init__(self, c: L0TileConfig):
        self.c = c

    def acc_elems(self, m: int, n: int) -> int:
        c = self.c
        return _up(_up(m, c.box_align_m), c.l0c_align_m) * _up(n, c.box_align_n)

    def loads(self, m: int, n: int):
        """(hold A and stream B, hold B and stream A) load cycles."""
        c = self.c
        held_a = c.bytes_a * c.M * c.K / c.bw_a + c.bytes_b * c.K * c.N * _cdiv(c.M, m) / c.bw_b
        held_b = c.bytes_a * c.M * c.K * _cdiv(c.N, n) / c.bw_a + c.bytes_b * c.K * c.N / c.bw_b
        return held_a, held_b

    def os_holds_a(self, m: int, n: int) -> bool:
        held_a, held_b = self.loads(m, n)
        return held_a <= held_b

    def load_cycles(self, m: int, n: int, k: int, stat: Stationarity) -> float:
        c = self.c
        held_a, held_b = self.loads(m, n)
        if stat is Stationarity.AStationary:
            return held_a
        if stat is Stationarity.BStationary:
            return held_b
        if k >= c.K:
            return held_a if held_a <= held_b else held_b
        return c.bytes_a * c.M * c.K * _cdiv(c.N, n) / c.bw_a + c.bytes_b * c.K * c.N * _cdiv(c.M, m) / c.bw_b

    def traffic(self, m: int, n: int, k: int, stat: Stationarity) -> int:
        c = self.c
        once_a, once_b = c.bytes_a * c.M * c.K, c.bytes_b * c.K * c.N
        many_a, many_b = once_a * _cdiv(c.N, n), once_b * _cdiv(c.M, m)
        if stat is Stationarity.AStationary:
            ab = once_a + many_b
        elif stat is Stationarity.BStationary:
            ab = many_a + once_b
        elif k >= c.K:
            ab = once_a + many_b if self.os_holds_a(m, n) else many_a + once_b
        else:
            ab = many_a + many_b
        return ab + (2 if c.c_read else 1) * c.bytes_c * c.M * c.N

    def mad(self, m: int, n: int, k: int) -> int:
        c = self.c
        kt = max(1, c.mad_k_fractal_bytes // c.bytes_a)
        passes = max(1, c.mad_fp32_passes) if c.bytes_a == 4 else max(1, c.bytes_a // 2)
        full, tail = divmod(c.K, k)
        blocks = full + (1 if tail else 0)
        fractals = full * _cdiv(k, kt) + (_cdiv(tail, kt) if tail else 0)
        per_tile = blocks * c.mad_head + passes * _cdiv(m, c.align_m) * fractals * _cdiv(n, c.align_n)
        return _cdiv(c.M, m) * _cdiv(c.N, n) * per_tile

    def drain(self, m: int, n: int) -> float:
        c = self.c
        n0 = max(1, c.drain_c0_bytes // c.bytes_c)
        per_row = max(c.drain_row_cycles, c.bytes_c * n / c.bw_drain) + c.drain_penalty_cycles * (_odd(_cdiv(n, n0)) - 1)
        return _cdiv(c.M, m) * _cdiv(c.N, n) * (c.drain_fixed_cycles + m * per_row)

    def wall(self, m: int, n: int, k: int, stat: Stationarity, dbc: bool) -> int:
        c = self.c
        compute = max(self.load_cycles(m, n, k, stat), float(self.mad(m, n, k)))
        drain = self.drain(m, n)
        if dbc:
            w = max(compute, drain) + min(compute, drain) / (_cdiv(c.M, m) * _cdiv(c.N, n))
        else:
            w = compute + drain
        return int(_round_half_away(w))


def _round_half_away(x: float) -> float:
    return math.floor(x + 0.5) if x >= 0 else -math.floor(-x + 0.5)


@dataclass
class _Cand:
    m: int
    n: int
    k: int
    stat: Stationarity
    dbc: bool
    cost: int
    padded: int
    load: float
    traffic: int

    def key(self, K: int):
        return (self.cost, self.padded, _cdiv(K, self.k), self.load, -self.m * self.n, -self.k)


def _legal_ks(c: L0TileConfig, m: int, n: int, a0: int, b0: int):
    cap = min(a0 // _up(m, c.box_align_m), b0 // _up(n, c.box_align_n))
    k_problem = max(_up(c.K, c.align_k), c.min_k) if c.allow_padding else c.K
    hi = min(cap, k_problem) // c.align_k * c.align_k
    peel_ok = c.allow_k_boundary and c.K % c.align_k == 0
    return [k for k in range(c.min_k, hi + 1, c.align_k) if c.allow_padding or peel_ok or c.K % k == 0]


def _best(model: _Model, stat: Stationarity, dbc: bool, a0: int, b0: int, c0: int,
          inner_pair: bool, full_k: bool) -> Optional[_Cand]:
    c = model.c
    m_hi = _up(c.M, c.align_m) if c.allow_padding else c.M
    n_hi = _up(c.N, c.align_n) if c.allow_padding else c.N
    if c.max_n > 0:
        n_hi = min(n_hi, c.max_n)
    best = None
    best_key = None
    for m in range(c.min_m, m_hi + 1, c.align_m):
        phys_m = _up(_up(m, c.box_align_m), c.l0c_align_m)
        if phys_m > c0 // _up(c.min_n, c.box_align_n):
            break
        for n in range(c.min_n, min(n_hi, c0 // phys_m) + 1, c.align_n):
            if inner_pair:
                rows_outer = stat is Stationarity.AStationary or \
                    (stat is Stationarity.OutputStationary and model.os_holds_a(m, n))
                if (c.N // n if rows_outer else c.M // m) < 2:
                    continue
            if not _admits(model, m, n, stat, c0):
                continue
            for k in _legal_ks(c, m, n, a0, b0):
                if full_k and k != c.K:
                    continue
                if not _admits_k(model, m, n, k, stat):
                    continue
                cand = _Cand(m, n, k, stat, dbc, model.wall(m, n, k, stat, dbc),
                             _cdiv(c.M, m) * m * _cdiv(c.N, n) * n * _cdiv(c.K, k) * k,
                             model.load_cycles(m, n, k, stat), model.traffic(m, n, k, stat))
                key = cand.key(c.K)
                if best is None or key < best_key:
                    best, best_key = cand, key
    return best


def _admits(model: _Model, m: int, n: int, stat: Stationarity, c0: int) -> bool:
    c = model.c
    if m < c.min_m or n < c.min_n or (c.max_n > 0 and n > c.max_n):
        return False
    if not c.allow_padding and (m > c.M or n > c.N):
        return False
    return model.acc_elems(m, n) <= c0


def _admits_k(model: _Model, m: int, n: int, k: int, stat: Stationarity) -> bool:
    """The pipelined-N caps, which bind a full-K output grid only."""
    c = model.c
    if k < c.min_k:
        return False
    if not (k == c.K and (m != c.M or n != c.N)):
        return True
    os_ = stat is Stationarity.OutputStationary
    if c.max_n_pipelined > 0 and (os_ or stat is Stationarity.AStationary) and n > c.max_n_pipelined:
        return False
    if c.max_n_nested_pipelined > 0 and os_ and model.os_holds_a(m, n) and n > c.max_n_nested_pipelined:
        return False
    return True


def _check(c: L0TileConfig) -> None:
    def need(ok, what):
        if not ok:
            raise ValueError(f"choose_l0_tile: {what}")
    need(c.M > 0 and c.N > 0 and c.K > 0, f"M, N, K must all be positive (got {c.M}, {c.N}, {c.K})")
    need(c.l0a_bytes > 0 and c.l0b_bytes > 0 and c.l0c_bytes > 0, "L0 capacities must be positive")
    need(c.bytes_a > 0 and c.bytes_b > 0 and c.bytes_c > 0, "element byte sizes must be positive")
    need(c.min_m > 0 and c.min_n > 0 and c.min_k > 0, "minimum tile dimensions must be positive")
    need(c.max_n == 0 or c.max_n >= c.min_n, f"max_n must be 0 (unbounded) or at least min_n (got {c.max_n})")
    need(c.max_n_pipelined >= 0 and (c.max_n == 0 or c.max_n_pipelined == 0 or c.max_n_pipelined <= c.max_n),
         "max_n_pipelined must be non-negative and at most max_n")
    need(c.max_n_nested_pipelined >= 0 and (c.max_n_pipelined == 0 or c.max_n_nested_pipelined == 0
                                            or c.max_n_nested_pipelined <= c.max_n_pipelined),
         "max_n_nested_pipelined must be non-negative and at most max_n_pipelined")
    need(min(c.align_m, c.align_n, c.align_k, c.l0c_align_m, c.box_align_m, c.box_align_n) > 0,
         "alignments must be positive")
    need(c.bw_a > 0 and c.bw_b > 0 and c.bw_drain > 0, "bandwidths must be positive")
    need(c.drain_c0_bytes > 0 and min(c.drain_row_cycles, c.drain_penalty_cycles, c.drain_fixed_cycles) >= 0,
         "drain parameters must be non-negative, with a positive C0")
    if not c.allow_padding:
        need(c.M >= c.min_m and c.N >= c.min_n and c.K >= c.min_k,
             f"M, N, K ({c.M}, {c.N}, {c.K}) below the cube's minimum tile {c.min_m} need allow_padding")


def choose_l0_tile(config: L0TileConfig) -> L0TileResult:
    """The least-wall L0 design point of ``config`` (ValueError when no legal tile exists)."""
    c = config
    _check(c)
    model = _Model(c)

    def budgets(stat: Stationarity, dbc: bool):
        a_moves = stat is not Stationarity.AStationary
        b_moves = stat is not Stationarity.BStationary
        return (c.l0a_bytes // (c.bytes_a * (2 if a_moves else 1)),
                c.l0b_bytes // (c.bytes_b * (2 if b_moves else 1)),
                c.l0c_bytes // (c.bytes_c * (2 if dbc else 1)))

    os_ = Stationarity.OutputStationary
    a0, b0, c0 = budgets(os_, False)
    min_c = model.acc_elems(c.min_m, c.min_n)
    if _up(c.min_m, c.box_align_m) > a0 // c.min_k or _up(c.min_n, c.box_align_n) > b0 // c.min_k \
            or min_c > c0:
        raise ValueError(f"choose_l0_tile: the L0 capacities ({c.l0a_bytes}, {c.l0b_bytes}, {c.l0c_bytes} bytes) "
                         f"cannot hold the minimum tile {c.min_m} x {c.min_n} x {c.min_k}")
    best = _best(model, os_, False, a0, b0, c0, inner_pair=False, full_k=False)
    if best is None:
        raise ValueError(f"choose_l0_tile: no legal (m, n, k) tile for M={c.M}, N={c.N}, K={c.K}")
    if (best.m, best.n, best.k) != (c.M, c.N, c.K):
        stats = [os_] + ([Stationarity.AStationary] if c.allow_a_stationary else []) + \
            ([Stationarity.BStationary] if c.allow_b_stationary else [])
        for stat in stats:
            for dbc in ((False, True) if c.allow_double_buffer_c else (False,)):
                if stat is os_ and not dbc:
                    continue
                a, b, cc = budgets(stat, dbc)
                if cc < min_c:
                    continue
                cand = _best(model, stat, dbc, a, b, cc, inner_pair=dbc, full_k=(stat is not os_) or dbc)
                if cand is not None and cand.cost < best.cost:
                    best = cand
    hint = ""
    if c.M < c.min_m or c.N < c.min_n or c.K < c.min_k:
        hint = (f"Matmul shape (M={c.M}, N={c.N}, K={c.K}) is below the cube minimum tile dimension {c.min_m}; "
                f"tile shape padded up to ({best.m}, {best.n}, {best.k})")
    return L0TileResult(best.m, best.n, best.k, best.traffic, best.cost, best.padded, best.stat,
                        model.os_holds_a(best.m, best.n), best.dbc, hint)
