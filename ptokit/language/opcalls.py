"""DSL op calls: binding ``pl.<op>(...)`` arguments, static attributes, and calls of
program functions.  A mixin of ``FunctionParser`` (which provides ``expr``, ``err``,
``loc``, ``scalar_op``, ``_resolve`` and the symbol tables)."""
from __future__ import annotations

import ast
from typing import Dict

from ..ir import nodes as N
from ..ir.ops import OPS
from ..ir.types import INDEX, DType, MemorySpace, PadValue, ScalarType, TensorType, TileType, dim_str

_SIG = {
    "load": (["tensor", "offsets", "shapes", "valid_shape", "target_memory"],
             {"valid_shape": None, "target_memory": MemorySpace.Vec}),
    "store": (["tile", "offsets", "output_tensor"], {}),
    "create_tile": (["shape", "dtype", "target_memory"], {"dtype": DType.FP32, "target_memory": MemorySpace.Vec}),
    "move": (["tile", "target_memory"], {}),
    "cast": (["tile", "target_type", "mode"], {"mode": None}),
    "reshape": (["tile", "shape"], {}),
    "slice": (["tile", "shape", "offsets"], {}),
    "assemble": (["target", "source", "offsets"], {}),
    "fillpad": (["tile", "pad_value"], {}),
    "create_tensor": (["shape", "dtype"], {"dtype": DType.FP32}),
    "matmul_acc": (["acc", "lhs", "rhs"], {}),
    "col_expand": (["tile", "like"], {}),
    "row_expand": (["tile", "like"], {}),
}
_BINARY = {"add", "sub", "mul", "div", "maximum", "minimum", "adds", "subs", "muls", "divs", "maxs",
           "mins", "concat", "matmul"} | {f"row_expand_{o}" for o in ("add", "sub", "mul", "div")} \
    | {f"col_expand_{o}" for o in ("add", "sub", "mul", "div")} | {"row_sum", "row_max", "row_min"}
_UNARY = {"exp", "log", "sqrt", "rsqrt", "recip", "neg", "abs", "relu", "col_sum", "col_max", "col_min"}


_MISSING = object()
_EXAMPLE = {DType: "pl.FP32", MemorySpace: "pl.Mem.Vec", PadValue: "pl.PadValue.zero"}


_FIFO = ("tpush_to_aiv", "tpop_from_aic", "tfree_from_aic", "tpush_to_aic", "tpop_from_aiv", "tfree_from_aiv")

_CONTIG = ("the kernel ABI assumes each tensor argument is a contiguous row-major tensor, so a window "
           "may only slice the leading dimension(s) and must keep every trailing dimension whole")


def _linear(e):
    """An integer scalar expression as a linear form ({atom: coeff}, const), or None.

    Atoms are variables and any other sub-expression (keyed by its printed form), so
    ``(i + 1) * 32 - i * 32`` folds to 32 and ``(i // 2) * 8 + 8 - (i // 2) * 8`` to 8."""
    from ..ir.printer import fmt_expr
    if isinstance(e, N.Const):
        if isinstance(e.value, bool) or not isinstance(e.value, int):
            return None
        return {}, e.value
    if isinstance(e, N.OpCall) and e.op in ("scalar.add", "scalar.sub"):
        a, b = _linear(e.args[0]), _linear(e.args[1])
        if a is None or b is None:
            return None
        sign = 1 if e.op == "scalar.add" else -1
        terms = dict(a[0])
        for k, v in b[0].items():
            terms[k] = terms.get(k, 0) + sign * v
        return {k: v for k, v in terms.items() if v}, a[1] + sign * b[1]
    if isinstance(e, N.OpCall) and e.op == "scalar.neg":
        a = _linear(e.args[0])
        return None if a is None else ({k: -v for k, v in a[0].items()}, -a[1])
    if isinstance(e, N.OpCall) and e.op == "scalar.mul":
        a, b = _linear(e.args[0]), _linear(e.args[1])
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


class OpCallMixin:
    def tensor_window(self, e: ast.Subscript) -> N.Expr:
        """``x[a:b, :]`` in an Orchestration function: a row-block view of tensor ``x`` passed to a
        task.  IR: ``OpCall("tensor_view", [x, ListExpr(offsets)], {"shape": window_shape})``."""
        base = self.expr(e.value)
        if not isinstance(base.type, TensorType) or not isinstance(base, N.Var):
            raise self.err(f"only tensors can be windowed with x[a:b], but {ast.unparse(e.value)!r} is "
                           f"{base.type}", e.value)
        shape = base.type.shape
        ndim = len(shape)
        items = list(e.slice.elts) if isinstance(e.slice, ast.Tuple) else [e.slice]
        if len(items) > ndim:
            raise self.err(f"{len(items)} slices for the {ndim}-D tensor {base.name!r}", e)
        offsets, extents, whole = [], [], []
        for d, it in enumerate(items):
            where = ast.unparse(it)
            if not isinstance(it, ast.Slice):
                raise self.err(f"a tensor window takes slices such as x[a:b, :], but {where!r} is an index; "
                               f"write it as a slice of extent 1 ({where}:{where} + 1)", it)
            if it.step is not None:
                raise self.err(f"a tensor window cannot have a step ({where!r}): {_CONTIG}", it.step)
            if it.lower is None:
                lo = self._const(0, it)
            else:
                lo = self.expr(it.lower)
                if not isinstance(lo.type, ScalarType) or lo.type.dtype.is_float:
                    raise self.err(f"a window bound must be an integer or integer scalar, but got {lo.type}",
                                   it.lower)
            dim = shape[d]
            if it.upper is None:
                hi = None
            else:
                hi = self.expr(it.upper)
                if not isinstance(hi.type, ScalarType) or hi.type.dtype.is_float:
                    raise self.err(f"a window bound must be an integer or integer scalar, but got {hi.type}",
                                   it.upper)
            lo0 = isinstance(lo, N.Const) and lo.value == 0
            if hi is None or (isinstance(dim, str) and isinstance(hi, N.Var) and hi.name == dim):
                if not lo0:
                    if isinstance(dim, int):
                        hi = self._const(dim, it)
                    else:
                        raise self.err(f"the window {where!r} of dimension {d} (size {dim}) runs to the end of a "
                                       f"dynamic dimension, so its size is not a compile-time constant", it)
                else:
                    offsets.append(lo)
                    extents.append(dim)
                    whole.append(True)
                    continue
            a, b = _linear(lo), _linear(hi)
            diff = None
            if a is not None and b is not None:
                terms = dict(b[0])
                for k, v in a[0].items():
                    terms[k] = terms.get(k, 0) - v
                if not any(terms.values()):
                    diff = b[1] - a[1]
            if diff is None:
                raise self.err(f"the window size {ast.unparse(it.upper)} - ({ast.unparse(it.lower) if it.lower else 0}) "
                               f"is not a compile-time constant; write the bounds as a:a + size or "
                               f"i * size:(i + 1) * size", it)
            if isinstance(lo, N.Const) and lo.value < 0:
                raise self.err(f"the window {where!r} starts at {lo.value}, before the start of dimension {d} of "
                               f"{base.name!r} (negative indices do not count from the end here)", it)
            if diff <= 0:
                raise self.err(f"the window {where!r} is empty (size {diff})", it)
            if isinstance(dim, int):
                start = lo.value if isinstance(lo, N.Const) else None
                if diff > dim or (start is not None and (start < 0 or start + diff > dim)):
                    rng = f"[{start}, {start + diff})" if start is not None else f"of size {diff}"
                    raise self.err(f"the window {where!r} {rng} is out of bounds of dimension {d} of "
                                   f"{base.name!r} {base.type}", it)
            offsets.append(lo)
            extents.append(diff)
            whole.append(isinstance(dim, int) and lo0 and diff == dim)
        for d in range(len(items), ndim):
            offsets.append(self._const(0, e))
            extents.append(shape[d])
            whole.append(True)
        partial = [d for d in range(ndim) if not whole[d]]
        if partial:
            k = partial[-1]
            bad = [d for d in range(k) if extents[d] != 1]
            if bad:
                raise self.err(f"the window {ast.unparse(e)} of {base.name!r} {base.type} is not contiguous in "
                               f"memory (it cuts dimension {k} but takes {extents[bad[-1]]} entries of dimension "
                               f"{bad[-1]}, so its pieces are not adjacent): {_CONTIG}", e)
        attrs = {"shape": [dim_str(x) for x in extents]}
        return self._typed_op("tensor_view", [base, N.ListExpr(offsets, loc=self.loc(e))], attrs, e)

    def call(self, e: ast.Call) -> N.Expr:
        f = e.func
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self":
            return self.func_call(f.attr, e)
        target = self._resolve(f)
        op = getattr(target, "__pto_op__", None)
        if op is None:
            if target in (min, max) and target is not _MISSING:
                if len(e.args) != 2:
                    raise self.err(f"{target.__name__}() takes two scalars here", e)
                return self.scalar_op(target.__name__, self.expr(e.args[0]), self.expr(e.args[1]), e)
            raise self.err(f"{ast.unparse(f)!r} is not a DSL op or program function", f)
        return self.op_call(op, e)

    def _bind(self, op, e: ast.Call) -> Dict[str, ast.AST]:
        names, defaults = _SIG.get(op, (None, {}))
        if names is None:
            if op in _BINARY:
                names = ["lhs", "rhs"]
            elif op in _UNARY:
                names = ["tile"]
            else:
                names = []
        if len(e.args) > len(names):
            raise self.err(f"pl.{op} takes at most {len(names)} positional arguments, got {len(e.args)}", e)
        bound = dict(zip(names, e.args))
        aliases = {"target_type": "target_type", "dtype": "dtype"}
        for kw in e.keywords:
            key = aliases.get(kw.arg, kw.arg)
            if key == "shapes" and op in ("create_tile", "create_tensor", "reshape", "slice"):
                key = "shape"
            if key not in names:
                raise self.err(f"pl.{op} has no parameter {kw.arg!r} (parameters: {', '.join(names)})", kw.value)
            bound[key] = kw.value
        for n in names:
            if n not in bound and n not in defaults:
                raise self.err(f"pl.{op} is missing its {n!r} argument", e)
        return {n: bound.get(n, defaults.get(n)) for n in names}

    def _static_list(self, node, what, allow_dyn=False):
        """A list of static ints (or dynamic-dim names when allowed)."""
        if not isinstance(node, (ast.List, ast.Tuple)):
            raise self.err(f"{what} must be a list such as [64, 64]", node)
        out = []
        for x in node.elts:
            v = self.expr(x)
            if isinstance(v, N.Const) and isinstance(v.value, int) and not isinstance(v.value, bool):
                out.append(v.value)
            elif allow_dyn and isinstance(v, N.Var) and v.type == INDEX:
                out.append(v.name)
            else:
                raise self.err(f"{what} must be compile-time integers, but {ast.unparse(x)!r} is not", x)
        return out

    def _static_attr(self, node, kinds, what):
        if isinstance(node, (DType, MemorySpace, PadValue)) or node is None:
            return node
        v = self.expr(node)
        if isinstance(v, N.Const) and isinstance(v.value, kinds):
            return v.value
        raise self.err(f"{what} must be a constant such as {_EXAMPLE.get(kinds, '...')}", node)

    def _index_list(self, node, what):
        if not isinstance(node, (ast.List, ast.Tuple)):
            raise self.err(f"{what} must be a list such as [0, 0]", node)
        items = []
        for x in node.elts:
            v = self.expr(x)
            if not isinstance(v.type, ScalarType) or v.type.dtype.is_float:
                raise self.err(f"{what} must be integers or integer scalars, but got {v.type}", x)
            items.append(v)
        return N.ListExpr(items, loc=self.loc(node))

    def op_call(self, op: str, e: ast.Call) -> N.Expr:
        if op in _FIFO:
            return self.fifo_call(op, e)
        b = self._bind(op, e)
        attrs: Dict[str, object] = {}
        if op == "load":
            tensor = self.expr(b["tensor"])
            offsets = self._index_list(b["offsets"], "load offsets")
            shape = self._static_list(b["shapes"], "load shapes")
            attrs["shape"] = shape
            attrs["target_memory"] = self._static_attr(b["target_memory"], MemorySpace, "target_memory")
            if b["valid_shape"] is not None:
                vs = self._index_list(b["valid_shape"], "valid_shape").items
                if len(vs) != len(shape):
                    raise self.err("valid_shape needs one entry per dimension", b["valid_shape"])
                valid = tuple(v.value if isinstance(v, N.Const) else v for v in vs[-2:])
                attrs["valid"] = valid
            if len(offsets.items) != len(shape):
                raise self.err(f"pl.load got {len(offsets.items)} offsets but {len(shape)} shapes", e)
            return self._typed_op(op, [tensor, offsets], attrs, e)
        if op == "store":
            tile = self.expr(b["tile"])
            offsets = self._index_list(b["offsets"], "store offsets")
            tensor = self.expr(b["output_tensor"])
            if isinstance(tensor.type, TensorType) and len(offsets.items) != len(tensor.type.shape):
                raise self.err(f"pl.store got {len(offsets.items)} offsets for a {len(tensor.type.shape)}-D tensor", e)
            return self._typed_op(op, [tile, tensor, offsets], attrs, e)
        if op in ("create_tile", "create_tensor"):
            attrs["shape"] = self._static_list(b["shape"], "shape", allow_dyn=(op == "create_tensor"))
            attrs["dtype"] = self._static_attr(b["dtype"], DType, "dtype")
            if op == "create_tile":
                attrs["target_memory"] = self._static_attr(b["target_memory"], MemorySpace, "target_memory")
            else:
                attrs["shape"] = [dim_str(d) for d in attrs["shape"]]
            return self._typed_op(op, [], attrs, e)
        if op == "move":
            attrs["target_memory"] = self._static_attr(b["target_memory"], MemorySpace, "target_memory")
            return self._typed_op(op, [self.expr(b["tile"])], attrs, e)
        if op == "cast":
            attrs["target_type"] = self._static_attr(b["target_type"], DType, "target_type")
            if b["mode"] is not None:
                m = self.expr(b["mode"])
                attrs["mode"] = m.value if isinstance(m, N.Const) else None
            return self._typed_op(op, [self.expr(b["tile"])], attrs, e)
        if op == "reshape":
            attrs["shape"] = self._static_list(b["shape"], "reshape shape")
            return self._typed_op(op, [self.expr(b["tile"])], attrs, e)
        if op in ("slice", "assemble"):
            offs = self._index_list(b["offsets"], f"{op} offsets")
            if len(offs.items) != 2:
                raise self.err(f"pl.{op} needs two offsets [row, col]", b["offsets"])
            attrs["offsets_static"] = tuple(o.value if isinstance(o, N.Const) else None for o in offs.items)
            if op == "slice":
                attrs["shape"] = self._static_list(b["shape"], "slice shape")
                return self._typed_op(op, [self.expr(b["tile"]), offs], attrs, e)
            return self._typed_op(op, [self.expr(b["target"]), self.expr(b["source"]), offs], attrs, e)
        if op == "fillpad":
            attrs["pad_value"] = self._static_attr(b["pad_value"], PadValue, "pad_value")
            return self._typed_op(op, [self.expr(b["tile"])], attrs, e)
        if op in ("row_expand", "col_expand"):
            return self._typed_op(op, [self.expr(b["tile"]), self.expr(b["like"])], attrs, e)
        if op == "matmul_acc":
            return self._typed_op(op, [self.expr(b["acc"]), self.expr(b["lhs"]), self.expr(b["rhs"])], attrs, e)
        if op in ("get_block_idx", "get_block_num", "get_subblock_idx"):
            if e.args or e.keywords:
                raise self.err(f"pl.tile.{op}() takes no arguments", e)
            return self._typed_op(op, [], attrs, e)
        if op in _BINARY:
            lhs, rhs = self.expr(b["lhs"]), self.expr(b["rhs"])
            od = OPS[op]
            if isinstance(rhs.type, ScalarType) and od.scalar_form:
                if isinstance(rhs, N.Const) and isinstance(lhs.type, TileType) and lhs.type.dtype.is_float:
                    rhs = N.Const(float(rhs.value), type=ScalarType(lhs.type.dtype if lhs.type.dtype is DType.FP32 else DType.FP32), loc=rhs.loc)
                return self._typed_op(od.scalar_form, [lhs, rhs], attrs, e)
            return self._typed_op(op, [lhs, rhs], attrs, e)
        if op in _UNARY:
            return self._typed_op(op, [self.expr(b["tile"])], attrs, e)
        raise self.err(f"pl.{op} is not supported here", e)

    def fifo_call(self, op: str, e: ast.Call) -> N.Expr:
        """The cross-core FIFO, both directions (docs/mixed-kernels.md):
        cube -> vector: ``pl.tile.tpush_to_aiv(acc)``, ``v = pl.tile.tpop_from_aic(shape=[r, c], dtype=pl.FP32)``,
        ``pl.tile.tfree_from_aic(v)``; vector -> cube: ``pl.tile.tpush_to_aic(vec)``,
        ``m = pl.tile.tpop_from_aiv(shape=[r, c], dtype=pl.FP16)`` (a Mat tile), ``pl.tile.tfree_from_aiv(m)``.
        ``split=`` and ``id=`` keywords (only split 0, pipe 0). The FifoToMove pass pairs each pop with its push."""
        kw = {k.arg: k.value for k in e.keywords}
        for key in ("split", "id"):
            if key in kw:
                v = self.expr(kw.pop(key))
                if not (isinstance(v, N.Const) and v.value == 0):
                    raise self.err(f"pl.tile.{op}: only {key}=0 is supported (one pipe, no split)", e)
        if op.startswith("tpush"):
            what = "Acc" if op == "tpush_to_aiv" else "Vec"
            if len(e.args) != 1 or kw:
                raise self.err(f"pl.tile.{op} takes the {what} tile to push", e)
            return self._typed_op(op, [self.expr(e.args[0])], {"split": 0}, e)
        if op.startswith("tpop"):
            if e.args or set(kw) != {"shape", "dtype"}:
                raise self.err(f"pl.tile.{op} takes shape=[rows, cols] and dtype= keywords", e)
            shape = self._static_list(kw["shape"], f"{op} shape")
            dtype = self._static_attr(kw["dtype"], DType, "dtype")
            space = MemorySpace.Vec if op == "tpop_from_aic" else MemorySpace.Mat
            return self._typed_op(op, [], {"split": 0, "tile_type": TileType(tuple(shape), dtype, space)}, e)
        if len(e.args) > 1 or kw:
            raise self.err(f"pl.tile.{op} takes at most the popped tile", e)
        return self._typed_op(op, [self.expr(a) for a in e.args], {"split": 0}, e)

    def func_call(self, name: str, e: ast.Call) -> N.Expr:
        if name not in self.sigs:
            raise self.err(f"program has no function {name!r}", e.func)
        if e.keywords:
            raise self.err("program functions are called with positional arguments", e)
        callee = self.sigs[name].fn
        args = [self.expr(a) for a in e.args]
        if len(args) != len(callee.params):
            raise self.err(f"{name} takes {len(callee.params)} arguments, but {len(args)} were given", e)
        for a, p, node in zip(args, callee.params, e.args):
            self._check_arg(a, p, node, name)
        return N.FuncCall(name, args, loc=self.loc(e))

    def _check_arg(self, a, p: N.Param, node, callee):
        pt, at = p.type, a.type
        if isinstance(pt, TensorType):
            if not isinstance(at, TensorType):
                raise self.err(f"argument {p.name!r} of {callee} must be a tensor, but got {at}", node)
            if at.dtype != pt.dtype or len(at.shape) != len(pt.shape) or any(
                    isinstance(x, int) and isinstance(y, int) and x != y for x, y in zip(at.shape, pt.shape)):
                raise self.err(f"argument {p.name!r} of {callee} expects {pt}, but got {at}", node)
        elif isinstance(pt, ScalarType):
            if not isinstance(at, ScalarType):
                raise self.err(f"argument {p.name!r} of {callee} must be a scalar, but got {at}", node)
        elif isinstance(pt, TileType):
            if not isinstance(at, TileType) or at.shape != pt.shape or at.dtype != pt.dtype:
                raise self.err(f"argument {p.name!r} of {callee} expects {pt}, but got {at}", node)


