"""AutoTileMatmulL0: a matmul whose operands or result do not fit the cube's L0 buffers is computed
as L0 tiles (pypto's pass of that name; docs/passes.md).

Works on kernel code before Flatten and SSA.  A ``matmul`` / ``matmul_acc`` / ``matmul_bias`` whose
Left and Right operands are static 2-D Mat tiles, or whole moves of them written into the call by the
front end (``pl.matmul`` of tensors or Mat tiles), is rewritten when, on the target of the pass
context, the Left operand exceeds Left (L0A), the Right one Right (L0B) or the result Acc (L0C).  An
operand the program moved into Left / Right itself is its own L0 schedule and is left alone, as pypto
does:

* ``(m, n, k)`` is chosen by ``l0_tile_chooser.choose_l0_tile`` with the target's capacities (the
  bias row caps ``n`` by the Bias buffer);
* the result fits Acc whole (``m == M``, ``n == N``): a K loop in place — the first K block's
  ``matmul`` (``matmul_bias``: the bias is added once), ``matmul_acc`` of the other full blocks in a
  loop, a peeled ``matmul_acc`` of a last partial block; each block's operands are
  ``extract``\\ ed from the Mat tiles into Left / Right.  ``matmul_acc`` starts from its accumulator;
* the result does not fit Acc: only when its one use is a 2-D ``store`` (direct store to global
  memory), the store becomes a grid of ``[m, n]`` output tiles, loops over the interior and peeled
  partial tiles at the M / N boundaries, each a K loop as above stored at its offset.  A biased
  matmul reloads each output tile's ``[1, n]`` bias window from the tensor its Mat row was loaded
  from, and moves it to Bias.

An oversized result used otherwise than by one store (or an oversized ``matmul_acc`` accumulator) is
a located error here.  What it leaves alone (the buffers' checks in PlanMemory then say what does
not fit): operands the program moved to Left / Right itself, Mat tiles with a valid region or a
transposed layout, extents that are not multiples of 16.
"""
from __future__ import annotations

import itertools
from typing import Dict, List, Optional, Set, Tuple

from ..errors import CompileError
from ..ir import nodes as N
from ..ir.ops import infer
from ..ir.ops.view import default_layout
from ..ir.types import INDEX, AtomicType, DType, MemorySpace, TupleType, TensorType, TileType, fmt_shape
from . import split_k_grid
from .matmul_ops import (ADD, ASSEMBLE, CAST, CREATE_TILE, EXTRACT, LOAD, MOVE, MUL, STORE, TRANSPOSE_VIEW, accumulates,
                         acc_form, has_bias, init_cond_given, is_matmul, operand_index)
from .l0_tile_chooser import L0TileConfig, choose_l0_tile

_KERNELS = (N.FunctionType.InCore, N.FunctionType.AIC)
_ALIGN = 16          # the cube's fractal along M and N (and K for 2-byte operands)
_FRACTAL_BYTES = 32  # a fractal row of Left / Right: K elements of 32 bytes


def auto_tile_matmul_l0(prog: N.Program, ctx) -> N.Program:
    for fn in prog.functions.values():
        if fn.kind in _KERNELS:
            _Tiler(fn, ctx.target).run()
    return prog


def _static_2d(t) -> bool:
    return isinstance(t, TileType) and len(t.shape) == 2 and all(isinstance(d, int) for d in t.shape) \
        and not t.valid


class _Tiler:
    def __init__(self, fn: N.Function, target):
        self.fn = fn
        self.target = target
        self.defs: Dict[str, N.Assign] = {}
        self.uses: Dict[str, int] = {}
        taken: Set[str] = {p.name for p in fn.params}
        for s in N.walk_stmts(fn.body):
            if isinstance(s, N.Assign):
                for t in s.targets:
                    taken.add(t.name)
                    # a name assigned twice is not a single value: never looked through
                    self.defs[t.name] = None if t.name in self.defs else s
            for e in N.stmt_exprs(s):
                for sub in N.walk_expr(e):
                    if isinstance(sub, N.Var):
                        self.uses[sub.name] = self.uses.get(sub.name, 0) + 1
        self.taken = taken
        self.counter = itertools.count()
        self.dead: Set[int] = set()

    def fresh(self, base: str) -> str:
        while True:
            name = f"__l0{base}{next(self.counter)}"
            if name not in self.taken:
                self.taken.add(name)
                return name

    def run(self) -> None:
        self.fn.body = self.body(self.fn.body)

    # ------------------------------------------------------------ statements
    def body(self, stmts: List[N.Stmt]) -> List[N.Stmt]:
        stmts = self.split_k_grids(self.split_batch_stores(stmts))
        pending: Dict[str, Tuple[dict, N.Assign]] = {}     # oversized result -> its plan, stored later
        out: List[N.Stmt] = []
        for i, s in enumerate(stmts):
            self.rest = stmts[i + 1:]
            for sub in N.child_bodies(s):
                sub[:] = self.body(sub)
            if isinstance(s, N.Assign) and len(s.targets) == 1 and isinstance(s.value, N.OpCall):
                plan = self.plan(s.value, s, s.targets[0])
                if plan is not None:
                    out.extend(plan["binds"])
                    if plan["fits_acc"]:
                        zero = self.const(0, s.loc)
                        out.extend(self.k_loop(plan, s.targets[0], (zero, zero), plan["M"], plan["N"], s))
                    else:
                        pending[s.targets[0].name] = (plan, s)
                    continue
            nested = self.stored_matmul(s)
            if nested is not None:
                out.extend(nested)
                continue
            store = self.grid_store_of(s, pending)
            if store is not None:
                out.extend(store)
                continue
            out.append(s)
        return [s for s in out if id(s) not in self.dead]

    def split_batch_stores(self, stmts: List[N.Stmt]) -> List[N.Stmt]:
        """``x = assemble(...assemble(create_tile(Acc), p0, [0, 0])..., pB, [B * m, 0])`` (a batched
        matmul's products stacked into one Acc tile) larger than Acc, or with a product larger than L0,
        and stored once, later in the same list: each product stored at its own place instead, where the product is tiled like any stored
        one.  The stored bytes are the same; the whole tile never exists.  A stack that stays (it fits
        Acc, or is read otherwise) gets its products named first, each then tiled in place."""
        out = list(stmts)
        for s in stmts:
            parts = self.stacked_products(s)
            if parts is None:
                continue
            x = s.targets[0]
            store = next((st for st in out[out.index(s) + 1:] if self.stores(st, x.name)), None)
            stores = None
            if store is not None and self.uses.get(x.name) == 1 and (
                    s.value.type.nbytes > self.target.capacity("acc") or any(self.beyond_l0(p) for _, p in parts)):
                stores = self.product_stores(parts, store.value if isinstance(store, N.Assign) else store.expr, store)
            if stores is None:
                # the stack stays: each product is named before it, so that one larger than L0 is tiled in place
                at = out.index(s)
                out[at:at] = self.named_products(s)
                continue
            out.remove(s)
            at = out.index(store)
            out[at:at + 1] = stores
        return out

    def beyond_l0(self, p: N.OpCall) -> bool:
        """Whether a product's operands exceed Left / Right or its result Acc on the target."""
        cap = self.target.capacity
        a = _mat_type(p.args[operand_index(p.op, MemorySpace.Left)])
        b = _mat_type(p.args[operand_index(p.op, MemorySpace.Right)])
        return a.nbytes > cap("left") or b.nbytes > cap("right") or p.type.nbytes > cap("acc")

    def named_products(self, s: N.Assign) -> List[N.Stmt]:
        """A statement binding each product of the stack ``s`` builds, which then reads the names."""
        binds: List[N.Stmt] = []
        e = s.value
        while e.op == ASSEMBLE:
            p = e.args[1]
            var = N.Var(self.fresh("mm"), type=p.type, loc=p.loc)
            binds.append(N.Assign([var], p, loc=s.loc))
            e.args[1] = N.Var(var.name, type=p.type, loc=p.loc)
            self.uses[var.name] = 1
            e = e.args[0]
        return binds[::-1]

    def stacked_products(self, s: N.Stmt) -> Optional[List[Tuple[int, N.OpCall]]]:
        """[(first row, product)] of a statement binding a stack of plain products (Acc rows)."""
        if not (isinstance(s, N.Assign) and len(s.targets) == 1 and isinstance(s.value, N.OpCall)):
            return None
        t = s.value.type
        if not isinstance(t, TileType) or t.memory is not MemorySpace.Acc:
            return None
        parts, e = [], s.value
        while isinstance(e, N.OpCall) and e.op == ASSEMBLE:
            row, col = e.args[2].items
            p = e.args[1]
            if not (isinstance(row, N.Const) and isinstance(col, N.Const) and col.value == 0 and
                    isinstance(p, N.OpCall) and is_matmul(p.op) and not accumulates(p.op) and not p.type.valid
                    and p.type.cols == t.cols):
                return None
            parts.append((row.value, p))
            e = e.args[0]
        if not (isinstance(e, N.OpCall) and e.op == CREATE_TILE and not e.args) or not parts:
            return None
        parts.reverse()
        rows = [r for r, _ in parts]
        m = parts[0][1].type.rows
        if rows != [b * m for b in range(len(parts))] or len(parts) * m != t.rows or \
                any(p.type.rows != m for _, p in parts):
            return None
        return parts

    @staticmethod
    def stores(st: N.Stmt, name: str) -> bool:
        expr = st.value if isinstance(st, N.Assign) else st.expr if isinstance(st, N.ExprStmt) else None
        return isinstance(expr, N.OpCall) and expr.op == STORE and isinstance(expr.args[0], N.Var) and \
            expr.args[0].name == name

    def product_stores(self, parts, store: N.OpCall, s: N.Stmt) -> Optional[List[N.Stmt]]:
        """One store per product at its rows' place in the store's tensor: a 2-D tensor's rows, or the
        batch axis of a rank-3 one whose matrices are the products' [m, N] (None: another layout)."""
        dst, offs = store.args[1], list(store.args[2].items)
        m, n = parts[0][1].type.shape
        rank = len(dst.type.shape)
        shape = store.attrs.get("shape")
        if rank == 3:
            if shape is not None and list(shape) != [len(parts), m, n]:
                return None
        elif rank != 2 or shape is not None:
            return None
        loc = store.loc or s.loc
        out: List[N.Stmt] = []
        for b, (_, p) in enumerate(parts):
            pos = list(offs)
            step = self.const(b if rank == 3 else b * m, loc)
            pos[0] = self.scalar(ADD, pos[0], step, out, loc)
            attrs = dict(store.attrs)
            attrs["offsets_static"] = tuple(x.value if isinstance(x, N.Const) else None for x in pos)
            attrs["shape"] = [1, m, n] if rank == 3 else None
            st = N.OpCall(STORE, [p, dst, N.ListExpr(pos, type=store.args[2].type, loc=loc)], attrs,
                          type=store.type, loc=loc)
            out.append(N.Assign(list(s.targets), st, loc=s.loc) if isinstance(s, N.Assign) else
                       N.ExprStmt(st, loc=s.loc))
        return out

    def split_k_grids(self, stmts: List[N.Stmt]) -> List[N.Stmt]:
        """Each canonical split-K chain (``split_k_grid.py``) whose one-block output the chooser cannot
        hold whole: a grid of output tiles, each with its own accumulator and copy of the K loop."""
        out = list(stmts)
        i = 0
        while i < len(out):
            chain = split_k_grid.match(out, i, self.fn.body, self.is_mat)
            plan = self.chain_plan(chain) if chain is not None else None
            if plan is None:
                i += 1
                continue
            store = chain.store
            expr = store.value if isinstance(store, N.Assign) else store.expr

            def compute(sub, row, col, vm, vn, body, chain=chain):
                body.extend(split_k_grid.tile_loop(chain, sub.name, row, col, vm, vn))
            grid = self.direct_store(plan, expr, store, None, compute)
            at = out.index(chain.loop)
            out = [s for s in out[:at] if s is not chain.create] + grid + \
                [s for s in out[at + 1:] if s is not store]
            i = at + len(grid) - 1
        return out

    def chain_plan(self, chain) -> Optional[dict]:
        """The grid plan of a chain: None when one K block's output fits the L0 buffers whole."""
        call = chain.calls[0]
        a_t = _mat_type(call.args[operand_index(call.op, MemorySpace.Left)])
        b_t = _mat_type(call.args[operand_index(call.op, MemorySpace.Right)])
        (M, K), (_, N_) = a_t.shape, b_t.shape
        if (M, N_) != chain.shape or M % _ALIGN or N_ % _ALIGN:
            return None
        r = self.choose(M, N_, K, a_t.dtype.size, call.type.dtype.size, False)
        if r is None or (r.m == M and r.n == N_):
            return None
        return {"M": M, "N": N_, "m": r.m, "n": r.n, "bias": None, "align_n": _align_n(a_t.dtype.size)}

    def stored_matmul(self, s: N.Stmt) -> Optional[List[N.Stmt]]:
        """``pl.store(pl.matmul(a, b), offsets, out)``: the product computed into a name first (a grid
        stored tile by tile when it exceeds Acc)."""
        expr = s.value if isinstance(s, N.Assign) else s.expr if isinstance(s, N.ExprStmt) else None
        if not isinstance(expr, N.OpCall) or expr.op != STORE or not isinstance(expr.args[0], N.OpCall):
            return None
        result = N.Var(self.fresh("mm"), type=expr.args[0].type, loc=expr.args[0].loc)
        mm = N.Assign([result], expr.args[0], loc=s.loc)
        plan = self.plan(expr.args[0], mm, result, stored=True)
        if plan is None:
            return None
        out = list(plan["binds"])
        store = N.OpCall(STORE, [result] + list(expr.args[1:]), dict(expr.attrs), type=expr.type, loc=expr.loc)
        if not plan["fits_acc"]:
            return out + self.direct_store(plan, store, s, mm)
        zero = self.const(0, s.loc)
        out.extend(self.k_loop(plan, result, (zero, zero), plan["M"], plan["N"], s))
        out.append(N.Assign(list(s.targets), store, loc=s.loc) if isinstance(s, N.Assign) else N.ExprStmt(store, loc=s.loc))
        return out

    # ------------------------------------------------------------ what to tile
    def operand(self, v: N.Expr, space: MemorySpace, binds: List[N.Stmt]) -> Optional[N.Var]:
        """The static 2-D Mat tile behind the ``space`` operand ``v``: ``v`` itself (a Mat operand that
        InferTileMemorySpace moves), or the Mat tile of a whole move the front end wrote into the call
        (``pl.matmul`` of tensors or Mat tiles; a load in it is bound to a name in ``binds``).  A tile
        the program moved into Left / Right itself is its own L0 schedule: None."""
        if isinstance(v, N.Var) and self.is_mat(v.type):
            return v
        if not isinstance(v, N.OpCall) or v.op != MOVE or v.attrs.get("target_memory") is not space or \
                v.attrs.get("blayout") is not None or v.attrs.get("slayout") is not None:
            return None
        src = v.args[0]
        if space is MemorySpace.Right and isinstance(src, N.OpCall) and src.op == TRANSPOSE_VIEW:
            # b_trans: the Mat tile read through its transpose (ZN, Right's own layout), whose [k, n]
            # blocks are extracted as a natural one's are
            inner = self.mat_source(src.args[0], binds)
            if inner is None:
                return None
            var = N.Var(self.fresh("t"), type=src.type, loc=src.loc)
            binds.append(N.Assign([var], N.OpCall(TRANSPOSE_VIEW, [inner], dict(src.attrs), type=src.type,
                                                  loc=src.loc), loc=src.loc))
            return var
        return self.mat_source(src, binds)

    def mat_source(self, src: N.Expr, binds: List[N.Stmt]) -> Optional[N.Var]:
        """A static 2-D Mat tile of the default layout: a name, or a load bound to one in ``binds``."""
        if isinstance(src, N.Var) and self.is_mat(src.type):
            return src
        if isinstance(src, N.OpCall) and src.op == LOAD and self.is_mat(src.type) and \
                all(not isinstance(a, N.OpCall) for a in src.args):
            var = N.Var(self.fresh("m"), type=src.type, loc=src.loc)
            binds.append(N.Assign([var], src, loc=src.loc))
            return var
        return None

    @staticmethod
    def is_mat(t) -> bool:
        return _static_2d(t) and t.memory is MemorySpace.Mat and \
            (t.layout is None or t.layout == _default_mat_layout(t))

    def plan(self, e: N.OpCall, s: N.Stmt, result: N.Var, stored: bool = False) -> Optional[dict]:
        if not is_matmul(e.op):
            return None
        if init_cond_given(e):
            return None                       # init_cond: left as written
        if any(e.attrs.get(f) for f in ("a_trans", "b_trans", "c_matrix_nz")):
            return None
        binds: List[N.Stmt] = []
        a = self.operand(e.args[operand_index(e.op, MemorySpace.Left)], MemorySpace.Left, binds)
        b = self.operand(e.args[operand_index(e.op, MemorySpace.Right)], MemorySpace.Right, binds)
        if a is None or b is None:
            return None
        (M, K), (K2, N_) = a.type.shape, b.type.shape
        if K != K2 or a.type.dtype != b.type.dtype:
            return None
        out_t = e.type
        if not isinstance(out_t, TileType) or out_t.valid:
            return None
        cap = self.target.capacity
        ba, bc = a.type.dtype.size, out_t.dtype.size
        acc_bytes = _up(M, _ALIGN) * _up(N_, _ALIGN) * bc
        oversized = (_up(M, _ALIGN) * K * ba > cap("left") or K * _up(N_, _ALIGN) * ba > cap("right")
                     or acc_bytes > cap("acc"))
        if not oversized:
            return None
        if M % _ALIGN or N_ % _ALIGN or K % _align_k(ba):
            return None                       # the tiles' edges must fall on fractals
        bias = None
        if has_bias(e.op):
            bias = self.bias_source(e.args[operand_index(e.op, MemorySpace.Bias)], binds)
            if bias is None:
                return None
        max_n = 0
        if has_bias(e.op):
            max_n = max(_ALIGN, cap("bias") // bc // _ALIGN * _ALIGN)
            if bias[0] == "whole" and max_n < N_:
                return None                   # a Bias-resident row cannot be cut into windows
        r = self.choose(M, N_, K, ba, bc, accumulates(e.op), max_n)
        if r is None:
            return None
        fits = r.m == M and r.n == N_
        plan = {"op": e.op, "call": e, "a": a, "b": b, "bias": bias, "M": M, "N": N_, "K": K, "align_n": _align_n(ba),
                "m": r.m, "n": r.n, "k": r.k, "fits_acc": fits, "acc_t": out_t, "grid_store": None, "binds": binds}
        if not fits:
            if not accumulates(e.op):
                plan["grid_store"] = stored or self.single_store(result) or self.scratch_cast(result, M, N_)
            if plan["grid_store"] is None:
                why = (f"needs {acc_bytes} bytes, more than Acc holds on {self.target.platform} ({cap('acc')} bytes)"
                       if acc_bytes > cap("acc") else
                       f"is computed in [{r.m}, {r.n}] output tiles on {self.target.platform}: a K block of "
                       f"{'its rows' if r.m < M else 'its columns'} does not fit "
                       f"{'Left' if r.m < M else 'Right'} ({cap('left' if r.m < M else 'right')} bytes)")
                raise CompileError(
                    f"the {fmt_shape((M, N_))} {out_t.dtype!r} result of this {e.op} {why}; it is computed as a grid of "
                    f"output tiles only when its one use is a store to a tensor (pl.store(c, offsets, out), "
                    f"pl.assemble(out, c, offsets) or out[...] = c, in the same block), or a "
                    f"pl.cast(c, pl.BF16 or pl.FP16, mode=\"rint\") read only by matmuls (kept in Mat)"
                    + ("" if not accumulates(e.op) else "; a matmul_acc accumulator must fit Acc whole"), e.loc or s.loc)
        if bias is not None and bias[0] == "window" and bias[2] is not None:
            self.dead.add(id(self.defs[bias[2].name]))         # its full-row load: each tile loads its window
        return plan

    def choose(self, M: int, N_: int, K: int, ba: int, bc: int, c_read: bool, max_n: int = 0):
        """The chooser's tile for an [M, K] @ [K, N] product on the target (None: no legal tile)."""
        cap = self.target.capacity
        align_k, align_n = _align_k(ba), _align_n(ba)
        if N_ < align_n:
            return None
        cfg = L0TileConfig(M=M, N=N_, K=K, l0a_bytes=cap("left"), l0b_bytes=cap("right"), l0c_bytes=cap("acc"),
                           bytes_a=ba, bytes_b=ba, bytes_c=bc, c_read=c_read, allow_k_boundary=True,
                           mad_fp32_passes=self.target.cube_fp32_passes, align_k=align_k, min_k=align_k,
                           align_n=align_n, min_n=align_n, max_n=max_n)
        try:
            return choose_l0_tile(cfg)
        except ValueError:
            return None

    def bias_source(self, v: N.Expr, binds: List[N.Stmt]):
        """("window", the load of its Mat row, the name that load is bound to or None) of a matmul_bias
        bias row loaded from a 2-D tensor and used by this op only (moved to Bias in the call or
        not), or ("whole", the row, bound to a name)."""
        row = v.args[0] if isinstance(v, N.OpCall) and v.op == MOVE and \
            v.attrs.get("target_memory") is MemorySpace.Bias else v
        if not _static_2d(v.type) or v.type.shape[0] != 1:
            return None
        if isinstance(row, N.OpCall) and row.op == LOAD and self.window_load(row):
            return ("window", row, None)
        if isinstance(row, N.Var) and self.is_mat(row.type) and self.uses.get(row.name) == 1:
            d = self.defs.get(row.name)
            if d is not None and isinstance(d.value, N.OpCall) and d.value.op == LOAD and self.window_load(d.value):
                return ("window", d.value, row)
        if isinstance(v, N.Var):
            return ("whole", v)
        var = N.Var(self.fresh("bias"), type=v.type, loc=v.loc)
        binds.append(N.Assign([var], v, loc=v.loc))
        return ("whole", var)

    @staticmethod
    def window_load(load: N.OpCall) -> bool:
        return not load.attrs.get("valid") and isinstance(load.args[0].type, TensorType) and \
            len(load.args[0].type.shape) == 2 and isinstance(load.args[1], N.ListExpr) and \
            all(not isinstance(a, N.OpCall) for a in load.args[1].items)

    def single_store(self, c: N.Var):
        """Whether the one use of ``c`` is a 2-D store later in the same statement list."""
        if self.uses.get(c.name) != 1 or self.defs.get(c.name) is None:
            return None
        for s in self.rest:
            expr = s.value if isinstance(s, N.Assign) else s.expr if isinstance(s, N.ExprStmt) else None
            if isinstance(expr, N.OpCall) and expr.op == STORE and isinstance(expr.args[0], N.Var) and \
                    expr.args[0].name == c.name:
                return c.name
        return None

    def scratch_cast(self, c: N.Var, M: int, N_: int):
        """Whether the one use of ``c`` is a later ``cast`` to BF16/FP16 rounding to nearest even (what
        the Acc->Mat insert does) whose result only matmuls read and whose [M, N] fits Mat."""
        if self.uses.get(c.name) != 1 or self.defs.get(c.name) is None:
            return None
        for st in self.rest:
            if isinstance(st, N.Assign) and len(st.targets) == 1 and isinstance(st.value, N.OpCall) and \
                    st.value.op == CAST and isinstance(st.value.args[0], N.Var) and st.value.args[0].name == c.name:
                want = st.value.attrs.get("target_type")
                cb = st.targets[0].name
                if want not in (DType.BF16, DType.FP16) or str(st.value.attrs.get("mode")) != "rint" or \
                        self.defs.get(cb) is None or M * N_ * want.size > self.target.capacity("mat"):
                    return None
                readers = [e for _, e in N.iter_exprs(self.fn.body) if isinstance(e, N.OpCall) and
                           any(isinstance(a, N.Var) and a.name == cb for a in e.args)]
                if len(readers) != self.uses.get(cb) or not all(
                        is_matmul(r.op) or
                        (r.op == MOVE and r.attrs.get("target_memory") in (MemorySpace.Left, MemorySpace.Right))
                        for r in readers):
                    return None
                return c.name
        return None

    def grid_store_of(self, s: N.Stmt, pending) -> Optional[List[N.Stmt]]:
        """At the one use of a pending oversized result: its grid, placed by that use."""
        expr = s.value if isinstance(s, N.Assign) else s.expr if isinstance(s, N.ExprStmt) else None
        if not isinstance(expr, N.OpCall) or expr.op not in (STORE, CAST) or not isinstance(expr.args[0], N.Var) \
                or expr.args[0].name not in pending:
            return None
        plan, mm = pending.pop(expr.args[0].name)
        if expr.op == CAST:
            return self.mat_scratch(plan, s, mm)
        return self.direct_store(plan, expr, s, mm)

    # ------------------------------------------------------------ building
    def const(self, v: int, loc) -> N.Const:
        return N.Const(v, type=INDEX, loc=loc)

    def scalar(self, op: str, a: N.Expr, b: N.Expr, out: List[N.Stmt], loc) -> N.Expr:
        if op == ADD and isinstance(b, N.Const) and b.value == 0:
            return a
        if op == ADD and isinstance(a, N.Const) and a.value == 0:
            return b
        if isinstance(a, N.Const) and isinstance(b, N.Const):
            return self.const(a.value * b.value if op == MUL else a.value + b.value, loc)
        v = N.Var(self.fresh("i"), type=INDEX, loc=loc)
        out.append(N.Assign([v], N.OpCall(op, [a, b], {}, type=infer(op, [a.type, b.type], {}), loc=loc), loc=loc))
        return v

    def call(self, op: str, args, attrs, out: List[N.Stmt], loc, name: Optional[N.Var] = None) -> N.Var:
        t = infer(op, [a.type for a in args], attrs)
        v = N.Var(name.name if name is not None else self.fresh("t"), type=t, loc=loc)
        out.append(N.Assign([v], N.OpCall(op, list(args), attrs, type=t, loc=loc), loc=loc))
        return v

    def extract(self, src: N.Var, row: N.Expr, col: N.Expr, shape, space, out, loc) -> N.Var:
        static = lambda x: x.value if isinstance(x, N.Const) else None   # noqa: E731
        return self.call(EXTRACT, [src, row, col], {"shape": list(shape), "target_memory": space,
                                                    "index_row_static": static(row),
                                                    "index_col_static": static(col)}, out, loc)

    def k_loop(self, plan, result: N.Var, at, mm: int, nn: int, s: N.Stmt, bias_tile=None) -> List[N.Stmt]:
        """Statements computing the ``[mm, nn]`` output tile at ``at`` = (row, col) of the plan's matmul
        into ``result``, over K blocks of the plan's ``k``."""
        loc = s.loc
        out: List[N.Stmt] = []
        K, k = plan["K"], plan["k"]
        full, rem = divmod(K, k)
        acc = N.Var(result.name, type=None, loc=loc)
        e = plan["call"]

        def block(k0: N.Expr, width: int, body: List[N.Stmt]):
            left = self.extract(plan["a"], at[0], k0, (mm, width), MemorySpace.Left, body, loc)
            right = self.extract(plan["b"], k0, at[1], (width, nn), MemorySpace.Right, body, loc)
            return left, right

        first_w = k if full else rem
        left, right = block(self.const(0, loc), first_w, out)
        # the first block: the op as written, on this block's operands (a bias added once, here)
        args = list(e.args)
        args[operand_index(e.op, MemorySpace.Left)] = left
        args[operand_index(e.op, MemorySpace.Right)] = right
        if has_bias(e.op):
            args[operand_index(e.op, MemorySpace.Bias)] = bias_tile if bias_tile is not None else plan["bias"][1]
        first = self.call(e.op, args, dict(e.attrs), out, loc, name=acc)
        acc = N.Var(result.name, type=first.type, loc=loc)
        more = acc_form(e.op)                  # the other blocks add their products into it
        if full > 1:
            kv = N.Var(self.fresh("k"), type=INDEX, loc=loc)
            body: List[N.Stmt] = []
            k0 = self.scalar(MUL, kv, self.const(k, loc), body, loc)
            left, right = block(k0, k, body)
            self.call(more, self.acc_args(more, acc, left, right), {}, body, loc, name=acc)
            out.append(N.For(kv, self.const(1, loc), self.const(full, loc), self.const(1, loc), body, loc=loc))
        if full and rem:
            left, right = block(self.const(full * k, loc), rem, out)
            self.call(more, self.acc_args(more, acc, left, right), {}, out, loc, name=acc)
        return out

    @staticmethod
    def acc_args(op: str, acc: N.Var, left: N.Var, right: N.Var) -> List[N.Expr]:
        args: List[N.Expr] = [acc, None, None]
        args[operand_index(op, MemorySpace.Left)] = left
        args[operand_index(op, MemorySpace.Right)] = right
        return args

    def grid(self, plan, mm_stmt: N.Assign, loc, place, compute=None) -> List[N.Stmt]:
        """The oversized result as a grid of output tiles: loops over the interior tiles, the partial
        ones at the M / N edges peeled; ``place(tile, row, col, vm, vn, body)`` appends what is done
        with each computed ``[vm, vn]`` tile at (row, col)."""
        M, N_, m, n = plan["M"], plan["N"], plan["m"], plan["n"]
        gm, rm = divmod(M, m)
        gn, rn = divmod(N_, n)
        rows = ([(0, gm, m)] if gm else []) + ([(gm * m, 1, rm)] if rm else [])
        # an N tail narrower than a Right tile's box (INT8: 32 columns) is the last box-wide window,
        # overlapping the tile before it: its columns are computed twice, each time whole
        wide = _up(rn, plan.get("align_n", _ALIGN))
        cols = ([(0, gn, n)] if gn else []) + ([(N_ - wide, 1, wide)] if rn else [])
        out: List[N.Stmt] = []
        for r0, rc, vm in rows:
            for c0, cc, vn in cols:
                body: List[N.Stmt] = []
                iv = N.Var(self.fresh("r"), type=INDEX, loc=loc)
                jv = N.Var(self.fresh("c"), type=INDEX, loc=loc)
                row = self.const(r0, loc) if rc == 1 else self.scalar(MUL, iv, self.const(m, loc), body, loc)
                col = self.const(c0, loc) if cc == 1 else self.scalar(MUL, jv, self.const(n, loc), body, loc)
                bias_tile = None
                if plan["bias"] is not None and plan["bias"][0] == "window":
                    bias_tile = self.bias_window(plan, col, vn, body, loc)
                sub = N.Var(self.fresh("acc"), type=None, loc=loc)
                if compute is not None:         # a split-K chain: the tile's own copy of the K loop
                    compute(sub, row, col, vm, vn, body)
                else:
                    body.extend(self.k_loop(plan, sub, (row, col), vm, vn, mm_stmt, bias_tile))
                place(N.Var(sub.name, type=infer_last(body, sub.name), loc=loc), row, col, vm, vn, body)
                if cc > 1:
                    body = [N.For(jv, self.const(0, loc), self.const(cc, loc), self.const(1, loc), body, loc=loc)]
                if rc > 1:
                    body = [N.For(iv, self.const(0, loc), self.const(rc, loc), self.const(1, loc), body, loc=loc)]
                out.extend(body)
        return out

    def direct_store(self, plan, store: N.OpCall, s: N.Stmt, mm_stmt: Optional[N.Assign],
                     compute=None) -> List[N.Stmt]:
        """Each output tile stored at its place in the store's tensor (pypto's DirectGmPlacer)."""
        loc = s.loc
        dst = store.args[1]                    # store(tile, tensor, offsets) in the IR
        offs = list(store.args[2].items)
        rank = len(dst.type.shape) if isinstance(dst.type, TensorType) else 2

        def place(tile, row, col, vm, vn, body):
            pos = list(offs[:-2]) + [self.scalar(ADD, o, a, body, loc) for o, a in zip(offs[-2:], (row, col))]
            attrs = dict(store.attrs)
            attrs["offsets_static"] = tuple(p.value if isinstance(p, N.Const) else None for p in pos)
            if rank != 2 or attrs.get("shape") is not None:
                attrs["shape"] = [1] * (rank - 2) + [vm, vn]
            st = N.OpCall(STORE, [tile, dst, N.ListExpr(pos, type=store.args[2].type, loc=loc)], attrs,
                          type=store.type, loc=loc)
            body.append(N.Assign(list(s.targets), st, loc=loc) if isinstance(s, N.Assign) else N.ExprStmt(st, loc=loc))
        return self.grid(plan, mm_stmt, loc, place, compute)

    def mat_scratch(self, plan, cast: N.Assign, mm_stmt: N.Assign) -> List[N.Stmt]:
        """The cast result as a Mat tile (pypto's MatScratchPlacer): created whole, each output tile
        written into it narrowed by the Acc->Mat insert (the cast folded into it)."""
        loc = cast.loc
        target = cast.targets[0]
        attrs = {"shape": [plan["M"], plan["N"]], "dtype": cast.value.attrs["target_type"],
                 "target_memory": MemorySpace.Mat}
        out: List[N.Stmt] = []
        scratch = self.call(CREATE_TILE, [], attrs, out, loc, name=target)
        self.retype(target.name, scratch.type)

        def place(tile, row, col, vm, vn, body):
            static = tuple(p.value if isinstance(p, N.Const) else None for p in (row, col))
            self.call(ASSEMBLE, [scratch, tile, N.ListExpr([row, col], type=TupleType((INDEX, INDEX)), loc=loc)],
                      {"offsets_static": static, "atomic": AtomicType.None_}, body, loc, name=scratch)
        return out + self.grid(plan, mm_stmt, loc, place)

    def retype(self, name: str, t) -> None:
        """Every use of ``name`` in the function now sees the Mat tile."""
        for st in N.walk_stmts(self.fn.body):
            for e in N.stmt_exprs(st):
                for sub in N.walk_expr(e):
                    if isinstance(sub, N.Var) and sub.name == name:
                        sub.type = t

    def bias_window(self, plan, col: N.Expr, vn: int, out: List[N.Stmt], loc) -> N.Var:
        """The ``[1, vn]`` bias window at column ``col``: loaded from the bias row's tensor into Mat and
        moved to Bias."""
        load: N.OpCall = plan["bias"][1]
        tensor, offs = load.args[0], list(load.args[1].items)
        pos = [offs[0], self.scalar(ADD, offs[1], col, out, loc)]
        static = tuple(p.value if isinstance(p, N.Const) else None for p in pos)
        attrs = dict(load.attrs)
        attrs.update({"shape": [1, vn], "offsets_static": static, "valid": None})
        mat = self.call(LOAD, [tensor, N.ListExpr(pos, type=load.args[1].type, loc=loc)], attrs, out, loc)
        return self.call(MOVE, [mat], {"target_memory": MemorySpace.Bias, "blayout": None, "slayout": None}, out, loc)


def infer_last(body: List[N.Stmt], name: str):
    for s in reversed(body):
        if isinstance(s, N.Assign) and s.targets[0].name == name:
            return s.targets[0].type
        if isinstance(s, N.For):
            t = infer_last(s.body, name)
            if t is not None:
                return t
    return None


def _align_k(nbytes: int) -> int:
    """K granularity of an operand: a fractal row is 32 bytes (16 elements of 2 bytes, 32 of INT8)."""
    return max(_ALIGN, _FRACTAL_BYTES // nbytes)


def _align_n(nbytes: int) -> int:
    """N granularity of a Right operand's Mat tile: its 32-byte box rows (INT8: 32 columns)."""
    return max(_ALIGN, _FRACTAL_BYTES // nbytes)


def _mat_type(v: N.Expr):
    """The Mat tile type behind a product operand (a move in the call, or the operand itself)."""
    return v.args[0].type if isinstance(v, N.OpCall) and v.op == MOVE else v.type


def _up(v: int, q: int) -> int:
    return -(-v // q) * q


def _default_mat_layout(t: TileType):
    return default_layout(t.memory, t.shape)
