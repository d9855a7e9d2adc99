"""``pl.MemRef`` in an assignment's tile annotation (pypto-parity.md B):
``t: pl.Tile[[16, 64], pl.FP32, buf, pl.Mem.Vec] = ...`` and ``... buf[i % 2] ...``.

The element names a declared allocation: a ``pl.MemRef`` object from the module or an enclosing
function (unnamed, it takes the name it is referred to by), or the inline form
``pl.MemRef("name", slots=N)`` (the same declaration wherever it is written with that name).  The
subscript of a ``slots=N`` declaration may be a run-time scalar, so the element is read from the
syntax tree and the rest of the annotation is evaluated as usual.  The binding goes on the op that
defines the tile (``attrs["memref"]``, an ``ir.types.MemRefBind``); memory planning gives each
declaration its own region (passes/memory_plan.py).

One function's declarations correspond one to one with their names: two declarations claiming one
name, or one unnamed declaration reached through two names, are refused (as pypto does: either would
silently merge or split an allocation).

A mixin of FunctionParser (uses ``expr``, ``err``, ``loc``, ``_resolve``, ``src``, ``g``).
"""
from __future__ import annotations

import ast
from typing import List, Optional, Tuple

from ..errors import InternalError
from ..ir import nodes as N
from ..ir.ops import OPS
from ..ir.types import MemRefBind, ScalarType, TileType
from .source import eval_static
from .types import MemRef, MemRefSlot, Tile, TileAnnot
from .views import without_element


class MemRefMixin:
    def _memref_of(self, node) -> Tuple[object, Optional[str]]:
        """(the declaration an annotation element names, the identifier it is named by) or (None, None)."""
        if isinstance(node, ast.Call) and self._resolve(node.func) is MemRef:
            try:
                args = [eval_static(a, self.src, self.g, "pl.MemRef argument") for a in node.args]
                kw = {k.arg: eval_static(k.value, self.src, self.g, f"pl.MemRef {k.arg}=") for k in node.keywords}
                return MemRef(*args, **kw), None
            except TypeError as exc:
                raise self.err(f"pl.MemRef(name=None, slots=1): {exc}", node) from None
        if isinstance(node, (ast.Name, ast.Attribute)):
            if isinstance(node, ast.Name) and node.id in self.env:
                return None, None
            v = self._resolve(node)
            if isinstance(v, (MemRef, MemRefSlot)):
                return v, node.id if isinstance(node, ast.Name) else node.attr
        return None, None

    def split_memref(self, annot: ast.expr) -> Tuple[ast.expr, Optional[ast.expr]]:
        """(the annotation without its pl.MemRef element, that element or None)."""
        if not isinstance(annot, ast.Subscript) or not isinstance(annot.slice, ast.Tuple):
            return annot, None
        elts = annot.slice.elts
        refs = [x for x in elts
                if self._memref_of(x.value if isinstance(x, ast.Subscript) else x)[0] is not None]
        if not refs:
            return annot, None
        if self._resolve(annot.value) is not Tile:
            raise self.err("pl.MemRef places a tile in on-chip memory; a tensor lives in global memory and takes "
                           "no pl.MemRef", refs[0])
        if len(refs) > 1:
            raise self.err("a tile annotation takes one pl.MemRef", refs[1])
        return without_element(annot, refs[0]), refs[0]

    def _declare_memref(self, decl, ident: Optional[str], node) -> Tuple[str, int, tuple]:
        """The name and slot count of a declaration, checked against the function's others."""
        name = decl.name if decl.name is not None else ident
        if name is None:
            raise self.err('an inline pl.MemRef names its allocation: pl.MemRef("name") or '
                           'pl.MemRef("name", slots=N)', node)
        if not isinstance(name, str) or not name.isidentifier():
            raise self.err(f"a pl.MemRef name is an identifier, not {name!r}", node)
        slots = decl.slots
        if isinstance(slots, bool) or not isinstance(slots, int) or slots <= 0:
            raise self.err(f"pl.MemRef slots= is a positive int (the number of equal slots), not {slots!r}", node)
        decls = self.__dict__.setdefault("_memref_decls", {})      # name -> (key, slots, loc)
        key = ("inline", slots) if ident is None else ("object", id(decl))
        seen = decls.get(name)
        if seen is None:
            by_object = self.__dict__.setdefault("_memref_objects", {})    # id -> name, loc
            if ident is not None and decl.name is None and id(decl) in by_object:
                other, oloc = by_object[id(decl)]
                raise self.err(f"one pl.MemRef is reached through two names, {other!r} (at {oloc}) and {name!r}: "
                               f"an unnamed declaration takes the name it is referred to by, so refer to it by "
                               f"one name (pypto refuses this too)", node)
            decls[name] = (key, slots, self.loc(node))
            if ident is not None:
                by_object[id(decl)] = (name, self.loc(node))
        elif seen[0] != key:
            raise self.err(f"two distinct pl.MemRef declarations claim the name {name!r} (the other at {seen[2]}): "
                           f"tiles naming either would silently share or split one allocation; give each its own "
                           f"name (pypto refuses this too)", node)
        return name, slots, key

    def apply_memref(self, name: str, elt: ast.expr, out: List[N.Stmt], annot: ast.expr, node) -> List[N.Stmt]:
        """Put the binding on the op that defines ``name`` among the statements ``out`` of its assignment."""
        sub = elt if isinstance(elt, ast.Subscript) else None
        decl, ident = self._memref_of(sub.value if sub is not None else elt)
        index_node = sub.slice if sub is not None else None
        if isinstance(decl, MemRefSlot):          # a global `slot0 = buf[0]`
            if index_node is not None:
                raise self.err("this names one slot of a pl.MemRef already; it takes no subscript", elt)
            decl, index = decl.ref, decl.index
            index_node = elt
        else:
            index = None
        ref_name, slots, key = self._declare_memref(decl, ident, elt)
        want = eval_static(annot, self.src, self.g, "annotation")
        if not isinstance(want, TileAnnot) or want.memory is None:
            raise self.err("a tile placed in a pl.MemRef names its memory space: "
                           "pl.Tile[shape, dtype, ref, pl.Mem.Vec]", elt)
        if index_node is None:
            if slots > 1:
                raise self.err(f"pl.MemRef {ref_name!r} has {slots} slots: pick one, {ref_name}[i]", elt)
            idx = 0
        elif index is not None:
            idx = index
        else:
            e = self.expr(index_node)
            idx = e.value if isinstance(e, N.Const) else e
        if isinstance(idx, N.Expr):
            if not (isinstance(idx.type, ScalarType) and not idx.type.dtype.is_float):
                raise self.err(f"the slot of pl.MemRef {ref_name!r} is an integer scalar, not {idx.type}", index_node)
        elif isinstance(idx, bool) or not isinstance(idx, int):
            raise self.err(f"the slot of pl.MemRef {ref_name!r} is an integer, not {idx!r}", index_node)
        # a constant slot out of range is refused by memory planning, which also sees slots that unrolling
        # made constant
        for s in out:
            if isinstance(s, N.Assign) and s.targets[0].name == name and isinstance(s.targets[0].type, TileType):
                v = s.value
                if isinstance(v, N.OpCall) and v.op in OPS and OPS[v.op].fifo:
                    raise self.err(f"a tile popped from a pipe (pl.{v.op}) lives in the pipe's slot buffer; it "
                                   f"cannot be placed in pl.MemRef {ref_name!r}", elt)
                if isinstance(v, N.Var):    # `t: pl.Tile[..., ref, mem] = u` (or a call's result): a copy into it
                    v = s.value = N.OpCall("move", [v], {"target_memory": v.type.memory}, type=v.type, loc=v.loc)
                if not isinstance(v, N.OpCall):
                    raise InternalError(f"pl.MemRef: {name} is defined by {v!r}, not by a tile op")
                v.attrs = {**v.attrs, "memref": MemRefBind(ref_name, slots, idx, self.loc(elt), key)}
                return out
        raise self.err(f"pl.MemRef places a tile, but {name} is {self.env.get(name)}", elt)
