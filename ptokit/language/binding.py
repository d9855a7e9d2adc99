"""DSL op calls bound to the op table.

``pl.<op>(...)`` arguments are matched to the op's declared parameters (pypto's names,
defaults and keyword aliases), each argument is read according to its parameter kind, and the
op's type rule gives the result type.  A mixin of ``FunctionParser``, which provides ``expr``,
``err``, ``loc`` and ``_const``; front ends customise it through two hooks:
``check_op_allowed`` (where an op may appear) and ``operand_tile`` (what a ``tile`` operand may
be besides a tile, e.g. a whole tensor in tensor-level kernel code).
"""
from __future__ import annotations

import ast
from typing import Dict, Optional

from ..ir import nodes as N
from ..ir.ops import OPS, OpDef, OpTypeError, Param, infer
from ..ir.types import (INDEX, AtomicType, DType, MaskPattern, MemorySpace, PadValue, ScalarType, TensorType,
                        TileLayout, TileType, TupleType, dim_str)
from .annotations import TENSOR_VALID
from .binder import EMPTY, parameter, bind_call
from .binder import Given as _Given       # noqa: F401 (the default marker, also read by cube.py)

_EXAMPLE = {DType: "pl.FP32", MemorySpace: "pl.Mem.Vec", PadValue: "pl.PadValue.zero",
            TileLayout: "pl.TileLayout.row_major", AtomicType: "pl.AtomicType.Add"}
_ENUM_OF = {"dtype": DType, "memory": MemorySpace, "pad": PadValue, "layout": TileLayout, "atomic": AtomicType}
_ENUMS = tuple(_EXAMPLE)
# pypto's literal spellings of a pad value: 0, math.inf, -math.inf
_PAD_SUGAR = {0: PadValue.zero, float("inf"): PadValue.max, float("-inf"): PadValue.min}


class OpBinder:
    # ------------------------------------------------------------ hooks
    def check_op_allowed(self, op: OpDef, e: ast.Call) -> None:
        """Raise a located error when ``op`` may not appear here (default: anywhere but the pld ops,
        which are kernel code)."""
        if self.in_orchestration and any(ns.startswith("pld") for ns in op.namespaces):
            raise self.err(f"pld.{op.name} is kernel code: call it in a kernel (type=pl.FunctionType.InCore) that "
                           f"takes the windows, not in chip (orchestration) code", e)

    def take_out_dtype(self, op: OpDef, attrs, nodes):
        """hook: an ``out_dtype=`` the front end applies itself (removed from attrs); default: none."""
        return None

    def cast_result(self, result, out_dtype, e):
        """hook: ``result`` converted to ``out_dtype`` (None: unchanged)."""
        return result

    def wants_k_split(self, op: OpDef, values, attrs) -> bool:
        """hook: a tensor-level matmul too large for Left/Right, computed over K tiles; default: never."""
        return False

    def wants_grid(self, op: OpDef, e) -> bool:
        """hook: a store of a tensor-level matmul whose result exceeds Acc, computed tile by tile; default: never."""
        return False

    def wants_batch(self, op: OpDef, values) -> bool:
        """Whether this call is expanded per batch (``batched_call``; default: never)."""
        return False


    # ------------------------------------------------------------ binding
    def bind(self, op: OpDef, e: ast.Call) -> Dict[str, object]:
        """Parameter name -> the argument's ast node (or a ``Given`` default), by the one binder:
        the op's parameters with pypto's names, keyword aliases and defaults."""
        keywords = {}
        for kw in e.keywords:          # an alias names its parameter (an unknown name: the binder's error)
            try:
                keywords[kw.arg] = op.param(kw.arg).name if kw.arg is not None else None
            except KeyError:
                keywords[kw.arg] = kw.arg
        params = [parameter(p.name, EMPTY if p.required else p.default,
                            keyword_only=p.keyword_only or (p.skipped_when_keyword and p.name in keywords.values()))
                  for p in op.params]
        if op.name == "store" and len(e.args) == 4 and isinstance(e.args[2], (ast.List, ast.Tuple)):
            # pypto's older store(tile, offsets, shapes, output_tensor): a list literal is never the
            # destination tensor, so the third positional argument is the shapes
            order = ["tile", "offsets", "shapes", "output_tensor"]
            params.sort(key=lambda q: order.index(q.name) if q.name in order else len(order))
        call = ast.Call(func=e.func, args=e.args,
                        keywords=[ast.copy_location(ast.keyword(arg=keywords[k.arg], value=k.value), k)
                                  if k.arg is not None else k for k in e.keywords])
        call = ast.copy_location(call, e)
        return bind_call(f"pl.{op.name}", params, call, self.err)

    def op_call(self, name: str, e: ast.Call, front: bool = True) -> N.Expr:
        op = OPS[name]
        self.check_op_allowed(op, e)
        if op.front is not None and front:
            return getattr(self, op.front)(op, e)     # an op whose call the front end reads itself
        if op.has("orchestration_only") and not self.in_orchestration:
            raise self.err(f"pl.{name} is a value of orchestration code; it cannot be in a kernel", e)
        if op.has("kernel_only") and self.in_orchestration:
            raise self.err(f"pl.{name} runs on a vector core: it belongs in a kernel (an InCore function), not in "
                           f"orchestration code", e)
        if self.wants_grid(op, e):
            return self.grid_store_call(op, e)
        if op.kernel_form and self.kernel_code:
            op = OPS[op.kernel_form]                # e.g. pl.create_tensor in a kernel: a scratch tile
        bound = self.bind(op, e)
        values: Dict[str, N.Expr] = {}
        attrs: Dict[str, object] = {}
        for p in op.params:
            node = bound[p.name]
            if not isinstance(node, _Given) and not p.required and self._is_none(node):
                node = bound[p.name] = _Given(p.default)    # None written out (pypto's "unset"): the default
            if p.is_operand:
                if isinstance(node, _Given):
                    if node.value is not None and not p.scratch:
                        raise self.err(f"internal: operand {p.name!r} of pl.{op.name} has a non-None default", e)
                    continue
                values[p.name] = self.read_operand(op, p, node)
            elif p.kind == "dim":       # the dim parameters sharing a key form a tuple (set_validshape's valid)
                attrs[p.key] = attrs.get(p.key, ()) + (node.value if isinstance(node, _Given) else
                                                       self.read_attr(op, p, node),)
            else:
                attrs[p.key] = node.value if isinstance(node, _Given) else self.read_attr(op, p, node)
        nodes = {p.name: bound.get(p.name) for p in op.params}
        if op.has("clamp"):
            region = self._view_valid(op, values)    # a parameter's pl.TensorView(valid_shape=...): loads see it
            if attrs.pop("clamp", False) or region is not None:
                attrs["valid"] = self._clamped_valid(op, values, attrs, e, region)
        if op.tensor_target and self.kernel_code:
            first = values.get(op.operand_params[0].name)
            if first is not None and isinstance(first.type, TensorType):
                # e.g. pl.assemble(out, v, offsets) on a tensor `out`: a store of v there
                target, mapping = op.tensor_target
                op = OPS[target]
                values = {ours: values[theirs] for ours, theirs in mapping.items() if theirs in values}
                nodes = {ours: nodes.get(theirs) for ours, theirs in mapping.items()}
                keep = {p.key for p in op.params if not p.is_operand}
                attrs = {k: v for k, v in attrs.items() if k in keep}
        out_dtype = self.take_out_dtype(op, attrs, nodes)          # pl.matmul(..., out_dtype=): a cast after it
        if self.wants_batch(op, values):
            return self.cast_result(self.batched_call(op, values, attrs, nodes, e), out_dtype, e)
        if self.wants_k_split(op, values, attrs):
            return self.cast_result(self.k_split_call(op, values, attrs, nodes, e), out_dtype, e)
        self._fold_tensor_windows(op, values)
        tensors = any(isinstance(v.type, TensorType) for v in values.values() if isinstance(v, N.Expr) and v.type is not None)
        on_tensors = self.kernel_code and tensors
        if tensors and out_dtype is None:
            call = self.tensor_level_call(op, values, attrs, nodes, e)     # lowered by ConvertTensorToTileOps
            if call is not None:
                return call
        for p in op.operand_params:
            if p.transposed_by and attrs.get(p.transposed_by) and p.name in values and self.kernel_code \
                    and self.transposable(values[p.name]):
                # pl.matmul(a, b, b_trans=True) on a tensor (or a Mat tile, pl.create_l1's): the flag is
                # consumed by a transposed view of the operand
                values[p.name] = self.transposed_operand(values[p.name], nodes[p.name], op, p)
                attrs[p.transposed_by] = False
            if p.kind == "tile" and p.name in values:
                values[p.name] = self.operand_tile(values[p.name], nodes[p.name], op, p)
            if p.static_attr and p.name in values and p.kind == "offsets":
                attrs[p.static_attr] = tuple(o.value if isinstance(o, N.Const) else None
                                             for o in values[p.name].items)
            elif p.static_attr and p.name in values:
                v = values[p.name]
                attrs[p.static_attr] = v.value if isinstance(v, N.Const) else None
        for p in op.operand_params:
            if p.scratch and p.scratch.tensor_level_only and p.name not in values:
                raise self.err(f"pl.{op.name} is missing its {p.name!r} argument (a scratch tile of the input's "
                               f"shape; only a tensor-level call, r: pl.Tensor[...] = pl.{op.name}(tensor), leaves it "
                               f"to the compiler)", e)
            if p.scratch and p.name not in values and p.scratch.make is not None:
                tmp = self._scratch_made(op, p, values, attrs, e)
                if tmp is not None:
                    values[p.name] = tmp
            elif p.scratch and p.name not in values and p.scratch.like in values:
                values[p.name] = self._scratch_like(values[p.scratch.like], e)
        first = values.get(op.operand_params[0].name) if op.operand_params else None
        if op.on_scalar is not None and first is not None and isinstance(first.type, ScalarType):
            scalar_op = OPS[op.on_scalar]
            keep = {p.key for p in scalar_op.params if not p.is_operand}
            return self.typed_op(scalar_op.name, [first], {k: v for k, v in attrs.items() if k in keep}, e, nodes)
        if op.scalar_form is not None:
            rhs = values.get(op.operand_params[1].name)
            if rhs is not None and isinstance(rhs.type, ScalarType):
                op = OPS[op.scalar_form]
        if op.broadcast is not None:
            op = self._broadcast(op, values)
        self._coerce_scalar_constants(op, values)
        args = [values[p.name] for p in op.operand_params if p.name in values]
        result = self.typed_op(op.name, args, attrs, e, nodes)
        if on_tensors and op.has("mask_result"):
            return self._mask_as_values(result, args[0], e)
        return self.cast_result(result, out_dtype, e)

    def _mask_as_values(self, mask: N.Expr, like: N.Expr, e) -> N.Expr:
        """A comparison of tensors in kernel code (pypto-parity.md F): 1 where the mask is set, 0
        elsewhere, in the compared operand's dtype -- ``sels(mask, expands(like, 1), tmp, 0)``."""
        t = like.type
        num = (lambda v: float(v)) if t.dtype.is_float else int
        one = N.Const(num(1), type=ScalarType(t.dtype), loc=self.loc(e))
        zero = N.Const(num(0), type=ScalarType(t.dtype), loc=self.loc(e))
        ones = self.typed_op("expands", [like, one], {}, e)
        tmp = self.typed_op("create_tile", [], {"shape": [1, 32], "dtype": DType.UINT8,
                                                 "target_memory": MemorySpace.Vec}, e)
        return self.typed_op("sels", [mask, ones, tmp, zero], {}, e)

    def front_tensor_gather(self, op: OpDef, e: ast.Call) -> N.Expr:
        """``pl.tensor.gather`` / ``pl.gather``: the index form ``(input, dim, index)``, or with
        ``mask_pattern=`` the mask form (``pl.tile.gather_mask``)."""
        kws = {k.arg for k in e.keywords}
        if "mask_pattern" in kws:
            return self.op_call("gather_mask", e)
        compare = sorted(kws & {"kvalue", "cmp_mode", "out_cols", "count_dtype"})
        if compare:
            raise self.err(f"pl.tensor.gather's compare form ({', '.join(k + '=' for k in compare)}) is not "
                           f"supported: which matches it keeps when a row has more than out_cols, what offset "
                           f"does and what the unfilled index columns hold are not documented (see "
                           f"docs/decisions.md); the index form gather(input, -1, index) and the mask form "
                           f"gather(input, mask_pattern=...) are supported", e)
        return self.op_call(op.name, e, front=False)

    def front_tensor_scatter(self, op: OpDef, e: ast.Call) -> N.Expr:
        """``pl.tensor.scatter`` / ``pl.scatter``: the index form ``(input, dim, index, src)``, or
        ``(input, mask_pattern=, dst=)``: each row of input into the marked columns of dst
        (``pl.tile.scatter_mask(dst, input, mask_pattern)``)."""
        kw = {k.arg: k.value for k in e.keywords}
        if "mask_pattern" not in kw:
            return self.op_call(op.name, e, front=False)
        src = e.args[0] if e.args else kw.pop("input", None)
        dst = kw.pop("dst", None)
        if src is None or dst is None or len(e.args) > 1:
            raise self.err("the mask form is pl.tensor.scatter(input, mask_pattern=..., dst=...)", e)
        call = ast.copy_location(ast.Call(func=e.func, args=[dst, src],
                                          keywords=[ast.keyword(arg=k, value=v) for k, v in kw.items()]), e)
        return self.op_call("tensor.scatter_mask", call)

    def _view_valid(self, op: OpDef, values):
        """The pl.TensorView valid region of the tensor parameter an op (a load) reads, or None."""
        views = self.fn.attrs.get(TENSOR_VALID) if self.fn is not None else None
        tensor = next((values[p.name] for p in op.operand_params if p.kind == "tensor"), None)
        if not views or not isinstance(tensor, N.Var):
            return None
        return views.get(tensor.name)

    def _clamped_valid(self, op: OpDef, values, attrs, e, region=None) -> tuple:
        """``clamp=True`` (pypto-parity.md A7): per axis, the valid extent ``n`` (``valid_shape``, else the
        window's) cut back to what lies inside the tensor from its offset: ``max(0, min(n, dim - off))``;
        a constant when everything is, else a scalar computed when the kernel runs."""
        tensor = next((values[p.name] for p in op.operand_params if p.kind == "tensor"), None)
        offs = next((values[p.name] for p in op.operand_params if p.kind == "offsets"), None)
        if tensor is None or offs is None or not isinstance(tensor.type, TensorType):
            return attrs.get("valid")               # the type rule reports what is wrong
        extent = attrs.get("valid") or attrs["shape"]
        dims = region if region is not None else tensor.type.shape
        if not (len(extent) == len(dims) == len(offs.items)):
            return attrs.get("valid")
        out = []
        for n, dim, off in zip(extent, dims, offs.items):
            d = self._dim_value(dim, e)
            if isinstance(n, int) and isinstance(d, N.Const) and isinstance(off, N.Const):
                out.append(max(0, min(n, d.value - off.value)))
                continue
            nv = self._const(n, e) if isinstance(n, int) else n
            rest = self.scalar_op("max", self._const(0, e), self.scalar_op("sub", d, off, e), e)
            out.append(self.scalar_op("min", nv, rest, e))
        return tuple(out)

    def _fold_tensor_windows(self, op: OpDef, values) -> None:
        """A window ``x[a:b, ...]`` given where an op takes a tensor and offsets (``pl.load``,
        ``pl.store``): the op addresses the window's base tensor, its offsets shifted by the window's."""
        offs = [p for p in op.operand_params if p.kind == "offsets"]
        for p in op.operand_params:
            v = values.get(p.name)
            if p.kind != "tensor" or not (isinstance(v, N.OpCall) and v.op == "tensor_view") or len(offs) != 1:
                continue
            base, shift = v.args
            mine = values.get(offs[0].name)
            if mine is None or len(mine.items) != len(shift.items):
                continue                                  # the rule reports the offset count
            values[p.name] = base
            values[offs[0].name] = N.ListExpr([self.scalar_op("add", a, b, a.loc) if not _is_zero(b) else a
                                               for a, b in zip(mine.items, shift.items)], loc=mine.loc)

    def _scratch_like(self, v: N.Expr, e) -> N.Expr:
        """A compiler-made scratch tile of ``v``'s shape and dtype (an omitted ``tmp_tile``)."""
        if not isinstance(v.type, TileType):
            return v                                # the rule reports the operand that is not a tile
        t = v.type
        return self.typed_op("create_tile", [], {"shape": list(t.shape), "dtype": t.dtype, "target_memory": t.memory},
                             e)

    def _scratch_made(self, op: OpDef, p: Param, values, attrs, e) -> Optional[N.Expr]:
        """A compiler-made tmp tile of the type the parameter's ``Scratch(make=...)`` rule gives from the
        operands written (None: the call needs none, as mrgsort format 1)."""
        try:
            t = p.scratch.make([values[q.name].type for q in op.operand_params if q.name in values], attrs)
        except OpTypeError as exc:
            raise self.err(str(exc), e) from None
        if t is None:
            return None
        return self.typed_op("create_tile", [], {"shape": list(t.shape), "dtype": t.dtype, "target_memory": t.memory},
                             e)

    def _broadcast(self, op: OpDef, values) -> OpDef:
        """``[M, N] (op) [M, 1]`` is the row-expand form, ``[M, N] (op) [1, N]`` the col-expand one."""
        lhs, rhs = (values.get(p.name) for p in op.operand_params[:2])
        if lhs is None or rhs is None or not self.kernel_code and not (isinstance(lhs.type, TileType)
                                                                      and isinstance(rhs.type, TileType)):
            return op
        ls, rs = (_tile_shape(v.type) for v in (lhs, rhs))     # tensors: tensor-level code in a kernel
        if ls is None or rs is None:
            return op
        (m, n) = ls
        if n > 1 and rs == (m, 1) and "row" in op.broadcast:
            form = OPS[op.broadcast["row"]]
        elif m > 1 and rs == (1, n) and "col" in op.broadcast:
            form = OPS[op.broadcast["col"]]
        else:
            return op
        a, b = (p.name for p in form.operand_params[:2])
        values[a], values[b] = values.pop(op.operand_params[0].name), values.pop(op.operand_params[1].name)
        return form

    def _coerce_scalar_constants(self, op: OpDef, values: Dict[str, N.Expr]) -> None:
        """A numeric literal next to a floating-point tile is that tile's kind of number (f32)."""
        tiles = [v for p in op.operand_params if p.kind == "tile" and (v := values.get(p.name)) is not None
                 and (isinstance(v.type, TileType) or self.kernel_code and isinstance(v.type, TensorType))]
        if not tiles or not tiles[0].type.dtype.is_float:
            return
        for p in op.operand_params:
            v = values.get(p.name)
            if p.kind == "scalar" and isinstance(v, N.Const) and isinstance(v.value, (int, float)) \
                    and not isinstance(v.value, bool):
                values[p.name] = N.Const(float(v.value), type=ScalarType(DType.FP32), loc=v.loc)

    # ------------------------------------------------------------ reading arguments
    def read_operand(self, op: OpDef, p: Param, node) -> N.Expr:
        if p.kind == "offsets":
            return self._index_list(node, f"pl.{op.name} {p.name}")
        if p.kind == "deps":
            return self.deps_value(node)
        v = self.expr(node)
        if p.kind == "index" and (not isinstance(v.type, ScalarType) or v.type.dtype.is_float):
            raise self.err(f"pl.{op.name} {p.name} must be an integer or an integer scalar, but got {v.type}", node)
        return v

    def read_attr(self, op: OpDef, p: Param, node):
        what = f"pl.{op.name} {p.name}"
        if p.kind == "shape":
            return self._static_list(node, what)
        if p.kind == "dims":
            return [dim_str(d) for d in self._static_list(node, what, allow_dyn=True)]
        if p.kind == "valid":
            if self._is_none(node):
                return None
            return tuple(v.value if isinstance(v, N.Const) else v for v in self._index_list(node, p.name).items)
        if p.kind == "pad":
            return self._pad_attr(node, what)
        if p.kind in _ENUM_OF:
            return self._static_attr(node, _ENUM_OF[p.kind], p.name)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and p.kind in ("mode", "str"):
            return node.value        # a string literal (the expression reader takes no strings)
        if p.kind == "mode":
            m = self.expr(node)
            if not isinstance(m, N.Const) or not isinstance(m.value, int) or isinstance(m.value, bool):
                raise self.err(f"{what} must be a rounding-mode name such as \"round\" or its number", node)
            return m.value
        if p.kind == "choice":
            return self._choice(p, node, what)
        if p.kind == "mask_pattern":
            v = self.expr(node)
            if isinstance(v, N.Const) and isinstance(v.value, int) and not isinstance(v.value, bool) \
                    and 1 <= v.value <= 7:
                return MaskPattern(v.value)
            raise self.err(f"{what} must be a pl.tile.MaskPattern constant (P0101=1 ... P1111=7)", node)
        if p.kind == "dim":
            v = self.expr(node)
            if not isinstance(v.type, ScalarType) or v.type.dtype.is_float:
                raise self.err(f"{what} must be an integer or an integer scalar, but got {v.type}", node)
            return v.value if isinstance(v, N.Const) else v
        v = self.expr(node)
        want = {"int": int, "bool": bool, "str": str}[p.kind]
        if not isinstance(v, N.Const) or not isinstance(v.value, want) or (want is int and isinstance(v.value, bool)):
            raise self.err(f"{what} must be a compile-time {want.__name__}", node)
        return v.value

    def _choice(self, p: Param, node, what):
        """One of ``p.choices``, written as the string or as its index (pypto's integer form)."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            value = node.value
        else:
            v = self.expr(node)
            value = v.value if isinstance(v, N.Const) else None
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(p.choices):
            return p.choices[value]
        if isinstance(value, str) and value in p.choices:
            return value
        allowed = ", ".join(repr(c) for c in p.choices)
        raise self.err(f"{what} must be one of {allowed} (or 0..{len(p.choices) - 1}), but got "
                       f"{ast.unparse(node)}", node)

    def _list_items(self, node, what, example):
        """The items of a list argument: a literal list/tuple, or any expression whose value is one
        (a list from the enclosing scope, ``SHAPES[1]``); each item with the node to point at."""
        if isinstance(node, (ast.List, ast.Tuple)):
            return [(self.expr(x), x) for x in node.elts]
        v = self.expr(node)
        if isinstance(v, N.ListExpr):
            return [(x, node) for x in v.items]
        raise self.err(f"{what} must be a list such as {example}", node)

    def _static_list(self, node, what, allow_dyn=False):
        """A list of static ints (or dynamic-dim names when allowed)."""
        out = []
        for v, x in self._list_items(node, what, "[64, 64]"):
            if isinstance(v, N.Const) and isinstance(v.value, int) and not isinstance(v.value, bool):
                out.append(v.value)
            elif allow_dyn and self.in_orchestration:
                out.append(self.run_time_dim(v, x))      # a size known at run time: a dynamic dimension
            elif allow_dyn and isinstance(v, N.Var) and v.type == INDEX:
                out.append(v.name)
            else:
                raise self.err(f"{what} must be compile-time integers, but {ast.unparse(x)!r} is not", x)
        return out

    def _is_none(self, node) -> bool:
        """``None`` written literally or held by a name from the enclosing scope."""
        if isinstance(node, ast.Constant):
            return node.value is None
        if isinstance(node, (ast.Name, ast.Attribute)):
            v = self.expr(node)
            return isinstance(v, N.Const) and v.value is None
        return False
    def _pad_attr(self, node, what):
        v = self.expr(node)
        if isinstance(v, N.Const) and isinstance(v.value, PadValue):
            return v.value
        if isinstance(v, N.Const) and isinstance(v.value, (int, float)) and not isinstance(v.value, bool) \
                and v.value in _PAD_SUGAR:
            return _PAD_SUGAR[v.value]
        raise self.err(f"{what} must be pl.PadValue.zero/max/min or one of 0, math.inf, -math.inf", node)

    def _static_attr(self, node, kinds, what):
        if isinstance(node, _ENUMS) or node is None:
            return node
        v = self.expr(node)
        if isinstance(v, N.Const) and isinstance(v.value, kinds):
            return v.value
        raise self.err(f"{what} must be a constant such as {_EXAMPLE.get(kinds, '...')}", node)

    def _index_list(self, node, what):
        items = []
        for v, x in self._list_items(node, what, "[0, 0]"):
            if not isinstance(v.type, ScalarType) or v.type.dtype.is_float:
                raise self.err(f"{what} must be integers or integer scalars, but got {v.type}", x)
            items.append(v)
        return N.ListExpr(items, loc=self.loc(node))

    # ------------------------------------------------------------ typing
    def typed_op(self, name, args, attrs, node, nodes=None) -> N.OpCall:
        """An OpCall typed by its rule; a rule failure is located at the argument it names."""
        for a in args:
            if isinstance(a, N.ListExpr):
                a.type = TupleType(tuple(i.type for i in a.items))
        try:
            t = infer(name, [a.type for a in args], attrs)
        except OpTypeError as exc:
            where = (nodes or {}).get(exc.param) if exc.param else None
            if where is None or isinstance(where, _Given):
                where = node
            raise self.err(str(exc), where) from None
        return N.OpCall(name, args, attrs, type=t, loc=self.loc(node))


def _tile_shape(t) -> Optional[tuple]:
    """The 2-D shape of a tile operand: a tile's, or the tile a whole 2-D tensor loads as."""
    if isinstance(t, TileType):
        return tuple(t.shape)
    if isinstance(t, TensorType) and len(t.shape) == 2 and all(isinstance(d, int) for d in t.shape):
        return tuple(t.shape)
    return None


def _is_zero(e: N.Expr) -> bool:
    return isinstance(e, N.Const) and e.value == 0 and not isinstance(e.value, bool)
