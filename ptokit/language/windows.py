"""Tensor windows ``x[a:b, c:d]``, read and written alike.

Read in orchestration code, a window is a task argument (``OpCall("tensor_view")``); written
in kernel code (``out[a:b, :] = t``) it is a store of the tile at the window's origin.  Both go
through ``window_dims``: the same slice rules, and bounds folded symbolically, so
``x[i * 32:(i + 1) * 32, :]`` has the static size 32 whichever side it is on.
"""
from __future__ import annotations

import ast
from typing import List, Optional, Tuple

from ..ir import nodes as N
from ..ir.printer import fmt_expr
from ..ir.types import ScalarType, TensorType, TileType, dim_str, fmt_shape

_CONTIG = ("the kernel ABI assumes each tensor argument is a contiguous row-major tensor, so a window "
           "may only slice the leading dimension(s) and must keep every trailing dimension whole")


def linear(e):
    """An integer scalar expression as a linear form ({atom: coeff}, const), or None.

    Atoms are variables and any other sub-expression (keyed by its printed form), so
    ``(i + 1) * 32 - i * 32`` folds to 32 and ``(i // 2) * 8 + 8 - (i // 2) * 8`` to 8."""
    if isinstance(e, N.Const):
        if isinstance(e.value, bool) or not isinstance(e.value, int):
            return None
        return {}, e.value
    if isinstance(e, N.OpCall) and e.op in ("scalar.add", "scalar.sub"):
        a, b = linear(e.args[0]), linear(e.args[1])
        if a is None or b is None:
            return None
        sign = 1 if e.op == "scalar.add" else -1
        terms = dict(a[0])
        for k, v in b[0].items():
            terms[k] = terms.get(k, 0) + sign * v
        return {k: v for k, v in terms.items() if v}, a[1] + sign * b[1]
    if isinstance(e, N.OpCall) and e.op == "scalar.neg":
        a = linear(e.args[0])
        return None if a is None else ({k: -v for k, v in a[0].items()}, -a[1])
    if isinstance(e, N.OpCall) and e.op == "scalar.mul":
        a, b = linear(e.args[0]), linear(e.args[1])
        if a is None or b is None:
            return None
        if not a[0]:
            a, b = b, a
        if b[0]:
            return {fmt_expr(e): 1}, 0      # a product of two non-constants: one atom
        return {k: v * b[1] for k, v in a[0].items() if v * b[1]}, a[1] * b[1]
    if isinstance(e.type, ScalarType) and not e.type.dtype.is_float:
        return {fmt_expr(e): 1}, 0
    return None


def constant_difference(hi, lo) -> Optional[int]:
    """``hi - lo`` when it folds to a constant, else None."""
    a, b = linear(lo), linear(hi)
    if a is None or b is None:
        return None
    terms = dict(b[0])
    for k, v in a[0].items():
        terms[k] = terms.get(k, 0) - v
    if any(terms.values()):
        return None
    return b[1] - a[1]


class WindowMixin:
    """Mixin of FunctionParser (uses ``expr``, ``err``, ``loc``, ``_const``, ``typed_op``)."""

    def window_dims(self, e: ast.Subscript, base: N.Var, static: bool, indices: bool = False,
                    what: str = "tensor") -> Tuple[List[N.Expr], list, List[bool]]:
        """Offsets, extents and 'takes the whole dimension' flags of ``base[...]``.

        An extent is an int, a dimension expression (a whole dynamic dimension), or None when it
        is not a compile-time constant (only allowed when ``static`` is False).  With ``indices``
        (kernel code) an index ``x[i]`` is a slice of extent 1."""
        shape = base.type.shape
        ndim = len(shape)
        items = list(e.slice.elts) if isinstance(e.slice, ast.Tuple) else [e.slice]
        if len(items) > ndim:
            raise self.err(f"{len(items)} slices for the {ndim}-D {what} {base.name!r}", e)
        offsets, extents, whole = [], [], []
        for d, it in enumerate(items):
            where = ast.unparse(it)
            if not isinstance(it, ast.Slice) and indices:
                lo = self._window_bound(it)
                dim = shape[d]
                if isinstance(lo, N.Const) and isinstance(dim, int) and not 0 <= lo.value < dim:
                    raise self.err(f"index {lo.value} is out of bounds of dimension {d} (size {dim}) of "
                                   f"{base.name!r}", it)
                offsets.append(lo)
                extents.append(1)
                whole.append(dim == 1)
                continue
            if not isinstance(it, ast.Slice):
                raise self.err(f"a tensor window takes slices such as x[a:b, :], but {where!r} is an index; "
                               f"write it as a slice of extent 1 ({where}:{where} + 1)", it)
            if it.step is not None:
                raise self.err(f"a tensor window cannot have a step ({where!r}): {_CONTIG}", it.step)
            lo = self._const(0, it) if it.lower is None else self._window_bound(it.lower)
            hi = None if it.upper is None else self._window_bound(it.upper)
            dim = shape[d]
            lo0 = isinstance(lo, N.Const) and lo.value == 0
            if hi is None or (isinstance(dim, str) and isinstance(hi, N.Var) and hi.name == dim):
                if lo0:
                    offsets.append(lo)
                    extents.append(dim)
                    whole.append(True)
                    continue
                if isinstance(dim, int):
                    hi = self._const(dim, it)
                elif static:
                    raise self.err(f"the window {where!r} of dimension {d} (size {dim}) runs to the end of a "
                                   f"dynamic dimension, so its size is not a compile-time constant", it)
            diff = None if hi is None else constant_difference(hi, lo)
            if diff is None and static and hi is not None and self.in_orchestration:
                diff = self._run_time_extent(it, lo, hi)     # a dynamic dimension of the view
            if diff is None and static:
                raise self.err(f"the window size {ast.unparse(it.upper)} - ({ast.unparse(it.lower) if it.lower else 0}) "
                               f"is not a compile-time constant; write the bounds as a:a + size or "
                               f"i * size:(i + 1) * size", it)
            if isinstance(lo, N.Const) and lo.value < 0:
                raise self.err(f"the window {where!r} starts at {lo.value}, before the start of dimension {d} of "
                               f"{base.name!r} (negative indices do not count from the end here)", it)
            if isinstance(diff, int) and diff <= 0:
                raise self.err(f"the window {where!r} is empty (size {diff})", it)
            if isinstance(dim, int) and isinstance(diff, int):
                start = lo.value if isinstance(lo, N.Const) else None
                if diff > dim or (start is not None and (start < 0 or start + diff > dim)):
                    rng = f"[{start}, {start + diff})" if start is not None else f"of size {diff}"
                    raise self.err(f"the window {where!r} {rng} is out of bounds of dimension {d} of "
                                   f"{base.name!r} {base.type}", it)
            offsets.append(lo)
            extents.append(diff)
            whole.append(lo0 and diff == dim)      # a dynamic size that is the dimension itself is whole too
        for d in range(len(items), ndim):
            offsets.append(self._const(0, e))
            extents.append(shape[d])
            whole.append(True)
        return offsets, extents, whole

    def _run_time_extent(self, it: ast.Slice, lo: N.Expr, hi: N.Expr):
        """The size of an orchestration window ``a:a + n`` whose ``n`` is known only at run time: a
        dynamic dimension of the view, named by the scalar that holds it (``run_time_dim``)."""
        up = it.upper
        if isinstance(up, ast.BinOp) and isinstance(up.op, ast.Add) and it.lower is not None and \
                ast.dump(up.left) == ast.dump(it.lower):
            size = self.expr(up.right)
        elif isinstance(lo, N.Const) and lo.value == 0:
            size = hi
        else:
            size = self.scalar_op("sub", hi, lo, it)
        return self.run_time_dim(size, it)

    def _window_bound(self, node) -> N.Expr:
        v = self.expr(node)
        if not isinstance(v.type, ScalarType) or v.type.dtype.is_float:
            raise self.err(f"a window bound must be an integer or integer scalar, but got {v.type}", node)
        return v

    def _window_base(self, e: ast.Subscript) -> N.Var:
        base = self.expr(e.value)
        if not isinstance(base.type, TensorType) or not isinstance(base, N.Var):
            raise self.err(f"only tensors can be windowed with x[a:b], but {ast.unparse(e.value)!r} is "
                           f"{base.type}", e.value)
        return base

    def tensor_window(self, e: ast.Subscript) -> N.Expr:
        """``x[a:b, :]`` read in an Orchestration function: a row-block view of tensor ``x`` passed to
        a task.  IR: ``OpCall("tensor_view", [x, ListExpr(offsets)], {"shape": window_shape})``."""
        base = self._window_base(e)
        offsets, extents, whole = self.window_dims(e, base, static=True)
        ndim = len(extents)
        shape = base.type.shape
        # a dimension whose size is known only at run time may still be whole then: the runtime checks
        maybe = [d for d in range(ndim) if not whole[d] and (isinstance(extents[d], str) or isinstance(shape[d], str))
                 and isinstance(offsets[d], N.Const) and offsets[d].value == 0]
        partial = [d for d in range(ndim) if not whole[d] and d not in maybe]
        if partial:
            k = partial[-1]
            bad = [d for d in range(k) if extents[d] != 1]
            if bad:
                raise self.err(f"the window {ast.unparse(e)} of {base.name!r} {base.type} is not contiguous in "
                               f"memory (it cuts dimension {k} but takes {extents[bad[-1]]} entries of dimension "
                               f"{bad[-1]}, so its pieces are not adjacent): {_CONTIG}", e)
        attrs = {"shape": [dim_str(x) for x in extents]}
        if maybe:
            attrs["check_contiguous"] = True       # codegen: the runtime refuses it when it is not
        return self.typed_op("tensor_view", [base, N.ListExpr(offsets, loc=self.loc(e))], attrs, e)

    def window_store(self, target: ast.Subscript, value: N.Expr, value_node, s) -> N.Stmt:
        """``y[a:b, c:d] = t`` in kernel code: store tile ``t`` at the window's origin."""
        dst = self.expr(target.value)
        if not isinstance(dst.type, TensorType) or not isinstance(dst, N.Var):
            raise self.err(f"x[...] = expr writes a window of a tensor, but {ast.unparse(target.value)!r} is "
                           f"{dst.type}", target.value)
        offsets, extents, _ = self.window_dims(target, dst, static=False, indices=True)
        if not isinstance(value.type, TileType):
            raise self.err(f"x[...] = expr needs a tile or tensor value, but got {value.type}", value_node)
        ndim = len(extents)
        want = [e if isinstance(e, int) else None for e in extents]
        tshape = list(value.type.shape)
        attrs = {}
        lead = [w for w in want[:-2]]
        if ndim > 2 and None not in lead and any(w != 1 for w in lead) and want[-2] is not None:
            # an N-D window written from a tile whose rows are the window's leading axes flattened
            rows = 1
            for w in want[:-1]:
                rows *= w
            if want[-1] is not None and [rows, want[-1]] != tshape:
                raise self.err(f"the window {ast.unparse(target)} is {fmt_shape(want)} ({rows} rows of "
                               f"{want[-1]}) but the value is a {fmt_shape(tshape)} tile", target)
            attrs["shape"] = list(extents)
        else:
            ext2 = want[-2:] if ndim >= 2 else [1] + want
            for w, got in zip(ext2, tshape):
                if w is not None and w != got:
                    raise self.err(f"the window {ast.unparse(target)} is {fmt_shape(ext2)} but the value is a "
                                   f"{fmt_shape(tshape)} tile", target)
        offs = N.ListExpr(offsets, loc=self.loc(target))
        store = self.typed_op("store", [value, dst, offs], attrs, s)
        return N.ExprStmt(store, loc=self.loc(s))
