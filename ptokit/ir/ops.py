"""The op registry: one table that the front end, type inference and PTO codegen consult.

Each entry names the DSL op, its PTO mnemonic, its operand *form* (how codegen
lays out ``ins(...)``) and a type rule.  A type rule receives the argument
types (and attributes) and returns the result type, or raises ``OpTypeError``
with a message in the style of the spec (``tile.add requires compatible
shapes, but got [64, 64] and [32, 32]``); the parser attaches the location.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, Optional

from .types import (BOOL, INDEX, DType, MemorySpace, PadValue, ScalarType, TensorType, TileType,
                    fmt_shape)


class OpTypeError(Exception):
    """A type rule failed; the parser turns it into a located CompileError."""


@dataclass(frozen=True)
class OpDef:
    name: str                 # DSL name, e.g. "add"
    pto: Optional[str]        # PTO mnemonic, e.g. "pto.tadd" (None: handled specially)
    form: str                 # codegen layout: binary, scalar, unary, reduce_tmp, reduce, expand, ...
    rule: Callable            # (arg_types, attrs) -> result type
    cube: bool = False        # uses the cube unit (classification)
    scalar_form: Optional[str] = None   # op to use when the 2nd operand is a scalar


OPS: Dict[str, OpDef] = {}


def _reg(name, pto, form, rule, **kw):
    OPS[name] = OpDef(name, pto, form, rule, **kw)


def lookup(name: str) -> OpDef:
    return OPS[name]


# ----------------------------------------------------------------- helpers

def _tile(t, op, what="operand"):
    if not isinstance(t, TileType):
        raise OpTypeError(f"tile.{op} requires a tile {what}, but got {t}")
    return t


def _same_shape(a: TileType, b: TileType, op: str):
    if a.shape != b.shape:
        raise OpTypeError(f"tile.{op} requires compatible shapes, but got {fmt_shape(a.shape)} and {fmt_shape(b.shape)}")
    if a.dtype != b.dtype:
        raise OpTypeError(f"tile.{op} requires matching dtypes, but got {a.dtype!r} and {b.dtype!r}")


def _vec_only(t: TileType, op: str):
    if t.memory is not MemorySpace.Vec:
        raise OpTypeError(f"tile.{op} runs on the vector unit and requires a Vec tile, but got a {t.memory.name} tile")


def _binary(op):
    def rule(ts, attrs):
        a, b = _tile(ts[0], op), _tile(ts[1], op)
        _same_shape(a, b, op)
        _vec_only(a, op)
        return a.with_(pad=PadValue.null)
    return rule


def _scalar_op(op):
    def rule(ts, attrs):
        a = _tile(ts[0], op)
        _vec_only(a, op)
        if not isinstance(ts[1], ScalarType):
            raise OpTypeError(f"tile.{op} requires a scalar second operand, but got {ts[1]}")
        return a.with_(pad=PadValue.null)
    return rule


def _unary(op):
    def rule(ts, attrs):
        a = _tile(ts[0], op)
        _vec_only(a, op)
        if op in ("exp", "log", "sqrt", "rsqrt", "recip") and not a.dtype.is_float:
            raise OpTypeError(f"tile.{op} requires a floating-point tile, but got {a.dtype!r}")
        return a.with_(pad=PadValue.null)
    return rule


def _row_reduce(op):
    def rule(ts, attrs):
        a, tmp = _tile(ts[0], op), _tile(ts[1], op, "tmp")
        _vec_only(a, op)
        if tmp.shape != a.shape:
            raise OpTypeError(f"tile.{op} requires tmp of the input's shape {fmt_shape(a.shape)}, but got {fmt_shape(tmp.shape)}")
        valid = (a.valid[0], 1) if a.valid else None
        return TileType((a.rows, 1), a.dtype, MemorySpace.Vec, valid)
    return rule


def _col_reduce(op):
    def rule(ts, attrs):
        a = _tile(ts[0], op)
        _vec_only(a, op)
        valid = (1, a.valid[1]) if a.valid else None
        return TileType((1, a.cols), a.dtype, MemorySpace.Vec, valid)
    return rule


def _row_expand_op(op):
    def rule(ts, attrs):
        a, col = _tile(ts[0], op), _tile(ts[1], op, "column")
        _vec_only(a, op)
        if col.shape != (a.rows, 1):
            raise OpTypeError(f"tile.{op} requires a [{a.rows}, 1] column tile, but got {fmt_shape(col.shape)}")
        return a.with_(pad=PadValue.null)
    return rule


def _col_expand_op(op):
    def rule(ts, attrs):
        a, row = _tile(ts[0], op), _tile(ts[1], op, "row")
        _vec_only(a, op)
        if row.shape != (1, a.cols):
            raise OpTypeError(f"tile.{op} requires a [1, {a.cols}] row tile, but got {fmt_shape(row.shape)}")
        return a.with_(pad=PadValue.null)
    return rule


def _expand(op, want_rows: bool):
    def rule(ts, attrs):
        src, like = _tile(ts[0], op), _tile(ts[1], op, "like")
        need = (like.rows, 1) if want_rows else (1, like.cols)
        if src.shape != need:
            raise OpTypeError(f"tile.{op} requires a {fmt_shape(need)} tile, but got {fmt_shape(src.shape)}")
        return like.with_(dtype=src.dtype, pad=PadValue.null)
    return rule


for _n in ("add", "sub", "mul", "div", "maximum", "minimum"):
    _pto = {"maximum": "max", "minimum": "min"}.get(_n, _n)
    _sname = {"maximum": "maxs", "minimum": "mins"}.get(_n, _n + "s")
    _reg(_n, f"pto.t{_pto}", "binary", _binary(_n), scalar_form=_sname)
    _reg(_sname, f"pto.t{_pto}s", "scalar", _scalar_op(_sname))

for _n in ("exp", "log", "sqrt", "rsqrt", "recip", "neg", "abs", "relu"):
    _reg(_n, f"pto.t{_n}", "unary", _unary(_n))

for _n in ("sum", "max", "min"):
    _reg(f"row_{_n}", f"pto.trow{_n}", "reduce_tmp", _row_reduce(f"row_{_n}"))
    _reg(f"col_{_n}", f"pto.tcol{_n}", "unary", _col_reduce(f"col_{_n}"))

for _n in ("add", "sub", "mul", "div"):
    _reg(f"row_expand_{_n}", f"pto.trowexpand{_n}", "binary", _row_expand_op(f"row_expand_{_n}"))
    _reg(f"col_expand_{_n}", f"pto.tcolexpand{_n}", "binary", _col_expand_op(f"col_expand_{_n}"))
_reg("row_expand", "pto.trowexpand", "expand", _expand("row_expand", True))
_reg("col_expand", "pto.tcolexpand", "expand", _expand("col_expand", False))


def _cast(ts, attrs):
    a = _tile(ts[0], "cast")
    target = attrs.get("target_type")
    if not isinstance(target, DType):
        raise OpTypeError("tile.cast requires target_type=<dtype>")
    if a.memory not in (MemorySpace.Vec, MemorySpace.Acc):
        raise OpTypeError(f"tile.cast requires a Vec tile, but got a {a.memory.name} tile")
    return a.with_(dtype=target, pad=PadValue.null)


_reg("cast", "pto.tcvt", "unary", _cast)


def _reshape(ts, attrs):
    a = _tile(ts[0], "reshape")
    shape = attrs["shape"]
    if len(shape) != 2 or shape[0] * shape[1] != a.rows * a.cols:
        raise OpTypeError(f"tile.reshape requires the same number of elements, but got {fmt_shape(a.shape)} and {fmt_shape(shape)}")
    return TileType(tuple(shape), a.dtype, a.memory)


_reg("reshape", "pto.treshape", "unary", _reshape)


def _concat(ts, attrs):
    a, b = _tile(ts[0], "concat"), _tile(ts[1], "concat")
    if a.rows != b.rows or a.dtype != b.dtype:
        raise OpTypeError(f"tile.concat requires equal row counts and dtypes, but got {fmt_shape(a.shape)} {a.dtype!r} and {fmt_shape(b.shape)} {b.dtype!r}")
    return TileType((a.rows, a.cols + b.cols), a.dtype, a.memory)


_reg("concat", "pto.tconcat", "binary", _concat)


def _slice(ts, attrs):
    a = _tile(ts[0], "slice")
    shape = attrs["shape"]
    offs = attrs["offsets_static"]
    for d in range(2):
        if offs[d] is not None and offs[d] + shape[d] > a.shape[d]:
            raise OpTypeError(f"tile.slice of shape {fmt_shape(shape)} at offset {list(offs)} exceeds the tile's shape {fmt_shape(a.shape)}")
    return TileType(tuple(shape), a.dtype, a.memory)


_reg("slice", "pto.subview", "slice", _slice)


def _assemble(ts, attrs):
    dst, src = _tile(ts[0], "assemble"), _tile(ts[1], "assemble")
    if dst.dtype != src.dtype:
        raise OpTypeError(f"tile.assemble requires matching dtypes, but got {dst.dtype!r} and {src.dtype!r}")
    offs = attrs["offsets_static"]
    for d in range(2):
        if offs[d] is not None and offs[d] + src.shape[d] > dst.shape[d]:
            raise OpTypeError(f"tile.assemble of a {fmt_shape(src.shape)} tile at offset {list(offs)} exceeds the destination's shape {fmt_shape(dst.shape)}")
    return dst


_reg("assemble", "pto.tinsert", "insert", _assemble)


def _fillpad(ts, attrs):
    a = _tile(ts[0], "fillpad")
    pad = attrs.get("pad_value")
    if not isinstance(pad, PadValue) or pad is PadValue.null:
        raise OpTypeError("tile.fillpad requires pad_value=pl.PadValue.zero, .max or .min")
    return a.with_(pad=pad)


_reg("fillpad", "pto.tfillpad", "unary", _fillpad)


# ---------------------------------------------------------------- memory ops

def _load(ts, attrs):
    t = ts[0]
    if not isinstance(t, TensorType):
        raise OpTypeError(f"tile.load requires a tensor, but got {t}")
    shape = attrs["shape"]
    if len(shape) != len(t.shape):
        raise OpTypeError(f"tile.load requires {len(t.shape)} offsets and shapes for a {len(t.shape)}-D tensor, but got {len(shape)}")
    if any(s != 1 for s in shape[:-2]):
        raise OpTypeError(f"tile.load of a tile must keep only the last two dimensions, but got shape {fmt_shape(shape)}")
    mem = attrs.get("target_memory", MemorySpace.Vec)
    if mem not in (MemorySpace.Vec, MemorySpace.Mat):
        raise OpTypeError(f"tile.load can move data DDR->Vec or DDR->Mat only, but got target_memory={mem!r}")
    tile_shape = tuple(shape[-2:]) if len(shape) >= 2 else (1, shape[0])
    for d_t, d_s in zip(t.shape[-2:], tile_shape):
        if isinstance(d_t, int) and d_s > d_t:
            raise OpTypeError(f"tile.load window {fmt_shape(shape)} exceeds the tensor's shape {fmt_shape(t.shape)}")
    return TileType(tile_shape, t.dtype, mem, attrs.get("valid"))


_reg("load", "pto.tload", "load", _load)


def _store(ts, attrs):
    tile, tensor = _tile(ts[0], "store"), ts[1]
    if not isinstance(tensor, TensorType):
        raise OpTypeError(f"tile.store requires a tensor destination, but got {tensor}")
    if tile.dtype != tensor.dtype:
        raise OpTypeError(f"tile.store requires matching dtypes, but got tile {tile.dtype!r} and tensor {tensor.dtype!r}")
    if tile.memory not in (MemorySpace.Vec, MemorySpace.Acc):
        raise OpTypeError(f"tile.store can move data Vec->DDR or Acc->DDR only, but got a {tile.memory.name} tile")
    return tensor


_reg("store", "pto.tstore", "store", _store)


def _create_tile(ts, attrs):
    shape = attrs["shape"]
    if len(shape) != 2 or not all(isinstance(d, int) and d > 0 for d in shape):
        raise OpTypeError(f"tile.create_tile requires a static 2-D shape, but got {fmt_shape(shape)}")
    return TileType(tuple(shape), attrs["dtype"], attrs.get("target_memory", MemorySpace.Vec))


_reg("create_tile", None, "alloc", _create_tile)

# legal on-chip moves (runtime.md); Acc->Vec crosses cores and goes through the FIFO
_MOVES = {
    "a2a3": {(MemorySpace.Mat, MemorySpace.Left), (MemorySpace.Mat, MemorySpace.Right),
             (MemorySpace.Mat, MemorySpace.Bias), (MemorySpace.Acc, MemorySpace.Mat),
             (MemorySpace.Vec, MemorySpace.Vec)},
}
_MOVES["a5"] = _MOVES["a2a3"] | {(MemorySpace.Vec, MemorySpace.Mat)}


def _move(ts, attrs):
    a = _tile(ts[0], "move")
    dst = attrs.get("target_memory")
    arch = attrs.get("arch", "a2a3")
    if (a.memory, dst) == (MemorySpace.Acc, MemorySpace.Vec):
        # crosses from the cube core to a vector core: the kernel becomes a mixed AIC+AIV group and
        # the split pass (passes/split_mixed.py) turns this move into a TPUSH/TPOP pair (C2V)
        return a.with_(memory=dst, pad=PadValue.null)
    if (a.memory, dst) == (MemorySpace.Vec, MemorySpace.Mat):
        # a vector tile handed to the cube: a kernel holding it does vector and cube work, so it is
        # mixed, and the split pass turns the move into the V2C TPUSH/TPOP pair on every platform
        # (also on a5, whose same-core Vec->Mat path is not used by split kernels)
        return a.with_(memory=dst, pad=PadValue.null)
    if (a.memory, dst) not in _MOVES[arch]:
        legal = ", ".join(f"{s.name}->{d.name}" for s, d in sorted(_MOVES[arch], key=lambda p: (p[0].name, p[1].name)))
        raise OpTypeError(f"tile.move {a.memory.name}->{dst.name if dst else dst} is not a legal move on {arch}; legal moves: {legal}")
    return a.with_(memory=dst)


_reg("move", "pto.tmov", "unary", _move, cube=True)

_MATMUL_IN = {DType.FP16, DType.BF16, DType.FP32, DType.INT8}


def _matmul(ts, attrs):
    lhs, rhs = _tile(ts[0], "matmul", "lhs"), _tile(ts[1], "matmul", "rhs")
    if lhs.memory is not MemorySpace.Left or rhs.memory is not MemorySpace.Right:
        raise OpTypeError(f"tile.matmul requires lhs in Left and rhs in Right, but got {lhs.memory.name} and {rhs.memory.name}")
    if lhs.cols != rhs.rows:
        raise OpTypeError(f"tile.matmul requires lhs columns to equal rhs rows, but got {fmt_shape(lhs.shape)} and {fmt_shape(rhs.shape)}")
    if lhs.dtype != rhs.dtype or lhs.dtype not in _MATMUL_IN:
        raise OpTypeError(f"tile.matmul requires both inputs of one dtype among FP16, BF16, FP32, INT8, but got {lhs.dtype!r} and {rhs.dtype!r}")
    acc = DType.INT32 if lhs.dtype is DType.INT8 else DType.FP32
    return TileType((lhs.rows, rhs.cols), acc, MemorySpace.Acc)


def _matmul_acc(ts, attrs):
    acc = _tile(ts[0], "matmul_acc", "acc")
    res = _matmul(ts[1:], attrs)
    if acc.memory is not MemorySpace.Acc or acc.shape != res.shape or acc.dtype != res.dtype:
        raise OpTypeError(f"tile.matmul_acc requires an Acc tile {fmt_shape(res.shape)} {res.dtype!r}, but got {acc}")
    return acc


_reg("matmul", "pto.tmatmul", "binary", _matmul, cube=True)
_reg("matmul_acc", "pto.tmatmul.acc", "ternary", _matmul_acc, cube=True)


# ---------------------------------------------------------------- cross-core FIFO
# Created by passes/split_mixed.py (the DSL's pl.tile.* spellings become moves in FifoToMove):
# the two ends of an Acc->Vec move (C2V) and of a Vec->Mat move (V2C).

def _push(name, space):
    def infer_push(ts, attrs):
        t = _tile(ts[0], name)
        if t.memory is not space:
            raise OpTypeError(f"{name} pushes a {space.name} tile, but got a {t.memory.name} tile")
        return t
    return infer_push


def _pop(name, space):
    def infer_pop(ts, attrs):
        t = attrs.get("tile_type")
        if not isinstance(t, TileType) or t.memory is not space:
            raise OpTypeError(f"{name} needs tile_type=<a {space.name} TileType>")
        return t
    return infer_pop


def _tfree(ts, attrs):
    return BOOL


_reg("tpush_to_aiv", "pto.tpush_to_aiv", "fifo", _push("tpush_to_aiv", MemorySpace.Acc), cube=True)
_reg("tpop_from_aic", "pto.tpop_from_aic", "fifo", _pop("tpop_from_aic", MemorySpace.Vec))
_reg("tfree_from_aic", "pto.tfree_from_aic", "fifo", _tfree)
_reg("tpush_to_aic", "pto.tpush_to_aic", "fifo", _push("tpush_to_aic", MemorySpace.Vec))
_reg("tpop_from_aiv", "pto.tpop_from_aiv", "fifo", _pop("tpop_from_aiv", MemorySpace.Mat), cube=True)
_reg("tfree_from_aiv", "pto.tfree_from_aiv", "fifo", _tfree, cube=True)


# ---------------------------------------------------------------- SPMD identity

def _spmd_id(ts, attrs):
    return INDEX


_reg("get_block_idx", None, "spmd", _spmd_id)
_reg("get_block_num", None, "spmd", _spmd_id)
_reg("get_subblock_idx", None, "spmd", _spmd_id)


# ---------------------------------------------------------------- scalar arithmetic

def _scalar_arith(op):
    def rule(ts, attrs):
        for t in ts:
            if not isinstance(t, ScalarType):
                raise OpTypeError(f"scalar.{op} requires scalar operands, but got {t}")
        a, b = ts[0].dtype, ts[1].dtype
        if a.is_float or b.is_float:
            if op in ("floordiv", "mod"):
                raise OpTypeError(f"scalar.{op} requires integer operands, but got {a!r} and {b!r}")
            return ScalarType(a if a.is_float else b)
        if op == "truediv":
            raise OpTypeError(f"scalar division '/' requires floating-point operands, but got {a!r} and {b!r}; use '//'")
        return ScalarType(a if a is not DType.INDEX else b) if a != b and DType.INDEX in (a, b) else ScalarType(a)
    return rule


def _scalar_cmp(op):
    def rule(ts, attrs):
        for t in ts:
            if not isinstance(t, ScalarType):
                raise OpTypeError(f"scalar comparison requires scalar operands, but got {t}")
        return BOOL
    return rule


SCALAR_BINOPS = {"add": "+", "sub": "-", "mul": "*", "floordiv": "//", "mod": "%", "truediv": "/",
                 "min": "min", "max": "max"}
SCALAR_CMPS = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}
for _n in SCALAR_BINOPS:
    _reg(f"scalar.{_n}", None, "scalar_arith", _scalar_arith(_n))
for _n in SCALAR_CMPS:
    _reg(f"scalar.{_n}", None, "scalar_cmp", _scalar_cmp(_n))


def _scalar_neg(ts, attrs):
    if not isinstance(ts[0], ScalarType):
        raise OpTypeError(f"scalar negation requires a scalar, but got {ts[0]}")
    return ts[0]


_reg("scalar.neg", None, "scalar_arith", _scalar_neg)


# ---------------------------------------------------------------- orchestration

def _create_tensor(ts, attrs):
    return TensorType(tuple(attrs["shape"]), attrs["dtype"])


_reg("create_tensor", None, "orch", _create_tensor)


def _tensor_view(ts, attrs):
    # args: (base tensor, ListExpr of offsets); attrs["shape"]: the window's shape (the parser has
    # already checked it is a contiguous row block inside the base; see docs/language.md)
    base = ts[0]
    if not isinstance(base, TensorType):
        raise OpTypeError(f"a tensor window needs a tensor, but got {base}")
    if len(attrs["shape"]) != len(base.shape):
        raise OpTypeError(f"a window of a {len(base.shape)}-D tensor needs {len(base.shape)} dimensions, "
                          f"got {len(attrs['shape'])}")
    return TensorType(tuple(attrs["shape"]), base.dtype)


_reg("tensor_view", None, "orch", _tensor_view)


def infer(name: str, arg_types, attrs) -> object:
    return OPS[name].rule(list(arg_types), attrs)
