"""PTO codegen of the section C vector ops whose ``.pto`` is not one of the plain forms of
``codegen/pto.py``: set_validshape, extract, the mask gathers/scatters (an attribute inside
``ins(...)`` and a ``"row"`` axis), the in-place scatters, mgather / mscatter (a partition view
of the whole tensor) and mrgsort (format 1, or format 2 with its executed-count vector).
Their attributes come from the op table's ``pto_attrs`` like every op's (``pto_forms.pto_attrs``).

Each form is a function of the emitter, the target variable, the IR call, the builder and the
source location; ``SECTION_C_FORMS`` maps the op table's ``form=`` to it.
"""
from __future__ import annotations

from ..errors import CompileError
from ..ir import nodes as N
from ..ir.ops import OPS
from ..ir.types import INDEX, ScalarType
from ..pto import types as P
from ..pto.builder import Builder, Value
from .pto_forms import pto_attrs


def _whole_tensor(em, tensor: N.Var, b: Builder, loc) -> Value:
    """A partition view of the whole of a tensor parameter (mgather's source, mscatter's target)."""
    if not isinstance(tensor, N.Var) or tensor.name not in em.views:
        raise CompileError("pl.mgather / pl.mscatter address a whole tensor parameter by flat or row index; pass "
                           "the tensor itself, not a window of it", loc)
    zeros = N.ListExpr([N.Const(0, type=INDEX) for _ in tensor.type.shape])
    sizes = [d if isinstance(d, int) else N.Var(str(d), type=INDEX) for d in tensor.type.shape]
    if not all(isinstance(d, int) or str(d) in em.values for d in tensor.type.shape):
        raise CompileError(f"pl.mgather / pl.mscatter of tensor {tensor.name!r}: its dynamic dimensions must be "
                           f"plain names", loc)
    return em.partition(tensor, zeros, sizes, b, loc)


def _emit_set_validshape(em, target, v, b, loc):
    """``pto.set_validshape %t, %vr, %vc : T``: the tile's handle narrows in place (target shares it)."""
    src = v.args[0]
    if src.name in em.tile_views or em.producer.get(src.name) == "slice":
        raise CompileError(f"pl.set_validshape of {src.name!r}, a view (reshape / reinterpret_view / transpose_view) "
                           f"or slice result: a view carries its valid region in its type; give the view or the "
                           f"slice its valid_shape instead", v.loc)
    vals = [em._valid_dim(d, b) for d in v.attrs["valid"]]
    b.plain(OPS[v.op].pto, [em.tile_arg(src)] + vals, loc)


def _emit_extract(em, target, v, b, loc):
    ins = [em.tile_arg(v.args[0]), em.scalar(v.args[1], "index", b), em.scalar(v.args[2], "index", b)]
    dst = em.new_dst(target, b, v.loc)
    b.dps(OPS[v.op].pto, ins, [dst], loc=loc)


def _emit_mask(em, target, v, b, loc):
    """gather_mask: ``pto.tgather ins(%s, {maskPattern = ...} : T, "row") outs(%d : T')``."""
    dst = em.new_dst(target, b, v.loc)
    b.dps(OPS[v.op].pto, [em.tile_arg(v.args[0])], [dst], pto_attrs(OPS[v.op], v), loc, axis="row")


def _emit_inplace(em, target, v, b, loc):
    """scatter (dst, src, indexes): ins(src, indexes) outs(dst); the result is dst's buffer."""
    dst = em.new_dst(target, b, v.loc)
    b.dps(OPS[v.op].pto, [em.tile_arg(a) for a in v.args[1:]], [dst], loc=loc)


def _emit_inplace_mask(em, target, v, b, loc):
    dst = em.new_dst(target, b, v.loc)
    b.dps(OPS[v.op].pto, [em.tile_arg(v.args[1])], [dst], pto_attrs(OPS[v.op], v), loc, axis="row")


def _emit_mgather(em, target, v, b, loc):
    pv = _whole_tensor(em, v.args[0], b, v.loc)
    dst = em.new_dst(target, b, v.loc)
    b.dps(OPS[v.op].pto, [pv, em.tile_arg(v.args[1])], [dst], pto_attrs(OPS[v.op], v), loc)


def _emit_mrgsort(em, target, v, b, loc):
    dst = em.new_dst(target, b, v.loc)
    if isinstance(v.args[-1].type, ScalarType):      # format 1: ins(%src, %block_len : T, i32)
        bl = v.args[1]
        bl_val = em.const(bl.value, "i32") if isinstance(bl, N.Const) else em.scalar(bl, "i32", b)
        ins = [em.tile_arg(v.args[0]), bl_val]
        b.dps(OPS[v.op].pto, ins, [dst], loc=loc)
        return
    ins = [em.tile_arg(a) for a in v.args]           # format 2: the lists, then tmp {exhausted}
    executed = b.constant(em.fresh("executed"), 0, P.VectorType((4,), "i16"))
    b.dps(OPS[v.op].pto, ins, [dst, executed], pto_attrs(OPS[v.op], v), loc)


SECTION_C_FORMS = {"validshape": _emit_set_validshape, "subtile": _emit_extract, "mask": _emit_mask,
                    "inplace": _emit_inplace, "inplace_mask": _emit_inplace_mask, "gm_gather": _emit_mgather,
                    "merge": _emit_mrgsort}


def emit_mscatter(em, e: N.OpCall, b: Builder) -> None:
    """``pto.mscatter ins(%src, %idx : T, TI) outs(%pv : PV)`` into the whole tensor."""
    src, idx, tensor = e.args
    pv = _whole_tensor(em, tensor, b, e.loc)
    b.dps(OPS[e.op].pto, [em.tile_arg(src), em.tile_arg(idx)], [pv], loc=em.srcloc(e.loc))
