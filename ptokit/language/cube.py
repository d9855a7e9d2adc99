"""Batched matmul in kernel code: ``pl.batch_matmul`` and ``pl.matmul`` with a tensor operand of
rank > 2 (pypto-parity.md D), expanded as the parser reads them into one 2-D ``matmul`` per
batch index.

Batch dimensions (all but the last two) broadcast as numpy's do (a dimension of 1, or a missing
one, repeats); each batch's operands are loaded as 2-D windows of the tensors (a ``b_trans`` /
``a_trans`` window through a ``transpose_view``), and the products are assembled into one Acc
tile whose rows are the batch dimensions flattened with ``M`` (``[B * M, N]``, the same row order
an N-D window has), which ``c[:, :, :] = ...`` or ``pl.store(t, offsets, c, shapes=[B, M, N])``
writes back. ``pl.batch_matmul_acc`` (``pl.matmul_acc`` on rank > 2 tensors) accumulates each
batch's product into its row band of such a tile.

A mixin of FunctionParser (uses ``typed_op``, ``as_tile``, ``operand_tile``,
``transposed_operand``, ``scalar_op``, ``_const``, ``err``, ``loc``).
"""
from __future__ import annotations

import ast
import itertools
from math import prod
from typing import Dict

from ..ir import nodes as N
from ..ir.ops import OPS, OpDef
from ..ir.ops.cube import acc_dtype, broadcast_batch
from ..ir.types import INDEX, AtomicType, DType, MemorySpace, ScalarType, TensorType, TileType, fmt_shape
from ..targets import smallest_capacity
from .binding import _Given

_MAX_BATCHES = 64
_OPERAND_BYTES = 32768  # half of Left / Right (64 KB on a2a3 and a5): a K tile's budget per operand


def _pad(v: int, q: int) -> int:
    return -(-v // q) * q
_FRACTAL_ROWS = 16      # rows of one fractal box of a Mat tile
# one output tile's budget: half of the smallest Acc buffer of the platform table (the other half lets
# the next tile's K loop start while one is written out).  The front end does not know the target, so
# it sizes for the smallest chip family; sizing belongs in a pass that reads PassContext.target
# (pypto's AutoTileMatmulL0, docs/passes.md "still in the front end").
_ACC_BYTES = smallest_capacity("acc") // 2
_MAT_BYTES = smallest_capacity("mat")


def _needs_grid(m: int, n: int, dt: DType) -> bool:
    """Whether an [m, n] product of ``dt`` operands exceeds the Acc budget (FP32 / INT32 accumulator)."""
    return _pad(m, 16) * _pad(n, 16) * 4 > _ACC_BYTES or \
        max(_pad(m, 16), _pad(n, 16)) * 32 * dt.size > _OPERAND_BYTES


def _grid_tiles(m: int, n: int, dt: DType):
    """(Mt, Nt): multiples of 16 whose Acc tile fits the budget and whose K tile is at least 32."""
    side = _OPERAND_BYTES // (32 * dt.size) // 16 * 16          # the largest Mt / Nt a K tile of 32 allows
    elems = _ACC_BYTES // 4
    if _pad(n, 16) <= 128:
        nt = _pad(n, 16)
        mt = min(_pad(m, 16), elems // nt // 16 * 16, side)
    else:
        mt = min(_pad(m, 16), 128)
        nt = min(_pad(n, 16), elems // mt // 16 * 16, side)
    return mt, nt


class CubeMixin:
    def take_out_dtype(self, op: OpDef, attrs, nodes):
        """``pl.matmul(..., out_dtype=d)``: the product is computed in the accumulator's dtype (FP32, or
        INT32 for INT8 inputs) and converted to ``d`` (to nearest even), as the cube's write-out does."""
        want = attrs.pop("out_dtype", None) if op.name == "matmul" else None
        if want is None:
            return None
        if want not in (DType.FP32, DType.FP16, DType.BF16, DType.INT32):
            raise self.err(f"pl.matmul out_dtype must be pl.FP32, pl.FP16 or pl.BF16 (pl.INT32 for INT8 inputs), "
                           f"but got {want!r}", nodes.get("out_dtype"))
        self._out_dtype_node = nodes.get("out_dtype")
        return want

    def cast_result(self, result, out_dtype, e):
        if out_dtype is None or result.type.dtype is out_dtype:
            return result
        if (result.type.dtype is DType.INT32) != (out_dtype is DType.INT32):
            raise self.err(f"pl.matmul out_dtype={out_dtype!r} does not fit the {result.type.dtype!r} accumulator "
                           f"(INT8 inputs give INT32, float inputs FP32, FP16 or BF16)", self._out_dtype_node)
        return self.typed_op("cast", [result], {"target_type": out_dtype, "mode": "rint"}, e)

    # ------------------------------------------------------------ large tensor-level matmuls: a K loop
    def _k_operands(self, values, trans=(False, False)):
        """(base, window offsets or None, logical [rows, cols], transposed) of each of a 2-D tensor
        matmul's operands, or None; a transposed operand (``a_trans`` / ``b_trans``) is stored as the
        transpose of its logical shape."""
        out = []
        for v, t in zip((values.get("lhs"), values.get("rhs")), trans):
            if v is None or not isinstance(v.type, TensorType) or len(v.type.shape) != 2 or \
                    not all(isinstance(d, int) for d in v.type.shape):
                return None
            if isinstance(v, N.OpCall) and v.op == "tensor_view":
                base, offs = v.args[0], list(v.args[1].items)
            else:
                base, offs = v, None
            shape = tuple(v.type.shape)
            out.append((base, offs, shape[::-1] if t else shape, bool(t)))
        return out

    def tiled_by_pass(self, values, parts) -> bool:
        """Whether the product is left whole for AutoTileMatmulL0 (passes/auto_tile_matmul.py), which
        tiles it for the target's L0 buffers: operands of 16-aligned static shapes (lhs untransposed,
        rhs either way), read whole (no valid region), that fit Mat together.  The other forms are
        still tiled here."""
        (_, _, (m, k), ta), (_, _, (k2, n), _) = parts
        if ta or k != k2 or any(d % _FRACTAL_ROWS for d in (m, k, n)):
            return False
        if (m * k + k * n) * values["lhs"].type.dtype.size > _MAT_BYTES:
            return False
        for v in (values["lhs"], values["rhs"]):
            base = v.args[0] if isinstance(v, N.OpCall) and v.op == "tensor_view" else v
            if (base is not v and v.attrs.get("valid") is not None) or \
                    self._view_valid(OPS["load"], {"tensor": base}) is not None:
                return False
        return True

    def wants_k_split(self, op: OpDef, values, attrs) -> bool:
        """``pl.matmul(a, b)`` on 2-D tensors whose operands do not fit Left / Right whole (half a buffer
        each): computed as a loop over K tiles accumulating into one Acc tile (pypto-parity.md D)."""
        if op.name != "matmul" or not self.kernel_code:
            return False
        parts = self._k_operands(values, (attrs.get("a_trans"), attrs.get("b_trans")))
        if parts is None:
            return False
        (_, _, (m, k), _), (_, _, (k2, n), _) = parts
        size = values["lhs"].type.dtype.size
        if values["lhs"].type.dtype != values["rhs"].type.dtype or self.tiled_by_pass(values, parts):
            return False                       # the type rule says what is wrong / the pass tiles it
        # (a K mismatch of large operands is said by k_split_call, before any operand is loaded)
        return _pad(m, 16) * k * size > _OPERAND_BYTES or k2 * _pad(n, 16) * size > _OPERAND_BYTES

    def k_split_call(self, op: OpDef, values, attrs, nodes, e) -> N.Expr:
        parts = self._k_operands(values, (attrs.get("a_trans"), attrs.get("b_trans")))
        (_, _, (m, k), ta), (_, _, (k2, n), tb) = parts
        dt = values["lhs"].type.dtype
        if k != k2:
            said = lambda t, flag: f" ({flag}=True)" if t else ""   # noqa: E731
            raise self.err(f"pl.matmul requires lhs columns to equal rhs rows, but got lhs [{m}, {k}]{said(ta, 'a_trans')} "
                           f"and rhs [{k2}, {n}]{said(tb, 'b_trans')}", e)
        if _needs_grid(m, n, dt):
            raise self.err(f"pl.matmul of {values['lhs'].type} and {values['rhs'].type}: the [{m}, {n}] result does "
                           f"not fit the Acc buffer as one tile ({_ACC_BYTES} bytes for an output tile, its K tiles of "
                           f"32 or more in half of Left / Right); it is computed as a grid of output tiles only when "
                           f"stored directly: pl.store(pl.matmul(a, b), offsets, out) or out[...] = pl.matmul(a, b)", e)
        # the K tile: a multiple of 32 (every dtype's fractal along K) that fits half of Left and of Right
        kt = (_OPERAND_BYTES // (max(_pad(m, 16), _pad(n, 16)) * dt.size)) // 32 * 32
        if kt < 32:
            raise self.err(f"pl.matmul of {values['lhs'].type} and {values['rhs'].type}: even a K tile of 32 does not "
                           f"fit Left / Right ({_pad(m, 16)} x 32 and 32 x {_pad(n, 16)} {dt!r}); split M or N over "
                           f"tasks or a pl.range loop of pl.matmul on windows", e)
        c = lambda v: self._const(v, e)   # noqa: E731
        valid = self._k_valid(values, parts, (m, k, n), e)
        return self._k_loop(parts, (c(0), c(0)), (m, n), valid, k, kt, e)

    def _k_valid(self, values, parts, mkn, e):
        """The (rows, cols) valid region of a K-split product: the valid rows of lhs and columns of
        rhs, when an operand is a ``pl.slice(..., valid_shape=...)`` window (its logical valid region:
        swapped for a transposed operand).  A valid region that cuts K is a located error."""
        m, k, n = mkn
        got = []
        for v, (_, _, shape, trans) in zip((values["lhs"], values["rhs"]), parts):
            valid = v.attrs.get("valid") if isinstance(v, N.OpCall) and v.op == "tensor_view" else None
            valid = tuple(valid[::-1] if trans else valid) if valid is not None else tuple(shape)
            got.append(valid)
        (vm, vk), (vk2, vn) = got
        if vk != k or vk2 != k:
            raise self.err(f"pl.matmul of {values['lhs'].type} and {values['rhs'].type}: a valid_shape that "
                           f"cuts the K axis ({vk if vk != k else vk2} of {k}) is not supported when K is split "
                           f"into tiles; fillpad the operand or slice K to its valid extent", e)
        return (vm, vn)

    def _k_loop(self, parts, at, shape, valid, k, kt, e) -> N.Expr:
        """The ``shape`` (``valid``) output tile at ``at`` = (row, col) of ``lhs @ rhs``: one matmul of the
        first K tile, a loop of matmul_acc over the full ones, a last partly valid one (statements in
        ``self.pre``). A transposed operand's window is loaded as stored and read through a
        ``transpose_view`` (no copy), as a small ``a_trans`` / ``b_trans`` operand is."""
        (mt, nt), (vm, vn) = shape, valid
        full, rem = divmod(k, kt)
        loc = self.loc(e)
        c = lambda v: self._const(v, e)   # noqa: E731

        def add(o, a):
            if isinstance(o, N.Const) and o.value == 0:
                return a
            if isinstance(a, N.Const) and a.value == 0:
                return o
            return self.scalar_op("add", o, a, e)

        def operand(i, k0, valid_k):
            base, offs, _, trans = parts[i]
            space = MemorySpace.Left if i == 0 else MemorySpace.Right
            win = [mt, kt] if i == 0 else [kt, nt]
            want = (vm, valid_k) if i == 0 else (valid_k, vn)
            pos = [at[0], k0] if i == 0 else [k0, at[1]]
            if trans:          # stored transposed: the window at the swapped position, of the swapped shape
                win, want, pos = win[::-1], want[::-1], pos[::-1]
            if offs is not None:   # a window of a tensor: offsets from the window's origin
                pos = [add(o, a) for o, a in zip(offs, pos)]
            static = tuple(a.value if isinstance(a, N.Const) else None for a in pos)
            t = self.typed_op("load", [base, N.ListExpr(pos, loc=loc)],
                              {"shape": win, "valid": None if tuple(want) == tuple(win) else want,
                               "target_memory": MemorySpace.Mat, "offsets_static": static}, e)
            if trans:
                t = self.typed_op("transpose_view", [t], {}, e)
            return self.typed_op("move", [t], {"target_memory": space}, e)

        if not full:           # all of K in one tile, partly valid
            return self.typed_op("matmul", [operand(0, c(0), k), operand(1, c(0), k)], {}, e)
        first = self.typed_op("matmul", [operand(0, c(0), kt), operand(1, c(0), kt)], {}, e)
        if full == 1 and not rem:
            return first
        self._ks_count = getattr(self, "_ks_count", 0) + 1
        acc_name, k_name = f"__kacc{self._ks_count}", f"__kacc{self._ks_count}_k"
        acc = lambda: N.Var(acc_name, type=first.type, loc=loc)   # noqa: E731
        self.k_accumulators = getattr(self, "k_accumulators", set()) | {acc_name}   # bound by name (parser.assign)
        self.pre.append(N.Assign([acc()], first, loc=loc))
        if full > 1:
            kv = N.Var(k_name, type=INDEX, loc=loc)
            k0 = self.scalar_op("mul", kv, c(kt), e)
            step = self.typed_op("matmul_acc", [acc(), operand(0, k0, kt), operand(1, k0, kt)], {}, e)
            self.pre.append(N.For(kv, c(1), c(full), c(1), [N.Assign([acc()], step, loc=loc)], loc=loc))
        if not rem:
            return acc()
        # the last, partial K tile: loaded as a whole tile whose valid region is the rest of K
        return self.typed_op("matmul_acc", [acc(), operand(0, c(full * kt), rem), operand(1, c(full * kt), rem)],
                             {}, e)

    # ------------------------------------------------------------ results larger than Acc: an M/N grid
    def wants_grid(self, op: OpDef, e) -> bool:
        """``pl.store(pl.matmul(a, b), offsets, out[, shapes][, atomic=])`` on 2-D tensors whose ``[M, N]``
        result does not fit Acc: a grid of output tiles, each its own K loop, stored one by one
        (pypto-parity.md D)."""
        if op.name != "store" or not self.kernel_code or len(e.args) not in (3, 4) or \
                any(kw.arg not in ("shapes", "atomic") for kw in e.keywords):
            return False
        return self.grid_matmul(e.args[0]) is not None

    def grid_matmul(self, mm):
        """(operands, out_dtype, the call, (a_trans, b_trans)) of ``mm`` when it is a ``pl.matmul`` of 2-D
        tensors (or windows) whose result exceeds Acc; else None."""
        flags = ("out_dtype", "a_trans", "b_trans")
        if not isinstance(mm, ast.Call) or getattr(self._resolve(mm.func), "__pto_op__", None) != "matmul" or \
                len(mm.args) != 2 or any(kw.arg not in flags for kw in mm.keywords) or \
                not all(isinstance(a, (ast.Name, ast.Subscript)) for a in mm.args):
            return None
        op = OPS["matmul"]
        nodes = {kw.arg: kw.value for kw in mm.keywords}
        attrs = {name: self.read_attr(op, op.param(name), node) for name, node in nodes.items()}
        trans = (bool(attrs.pop("a_trans", False)), bool(attrs.pop("b_trans", False)))
        # names and windows read without side effects (read again when this is not a grid)
        values = {"lhs": self.expr(mm.args[0]), "rhs": self.expr(mm.args[1])}
        parts = self._k_operands(values, trans)
        if parts is None or values["lhs"].type.dtype != values["rhs"].type.dtype:
            return None
        (_, _, (m, k), _), (_, _, (k2, n), _) = parts
        if k != k2 or not _needs_grid(m, n, values["lhs"].type.dtype) or self.tiled_by_pass(values, parts):
            return None
        return values, self.take_out_dtype(op, attrs, nodes), mm, trans

    def grid_store_call(self, op: OpDef, e) -> N.Expr:
        bound = self.bind(op, e)
        offs = self._index_list(bound["offsets"], "pl.store offsets")
        given = {}
        for name in ("shapes", "atomic"):
            node = bound[name]
            if not isinstance(node, _Given) and not self._is_none(node):
                given[name] = (self.read_attr(op, op.param(name), node), node)
        return self.grid_store(self.grid_matmul(bound["tile"]), offs.items, self.expr(bound["output_tensor"]),
                               bound["output_tensor"], e, **given)

    def grid_window_store(self, target: ast.Subscript, dst: N.Expr, s) -> N.Stmt:
        """``y[r0:r1, c0:c1] = pl.matmul(a, b)`` with a result larger than Acc: the grid stored there."""
        mm = self.grid_matmul(s.value)
        (_, _, (m, _), _), (_, _, (_, n), _) = self._k_operands(mm[0], mm[3])
        offsets, extents, _ = self.window_dims(target, dst, static=False, indices=True)
        if list(extents) != [m, n]:
            raise self.err(f"the window is {list(extents)} but the pl.matmul result is [{m}, {n}]", target)
        self.grid_store(mm, offsets, dst, target.value, s)
        return self.pre.pop()            # the last grid region; the others stay hoisted before it

    def _grid_target(self, target, target_node, shapes, m: int, n: int) -> int:
        """The rank of a grid's output tensor; ``shapes`` (given to pl.store) must be the ``[M, N]``
        result's window in it: ``[1, ..., 1, M, N]``."""
        if not isinstance(target, N.Var) or not isinstance(target.type, TensorType) or \
                (len(target.type.shape) != 2 and shapes is None):
            raise self.err(f"a pl.matmul result larger than Acc is stored tile by tile into a 2-D tensor parameter "
                           f"(or local tensor) by name (an N-D one with shapes=[1, ..., 1, M, N]), but this target "
                           f"is {target.type}", target_node)
        rank = len(target.type.shape)
        if shapes is not None:
            want = [1] * (rank - 2) + [m, n]
            if list(shapes[0]) != want:
                raise self.err(f"pl.store shapes {list(shapes[0])}: a pl.matmul result [{m}, {n}] larger than Acc is "
                               f"stored as its window {want} of the {rank}-D output", shapes[1])
        return rank

    def grid_store(self, mm, offs, target, target_node, e, shapes=None, atomic=None) -> N.Expr:
        """Statements (in ``self.pre``) storing the grid of output tiles of ``mm`` into ``target`` at
        ``offs`` (``atomic=pl.AtomicType.Add``: each tile added there); the value is the target."""
        values, out_dtype, e, trans = mm
        parts = self._k_operands(values, trans)
        (_, _, (m, k), _), (_, _, (_, n), _) = parts
        dt = values["lhs"].type.dtype
        rank = self._grid_target(target, target_node, shapes, m, n)
        mode = atomic[0] if atomic is not None else AtomicType.None_
        mt, nt = _grid_tiles(m, n, dt)
        kt = min(k, (_OPERAND_BYTES // (max(mt, nt) * dt.size)) // 32 * 32)
        if any(trans) and kt % _FRACTAL_ROWS:
            kt = _pad(kt, _FRACTAL_ROWS)     # a transposed window's rows: whole fractals (K's rest is not valid)
        loc = self.loc(e)
        c = lambda v: self._const(v, e)   # noqa: E731
        gm, rm = divmod(m, mt)
        gn, rn = divmod(n, nt)
        rows = [(0, gm, mt)] if gm else []
        rows += [(gm * mt, 1, rm)] if rm else []
        cols = [(0, gn, nt)] if gn else []
        cols += [(gn * nt, 1, rn)] if rn else []
        self._grid_count = getattr(self, "_grid_count", 0) + 1
        for ri, (r0, rc, vm) in enumerate(rows):
            for ci, (c0, cc, vn) in enumerate(cols):
                saved, self.pre = self.pre, []
                iv = N.Var(f"__grid{self._grid_count}_i{ri}{ci}", type=INDEX, loc=loc)
                jv = N.Var(f"__grid{self._grid_count}_j{ri}{ci}", type=INDEX, loc=loc)
                row = c(r0) if rc == 1 else self.scalar_op("mul", iv, c(mt), e)
                col = c(c0) if cc == 1 else self.scalar_op("mul", jv, c(nt), e)
                tile = self._k_loop(parts, (row, col), (mt, nt), (vm, vn), k, kt, e)
                if (vm, vn) != (mt, nt):       # an edge tile: its valid region is what is stored
                    tile = self.typed_op("set_validshape", [tile], {"valid": (vm, vn)}, e)
                tile = self.cast_result(tile, out_dtype, e)
                pos = list(offs[:-2]) + [a if isinstance(o, N.Const) and o.value == 0 else
                                         self.scalar_op("add", o, a, e) for o, a in zip(offs[-2:], (row, col))]
                static = tuple(p.value if isinstance(p, N.Const) else None for p in pos)
                st = self.typed_op("store", [tile, target, N.ListExpr(pos, loc=loc)],
                                   {"offsets_static": static, "atomic": mode,
                                    "shape": None if rank == 2 else [1] * (rank - 2) + [vm, vn]}, e)
                body = self.pre + [N.ExprStmt(st, loc=loc)]
                self.pre = saved
                if cc > 1:
                    body = [N.For(jv, c(0), c(cc), c(1), body, loc=loc)]
                if rc > 1:
                    body = [N.For(iv, c(0), c(rc), c(1), body, loc=loc)]
                self.pre.extend(body)
        return target

    def wants_batch(self, op: OpDef, values: Dict[str, N.Expr]) -> bool:
        """hook: a ``batched`` op call in kernel code with a tensor operand of rank > 2."""
        return op.has("batched") and self.kernel_code and any(
            isinstance(v.type, TensorType) and len(v.type.shape) > 2 for v in values.values())

    def batched_call(self, op: OpDef, values, attrs, nodes, e) -> N.Expr:
        params = [p for p in op.operand_params if p.name in ("lhs", "rhs")]
        parts = [self._batch_operand(values[p.name], nodes[p.name], op) for p in params]
        shapes = [pt[2] for pt in parts]
        batch = self._broadcast_batch(shapes, e, op)
        count = prod(batch)
        if count > _MAX_BATCHES:
            raise self.err(f"pl.{op.name}: {count} batches are unrolled one matmul each; at most {_MAX_BATCHES} "
                           f"fit one kernel call (split the batch over tasks)", e)
        flags = {p.name: bool(p.transposed_by and attrs.get(p.transposed_by)) for p in params}
        mm_attrs = {k: v for k, v in attrs.items() if k not in ("a_trans", "b_trans")}
        windows = [[self._batch_window(pt, idx, nodes[p.name], op, p, flags[p.name]) for pt, p in zip(parts, params)]
                   for idx in itertools.product(*(range(d) for d in batch))]
        if "acc" in values:
            return self._batched_acc(op, values, windows, batch, nodes, e)
        products = [self.typed_op("matmul", ins, mm_attrs, e, nodes) for ins in windows]
        if len(products) == 1:
            return products[0]
        t = products[0].type
        res = self.typed_op("create_tile", [], {"shape": [count * t.rows, t.cols], "dtype": t.dtype,
                                                "target_memory": MemorySpace.Acc}, e)
        for b, p in enumerate(products):
            offs = N.ListExpr([self._const(b * t.rows, e), self._const(0, e)], loc=self.loc(e))
            res = self.typed_op("assemble", [res, p, offs], {"offsets_static": (b * t.rows, 0),
                                                           "atomic": AtomicType.None_}, e)
        return res

    def _batched_acc(self, op: OpDef, values, windows, batch, nodes, e) -> N.Expr:
        """``batch_matmul_acc`` (``matmul_acc`` on rank > 2 tensors): batch ``b``'s product accumulates
        into rows ``b * M .. b * M + M`` of the Acc tile ``[B * M, N]`` (``batch_matmul``'s layout). Each
        band is a ``pl.slice`` of the accumulator (a copy: no aliasing view of an Acc region exists),
        one ``matmul_acc`` with the call's ``init_cond``, and is assembled back in place."""
        acc, cond = values["acc"], ([values["init_cond"]] if "init_cond" in values else [])
        lt, rt = windows[0][0].type, windows[0][1].type
        m, n, count = lt.rows, rt.cols, len(windows)
        want = f"an Acc tile [{count * m}, {n}] (batch_matmul's layout: {count} batch(es) of [{m}, {n}] rows)"
        if lt.cols != rt.rows:
            raise self.err(f"pl.{op.name} requires lhs columns to equal rhs rows, but got {fmt_shape(lt.shape)} and "
                           f"{fmt_shape(rt.shape)} per batch", e)
        c = values.get("init_cond")
        if c is not None and (not isinstance(c.type, ScalarType) or c.type.dtype is not DType.BOOL):
            raise self.err(f"pl.{op.name} init_cond must be a BOOL scalar (such as k == 0), but got {c.type}",
                           nodes["init_cond"])
        t, dt = acc.type, acc_dtype(lt.dtype)
        if not isinstance(t, TileType) or t.memory is not MemorySpace.Acc:
            raise self.err(f"pl.{op.name} accumulates into {want}, such as a pl.batch_matmul result, but acc is "
                           f"{t}", nodes["acc"])
        if t.shape != (count * m, n) or t.dtype is not dt:
            raise self.err(f"pl.{op.name}: the broadcast batch {list(batch)} of [{m}, {n}] {dt!r} products needs "
                           f"{want} of {dt!r}, but acc is {t}", nodes["acc"])
        if count == 1:
            return self.typed_op("matmul_acc", [acc] + windows[0] + cond, {}, e, nodes)
        loc = self.loc(e)
        self._bacc_count = getattr(self, "_bacc_count", 0) + 1
        name = f"__bacc{self._bacc_count}"
        for b, ins in enumerate(windows):
            if not isinstance(acc, N.Var):      # each band reads the accumulator written so far: one value
                self.pre.append(N.Assign([N.Var(name, type=t, loc=loc)], acc, loc=loc))
                acc = N.Var(name, type=t, loc=loc)
            offs = N.ListExpr([self._const(b * m, e), self._const(0, e)], loc=loc)
            band = self.typed_op("slice", [acc, offs], {"shape": [m, n], "offsets_static": (b * m, 0)}, e)
            part = self.typed_op("matmul_acc", [band] + ins + cond, {}, e, nodes)
            offs = N.ListExpr([self._const(b * m, e), self._const(0, e)], loc=loc)
            acc = self.typed_op("assemble", [acc, part, offs], {"offsets_static": (b * m, 0),
                                                             "atomic": AtomicType.None_}, e)
        return acc

    def _batch_operand(self, v: N.Expr, node, op: OpDef):
        """(base tensor or a 2-D tile, base offsets, batch dims) of one operand."""
        if not isinstance(v.type, TensorType):
            return (v, None, ())
        if isinstance(v, N.OpCall) and v.op == "tensor_view":
            base, offs = v.args[0], list(v.args[1].items)
        else:
            base, offs = v, [self._const(0, node) for _ in v.type.shape]
        shape = list(v.type.shape)
        if not all(isinstance(d, int) for d in shape):
            raise self.err(f"pl.{op.name} on a batch needs tensors of static shape, but this operand is {v.type}",
                           node)
        if len(shape) < 2:
            raise self.err(f"pl.{op.name} needs operands of rank 2 or more, but this one is {v.type}", node)
        return (base, offs, tuple(shape[:-2]), tuple(shape[-2:]))

    def _broadcast_batch(self, shapes, e, op: OpDef):
        out = broadcast_batch(*shapes)
        if out is None:
            raise self.err(f"pl.{op.name}: batch dimensions {' and '.join(str(list(s)) for s in shapes)} do not "
                           f"broadcast (each must match or be 1)", e)
        return out

    def _batch_window(self, part, idx, node, op: OpDef, param, transposed: bool) -> N.Expr:
        base, offs, batch = part[0], part[1], part[2]
        if offs is None:
            return self.operand_tile(base, node, op, param)      # a 2-D tile: the same for every batch
        own = idx[len(idx) - len(batch):] if batch else ()
        new = []
        for d, o in enumerate(offs):
            if d < len(batch):
                i = own[d] if batch[d] != 1 else 0
                new.append(o if i == 0 else self.scalar_op("add", o, self._const(i, node), node))
            else:
                new.append(o)
        shape = [1] * len(batch) + list(part[3])
        window = self.typed_op("tensor_view", [base, N.ListExpr(new, loc=self.loc(node))], {"shape": shape}, node)
        if transposed:
            return self.transposed_operand(window, node, op, param)
        return self.as_tile(window, node, op.name, param.space)


class L1Mixin:
    """``pl.paged_gather`` (the op table's ``front=`` method): an L1 (Mat) or Vec tile filled row by row
    from a paged pool by a loop of gathers (``pl.create_l1`` / ``pl.gather_row`` are composites of the
    op table, written out by ExpandComposites)."""

    def _front_args(self, op: OpDef, e):
        bound = self.bind(op, e)
        out = {}
        for p in op.params:
            node = bound[p.name]
            if isinstance(node, _Given) or (not p.required and self._is_none(node)):
                out[p.name] = p.default
            elif p.is_operand:
                out[p.name] = self.read_operand(op, p, node)
            else:
                out[p.name] = self.read_attr(op, p, node)
        return out, bound

    def paged_gather_call(self, op: OpDef, e) -> N.Expr:
        """``pl.paged_gather(src, indices, block_table, block_size, size, max_indices, ...)``: a loop of
        gathers, row ``k`` of the result being row ``block_table[idx // block_size] * block_size +
        idx % block_size`` of ``src`` (columns ``col_off .. col_off + size``), ``idx = indices[k]``;
        ``is_trans=True`` writes row ``k`` as column ``k`` of a transposed (ZN) ``[size, max_indices]``."""
        args, bound = self._front_args(op, e)
        src, indices, table = args["src"], args["indices"], args["block_table"]
        for name, t in (("src", src), ("indices", indices), ("block_table", table)):
            if not isinstance(t.type, TensorType) or not isinstance(t, N.Var):
                raise self.err(f"pl.paged_gather {name} must be a tensor parameter, but got {t.type}", bound[name])
        for name in ("indices", "block_table"):
            t = args[name].type
            if t.dtype.name not in ("INT32", "INT64") or (len(t.shape) == 2 and t.shape[0] != 1) or len(t.shape) > 2:
                raise self.err(f"pl.paged_gather {name} must be one row of INT32 (or INT64) entries, [n] or [1, n], "
                               f"but got {t}", bound[name])
        if len(src.type.shape) != 2:
            raise self.err(f"pl.paged_gather src must be a 2-D pool [rows, cols], but got {src.type}", bound["src"])
        space = args["space"]
        if space not in (MemorySpace.Mat, MemorySpace.Vec):
            raise self.err(f"pl.paged_gather space must be pl.Mem.Mat or pl.Mem.Vec, but got {space!r}", bound["space"])
        if args["is_trans"] and space is not MemorySpace.Mat:
            raise self.err("pl.paged_gather is_trans=True writes the transposed (ZN) Mat layout; it needs "
                           "space=pl.Mem.Mat", bound["is_trans"])
        # is_b_matrix=True says the result feeds a matmul as its B operand: pypto's lowering reads it for
        # nothing, and here too the gathered Mat tile is the same either way (pl.move takes it to Right)
        for name in ("block_size", "size", "max_indices"):
            if args[name] <= 0:
                raise self.err(f"pl.paged_gather {name} must be positive, but got {args[name]}", bound[name])
        n, size, bs, col = args["max_indices"], args["size"], args["block_size"], args["col_off"]
        trans = bool(args["is_trans"])
        self._pg_count = getattr(self, "_pg_count", 0) + 1
        acc_name, i_name = f"__paged{self._pg_count}", f"__paged{self._pg_count}_k"
        shape = [size, n] if trans else [n, size]
        loc = self.loc(e)
        init = self.typed_op("create_tile", [], {"shape": shape, "dtype": src.type.dtype, "target_memory": space,
                                                 "transpose": True if trans else None, "flat_layout": None}, e)
        acc = N.Var(acc_name, type=init.type, loc=loc)
        self.pre.append(N.Assign([acc], init, loc=loc))
        c = lambda v: self._const(v, e)   # noqa: E731

        def as_index(x):
            return x if x.type == INDEX else self.typed_op("scalar.cast", [x], {"target_type": DType.INDEX}, e)

        def gather(k):
            """acc with gathered row k written (the result of one step)."""
            idx = as_index(self.typed_op("load_scalar", [indices, k], {}, e))
            blk = as_index(self.typed_op("load_scalar", [table, self.scalar_op("floordiv", idx, c(bs), e)], {}, e))
            phys = self.scalar_op("add", self.scalar_op("mul", blk, c(bs), e), self.scalar_op("mod", idx, c(bs), e),
                                  e)
            window = self.typed_op("load", [src, N.ListExpr([phys, c(col)], loc=loc)],
                                   {"shape": [_FRACTAL_ROWS if trans else 1, size], "valid": (1, size) if trans
                                    else None, "target_memory": space, "offsets_static": (None, col)}, e)
            if trans:
                window = self.typed_op("transpose_view", [window], {}, e)
            kc = k.value if isinstance(k, N.Const) else None
            dst, static = ([c(0), k], (0, kc)) if trans else ([k, c(0)], (kc, 0))
            return self.typed_op("assemble", [N.Var(acc_name, type=init.type, loc=loc), window,
                                              N.ListExpr(dst, loc=loc)],
                                 {"offsets_static": static, "atomic": AtomicType.None_}, e)

        if n > 1:       # rows 0 .. n-2 in a loop; the last one is the value of the call
            k = N.Var(i_name, type=INDEX, loc=loc)
            body = [N.Assign([N.Var(acc_name, type=init.type, loc=loc)], gather(k), loc=loc)]
            self.pre.append(N.For(k, c(0), c(n - 1), c(1), body, loc=loc))
        return gather(c(n - 1))
