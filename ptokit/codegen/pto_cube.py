"""PTO codegen for the cube op forms that are more than one destination-passing op.

``matmul_acc`` (``pl.matmul_acc`` / ``pl.tile.gemv_acc``): ``acc += lhs @ rhs`` in place; with an
``init_cond`` the accumulator is overwritten where the condition holds (pypto-parity.md D):
a literal True is the plain product (``pto.tmatmul``), a literal False the accumulation, and a
runtime condition ``scf.if %c { pto.tmatmul ... } else { pto.tmatmul.acc ... }``, both writing the
accumulator's buffer.
"""
from __future__ import annotations

from ..ir import nodes as N
from ..ir.ops import OPS
from ..pto.builder import Builder
from .pto_forms import pto_attrs



def _emit_matmul_acc(em, target: N.Var, v: N.OpCall, b: Builder, loc) -> None:
    op = OPS[v.op]
    acc, lhs, rhs = (em.tile_arg(a) for a in v.args[:3])
    dst = em.new_dst(target, b, loc)
    init = OPS[op.init_form]
    attrs = pto_attrs(op, v)
    cond = v.args[3] if len(v.args) > 3 else None
    if isinstance(cond, N.Const):
        if cond.value:
            b.dps(init.pto, [lhs, rhs], [dst], attrs, loc)
        else:
            b.dps(op.pto, [acc, lhs, rhs], [dst], attrs, loc)
        return
    if cond is None:
        b.dps(op.pto, [acc, lhs, rhs], [dst], attrs, loc)
        return
    then, other, _ = b.if_(em.scalar(cond, "i1", b), with_else=True, loc=loc)
    then.dps(init.pto, [lhs, rhs], [dst], attrs, loc)
    other.dps(op.pto, [acc, lhs, rhs], [dst], attrs, loc)


CUBE_FORMS = {"matmul_acc": _emit_matmul_acc}
