"""``pl.reshape`` / ``pl.transpose`` of a tensor in orchestration code: a view of it, no data moved.

As pypto's orchestration lowers them (the runtime's tensor reshape and transpose), the result is the
same buffer seen with another shape: a reshape keeps the elements in their row-major order (the
tensor, or the window of it, must then be one contiguous block: checked when the view is formed),
a transpose swaps two axes' sizes and strides. The view is a ``tensor_view`` whose ``then``
attribute lists the steps applied to the window, so everything that follows a window to its base
tensor (argument directions, dependencies, the race checker's sites) sees these views as windows.

A kernel addresses each tensor argument row-major from its origin, as pypto's kernels do: a
transposed view passed to a task is read in the source's memory order with the transposed shape.

``out = pl.assemble(out, chunk, offsets)`` in orchestration code is kept as written (a statement
writing ``out``); the pass FuseCreateAssembleToSlice makes ``chunk`` a window of ``out``.

A mixin of FunctionParser (uses ``expr``, ``err``, ``typed_op``, ``read_attr``, ``op_call``).
"""
from __future__ import annotations

import ast

from ..ir import nodes as N
from ..ir.ops import OPS
from ..ir.types import INDEX, AtomicType, TensorType


class OrchViewMixin:
    def _orch_tensor_operand(self, e: ast.Call):
        """The tensor (or window) a ``pl.reshape`` / ``pl.transpose`` call in orchestration code views, else
        None (the call is then the tile op's, which reports what is wrong)."""
        if not self.in_orchestration or not e.args:
            return None
        src = self.expr(e.args[0])
        if not isinstance(src.type, TensorType):
            return None
        if isinstance(src, N.OpCall) and src.op == "tensor_view":
            return src
        if not isinstance(src, N.Var):
            raise self.err(f"pl.reshape / pl.transpose in orchestration code view a tensor variable, but "
                           f"{ast.unparse(e.args[0])!r} is an expression", e.args[0])
        whole = N.ListExpr([N.Const(0, type=INDEX, loc=self.loc(e)) for _ in src.type.shape], loc=self.loc(e))
        return self.typed_op("tensor_view", [src, whole], {"shape": list(src.type.shape)}, e)

    def _then(self, view: N.OpCall, step, e: ast.Call) -> N.OpCall:
        attrs = dict(view.attrs)
        attrs["then"] = tuple(attrs.get("then", ())) + (step,)
        return self.typed_op("tensor_view", list(view.args), attrs, e)

    def _bound(self, op, e: ast.Call, names) -> dict:
        """The call's arguments after the first, by name (positional or keyword)."""
        got = dict(zip(names, e.args[1:]))
        for k in e.keywords:
            if k.arg == "valid_shape" and self._is_none(k.value):
                continue
            if k.arg not in names or k.arg in got:
                raise self.err(f"pl.{op.name} of a tensor in orchestration code takes (tensor, "
                               f"{', '.join(names)}); {k.arg}= is not one of them", k.value)
            got[k.arg] = k.value
        if len(e.args) > len(names) + 1:
            raise self.err(f"pl.{op.name} of a tensor in orchestration code takes (tensor, {', '.join(names)})", e)
        return got

    def front_orch_reshape(self, op, e: ast.Call) -> N.Expr:
        view = self._orch_tensor_operand(e)
        if view is None:
            return self.op_call(op.name, e, front=False)
        got = self._bound(op, e, ("shape",))
        if "shape" not in got:
            raise self.err("pl.reshape is missing its 'shape' argument", e)
        shape = self.read_attr(OPS["create_tensor"], OPS["create_tensor"].params[0], got["shape"])
        return self._then(view, ("reshape", tuple(shape)), e)

    def front_orch_transpose(self, op, e: ast.Call) -> N.Expr:
        view = self._orch_tensor_operand(e)
        if view is None:
            return self.op_call(op.name, e, front=False)
        got = self._bound(op, e, ("axis1", "axis2"))
        rank = len(view.type.shape)
        axes = []
        for name in ("axis1", "axis2"):
            if name not in got:
                raise self.err(f"pl.transpose is missing its {name!r} argument", e)
            v = self.expr(got[name])
            if not isinstance(v, N.Const) or not isinstance(v.value, int) or isinstance(v.value, bool):
                raise self.err(f"pl.transpose {name} must be a compile-time integer", got[name])
            a = v.value + rank if v.value < 0 else v.value
            if not 0 <= a < rank:
                raise self.err(f"pl.transpose {name}={v.value} is not an axis of the {rank}-D tensor", got[name])
            axes.append(a)
        if axes[0] == axes[1]:
            raise self.err(f"pl.transpose swaps two different axes, but both are {axes[0]}", e)
        return self._then(view, ("transpose", axes[0], axes[1]), e)

    # ------------------------------------------------------------ pl.assemble of a tensor
    def front_orch_assemble(self, op, e: ast.Call) -> N.Expr:
        """``pl.assemble(out, chunk, offsets)`` on tensors in orchestration code, kept as written;
        FuseCreateAssembleToSlice (``passes/fuse_assemble.py``) makes ``chunk`` a window of ``out``."""
        if not self.in_orchestration or not e.args or not isinstance(self.expr(e.args[0]).type, TensorType):
            return self.op_call(op.name, e, front=False)
        bound = self.bind(op, e)
        params = {p.name: p for p in op.params}
        target, source = self.expr(bound["target"]), self.expr(bound["source"])
        node = bound["atomic"]
        if isinstance(node, ast.AST) and not self._is_none(node) and \
                self.read_attr(op, params["atomic"], node) is not AtomicType.None_:
            raise self.err("pl.assemble(..., atomic=...) combines into global memory inside a kernel; in "
                           "orchestration code no instruction does: move it into the block that computes the "
                           "partial result", node)
        if not isinstance(target, N.Var):
            raise self.err("pl.assemble in orchestration code writes into a tensor variable", bound["target"])
        offsets = self.read_operand(op, params["offset"], bound["offset"])
        attrs = {"offsets_static": tuple(o.value if isinstance(o, N.Const) else None for o in offsets.items),
                 "atomic": AtomicType.None_}
        return self.typed_op(op.name, [target, source, offsets], attrs, e, bound)
