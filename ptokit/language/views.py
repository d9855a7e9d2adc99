"""``pl.TileView`` in an assignment's tile annotation (pypto-parity.md B):
``t: pl.Tile[[8, 512], pl.BF16, pl.Mem.Vec, pl.TileView(valid_shape=[n, 512])] = ...``.

The view's ``valid_shape`` may name run-time scalars, so it is read from the annotation's syntax
tree (the rest of the annotation is evaluated as usual) and applied to the assigned tile as
``pl.tile.set_validshape`` (no data moves). The other TileView fields describe placement pypto
gives the tile (strides, offset, layouts, fractal, pad, compaction); ptokit chooses those itself,
so a view that sets one is refused rather than ignored.

A mixin of FunctionParser (uses ``expr``, ``err``, ``typed_op``, ``_resolve``, ``env``).
"""
from __future__ import annotations

import ast
from typing import List, Optional, Tuple

from ..ir import nodes as N
from ..ir.types import TileType
from .types import TileView


class TileViewMixin:
    def split_tile_view(self, annot: ast.expr) -> Tuple[ast.expr, Optional[ast.Call]]:
        """(the annotation without its ``pl.TileView(...)`` element, that element or None)."""
        if not isinstance(annot, ast.Subscript) or not isinstance(annot.slice, ast.Tuple):
            return annot, None
        elts = annot.slice.elts
        views = [x for x in elts if isinstance(x, ast.Call) and self._resolve(x.func) is TileView]
        if not views:
            return annot, None
        if len(views) > 1:
            raise self.err("a tile annotation takes one pl.TileView", views[1])
        rest = ast.copy_location(ast.Subscript(value=annot.value, slice=ast.copy_location(
            ast.Tuple(elts=[x for x in elts if x is not views[0]], ctx=ast.Load()), annot.slice),
            ctx=ast.Load()), annot)
        return rest, views[0]

    def apply_tile_view(self, name: str, view: ast.Call, node) -> List[N.Stmt]:
        """``name = set_validshape(name, vr, vc)`` for the view's valid_shape (nothing without one)."""
        if view.args:
            raise self.err("pl.TileView takes keyword arguments here: pl.TileView(valid_shape=[rows, cols])", view)
        kw = {k.arg: k.value for k in view.keywords}
        unknown = sorted(set(kw) - set(TileView.FIELDS))
        if unknown:
            raise self.err(f"pl.TileView has no field {unknown[0]!r} (fields: {', '.join(TileView.FIELDS)})",
                           kw[unknown[0]])
        placed = [k for k in TileView.FIELDS[1:] if k in kw
                  and not (isinstance(kw[k], ast.Constant) and kw[k].value is None)]
        if placed:
            raise self.err(f"pl.TileView({placed[0]}=...) places the tile; ptokit plans tile storage and layout "
                           f"itself, so only valid_shape= is taken from a view", kw[placed[0]])
        shape = kw.get("valid_shape")
        if shape is None or (isinstance(shape, ast.Constant) and shape.value is None):
            return []
        t = self.env.get(name)
        if not isinstance(t, TileType):
            raise self.err(f"pl.TileView describes a tile, but {name} is {t}", view)
        if not isinstance(shape, (ast.List, ast.Tuple)) or len(shape.elts) != 2:
            raise self.err("pl.TileView valid_shape is [rows, cols]", shape)
        dims = []
        for d in shape.elts:
            v = self.expr(d)
            dims.append(v.value if isinstance(v, N.Const) else v)
        if t.valid is not None and tuple(dims) == tuple(t.valid):
            return []                          # restates the value's own valid region
        if t.valid is None and tuple(dims) == tuple(t.shape):
            return []
        res = self.typed_op("set_validshape", [N.Var(name, type=t, loc=self.loc(node))], {"valid": tuple(dims)},
                            shape)
        self.env[name] = res.type
        return [N.Assign([N.Var(name, type=res.type, loc=self.loc(node))], res, loc=self.loc(node))]
