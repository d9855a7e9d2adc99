"""Cube-unit ops: matrix multiply into an Acc tile."""
from __future__ import annotations

from ..types import DType, MemorySpace, TileType, fmt_shape
from ._core import OpTypeError, P, declare, tile_of

_MATMUL_IN = {DType.FP16, DType.BF16, DType.FP32, DType.INT8}


def _matmul(ts, attrs):
    lhs, rhs = tile_of(ts[0], "matmul", "lhs", "lhs"), tile_of(ts[1], "matmul", "rhs", "rhs")
    if lhs.memory is not MemorySpace.Left or rhs.memory is not MemorySpace.Right:
        raise OpTypeError(f"tile.matmul requires lhs in Left and rhs in Right, but got {lhs.memory.name} and "
                          f"{rhs.memory.name}")
    if lhs.cols != rhs.rows:
        raise OpTypeError(f"tile.matmul requires lhs columns to equal rhs rows, but got {fmt_shape(lhs.shape)} and "
                          f"{fmt_shape(rhs.shape)}")
    if lhs.dtype != rhs.dtype or lhs.dtype not in _MATMUL_IN:
        raise OpTypeError(f"tile.matmul requires both inputs of one dtype among FP16, BF16, FP32, INT8, but got "
                          f"{lhs.dtype!r} and {rhs.dtype!r}")
    acc = DType.INT32 if lhs.dtype is DType.INT8 else DType.FP32
    return TileType((lhs.rows, rhs.cols), acc, MemorySpace.Acc)


def _matmul_acc(ts, attrs):
    acc = tile_of(ts[0], "matmul_acc", "acc", "acc")
    res = _matmul(ts[1:], attrs)
    if acc.memory is not MemorySpace.Acc or acc.shape != res.shape or acc.dtype != res.dtype:
        raise OpTypeError(f"tile.matmul_acc requires an Acc tile {fmt_shape(res.shape)} {res.dtype!r}, but got {acc}",
                          "acc")
    return acc


_LEFT, _RIGHT = P("lhs", space=MemorySpace.Left), P("rhs", space=MemorySpace.Right)
declare("matmul", (_LEFT, _RIGHT), _matmul, pto="pto.tmatmul", form="binary", traits={"cube"},
        doc="lhs [M, K] (Left) @ rhs [K, N] (Right) -> [M, N] Acc (FP32, or INT32 for INT8 inputs)")
declare("matmul_acc", (P("acc"), _LEFT, _RIGHT), _matmul_acc, pto="pto.tmatmul.acc", form="ternary",
        traits={"cube", "shares_operand0"}, doc="acc + lhs @ rhs, in place")
