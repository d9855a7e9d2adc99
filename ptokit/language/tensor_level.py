"""Tensor-level code inside kernels: tensors, tensor windows and tile subscripts where tiles are
expected (pypto-parity.md section F).

In kernel code (InCore functions, ``pl.at`` blocks, helpers spliced into them):

* a vector op over tensors (``e = pl.exp(a)``, ``pl.add(acc, x[i])``) is kept as written, typed by
  pypto's tensor-level rule, annotated or not; ConvertTensorToTileOps (``passes/tensor_to_tile.py``)
  lowers it, sized from the target;
* the tensor operand of any other op (a store, a cube op, a comparison) is still loaded here: a
  tensor is loaded whole (a 1-D ``[n]`` tensor as a ``[1, n]`` tile), a window ``x[a:b, c:d]``
  loads that window, an operand the op wants in Left/Right (matmul) is loaded into Mat and moved
  there; a value this kernel computes (a tensor-level op's) is a whole Vec load, which the pass
  reads as its tile;
* an Acc tile (a matmul result) used by a vector op is handed to the vector side first (the
  kernel becomes a mixed cube + vector group); a Mat tile used by a cube op is moved to the
  operand's space;
* ``t[a:b, c:d]`` on a tile is a slice of it;
* ``y[a:b, c:d] = v`` stores ``v`` at the window's origin of tensor ``y`` (a tile ``y``:
  assembles it in), and ``pl.assemble(out, v, offsets)`` on a tensor ``out`` is that store;
* ``pl.create_tensor(...)`` is an on-chip scratch tile.

A mixin of FunctionParser (uses ``expr``, ``err``, ``loc``, ``_const``, ``typed_op``,
``window_dims``, ``window_store``).
"""
from __future__ import annotations

import ast
from typing import Optional

from ..ir import nodes as N
from ..ir.ops import OPS, OpDef, OpTypeError, Param
from ..ir.ops.tensor_level import has_tensor_form, infer_tensor_level, is_tensor_level, written_operands_fit
from ..ir.ops.view import default_layout, transposed
from ..ir.types import MemorySpace, ScalarType, TensorType, TileType

_CUBE_SPACES = (MemorySpace.Left, MemorySpace.Right, MemorySpace.Bias)   # fed from Mat by a move


class TensorLevelMixin:
    tensor_level_names = frozenset()     # names assigned a tensor-level op's result (parser.assign)

    @property
    def kernel_code(self) -> bool:
        return self.fn is not None and self.fn.kind is not N.FunctionType.Orchestration

    # ------------------------------------------------------------ tensor-level ops, kept as written
    def tensor_level_call(self, op: OpDef, values, attrs, nodes, e: ast.Call) -> Optional[N.OpCall]:
        """``op`` over tensor operands as written, typed by pypto's tensor-level rule (the tile rule
        lifted, ``ir/ops/tensor_level.py``; with Vec tiles among the operands, the tile rule): the
        pass ConvertTensorToTileOps lowers it (also in orchestration code, where it refuses it).
        None when this call has no such form here (a window of a ``pl.TensorView`` parameter with
        a valid region, an operand of dynamic shape or not in Vec); its operands are then loaded
        as the parser always did."""
        values = dict(values)
        if op.scalar_form is not None and len(op.operand_params) > 1:
            rhs = values.get(op.operand_params[1].name)
            if rhs is not None and isinstance(rhs.type, ScalarType):
                op = OPS[op.scalar_form]
        if op.broadcast is not None:
            op = self._broadcast(op, values)
        tiles = [values[p.name] for p in op.operand_params if p.kind == "tile" and p.name in values]
        if not has_tensor_form(op) or not any(isinstance(v.type, TensorType) for v in tiles) or \
                any(not self._tensor_level_operand(v) for v in tiles):
            return None
        args = [values[p.name] for p in op.operand_params if p.name in values]
        if not written_operands_fit(op, len(args)) or any(p.name not in values for p in op.operand_params[:len(args)]):
            return None
        self._coerce_scalar_constants(op, values)
        args = [values[p.name] for p in op.operand_params if p.name in values]
        try:
            t = infer_tensor_level(op.name, [a.type for a in args], attrs)
        except OpTypeError as exc:
            where = (nodes or {}).get(exc.param) if exc.param else None
            raise self.err(str(exc), where if isinstance(where, ast.AST) else e) from None
        return N.OpCall(op.name, args, attrs, type=t, loc=self.loc(e))

    def tensor_level_value(self, v: N.Expr) -> bool:
        """A tensor this kernel computes (a tensor-level op, or a name bound to one; not an output
        tensor of the function, which ConvertTensorToTileOps stores such a value into)."""
        if is_tensor_level(v):
            return True
        return isinstance(v, N.Var) and v.name in self.tensor_level_names and not any(
            p.name == v.name and p.direction is not N.Direction.IN for p in self.fn.params)

    def _tensor_level_operand(self, v: N.Expr) -> bool:
        """A whole tensor of static shape, or a window of one, that a load brings into Vec as it
        is (no pl.TensorView valid region to clamp by); a tensor-level op's value; or a Vec tile."""
        if isinstance(v.type, TileType):
            return v.type.memory is MemorySpace.Vec
        if not isinstance(v.type, TensorType) or not all(isinstance(d, int) for d in v.type.shape):
            return False
        if is_tensor_level(v):
            return True
        if isinstance(v, N.OpCall) and v.op == "tensor_view":      # pl.slice's own valid_shape= goes with it
            return self._view_valid(OPS["load"], {"tensor": v.args[0]}) is None
        return isinstance(v, N.Var) and not v.type.window and \
            self._view_valid(OPS["load"], {"tensor": v}) is None

    # ------------------------------------------------------------ operands
    def operand_tile(self, value: N.Expr, node, op: OpDef, param: Optional[Param] = None) -> N.Expr:
        """hook: the IR value of a ``tile`` operand of ``op`` in this function."""
        if not self.kernel_code:
            return value
        space = param.space if param is not None and param.space is not None else MemorySpace.Vec
        if isinstance(value.type, TensorType):
            return self.as_tile(value, node, op.name, space)
        if isinstance(value.type, TileType):
            mem = value.type.memory
            if mem is MemorySpace.Acc and space is MemorySpace.Vec and not op.has("cube") \
                    and not op.has("accepts_acc"):
                return self._move(value, MemorySpace.Vec, node)        # cube -> vector hand-over
        return value       # a cube operand in Mat, Vec or Acc: InferTileMemorySpace moves it

    def transposable(self, value: N.Expr) -> bool:
        """Whether ``a_trans`` / ``b_trans`` apply to this operand: a tensor, or a Mat tile (pypto's
        ``pl.create_l1`` value is tensor-typed); other tiles refuse them in the op's rule."""
        return isinstance(value.type, TensorType) and not self.tensor_level_value(value) or (isinstance(value.type, TileType)
                                                      and value.type.memory is MemorySpace.Mat)

    def transposed_operand(self, value: N.Expr, node, op: OpDef, param: Param) -> N.Expr:
        """An operand of a cube op whose ``a_trans``/``b_trans`` is set, read through the transposed
        (ZN) layout and moved to the operand's space: a tensor is loaded into Mat and viewed through a
        ``transpose_view`` (no copy); so is a Mat tile of the default layout, while a Mat tile that
        already has the transposed layout (``pl.create_l1(..., transpose=True)``) is that operand."""
        if isinstance(value.type, TensorType):
            value = self.as_tile(value, node, op.name, MemorySpace.Mat)
        t = value.type
        if t.layout is None or t.layout != transposed(default_layout(t.memory, t.shape)):
            value = self.typed_op("transpose_view", [value], {}, node)     # (a flat tile: its located error)
        return self._move(value, param.space, node)

    def _move(self, value: N.Expr, space: MemorySpace, node) -> N.Expr:
        return self.typed_op("move", [value], {"target_memory": space}, node)

    def as_tile(self, v: N.Expr, node, what: str, space: MemorySpace = MemorySpace.Vec) -> N.Expr:
        """A whole tensor, or a window of one, where a tile is expected: load it.  A tensor this
        kernel computes is a Vec tile once ConvertTensorToTileOps lowers it: a whole load of it into
        Vec, which the pass reads as that tile (InferTileMemorySpace moves a cube operand on)."""
        if not isinstance(v.type, TensorType):
            return v
        if self.tensor_level_value(v):
            space = MemorySpace.Vec
        if isinstance(v, N.OpCall) and v.op == "tensor_view":
            base, offsets = v.args
            shape = list(v.type.shape)
        else:
            base, shape = v, list(v.type.shape)
            offsets = N.ListExpr([self._const(0, node) for _ in shape], loc=self.loc(node))
        if not all(isinstance(d, int) for d in shape):
            raise self.err(f"tensor-level pl.{what} needs a tensor of static shape, but {ast.unparse(node)!r} is "
                           f"{v.type}; load tiles with pl.load(tensor, offsets, shapes) instead", node)
        # sized by the passes, from the target: PlanMemory refuses a tile its buffer cannot hold
        load_space = MemorySpace.Mat if space in _CUBE_SPACES + (MemorySpace.Mat,) else space
        attrs = {"shape": shape, "target_memory": load_space, "valid": None}
        operands = {"tensor": base, "offsets": offsets}
        region = self._view_valid(OPS["load"], operands)     # a pl.TensorView(valid_shape=...) parameter
        if isinstance(v, N.OpCall) and v.op == "tensor_view" and v.attrs.get("valid") is not None:
            attrs["valid"] = v.attrs["valid"]                  # pl.slice(x, ..., valid_shape=...)
        elif region is not None:
            attrs["valid"] = self._clamped_valid(OPS["load"], operands, attrs, node, region)
        tile = self.typed_op("load", [base, offsets], attrs, node)
        if load_space is not space:
            tile = self._move(tile, space, node)
        return tile

    def front_slice(self, op: OpDef, e: ast.Call) -> N.Expr:
        """``pl.slice(x, shape, offset, valid_shape=None)``.  Of a tensor it is a window of it: in
        orchestration code ``x[o0:o0 + s0, ...]``, a view passed to tasks (pypto's tensor-level slice);
        in kernel code loaded where it is used (into Mat for a cube operand), reading only
        ``valid_shape`` (the window may then reach past the tensor's end, as pypto allows).  Of a tile
        it is the tile op."""
        src = e.args[0] if e.args else None
        if self.in_orchestration:
            level = "orchestration"
            tensor = src is not None and isinstance(self.expr(src).type, TensorType)
        else:
            level = "kernel"
            tensor = self.kernel_code and isinstance(src, ast.Name) and isinstance(self.env.get(src.id), TensorType)
        if not tensor:
            return self.op_call(op.name, e, front=False)
        kw = {("offset" if k.arg == "offsets" else k.arg): k for k in e.keywords}
        extra = sorted(k for k in kw if k not in ("shape", "offset", "valid_shape"))
        if extra or len(e.args) > 3:
            raise self.err(f"pl.slice of a tensor in {level} code takes (tensor, shape, offset, valid_shape=None); "
                           f"{', '.join(extra) + '= is' if extra else 'more arguments are'} not supported here",
                           kw[extra[0]] if extra else e)
        nodes = dict(zip(("shape", "offset"), e.args[1:]))
        nodes.update({k: v.value for k, v in kw.items()})
        for name in ("shape", "offset"):
            if name not in nodes:
                raise self.err(f"pl.slice is missing its {name!r} argument", e)
        load = OPS["load"]
        params = {p.name: p for p in load.params}
        valid = nodes.get("valid_shape")
        valid = None if valid is None else self.read_attr(load, params["valid_shape"], valid)
        if level == "orchestration":
            view = self._orchestration_slice(src, nodes["shape"], nodes["offset"], e)
            shape = list(view.type.shape)
        else:
            shape = self.read_attr(load, params["shapes"], nodes["shape"])
            offsets = self.read_operand(load, params["offsets"], nodes["offset"])
            base = self.expr(src)
            if len(shape) != len(base.type.shape) or len(offsets.items) != len(shape):
                raise self.err(f"pl.slice of the {len(base.type.shape)}-D tensor {src.id} needs "
                               f"{len(base.type.shape)} extents and offsets", e)
            view = self.typed_op("tensor_view", [base, offsets], {"shape": list(shape)}, e)
        if valid is not None and len(valid) != len(shape):
            raise self.err(f"pl.slice valid_shape needs {len(shape)} extents", nodes["valid_shape"])
        # a kernel whose parameter's pl.TensorView valid_shape names a symbol of its own is passed the
        # orchestration window's valid extent (passes/valid_symbols.py)
        view.attrs["valid"] = valid
        return view

    def _orchestration_slice(self, src, shape, offset, e: ast.Call) -> N.Expr:
        """The window ``src[o0:o0 + s0, ...]`` by the window rules of orchestration code."""
        if not all(isinstance(a, (ast.List, ast.Tuple)) for a in (shape, offset)) or \
                len(shape.elts) != len(offset.elts):
            raise self.err("pl.slice of a tensor in orchestration code takes its shape and offset as lists of "
                           "the same length, such as pl.slice(x, [16, 64], [i * 16, 0])", e)
        dims = [ast.copy_location(ast.Slice(lower=o, upper=ast.copy_location(ast.BinOp(o, ast.Add(), n), n)), o)
                for n, o in zip(shape.elts, offset.elts)]
        return self.tensor_window(ast.copy_location(ast.Subscript(value=src, slice=ast.Tuple(dims, ast.Load()),
                                                                  ctx=ast.Load()), e))

    # ------------------------------------------------------------ subscripts
    def kernel_subscript(self, e: ast.Subscript) -> N.Expr:
        """``x[...]`` read in kernel code: a window of a tensor (loaded where it is used), a slice
        of a tile."""
        base = self.expr(e.value)
        if _is_element(e, base):
            return self.kernel_read(base, e.value, None, e)       # A[i, j]: one element, a scalar
        if isinstance(base.type, TileType):
            return self._tile_slice(e, base)
        if not isinstance(base.type, TensorType) or not isinstance(base, N.Var):
            raise self.err(f"{ast.unparse(e.value)!r} is {base.type}; only tensors and tiles can be windowed", e.value)
        offsets, extents, _ = self.window_dims(e, base, static=True, indices=True)
        return self.typed_op("tensor_view", [base, N.ListExpr(offsets, loc=self.loc(e))], {"shape": list(extents)}, e)

    def _tile_slice(self, e: ast.Subscript, tile: N.Expr) -> N.Expr:
        fake = N.Var("_tile", type=TensorType(tuple(tile.type.shape), tile.type.dtype))
        offsets, extents, _ = self.window_dims(e, fake, static=True, indices=True, what="tile")
        offs = N.ListExpr(offsets, loc=self.loc(e))
        attrs = {"shape": list(extents), "offsets_static": tuple(o.value if isinstance(o, N.Const) else None
                                                                 for o in offsets)}
        return self.typed_op("slice", [tile, offs], attrs, e)

    def kernel_assign_subscript(self, target: ast.Subscript, s) -> N.Stmt:
        """``y[...] = v`` in kernel code: store into a tensor window, or assemble into a tile."""
        dst = self.expr(target.value)
        if isinstance(dst.type, TensorType) and len(dst.type.shape) == 2 and self.grid_matmul(s.value) is not None:
            return self.grid_window_store(target, dst, s)      # y[...] = pl.matmul(a, b) larger than Acc (cube.py)
        value = self.expr(s.value)
        if _is_element(target, dst) and isinstance(value.type, ScalarType):
            return N.ExprStmt(self.kernel_write(dst, target.value, None, s.value, target), loc=self.loc(s))
        if isinstance(dst.type, TileType):
            value = self.as_tile(value, s.value, "assemble")
            fake = N.Var("_tile", type=TensorType(tuple(dst.type.shape), dst.type.dtype))
            offsets, _, _ = self.window_dims(target, fake, static=False, indices=True, what="tile")
            offs = N.ListExpr(offsets, loc=self.loc(target))
            attrs = {"offsets_static": tuple(o.value if isinstance(o, N.Const) else None for o in offsets)}
            res = self.typed_op("assemble", [dst, value, offs], attrs, s)
            name = target.value.id if isinstance(target.value, ast.Name) else None
            if name is None:
                raise self.err("a tile written through a subscript must be a name", target.value)
            self.env[name] = res.type
            return N.Assign([N.Var(name, type=res.type, loc=self.loc(target))], res, loc=self.loc(s))
        value = self.operand_tile(value, s.value, OPS["store"])     # tensors load; an Acc tile stores as it is
        return self.window_store(target, value, s.value, s)


def _is_element(e: ast.Subscript, base: N.Expr) -> bool:
    """``x[i, j]`` with one index (no slice) per dimension of a tile or tensor."""
    if not isinstance(base.type, (TileType, TensorType)):
        return False
    elts = e.slice.elts if isinstance(e.slice, ast.Tuple) else [e.slice]
    return len(elts) == len(base.type.shape) and not any(isinstance(x, ast.Slice) for x in elts)


def writes_operand0_tensor(value: N.OpCall) -> bool:
    """A tensor-writing op whose result is its operand-0 tensor (``pl.expand_clone(src, target)``:
    IR operands ``(target, src)``): in kernel code its assignment is a statement writing that tensor,
    and the assigned name another name of it (as for ``pl.store``)."""
    op = OPS.get(value.op)
    return (op is not None and op.has("shares_operand0") and isinstance(value.type, TensorType)
            and bool(value.args) and isinstance(value.args[0], N.Var) and isinstance(value.args[0].type, TensorType))
