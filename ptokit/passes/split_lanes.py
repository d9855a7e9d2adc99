"""Split vector lanes: the AIV side of a mixed kernel compiled with a split mode (pl.split /
``attrs={"split": ...}``, ../shared/spec/pypto-parity.md section E1).

Under ``UP_DOWN`` (1) / ``LEFT_RIGHT`` (2) both vector lanes run the vector part, each on its half
of every vector tile: a tile ``[R, C]`` becomes ``[S, C]`` with ``S = ceil(R / 2)`` (UP_DOWN; the
same on columns for LEFT_RIGHT); lane ``L`` owns rows ``[L*S, min(R, (L+1)*S))``.  So

* every Vec tile type on the AIV side is halved along the split axis (tiles whose extent on the
  axis is 1 -- a broadcast row or column -- are kept whole on both lanes);
* the valid extent of lane ``L`` is ``clamp(V - L*S, 0, S)`` (``V`` the full tile's valid extent:
  an odd ``R`` leaves lane 1 one row short);
* ``pl.load`` / ``pl.store`` of a halved tile read/write at offset ``+ L*S`` on the axis;
* an op that collapses the split axis (a reduction across it, a scalar read of one element) and
  ops whose result depends on a tile's position (slices, reshapes, transposes, index generators,
  gathers, sorts) are located CompileErrors: one lane does not hold the data they need.

The lane is ``pl.tile.get_subblock_idx()``, bound once at the top of the AIV function (the wrapper
resolves it from the runtime payload and passes it as ``__pypto_spmd_subblock_idx``).
"""
from __future__ import annotations

from typing import List, Optional, Set

from ..errors import CompileError
from ..ir import nodes as N
from ..ir.ops import ops_with
from ..ir.ops.fifo import DIRECTIONS
from ..ir.types import INDEX, MemorySpace, ScalarType, TileType
from .memory_space import tile_shape_problem

MODES = {0: "NONE", 1: "UP_DOWN", 2: "LEFT_RIGHT"}
LANE = "__split_lane"

_POSITIONAL = ops_with("positional")     # ir/ops/lanes.py
_FREES = {d.free for d in DIRECTIONS.values()}     # a hand-written free names its tile; it reads no element


def axis_of(mode: int) -> int:
    return 0 if mode == 1 else 1


def half(n: int) -> int:
    return (n + 1) // 2


def _splits(t, axis: int) -> bool:
    """Is this a tile the lanes share (a Vec tile longer than 1 on the split axis)?"""
    return isinstance(t, TileType) and t.memory is MemorySpace.Vec and t.shape[axis] > 1


def _idx(v: int) -> N.Const:
    return N.Const(v, type=INDEX)


def _lane() -> N.Var:
    return N.Var(LANE, type=INDEX)


def _bin(op: str, a: N.Expr, b: N.Expr) -> N.Expr:
    return N.OpCall(f"scalar.{op}", [a, b], {}, type=INDEX)


def lane_offset(s: int) -> N.Expr:
    return _bin("mul", _lane(), _idx(s))


def lane_extent(full: int, valid, s: int):
    """Lane L's valid extent: clamp(valid - L*s, 0, s); a plain int when it is the same on both lanes."""
    if isinstance(valid, int) and valid >= 2 * s:
        return s
    v = valid if isinstance(valid, N.Expr) else _idx(valid)
    return _bin("min", _bin("max", _bin("sub", v, lane_offset(s)), _idx(0)), _idx(s))


class LaneSplitter:
    def __init__(self, fn: N.Function, mode: int):
        self.fn = fn
        self.mode = mode
        self.axis = axis_of(mode)
        self.seen: Set[int] = set()

    def err(self, what: str, loc) -> CompileError:
        return CompileError(f"kernel {self.fn.name} is split {MODES[self.mode]} (each vector lane holds half of "
                            f"every vector tile): {what}", loc or self.fn.loc)

    # ------------------------------------------------------------ phase 1: ops on full types
    def check_op(self, e: N.OpCall) -> None:
        ax = self.axis
        tiles = [a.type for a in e.args if _splits(a.type, ax)]
        if e.op in _FREES:
            return
        if e.op in _POSITIONAL and (tiles or _splits(e.type, ax)):
            raise self.err(f"{e.op} depends on the position of elements in the whole tile, which no lane holds; "
                           f"do this work on the cube side or in an unsplit kernel", e.loc)
        if tiles and isinstance(e.type, TileType) and e.type.memory is MemorySpace.Vec and e.type.shape[ax] == 1:
            what = "rows" if ax == 0 else "columns"
            raise self.err(f"{e.op} reduces across the split axis ({what}), but each lane holds only half of the "
                           f"{what}; reduce along the other axis or use pl.SplitMode."
                           f"{'LEFT_RIGHT' if ax == 0 else 'UP_DOWN'}", e.loc)
        if tiles and isinstance(e.type, ScalarType):
            raise self.err(f"{e.op} reads one element of a split tile", e.loc)
        if _splits(e.type, ax):
            problem = tile_shape_problem(self.halve_type(e.type))
            if problem:
                raise self.err(f"the lane's half of this {e.type} is {self.halve_type(e.type)}, which has an "
                               f"unsupported shape: {problem}", e.loc)
        if e.op == "load" and _splits(e.type, ax):
            self._shift_window(e, e.args[1], e.type, "load")
        elif e.op == "store" and _splits(e.args[0].type, ax):
            self._shift_window(e, e.args[2], e.args[0].type, "store")
        elif _splits(e.type, ax) and isinstance(e.attrs.get("shape"), (list, tuple)):
            shape = list(e.attrs["shape"])
            shape[ax] = half(shape[ax])
            e.attrs["shape"] = shape

    def _shift_window(self, e: N.OpCall, offsets: N.Expr, tile: TileType, what: str) -> None:
        if not isinstance(offsets, N.ListExpr) or len(offsets.items) < 2:
            raise self.err(f"pl.{what} of a split tile needs explicit offsets", e.loc)
        shape = e.attrs.get("shape")
        n = len(offsets.items)
        if shape is not None and len(shape) > 2 and any(d != 1 for d in shape[:-2]):
            raise self.err(f"pl.{what} of a {len(shape)}-D window into a split tile: only 2-D windows are split", e.loc)
        s = half(tile.shape[self.axis])
        k = n - 2 + self.axis
        offsets.items[k] = _bin("add", offsets.items[k], lane_offset(s))
        static = e.attrs.get("offsets_static")
        if static is not None:
            static = list(static)
            static[k] = None
            e.attrs["offsets_static"] = tuple(static)
        if shape is not None:
            shape = list(shape)
            shape[-2 + self.axis] = s
            e.attrs["shape"] = shape
        if e.attrs.get("valid") is not None:
            valid = list(e.attrs["valid"])
            valid[-2 + self.axis] = lane_extent(tile.shape[self.axis], valid[-2 + self.axis], s)
            e.attrs["valid"] = valid

    # ------------------------------------------------------------ phase 2: halve the types
    def halve_type(self, t):
        if not _splits(t, self.axis):
            return t
        ax = self.axis
        full = t.shape[ax]
        s = half(full)
        shape = list(t.shape)
        shape[ax] = s
        valid = list(t.valid) if t.valid is not None else list(t.shape)
        valid[ax] = lane_extent(full, valid[ax], s)
        new_valid = None if all(isinstance(v, int) for v in valid) and tuple(valid) == tuple(shape) else tuple(valid)
        return t.with_(shape=tuple(shape), valid=new_valid)

    def retype(self, e) -> None:
        if e is None or id(e) in self.seen:
            return
        self.seen.add(id(e))
        if isinstance(e.type, TileType):
            e.type = self.halve_type(e.type)

    def expr(self, e: N.Expr, phase: int) -> None:
        for sub in N.walk_expr(e):
            if phase == 1 and isinstance(sub, N.OpCall) and id(sub) not in self.seen:
                self.seen.add(id(sub))
                self.check_op(sub)
            elif phase == 2:
                self.retype(sub)

    def body(self, stmts: List[N.Stmt], phase: int) -> None:
        for s in stmts:
            for e in N.stmt_exprs(s):
                self.expr(e, phase)
            if phase == 2:
                for v in getattr(s, "targets", []) or []:
                    self.retype(v)
                for v in getattr(s, "results", []) or []:
                    self.retype(v)
                for v, _ in getattr(s, "iter_args", []) or []:
                    self.retype(v)
            for attr in ("yields", "then_yields", "else_yields"):
                for y in getattr(s, attr, []) or []:
                    self.expr(y, phase)
            for sub in N.child_bodies(s):
                self.body(sub, phase)


def split_lanes(fn: N.Function, body: List[N.Stmt], mode: int) -> List[N.Stmt]:
    """The AIV body of a split kernel: each lane works on its half (module docstring)."""
    sp = LaneSplitter(fn, mode)
    sp.body(body, 1)
    sp.seen.clear()
    sp.body(body, 2)
    lane = N.Assign([_lane()], N.OpCall("get_subblock_idx", [], {}, type=INDEX, loc=fn.loc), loc=fn.loc)
    return [lane] + body


def split_mode(fn: N.Function) -> int:
    """The function's split mode (attrs['split']: 0, 1 or 2)."""
    return int(fn.attrs.get("split", 0) or 0)


def check_pushed(fn: N.Function, mode: int, pushed: dict) -> None:
    """A tile crossing a split pipe must have two halves (extent > 1 on the split axis)."""
    ax = axis_of(mode)
    for d, items in pushed.items():
        for t, loc in items:
            if t.shape[ax] < 2:
                what = "row" if ax == 0 else "column"
                raise CompileError(f"kernel {fn.name} is split {MODES[mode]}, but the {t} crossing the cross-core "
                                   f"FIFO has one {what}: it has no halves for the two vector lanes "
                                   f"(use pl.SplitMode.NONE)", loc or fn.loc)


def lane_var(body: List[N.Stmt]) -> Optional[str]:
    return LANE if body and isinstance(body[0], N.Assign) and body[0].targets[0].name == LANE else None
