"""PTO codegen for the op forms of the op table's later families, and every op's dialect attributes.

Forms (``OpDef.form``) of one destination-passing op with the result as its only out:
  binary, unary, reduce_tmp, ternary   every argument, a tile
  scalar    a tile and a scalar typed by it (f32 next to a float tile whose scalar is FP32)
  expand    the vector only (the last argument; the out has the target's shape)
  slice     the tile, then its offsets as indices; insert: the source tile (argument 1), then its offsets
  dps       every IR argument in order: tiles as tiles, scalars typed by the first tile operand's
            element (``pto.tsel ins(%mask, %a, %b, %tmp ...)``, ``pto.tcmps ins(%t, %s ...)``)
  fill      only the scalar arguments, typed by the result's element (``pto.texpands ins(%v : f32)``)
  fill_i32  only the scalar arguments, as i32 (``pto.trandom ins(%k0, ..., %c3 : i32, ...)``)

``pto_attrs(op, call)`` turns the row's ``pto_attrs`` getters into dialect attributes, spelled by the
dialect row's attribute kind (``#pto<cmp lt>``, ``#pto.mask_pattern<P0101>``, ``true``, ``7 : i32``).
"""
from __future__ import annotations

from typing import Dict, List

from ..errors import CompileError
from ..ir import nodes as N
from ..ir.ops import OPS as _OPS, OpDef
from ..ir.types import DType, ScalarType, TileType
from ..pto import dialect
from ..pto import types as P
from ..pto.ast import Attr
from ..pto.builder import Builder, Value

FORMS = ("binary", "unary", "reduce_tmp", "ternary", "scalar", "expand", "slice", "insert",
         "dps", "fill", "fill_i32")


def pto_attrs(op: OpDef, call: N.OpCall) -> Dict[str, Attr]:
    spec = dialect.spec(op.pto)
    out: Dict[str, Attr] = {}
    for name, get in op.pto_attrs:
        v = get(call.attrs, call.args)
        if v is None:
            continue
        a = spec.attr(name)
        if a.kind in ("enum", "round_mode"):
            out[name] = Attr.dialect(*dialect.attr_parts(a, v))
        elif a.kind == "bool":
            if not v and a.place == "op" and a.cxx_default in ("0", "false"):
                # false is the attribute's default in both tools; ptoas 0.27 reads it only inside ins(...)
                # (pto.tci ins(%s {descending = false} : i32)), pypto HEAD's after outs(...): left out, the
                # op means the same to both
                continue
            out[name] = Attr.bool(v)
        elif a.kind == "i32":
            out[name] = Attr(f"{int(v)} : i32", int(v))
        else:
            out[name] = Attr.int(v)
    return out


def scalar_type(tile_t: TileType, scalar: N.Expr) -> str:
    """The MLIR type of a scalar operand next to a tile of type ``tile_t``."""
    if tile_t.dtype.is_float:
        fp32 = tile_t.dtype is DType.FP32 or (isinstance(scalar.type, ScalarType) and scalar.type.dtype is DType.FP32)
        return "f32" if fp32 else tile_t.dtype.mlir
    return tile_t.dtype.mlir


def _exact_scalar(call: N.OpCall) -> bool:
    """The op's dialect row wants the scalar of exactly the tile's element type (rules ``scalar_elem``):
    an FP32 scalar next to an FP16 tile is narrowed, as a fill's is."""
    op = _OPS.get(call.op)
    return op is not None and op.pto in dialect.PTO_OPS and "scalar_elem" in dialect.PTO_OPS[op.pto].verify


def operands(em, call: N.OpCall, form: str, result: TileType, b: Builder) -> List[Value]:
    """The ins(...) of an op of one of FORMS (``em``: the function's codegen, for tiles and scalars)."""
    args = call.args
    exact = _exact_scalar(call)
    if form in ("binary", "unary", "reduce_tmp", "ternary"):
        return [em.tile_arg(a) for a in args]
    if form == "scalar":
        if exact:
            return [em.tile_arg(args[0]), _scalar_value(em, call, args[1], args[0].type.dtype.mlir, b)]
        return [em.tile_arg(args[0]), em.scalar(args[1], scalar_type(args[0].type, args[1]), b)]
    if form == "expand":      # the vector (row_expand(target, vec)), or alone the tile whose first column/row
        return [em.tile_arg(args[-1])]
    if form in ("slice", "insert"):
        k = 0 if form == "slice" else 1
        return [em.tile_arg(args[k])] + [em.scalar(o, "index", b) for o in args[k + 1].items]
    # a scalar takes the element of the tile it combines with: the first tile operand of the result's
    # dtype (sels(mask, src, tmp, s): src's), else the first one (cmps(lhs, s): lhs's)
    tiles = [a.type for a in call.args if isinstance(a.type, TileType)]
    ref = next((t for t in tiles if t.dtype == result.dtype), tiles[0]) if tiles and form == "dps" else result
    ins: List[Value] = []
    for a in call.args:
        if isinstance(a.type, TileType):
            if form == "dps":
                ins.append(em.tile_arg(a))
            continue
        # a fill's scalar is the result's element type exactly (the real assembler's texpands rule:
        # "expects scalar type == dst element type"); an f32 value is narrowed first
        want = ("i32" if form == "fill_i32" else result.dtype.mlir if form == "fill"
                else ref.dtype.mlir if exact else scalar_type(ref, a))
        ins.append(_scalar_value(em, call, a, want, b))
    return ins


def _scalar_value(em, call: N.OpCall, a: N.Expr, want: str, b: Builder) -> Value:
    """A scalar operand as ``want``: a literal written as that type's constant, anything else converted."""
    if isinstance(a, N.Const) and isinstance(a.value, (int, float)) and not isinstance(a.value, bool):
        floats = want in ("f32", "f16", "bf16")
        if not floats and isinstance(a.value, float) and not a.value.is_integer():
            raise CompileError(f"pl.{call.op}: {a.value!r} is not an integer, but this scalar is {want} "
                               f"(the element of the tile it combines with)", a.loc or call.loc)
        return em.const(float(a.value) if floats else int(a.value), want)
    return em.scalar(a, want, b)


def no_effect(e: N.Expr) -> str:
    if isinstance(e, N.FuncCall):
        return (f"{e.callee} is a kernel of its own, and a kernel cannot call another kernel: call both from the "
                f"orchestration, or declare {e.callee} type=pl.FunctionType.Inline to splice it here")
    what = f"pl.{e.op}" if isinstance(e, N.OpCall) else "this expression"
    return f"{what} here computes a value that nothing uses: assign it to a name or store it"


def check_int_literal(e: N.Const, mtype: str) -> None:
    """An integer literal must fit the type it is used as (it would wrap silently otherwise)."""
    if mtype == "i1" or mtype not in P.SCALARS:
        return
    bits = P.bit_width(mtype)
    lo, hi = (0, 2 ** bits - 1) if mtype.startswith("ui") else (-2 ** (bits - 1), 2 ** (bits - 1) - 1)
    if not lo <= e.value <= hi:
        what = "an index (64-bit)" if mtype == "index" else mtype
        raise CompileError(f"the integer {e.value} does not fit {what} ({lo} .. {hi}), the type it is used as "
                           f"here", e.loc)
