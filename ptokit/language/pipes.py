"""Front end of the hand-written cross-core pipes and events (pypto-parity E3, E4).

* ``pl.aic_initialize_pipe(c2v, v2c, *, dir_mask=, slot_size=, ...)``: both consumer-buffer
  operands are always present in the IR (an omitted one is the constant 0, pypto's "inactive");
* ``t: pl.Tile[[r, c], dtype, pl.Mem.Vec] = pl.tpop_from_aic(split=0)``: without ``shape=`` /
  ``dtype=`` the popped tile's type is the assignment's annotation (and its ``pl.TileView(
  valid_shape=[vr, vc])`` the pop's valid region, static or run-time scalars);
* ``pl.system.sync_set(ev, pipe=pl.PipeType.MTE3)``: the pipe is a ``pl.PipeType`` or its name.

A mixin of FunctionParser (uses ``bind``, ``read_operand``, ``read_attr``, ``typed_op``, ``err``,
``expr`` and the parser's ``lhs_annotation`` / ``lhs_view`` of the assignment being read).
"""
from __future__ import annotations

import ast

from ..ir import nodes as N
from ..ir.types import DType, ScalarType, TileType
from .annotations import annot_to_type
from .binder import Given
from .source import eval_static
from .types import PipeType

_INT32 = ScalarType(DType.INT32)


class PipeMixin:
    lhs_annotation = None      # the annotation of the assignment whose value is being read
    lhs_view = None            # its pl.TileView(...) element, if any

    def _given(self, node) -> bool:
        return node is not None and not isinstance(node, Given) and not self._is_none(node)

    def _attr_of(self, op, name, node):
        p = op.param(name)
        return self.read_attr(op, p, node) if self._given(node) else p.default

    def front_init_pipe(self, op, e: ast.Call) -> N.Expr:
        bound = self.bind(op, e)
        args = []
        for name in ("c2v_consumer_buf", "v2c_consumer_buf"):
            node = bound[name]
            if self._given(node):
                args.append(self.read_operand(op, op.param(name), node))
            else:
                args.append(N.Const(0, type=_INT32, loc=self.loc(e)))
        attrs = {p.name: self._attr_of(op, p.name, bound[p.name]) for p in op.params if not p.is_operand}
        return self.typed_op(op.name, args, attrs, e, bound)

    def front_pipe_pop(self, op, e: ast.Call) -> N.Expr:
        """A pop typed by shape=/dtype= or by the annotation of the name it is assigned to."""
        bound = self.bind(op, e)
        attrs = {p.name: self._attr_of(op, p.name, bound[p.name]) for p in op.params if not p.is_operand}
        if attrs.get("shape") is None or attrs.get("dtype") is None:
            if self.lhs_annotation is None:
                raise self.err(f"pl.{op.name} needs the popped tile's type: annotate the name it is assigned to "
                               f"(t: pl.Tile[[rows, cols], dtype, memory] = pl.{op.name}(...)) or give shape= and "
                               f"dtype=", e)
            annot = eval_static(self.lhs_annotation, self.src, self.g, "annotation")
            want, _ = annot_to_type(annot, self.loc(self.lhs_annotation))
            if not isinstance(want, TileType):
                raise self.err(f"pl.{op.name} pops a tile, but the annotation says {want}", self.lhs_annotation)
            if attrs.get("shape") is None:
                attrs["shape"] = list(want.shape)
            if attrs.get("dtype") is None:
                attrs["dtype"] = want.dtype
        if self.lhs_view is not None:
            kw = {k.arg: k.value for k in self.lhs_view.keywords}
            shape = kw.get("valid_shape")
            if isinstance(shape, (ast.List, ast.Tuple)) and len(shape.elts) == 2:
                dims = []
                for d in shape.elts:
                    v = self.expr(d)
                    if not isinstance(v.type, ScalarType) or v.type.dtype.is_float:
                        raise self.err("a valid_shape extent is an integer or an integer scalar", d)
                    dims.append(v.value if isinstance(v, N.Const) else v)
                if tuple(dims) != tuple(attrs["shape"]):
                    attrs["valid"] = tuple(dims)
                self.lhs_view = None       # consumed: no set_validshape after the pop
        res = self.typed_op(op.name, [], attrs, e, bound)
        if attrs.get("valid"):
            res.type = TileType(res.type.shape, res.type.dtype, res.type.memory, tuple(attrs["valid"]))
        return res

    def front_event(self, op, e: ast.Call) -> N.Expr:
        bound = self.bind(op, e)
        args = [self.read_operand(op, op.param("event_id"), bound["event_id"])]
        attrs = {}
        for p in op.params:
            if p.is_operand:
                continue
            node = bound[p.name]
            if p.name == "pipe":
                v = eval_static(node, self.src, self.g, "pipe") if self._given(node) else None
                attrs["pipe"] = v.value if isinstance(v, PipeType) else v
            else:
                attrs[p.name] = self._attr_of(op, p.name, node)
        return self.typed_op(op.name, args, attrs, e, bound)

