"""Comparisons into packed masks, and selection by a mask.

``cmp``/``cmps`` give a UINT8 mask tile ``[R, roundup(ceil(C / 8), 32)]`` whose valid columns are
``ceil(vC / 8)``: one bit per compared element (the encoding is ptokit's, docs/tile-api.md; only
``sel``/``sels`` read it).  ``cmp_type`` is pypto's: 0 eq, 1 ne, 2 lt, 3 le, 4 gt, 5 ge.
"""
from __future__ import annotations

from ...pto.dialect import CMP_MODES
from .. import nodes as N
from ..types import INDEX, DType, MemorySpace, ScalarType, TileType, fmt_shape
from ._core import LHS, RHS, OpTypeError, P, Scratch, declare
from ._vec import HALF_OR_WORD, NUMERIC, dtype_in, like, result, scalar, vec_tile

_CMP_TYPE = P("cmp_type", "int", 0)


def _ceil8(v):
    """ceil(v / 8) of a valid extent (an int, or an index expression of the program)."""
    if isinstance(v, int):
        return (v + 7) // 8
    plus = N.OpCall("scalar.add", [v, N.Const(7, type=INDEX)], {}, type=INDEX, loc=v.loc)
    return N.OpCall("scalar.floordiv", [plus, N.Const(8, type=INDEX)], {}, type=INDEX, loc=v.loc)


def mask_type(t: TileType) -> TileType:
    """The packed mask of a comparison of tile type ``t``."""
    rows, cols = t.shape
    vr, vc = t.valid or t.shape
    return TileType((rows, -(-((cols + 7) // 8) // 32) * 32), DType.UINT8, MemorySpace.Vec, (vr, _ceil8(vc)))


def _cmp_type(attrs, op):
    k = attrs.get("cmp_type", 0)
    if not isinstance(k, int) or not 0 <= k < len(CMP_MODES):
        raise OpTypeError(f"tile.{op} requires cmp_type 0..5 (0 eq, 1 ne, 2 lt, 3 le, 4 gt, 5 ge), but got {k!r}",
                          "cmp_type")


def _cmp(op, scalar_rhs: bool):
    def rule(ts, attrs):
        a = vec_tile(ts[0], op, "lhs")
        dtype_in(a, NUMERIC, op, "lhs")
        if scalar_rhs:
            scalar(ts[1], op, "rhs")
        else:
            like(a, vec_tile(ts[1], op, "rhs"), op, "rhs")
        _cmp_type(attrs, op)
        return mask_type(a)
    return rule


_MODE = (("cmpMode", lambda attrs, args: CMP_MODES[attrs["cmp_type"]]),)
declare("cmp", (LHS, RHS, _CMP_TYPE), _cmp("cmp", False), pto="pto.tcmp", form="dps", scalar_form="cmps",
        traits={"mask_result"},
        pto_attrs=_MODE, doc="packed mask of lhs (cmp_type) rhs, one bit per element (for sel/sels)")
declare("cmps", (LHS, P("rhs", "scalar"), _CMP_TYPE), _cmp("cmps", True), pto="pto.tcmps", form="dps",
        pto_attrs=_MODE, namespaces=("pl.tile", "pl.tensor"), traits={"mask_result"},
        doc="packed mask of lhs (cmp_type) a scalar rhs, one bit per element (for sel/sels)")


def _mask(m, like_t: TileType, op: str) -> None:
    vec_tile(m, op, "mask", "mask")
    need = mask_type(like_t).shape
    if m.dtype is not DType.UINT8 or m.rows < need[0] or m.cols < (like_t.cols + 7) // 8:
        least = fmt_shape([need[0], (like_t.cols + 7) // 8])
        raise OpTypeError(f"tile.{op} requires a UINT8 mask tile of at least {least} (a pl.cmp result for a "
                          f"{fmt_shape(like_t.shape)} tile), but got {m}", "mask")


def _sel(ts, attrs):
    a = vec_tile(ts[1], "sel", "lhs")
    dtype_in(a, HALF_OR_WORD, "sel", "lhs")
    like(a, vec_tile(ts[2], "sel", "rhs"), "sel", "rhs")
    _mask(ts[0], a, "sel")
    vec_tile(ts[3], "sel", "tmp", "scratch")
    return result(a)


def _sels(ts, attrs):
    a = vec_tile(ts[1], "sels", "src")
    dtype_in(a, HALF_OR_WORD, "sels", "src")
    _mask(ts[0], a, "sels")
    vec_tile(ts[2], "sels", "tmp", "scratch")
    scalar(ts[3], "sels", "scalar")
    return result(a)


def sel_tmp(ts=None, attrs=None) -> TileType:
    """The hardware's scratch of sel / sels: UINT8 [1, 32] (made by the compiler when omitted)."""
    return TileType((1, 32), DType.UINT8, MemorySpace.Vec)


_SEL_TMP = P("tmp", default=Scratch(make=sel_tmp))
declare("sel", (P("mask"), LHS, RHS, _SEL_TMP), _sel, pto="pto.tsel", form="dps", namespaces=("pl.tile",),
        doc="mask ? lhs : rhs per element (mask from pl.cmp; tmp is the hardware's scratch, UINT8 [1, 32], made by "
            "the compiler when omitted)")
# (pypto's order puts tmp before scalar, so tmp stays required here: pl.tensor.sels makes it)
declare("sels", (P("mask"), P("src"), P("tmp"), P("scalar", "scalar")), _sels, pto="pto.tsels", form="dps",
        namespaces=("pl.tile",),
        doc="mask ? src : scalar per element (mask from pl.cmp; tmp is the hardware's scratch)")


# ----------------------------------------------------------------- pl.tensor.sel / sels (1/0 value masks)

def _value_mask(m, like_t: TileType, op: str) -> None:
    vec_tile(m, op, "mask", "mask")
    dtype_in(m, NUMERIC, op, "mask", "mask")
    if m.shape != like_t.shape:
        raise OpTypeError(f"{op} takes a mask of values shaped like the data (a pl.tensor.cmp result, nonzero "
                          f"selects), {fmt_shape(like_t.shape)}, but got {fmt_shape(m.shape)}", "mask")


def _tensor_sel(ts, attrs):
    a = vec_tile(ts[1], "tensor.sel", "lhs")
    dtype_in(a, HALF_OR_WORD, "tensor.sel", "lhs")
    like(a, vec_tile(ts[2], "tensor.sel", "rhs"), "tensor.sel", "rhs")
    _value_mask(ts[0], a, "tensor.sel")
    return result(a)


def _tensor_sels(ts, attrs):
    a = vec_tile(ts[1], "tensor.sels", "src")
    dtype_in(a, HALF_OR_WORD, "tensor.sels", "src")
    _value_mask(ts[0], a, "tensor.sels")
    scalar(ts[2], "tensor.sels", "scalar")
    return result(a)


def _packed(mask, emit):
    """The packed mask of ``mask != 0`` (cmps, cmp_type 1) of a 1/0 value mask."""
    dt = mask.type.dtype
    zero = N.Const(0.0, type=ScalarType(DType.FP32)) if dt.is_float else N.Const(0, type=ScalarType(dt))
    return emit("cmps", [mask, zero], {"cmp_type": 1})


def _scratch(emit):
    t = sel_tmp()
    return emit("create_tile", [], {"shape": list(t.shape), "dtype": t.dtype, "target_memory": t.memory})


def _tensor_sel_expand(args, attrs, emit):
    mask, lhs, rhs = args
    return emit("sel", [_packed(mask, emit), lhs, rhs, _scratch(emit)], {})


def _tensor_sels_expand(args, attrs, emit):
    mask, src, value = args
    return emit("sels", [_packed(mask, emit), src, _scratch(emit), value], {})


declare("tensor.sel", (P("mask"), LHS, RHS), _tensor_sel, form="composite", expand=_tensor_sel_expand,
        namespaces=("pl.tensor",),
        doc="mask != 0 ? lhs : rhs per element, mask a tensor of values shaped like lhs (a pl.tensor.cmp result); "
            "a composite: cmps(mask, 0, ne) into a packed mask, then one sel (its tmp made by the compiler)")
declare("tensor.sels", (P("mask"), P("src"), P("scalar", "scalar")), _tensor_sels, form="composite",
        expand=_tensor_sels_expand, namespaces=("pl.tensor",),
        doc="mask != 0 ? src : scalar per element, mask a tensor of values shaped like src; a composite: "
            "cmps(mask, 0, ne), then one sels")
