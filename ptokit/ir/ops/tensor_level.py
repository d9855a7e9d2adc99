"""Tensor-level forms of the vector tile ops: pypto's type rule for a tile op whose operands are
tensors, as in ``result = pl.div(a, b)`` in kernel code.

The front end builds such a call as the program writes it, typed by ``infer_tensor_level``;
ConvertTensorToTileOps (``passes/tensor_to_tile.py``) lowers it to tile ops.  The rule is the
tile rule lifted: each tensor operand stands for the Vec tile a whole-tensor load gives, each
omitted scratch operand for the tile the lowering makes, and the tile result is read back as a
tensor of the rank the operands were written in.  A call that mixes tensors with Vec tiles
(``pl.add(acc, x[i])``, a ptokit form) is typed by the tile rule itself: its result is a tile.
"""
from __future__ import annotations

from typing import List, Optional, Tuple

from .. import nodes as N
from ..types import INDEX, MemorySpace, TensorType, TileType, TupleType
from ._core import OPS, OpDef, OpTypeError, Param, infer

# The ops the lowering itself builds (the only op names this module spells).
LOAD = "load"
CREATE_TILE = "create_tile"
STORE = "store"
WINDOW = "tensor_view"


def has_tensor_form(op: OpDef) -> bool:
    """Whether ``op`` has a tensor-level form: it takes tile operands, all of them on the vector
    core (Vec), and no tensor operand (it addresses no global memory), and is neither a cube op, a
    FIFO end nor an op whose result is operand 0's storage."""
    tiles = [p for p in op.operand_params if p.kind == "tile" and not p.scratch]
    return (bool(tiles) and not any(p.kind == "tensor" for p in op.operand_params)
            and not op.has("cube") and not op.fifo and not op.has("shares_operand0")
            and not op.has("mask_result") and op.expand is None
            and all(p.space in (None, MemorySpace.Vec) and p.transposed_by is None for p in tiles))


def load_attrs(shape) -> dict:
    """The attributes of a whole-window load into Vec of a ``shape`` window."""
    return {"shape": list(shape), "target_memory": MemorySpace.Vec, "valid": None}


def loaded_tile_type(t: TensorType, shape=None) -> TileType:
    """The Vec tile a load of a ``shape`` window (default: the whole tensor) of ``t`` gives: a 1-D
    ``[n]`` window is a ``[1, n]`` tile, the leading axes of an N-D window merge into its rows."""
    shape = list(t.shape if shape is None else shape)
    return infer(LOAD, [t, TupleType(tuple(INDEX for _ in shape))], load_attrs(shape))


def zero_offsets(rank: int, loc=None) -> "N.ListExpr":
    offsets = N.ListExpr([N.Const(0, type=INDEX, loc=loc) for _ in range(rank)], loc=loc)
    offsets.type = TupleType(tuple(INDEX for _ in range(rank)))
    return offsets


def whole_load(tensor: "N.Expr", loc=None) -> "N.OpCall":
    """A load of the whole of ``tensor`` into a Vec tile (``loaded_tile_type``)."""
    shape = list(tensor.type.shape)
    offsets = zero_offsets(len(shape), loc)
    attrs = load_attrs(shape)
    attrs["offsets_static"] = tuple(0 for _ in shape)
    return N.OpCall(LOAD, [tensor, offsets], attrs, type=infer(LOAD, [tensor.type, offsets.type], attrs), loc=loc)


def whole_store(tile: "N.Expr", dst: "N.Var", loc=None) -> "N.OpCall":
    """A store of ``tile`` at the origin of tensor ``dst`` (OpTypeError when the store's rule
    refuses the pair, e.g. a tile in neither Vec nor Acc)."""
    offsets = zero_offsets(len(dst.type.shape), loc)
    attrs = {"offsets_static": tuple(0 for _ in dst.type.shape)}
    return N.OpCall(STORE, [tile, dst, offsets], attrs, type=infer(STORE, [tile.type, dst.type, offsets.type], attrs),
                    loc=loc)


def scratch_types(op: OpDef, arg_types: list, attrs) -> List[Tuple[Param, TileType]]:
    """The scratch operands the written operands leave out, with the tile type each gets (like its
    operand, or as its ``make`` rule says); ``arg_types`` are the written operands' tile types."""
    params = op.operand_params
    given = {p.name: t for p, t in zip(params, arg_types)}
    out = []
    for p in params[len(arg_types):]:
        if not p.scratch:
            break
        if p.scratch.make is not None:
            t = p.scratch.make(list(arg_types), attrs)
            if t is None:
                break
        else:
            t = given.get(p.scratch.like)
            if not isinstance(t, TileType):
                break
        out.append((p, t))
    return out


def written_operands_fit(op: OpDef, n_args: int) -> bool:
    """The front end gives the operands of a tensor-level call as a prefix of the op's operands
    (only scratch operands may follow, made by the lowering)."""
    return all(p.scratch or not p.required and p.default is None for p in op.operand_params[n_args:]) and \
        all(p.scratch is None for p in op.operand_params[:n_args])


def tile_operand_types(op: OpDef, arg_types: list) -> list:
    """The written operands' types with each tensor of a tile operand replaced by its loaded tile."""
    out = []
    for p, t in zip(op.operand_params, arg_types):
        out.append(loaded_tile_type(t) if p.kind == "tile" and isinstance(t, TensorType) else t)
    return out


def tensor_result_shape(first: TensorType, tile_shape) -> tuple:
    """The tensor shape of a tile result computed from whole-tensor operands shaped like ``first``:
    that tensor's shape where the tile keeps its loaded shape, its leading axes where the tile keeps
    its rows (a row reduction of a ``[B, M, N]`` tensor is ``[B, M, 1]``), else the tile's shape."""
    loaded = loaded_tile_type(first).shape
    tile_shape = tuple(tile_shape)
    if tile_shape == tuple(loaded):
        return tuple(first.shape)
    if len(first.shape) == 1:
        return (tile_shape[1],) if tile_shape[0] == 1 else tile_shape
    if tile_shape[0] == loaded[0]:
        return tuple(first.shape[:-1]) + (tile_shape[1],)
    return tile_shape


def infer_tensor_level(name: str, arg_types: list, attrs):
    """The tensor type of op ``name`` over tensor operands (pypto's tensor-level rule): the tile
    rule on the loaded tiles, read back as a tensor; with a tile among the operands, the tile
    rule's own result.  Raises OpTypeError as the tile rule does."""
    op = OPS[name]
    if not has_tensor_form(op):
        raise OpTypeError(f"pl.{name} has no tensor-level form: load its operands with pl.load first")
    tensors = [t for p, t in zip(op.operand_params, arg_types) if p.kind == "tile" and isinstance(t, TensorType)]
    mixed = any(p.kind == "tile" and isinstance(t, TileType) for p, t in zip(op.operand_params, arg_types))
    if not tensors:
        raise OpTypeError(f"tensor-level pl.{name} needs a tensor operand")
    for t in tensors:
        if not all(isinstance(d, int) for d in t.shape):
            raise OpTypeError(f"tensor-level pl.{name} needs tensors of static shape, but got {t}; load tiles "
                              f"with pl.load(tensor, offsets, shapes) instead")
    tiles = tile_operand_types(op, arg_types)
    tiles += [t for _, t in scratch_types(op, tiles, attrs)]
    result = infer(name, tiles, attrs)
    if not isinstance(result, TileType):
        raise OpTypeError(f"pl.{name} on tensors gives {result}, not a tensor; load its operands with pl.load")
    if mixed:
        return result
    return TensorType(tensor_result_shape(tensors[0], result.shape), result.dtype)


def is_tensor_level(e) -> bool:
    """A call of an op with a tensor-level form over a tensor tile operand, typed a tensor: what
    the front end keeps as written and ConvertTensorToTileOps lowers."""
    if not isinstance(getattr(e, "type", None), TensorType) or getattr(e, "op", None) not in OPS:
        return False
    op = OPS[e.op]
    return has_tensor_form(op) and any(p.kind == "tile" and isinstance(a.type, TensorType)
                                       for p, a in zip(op.operand_params, e.args))


def keeps_tensor_operand(e) -> bool:
    """A call of an op with a tensor-level form that still takes a tensor where a tile operand
    goes (a tensor-level op, or a tile op mixing tensors in): what ConvertTensorToTileOps lowers."""
    if getattr(e, "op", None) not in OPS:
        return False
    op = OPS[e.op]
    return has_tensor_form(op) and any(p.kind == "tile" and isinstance(a.type, TensorType)
                                       for p, a in zip(op.operand_params, e.args))


def as_window(e) -> Optional[tuple]:
    """(base tensor expression, offsets ListExpr, window shape) of a ``tensor_view`` call, else None."""
    if getattr(e, "op", None) == WINDOW and getattr(e, "args", None):
        return e.args[0], e.args[1], list(e.type.shape)
    return None
