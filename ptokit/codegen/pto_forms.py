"""PTO codegen for the op forms of the op table's later families, and every op's dialect attributes.

Forms (``OpDef.form``):
  dps       every IR argument in order: tiles as tiles, scalars typed by the first tile operand's
            element (``pto.tsel ins(%mask, %a, %b, %tmp ...)``, ``pto.tcmps ins(%t, %s ...)``)
  fill      only the scalar arguments, typed by the result's element (``pto.texpands ins(%v : f32)``)
  fill_i32  only the scalar arguments, as i32 (``pto.trandom ins(%k0, ..., %c3 : i32, ...)``)

``pto_attrs(op, call)`` turns the row's ``pto_attrs`` getters into dialect attributes, spelled by the
dialect row's attribute kind (``#pto<cmp lt>``, ``true``, ``7 : i32``).
"""
from __future__ import annotations

from typing import Dict, List

from ..errors import CompileError
from ..ir import nodes as N
from ..ir.ops import OpDef
from ..ir.types import TileType
from ..pto import dialect
from ..pto.ast import Attr
from ..pto.builder import Builder, Value

FORMS = ("dps", "fill", "fill_i32")


def pto_attrs(op: OpDef, call: N.OpCall) -> Dict[str, Attr]:
    spec = dialect.spec(op.pto)
    out: Dict[str, Attr] = {}
    for name, get in op.pto_attrs:
        v = get(call.attrs, call.args)
        if v is None:
            continue
        a = spec.attr(name)
        if a.kind in ("enum", "round_mode"):
            out[name] = Attr.dialect("pto", f"{a.prefix} {v}")
        elif a.kind == "bool":
            out[name] = Attr.bool(v)
        elif a.kind == "i32":
            out[name] = Attr(f"{int(v)} : i32", int(v))
        else:
            out[name] = Attr.int(v)
    return out


def operands(em, call: N.OpCall, form: str, result: TileType, b: Builder, scalar_type) -> List[Value]:
    """The ins(...) of an op of one of FORMS (``em``: the function's codegen, for tiles and scalars;
    ``scalar_type(tile_type, expr)``: the MLIR type a scalar next to such a tile takes)."""
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
        want = "i32" if form == "fill_i32" else scalar_type(ref, a)
        if isinstance(a, N.Const) and isinstance(a.value, (int, float)) and not isinstance(a.value, bool):
            floats = want in ("f32", "f16", "bf16")
            if not floats and isinstance(a.value, float) and not a.value.is_integer():
                raise CompileError(f"pl.{call.op}: {a.value!r} is not an integer, but this scalar is {want} "
                                   f"(the element of the tile it combines with)", a.loc or call.loc)
            ins.append(em.const(float(a.value) if floats else int(a.value), want))
        else:
            ins.append(em.scalar(a, want, b))
    return ins
