"""``pl.TileView`` in an assignment's tile annotation (pypto-parity.md B):
``t: pl.Tile[[8, 512], pl.BF16, pl.Mem.Vec, pl.TileView(valid_shape=[n, 512])] = ...``.

The view's ``valid_shape`` may name run-time scalars, so it is read from the annotation's syntax
tree (the rest of the annotation is evaluated as usual) and applied to the assigned tile as
``pl.tile.set_validshape`` (no data moves). The other TileView fields describe placement pypto
gives the tile (strides, offset, layouts, fractal, pad, compaction); ptokit chooses those itself,
so a field is taken when it states what the tile is (a restatement, checked) and refused, with
the way to get it, when it asks for anything else.

A mixin of FunctionParser (uses ``expr``, ``err``, ``typed_op``, ``_resolve``, ``env``).
"""
from __future__ import annotations

import ast
from typing import List, Optional, Tuple

from ..ir import nodes as N
from ..ir.ops.view import default_layout
from ..ir.types import INDEX, TILE_LAYOUTS, PadValue, TileType
from .source import eval_static
from .types import TileView


def without_element(annot: ast.Subscript, elt: ast.expr) -> ast.Subscript:
    """``pl.Tile[a, b, elt, c]`` as ``pl.Tile[a, b, c]`` (the element read from the syntax tree, the rest
    evaluated as usual)."""
    return ast.copy_location(ast.Subscript(value=annot.value, slice=ast.copy_location(
        ast.Tuple(elts=[x for x in annot.slice.elts if x is not elt], ctx=ast.Load()), annot.slice),
        ctx=ast.Load()), annot)


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
        return without_element(annot, views[0]), views[0]

    def apply_tile_view(self, name: str, view: ast.Call, node) -> List[N.Stmt]:
        """``name = set_validshape(name, vr, vc)`` for the view's valid_shape (nothing without one)."""
        if view.args:
            raise self.err("pl.TileView takes keyword arguments here: pl.TileView(valid_shape=[rows, cols])", view)
        kw = {k.arg: k.value for k in view.keywords}
        unknown = sorted(set(kw) - set(TileView.FIELDS))
        if unknown:
            raise self.err(f"pl.TileView has no field {unknown[0]!r} (fields: {', '.join(TileView.FIELDS)})",
                           kw[unknown[0]])
        t = self.env.get(name)
        if not isinstance(t, TileType):
            raise self.err(f"pl.TileView describes a tile, but {name} is {t}", view)
        for k in TileView.FIELDS[1:]:
            if k in kw and not (isinstance(kw[k], ast.Constant) and kw[k].value is None):
                self._check_placement(k, eval_static(kw[k], self.src, self.g, f"pl.TileView {k}="), t, kw)
        shape = kw.get("valid_shape")
        if shape is None or (isinstance(shape, ast.Constant) and shape.value is None):
            return []
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

    def _check_placement(self, field: str, value, t: TileType, kw) -> None:
        """A placement field of a view is honoured when it states what the tile is (its layout, fractal,
        pad, dense strides, offset 0): a restatement; ptokit plans tile storage itself, so a view that
        asks for other placement is refused with the way to get it."""
        node = kw[field]
        bl, sl = t.layout or default_layout(t.memory, t.shape)
        fractal = TILE_LAYOUTS[t.memory][2]
        if field in ("blayout", "slayout"):
            have = bl if field == "blayout" else sl
            want = getattr(value, "value", value)
            if want not in ("row_major", "col_major", "none_box"):
                raise self.err(f"pl.TileView {field}= takes a pl.TileLayout (row_major, col_major, none_box), "
                               f"got {value!r}", node)
            if want != have:
                raise self.err(f"pl.TileView({field}=pl.TileLayout.{want}): the {t.memory.name} tile is "
                               f"blayout={bl}, slayout={sl}, and a view does not re-lay data out; get that layout "
                               f"from the op that makes the tile (pl.move(..., blayout=, slayout=), "
                               f"pl.load(..., transpose=True) for Mat)", node)
        elif field == "fractal":
            if value != fractal or isinstance(value, bool):
                raise self.err(f"pl.TileView(fractal={value!r}): a {t.memory.name} tile's fractal is {fractal} "
                               f"on ptokit's targets", node)
        elif field == "pad":
            want = PadValue(int(getattr(value, "value", value))) if isinstance(value, (int, PadValue)) else None
            if want is None:
                raise self.err(f"pl.TileView pad= takes a pl.PadValue, got {value!r}", node)
            if want is not t.pad:
                raise self.err(f"pl.TileView(pad=pl.PadValue.{want.name}): the tile's pad is "
                               f"pl.PadValue.{t.pad.name}, and a view does not fill anything; fill the invalid "
                               f"region with pl.tile.fillpad(tile, pad_value=...) first", node)
        elif field == "start_offset":
            if value != 0 or isinstance(value, bool):
                raise self.err(f"pl.TileView(start_offset={value!r}): ptokit places every tile at the start of its "
                               f"own buffer (offset 0); take a window of a tile with t[a:b, c:d]", node)
        elif field == "stride":
            dense = {("row_major", "none_box"): [t.cols, 1], ("col_major", "none_box"): [1, t.rows]}.get((bl, sl))
            if not isinstance(value, (list, tuple)) or [getattr(v, "value", v) for v in value] != dense:
                what = f"its dense strides are {dense}" if dense else f"it is stored in fractal boxes ({bl}/{sl})"
                raise self.err(f"pl.TileView(stride={value!r}): ptokit stores the tile densely and {what}; a "
                               f"strided tile is not one of its tile forms", node)
        else:   # compact
            if not (value == 0 and not isinstance(value, bool)):     # pl.CompactMode.null
                raise self.err(f"pl.TileView(compact={value!r}): compact tile storage is not one of ptokit's tile "
                               f"forms (only the null compact mode)", node)

    def merge_valid_arms(self, then_body: List[N.Stmt], else_body: List[N.Stmt], then_env: dict, else_env: dict,
                         node) -> None:
        """A tile live after an ``if`` whose arms leave it with different valid regions: each arm ends
        with ``name = set_validshape(name, ...)`` on scalars assigned in both arms (``__name_valid<i>``),
        so the merged tile's valid region is the one of the path taken (no data moves)."""
        def key(v):
            return v if isinstance(v, int) else repr(v)

        loc = self.loc(node)
        for name in sorted(set(then_env) & set(else_env) & set(self.live_after)):
            a, b = then_env[name], else_env[name]
            if not (isinstance(a, TileType) and isinstance(b, TileType)) or a.shape != b.shape:
                continue
            va, vb = tuple(a.valid or a.shape), tuple(b.valid or b.shape)
            if [key(x) for x in va] == [key(x) for x in vb]:
                continue
            dims = []
            for i, (x, y) in enumerate(zip(va, vb)):
                if key(x) == key(y):
                    dims.append(x)
                    continue
                merged = f"__{name}_valid{i}"
                for body, v in ((then_body, x), (else_body, y)):
                    body.append(N.Assign([N.Var(merged, type=INDEX, loc=loc)],
                                         N.Const(v, type=INDEX, loc=loc) if isinstance(v, int) else v, loc=loc))
                dims.append(N.Var(merged, type=INDEX, loc=loc))
            for body, env in ((then_body, then_env), (else_body, else_env)):
                res = self.typed_op("set_validshape", [N.Var(name, type=env[name], loc=loc)], {"valid": tuple(dims)},
                                    node)
                body.append(N.Assign([N.Var(name, type=res.type, loc=loc)], res, loc=loc))
                env[name] = res.type

