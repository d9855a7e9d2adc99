"""The two ends of the cross-core FIFO, in both directions.

SplitMixed (passes/split_mixed.py) creates them from cross-core moves; the DSL's
``pl.tile.tpush_*``/``tpop_*``/``tfree_*`` spellings become moves again in FifoToMove.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..types import BOOL, MemorySpace, TileType
from ._core import OpTypeError, P, declare, tile_of


@dataclass(frozen=True)
class FifoDirection:
    """One direction of the cross-core FIFO: what crosses, and the three ops of its two ends."""

    name: str                # "c2v" | "v2c"
    sources: tuple           # spaces a pushed tile may live in (on the producer core)
    target: MemorySpace      # space of the popped tile (on the consumer core)
    push: str
    pop: str
    free: str
    producer: str            # "aic" | "aiv"
    consumer: str


DIRECTIONS = {
    # the cube hands over an Acc result or a Mat tile (pypto: pl.move(mat, target_memory=Vec))
    "c2v": FifoDirection("c2v", (MemorySpace.Acc, MemorySpace.Mat), MemorySpace.Vec, "tpush_to_aiv",
                         "tpop_from_aic", "tfree_from_aic", "aic", "aiv"),
    "v2c": FifoDirection("v2c", (MemorySpace.Vec,), MemorySpace.Mat, "tpush_to_aic", "tpop_from_aiv",
                         "tfree_from_aiv", "aiv", "aic"),
}

_FIFO_NS = ("pl.tile", "pl")


def _split_zero(attrs, op):
    """split= is 0 (NONE), 1 (UP_DOWN) or 2 (LEFT_RIGHT); one pipe (id=0)."""
    split = attrs.get("split", 0)
    if split not in (0, 1, 2):
        raise OpTypeError(f"pl.{op}: split={split!r}; the split modes are 0 (NONE), 1 (UP_DOWN) and 2 (LEFT_RIGHT)",
                          "split")
    pid = attrs.get("id")
    if pid is not None and not 0 <= pid < 16:
        raise OpTypeError(f"pl.{op}: id={pid}; pipe ids are 0..15", "id")


def _push(name, spaces):
    def infer_push(ts, attrs):
        _split_zero(attrs, name)
        t = tile_of(ts[0], name)
        if t.memory not in spaces:
            raise OpTypeError(f"{name} pushes a {' or '.join(s.name for s in spaces)} tile, but got a "
                              f"{t.memory.name} tile")
        return t
    return infer_push


def _pop(name, space):
    def infer_pop(ts, attrs):
        _split_zero(attrs, name)
        shape, dtype = attrs.get("shape"), attrs.get("dtype")
        if shape is None or dtype is None:
            raise OpTypeError(f"pl.tile.{name} takes shape=[rows, cols] and dtype= keywords")
        if len(shape) != 2:
            raise OpTypeError(f"pl.tile.{name} needs a 2-D shape=[rows, cols]", "shape")
        return TileType(tuple(shape), dtype, space)
    return infer_pop


def _free(name):
    def infer_free(ts, attrs):
        _split_zero(attrs, name)
        return BOOL
    return infer_free


_SPLIT = (P("split", "int", 0, keyword_only=True), P("id", "int", None, keyword_only=True))

for _d in DIRECTIONS.values():
    _dir, _push_name, _pop_name, _free_name, _src, _dst = _d.name, _d.push, _d.pop, _d.free, _d.sources, _d.target
    _cube_end = "push" if _d.producer == "aic" else "pop"
    declare(_push_name, (P("tile"),) + _SPLIT, _push(_push_name, _src), pto=f"pto.{_push_name}", form="fifo",
            traits={"fifo", "cube"} if _cube_end == "push" else {"fifo"}, namespaces=_FIFO_NS,
            fifo=(_dir, "push"), doc=f"send a {' or '.join(m.name for m in _src)} tile to the peer core")
    declare(_pop_name, (P("shape", "shape", None, keyword_only=True), P("dtype", "dtype", None, keyword_only=True))
            + _SPLIT, _pop(_pop_name, _dst), pto=f"pto.{_pop_name}", form="fifo",
            traits={"fifo", "cube"} if _cube_end == "pop" else {"fifo"}, namespaces=_FIFO_NS,
            fifo=(_dir, "pop"), front="front_pipe_pop", doc=f"receive the peer core's tile as a {_dst.name} tile")
    declare(_free_name, (P("tile", default=None),) + _SPLIT, _free(_free_name), pto=f"pto.{_free_name}", form="fifo",
            traits={"fifo", "cube"} if _cube_end == "pop" else {"fifo"}, namespaces=_FIFO_NS,
            fifo=(_dir, "free"), doc="release the slot of the last popped tile",
            dsl_aliases=(f"pl.tfree_to_{_d.producer}", f"pl.system.tfree_to_{_d.producer}"))


# Explicit split regions (pypto-parity E2): the values crossing the edge of a
# `for aiv_id in pl.split_aiv(2, mode=...)` region.  Each is the cross-core move of its direction
# (C2V: an Acc/Mat tile to Vec; V2C: a Vec tile to Mat); SplitMixed halves / joins them along the
# kernel's split axis.
def _region_edge(name, sources, target):
    def infer_edge(ts, attrs):
        t = tile_of(ts[0], name)
        if t.memory not in sources:
            raise OpTypeError(f"pl.{name} takes a {' or '.join(s.name for s in sources)} tile (it crosses to the "
                              f"{'vector' if target is MemorySpace.Vec else 'cube'} side), but got a "
                              f"{t.memory.name} tile")
        return TileType(t.shape, t.dtype, target, t.valid)
    return infer_edge


def _as_move(target):
    def expand(args, attrs, emit):
        return emit("move", args, {"target_memory": target})
    return expand


declare("aiv_shard", (P("tile"),), _region_edge("aiv_shard", DIRECTIONS["c2v"].sources, MemorySpace.Vec),
        form="composite", namespaces=("pl",), expand=_as_move(MemorySpace.Vec), traits={"accepts_acc"},
        doc="hand a cube tile to the split region's vector lanes (each gets its half)")
declare("aic_gather", (P("tile"),), _region_edge("aic_gather", DIRECTIONS["v2c"].sources, MemorySpace.Mat),
        form="composite", namespaces=("pl",), expand=_as_move(MemorySpace.Mat),
        doc="join the vector lanes' halves into one Mat tile on the cube")
