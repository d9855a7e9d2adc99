"""IR kernel functions -> PTO assembly (``.pto``, MLIR text in the PTO dialect).

The output follows artifacts.md: fixed parameter order (tensors, scalars,
dynamic dims, synthetic SPMD parameters), constants first and deduplicated
(``%c<N>_<type>``, ``%cst``), one ``pto.make_tensor_view`` per used tensor,
``pto.alloc_tile`` where a buffer is first defined, destination-passing tile
ops, ``scf.for`` / ``scf.if`` control flow and ``arith`` index arithmetic.

Loop-carried and merged *tiles* need no SSA plumbing: they share one buffer
(memory planning grouped them), so ops simply write that buffer.  Loop-carried
*scalars* travel through ``iter_args`` / ``scf.yield``.
"""
from __future__ import annotations

import os
from typing import Dict, List, Optional, Tuple

from ..errors import CompileError, InternalError
from ..ir import nodes as N
from ..ir.ops import OPS, SCALAR_OPERATORS
from ..ir.ops.spmd import SPMD_PARAMS as SPMD_NAMES
from ..ir.types import (INDEX, TILE_LAYOUTS, DType, MemorySpace, ScalarType, TensorType, TileType,
                        dim_vars)
from .abi import DynDim, KernelABI, ScalarArg, TensorArg

# scalar operator -> arith op (binary) or predicate (comparison), from the operator table
_ARITH_INT = {o.name: o.arith_int for o in SCALAR_OPERATORS.values() if not o.compare and o.arith_int}
_ARITH_FLOAT = {o.name: o.arith_float for o in SCALAR_OPERATORS.values() if not o.compare and o.arith_float}
_CMP_INT = {o.name: o.arith_int for o in SCALAR_OPERATORS.values() if o.compare}
_CMP_FLOAT = {o.name: o.arith_float for o in SCALAR_OPERATORS.values() if o.compare}
GM_PIPE_BUFFER = "__gm_pipe_buffer"


def tile_type_str(t: TileType) -> str:
    bl, sl, fr = TILE_LAYOUTS[t.memory]
    if t.memory is MemorySpace.Vec and t.cols == 1 and t.rows > 1:
        bl = "col_major"          # a column vector ([r, 1], e.g. a row reduction): stored column-major
    return (f"!pto.tile_buf<loc={t.memory.value}, dtype={t.dtype.mlir}, rows={t.rows}, cols={t.cols}, "
            f"v_row=?, v_col=?, blayout={bl}, slayout={sl}, fractal={fr}, pad={int(t.pad)}>")


def _tv_type(rank: int, dtype: DType) -> str:
    return f"!pto.tensor_view<{'x'.join('?' * rank)}x{dtype.mlir}>"


def kernel_abi(fn: N.Function) -> KernelABI:
    """The C-level parameter list of a kernel, in .pto order."""
    tensors = [p for p in fn.params if isinstance(p.type, TensorType)]
    scalars = [p for p in fn.params if isinstance(p.type, ScalarType)]
    dyn: List[DynDim] = []
    seen = set()
    for ti, p in enumerate(tensors):
        for d, dim in enumerate(p.type.shape):
            for v in dim_vars(dim):
                if v not in seen:
                    seen.add(v)
                    dyn.append(DynDim(v, ti, d, str(dim)))
    used = _spmd_used(fn)
    targs = [TensorArg(p.name, p.type.dtype.name, p.direction.value, len(p.type.shape)) for p in tensors]
    fifo = fn.attrs.get("fifo")
    uses_block = bool(used & {"get_block_idx", "get_block_num"})
    if fifo and fifo.get("gm_pipe"):
        # the GM pipe buffer: first tensor after the user's, sharded per SPMD block by the wrapper
        targs.append(TensorArg(GM_PIPE_BUFFER, "UINT8", "INOUT", 1, pipe_shard=True))
    return KernelABI(
        name=fn.name, core_type=fn.attrs.get("core_type", "aiv"),
        tensors=tuple(targs),
        scalars=tuple(ScalarArg(p.name, p.type.dtype.name) for p in scalars),
        dyn_dims=tuple(dyn),
        uses_block=uses_block,
        uses_subblock="get_subblock_idx" in used,
        declares_block=bool(fifo and fifo.get("gm_pipe") and not uses_block),
        split_lane=bool(fifo and fifo.get("role") == "aiv"))


def _spmd_used(fn: N.Function) -> set:
    return {e.op for _, e in N.walk_ops(fn.body, *SPMD_NAMES)}


class _Emitter:
    def __init__(self, fn: N.Function, arch: str, with_loc: bool):
        self.fn = fn
        self.arch = arch
        self.with_loc = with_loc
        self.consts: Dict[Tuple, str] = {}
        self.const_lines: List[str] = []
        self.float_count = 0
        self.lines: List[str] = []
        self.values: Dict[str, Tuple[str, object]] = {}    # IR var -> (ssa name, IR type)
        self.names_used = set()
        self.tmp = 0
        self.allocated = set()
        self.buffer_of = fn.attrs.get("buffer_of", {})
        self.addr = fn.attrs.get("tile_addr", {})
        self.views: Dict[str, str] = {}
        self.tile_views: Dict[str, str] = {}     # tile var -> its own tile_buf over a shared buffer
        self.pview_count: Dict[str, int] = {}
        self.lane_conds: Dict[Tuple, str] = {}

    # ------------------------------------------------------------ naming
    def fresh(self, base: str) -> str:
        name = base
        k = 0
        while name in self.names_used:
            k += 1
            name = f"{base}_{k}"
        self.names_used.add(name)
        return f"%{name}"

    def temp(self) -> str:
        while True:
            name = f"s{self.tmp}"
            self.tmp += 1
            if name not in self.names_used:
                self.names_used.add(name)
                return f"%{name}"

    def const(self, value, mtype: str) -> str:
        key = (mtype, value)
        if key in self.consts:
            return self.consts[key]
        if mtype in ("f32", "f16", "bf16"):
            name = "%cst" if self.float_count == 0 else f"%cst_{self.float_count}"
            self.float_count += 1
            text = f"{float(value):e}"
        else:
            v = int(value)
            name = f"%c{v}_{mtype}" if v >= 0 else f"%cn{-v}_{mtype}"
            text = "true" if mtype == "i1" and v else ("false" if mtype == "i1" else str(v))
        self.consts[key] = name
        self.const_lines.append(f"  {name} = arith.constant {text} : {mtype}")
        return name

    def loc_suffix(self, loc) -> str:
        if not self.with_loc or loc is None:
            return ""
        return f' loc("{os.path.basename(loc.file)}":{loc.line}:{loc.col})'

    def emit(self, depth: int, text: str, loc=None):
        self.lines.append("  " * depth + text + self.loc_suffix(loc))

    # ------------------------------------------------------------ scalars
    def scalar(self, e: N.Expr, want: Optional[str], depth: int) -> str:
        """Emit a scalar expression; returns the SSA name, converted to MLIR type ``want``."""
        name, mtype = self._scalar(e, depth)
        if want is None or want == mtype:
            return name
        return self.convert(name, mtype, want, depth, e.loc)

    def convert(self, name, src, dst, depth, loc=None) -> str:
        if src == dst:
            return name
        out = self.temp()
        ints = ("index", "i64", "i32", "i16", "i8", "i1")
        if src in ints and dst in ints:
            if "index" in (src, dst):
                self.emit(depth, f"{out} = arith.index_cast {name} : {src} to {dst}")
            elif _bits(src) < _bits(dst):
                self.emit(depth, f"{out} = arith.extsi {name} : {src} to {dst}")
            else:
                self.emit(depth, f"{out} = arith.trunci {name} : {src} to {dst}")
        elif src in ints:
            if src == "index":
                mid = self.temp()
                self.emit(depth, f"{mid} = arith.index_cast {name} : index to i64")
                name, src = mid, "i64"
            self.emit(depth, f"{out} = arith.sitofp {name} : {src} to {dst}")
        elif dst in ints:
            raise CompileError(f"cannot use a floating-point scalar ({src}) where an integer ({dst}) is needed", loc)
        else:
            op = "arith.extf" if _bits(src) < _bits(dst) else "arith.truncf"
            self.emit(depth, f"{out} = {op} {name} : {src} to {dst}")
        return out

    def _scalar(self, e: N.Expr, depth: int) -> Tuple[str, str]:
        if isinstance(e, N.Const):
            t = e.type.dtype if isinstance(e.type, ScalarType) else DType.INDEX
            return self.const(e.value, t.mlir), t.mlir
        if isinstance(e, N.Var):
            if e.name not in self.values:
                raise InternalError(f"codegen: scalar {e.name!r} has no value in {self.fn.name}")
            name, t = self.values[e.name]
            return name, t.dtype.mlir
        if isinstance(e, N.OpCall) and e.op in SPMD_NAMES:
            out = self.temp()
            self.emit(depth, f"{out} = arith.index_cast %{SPMD_NAMES[e.op]} : i32 to index", e.loc)
            return out, "index"
        if isinstance(e, N.OpCall) and e.op.startswith("scalar."):
            op = e.op[len("scalar."):]
            rt = e.type.dtype.mlir
            if op == "neg":
                a = self.scalar(e.args[0], rt, depth)
                out = self.temp()
                if e.type.dtype.is_float:
                    self.emit(depth, f"{out} = arith.negf {a} : {rt}", e.loc)
                else:
                    zero = self.const(0, rt)
                    self.emit(depth, f"{out} = arith.subi {zero}, {a} : {rt}", e.loc)
                return out, rt
            if op in _CMP_INT:
                ta = _common(e.args[0].type.dtype, e.args[1].type.dtype)
                a = self.scalar(e.args[0], ta.mlir, depth)
                b = self.scalar(e.args[1], ta.mlir, depth)
                out = self.temp()
                if ta.is_float:
                    self.emit(depth, f"{out} = arith.cmpf {_CMP_FLOAT[op]}, {a}, {b} : {ta.mlir}", e.loc)
                else:
                    self.emit(depth, f"{out} = arith.cmpi {_CMP_INT[op]}, {a}, {b} : {ta.mlir}", e.loc)
                return out, "i1"
            a = self.scalar(e.args[0], rt, depth)
            b = self.scalar(e.args[1], rt, depth)
            table = _ARITH_FLOAT if e.type.dtype.is_float else _ARITH_INT
            if op not in table:
                raise CompileError(f"scalar operator {op} is not supported for {e.type}", e.loc)
            out = self.temp()
            self.emit(depth, f"{out} = {table[op]} {a}, {b} : {rt}", e.loc)
            return out, rt
        raise InternalError(f"codegen: unexpected scalar expression {e!r}")

    # ------------------------------------------------------------ tiles
    def buffer(self, var: N.Var) -> str:
        if var.name in self.tile_views:
            return self.tile_views[var.name]
        rep = self.buffer_of.get(var.name, var.name)
        if rep not in self.values:
            raise InternalError(f"codegen: tile {var.name!r} has no buffer yet in {self.fn.name}")
        return self.values[rep][0]

    def tile_arg(self, e: N.Expr) -> Tuple[str, str]:
        if not isinstance(e, N.Var) or not isinstance(e.type, TileType):
            raise InternalError(f"codegen: expected a tile variable, got {e!r}")
        return self.buffer(e), tile_type_str(e.type)

    def alloc(self, var: N.Var, depth: int, loc, static_valid=False) -> str:
        rep = self.buffer_of.get(var.name, var.name)
        if var.name in self.tile_views:
            return self.tile_views[var.name]
        view = False
        if rep in self.values:
            held = self.values[rep][1]
            if (held.shape, held.dtype, held.memory) == (var.type.shape, var.type.dtype, var.type.memory):
                return self.values[rep][0]
            view = True      # the same bytes seen with another shape (pl.reshape): its own tile_buf
        t: TileType = var.type
        name = self.fresh(var.name if view else rep)
        valid = t.valid if (t.valid and not static_valid) else (t.rows, t.cols)
        vr = self._valid_dim(valid[0], depth)
        vc = self._valid_dim(valid[1], depth)
        addr = ""
        if rep in self.addr:
            addr = f"addr = {self.const(self.addr[rep], 'i64')} "
        self.emit(depth, f"{name} = pto.alloc_tile {addr}valid_row = {vr} valid_col = {vc} : {tile_type_str(t)}", loc)
        if view:
            self.tile_views[var.name] = name
        else:
            self.values[rep] = (name, t)
        return name

    def _valid_dim(self, d, depth) -> str:
        if isinstance(d, int):
            return self.const(d, "index")
        return self.scalar(d, "index", depth)

    def partition(self, tensor: N.Var, offsets: N.ListExpr, sizes, depth, loc) -> Tuple[str, str]:
        view, tv_type = self.views[tensor.name]
        t: TensorType = tensor.type
        offs = []
        for o in offsets.items:
            if isinstance(o, N.Const):
                offs.append(self.const(o.value, "index"))
            else:
                v = self.scalar(o, "index", depth)
                clamped = self.temp()
                self.emit(depth, f"{clamped} = arith.maxsi {v}, {self.const(0, 'index')} : index")
                offs.append(clamped)
        size_names, size_txt = [], []
        for s in sizes:
            if isinstance(s, int):
                size_names.append(self.const(s, "index"))
                size_txt.append(str(s))
            else:
                size_names.append(self.scalar(s, "index", depth))
                size_txt.append("?")
        k = self.pview_count.get(tensor.name, 0)
        self.pview_count[tensor.name] = k + 1
        pv = self.fresh(f"{tensor.name}_pview")
        ptype = f"!pto.partition_tensor_view<{'x'.join(size_txt)}x{t.dtype.mlir}>"
        self.emit(depth, f"{pv} = pto.partition_view {view}, offsets = [{', '.join(offs)}], "
                         f"sizes = [{', '.join(size_names)}] : {tv_type} -> {ptype}", loc)
        return pv, ptype

    # ------------------------------------------------------------ statements
    def body(self, stmts: List[N.Stmt], depth: int):
        for s in stmts:
            self.stmt(s, depth)

    def stmt(self, s: N.Stmt, depth: int):
        if isinstance(s, N.Assign):
            self.assign(s, depth)
        elif isinstance(s, N.ExprStmt):
            e = s.expr
            if isinstance(e, N.OpCall) and e.op == "store":
                self.store(e, depth, s.loc)
            elif isinstance(e, N.OpCall) and e.op in ("tpush_to_aiv", "tpush_to_aic"):
                n, ty = self.tile_arg(e.args[0])
                self.emit(depth, f"pto.{e.op}({n} : {ty}) {{split = {e.attrs.get('split', 0)}}}", e.loc)
            elif isinstance(e, N.OpCall) and e.op in ("tfree_from_aic", "tfree_from_aiv"):
                self.emit(depth, f"pto.{e.op} {{split = {e.attrs.get('split', 0)}}}", e.loc)
            elif isinstance(e, N.OpCall) and not isinstance(e.type, TileType):
                pass   # a scalar expression with no effect
            else:
                raise CompileError(f"statement has no effect in a kernel: {e!r}", s.loc)
        elif isinstance(s, N.Return):
            pass       # kernels return through their Out tensors
        elif isinstance(s, N.For):
            self.for_loop(s, depth)
        elif isinstance(s, N.If):
            self.if_stmt(s, depth)
        elif isinstance(s, N.Scope) and s.kind == "lane_guard":
            self.emit(depth, f"scf.if {self.lane_cond(s.attrs.get('lane', 0))} {{")
            self.body(s.body, depth + 1)
            self.emit(depth, "}")
        else:
            raise CompileError(f"{type(s).__name__} is not allowed inside a kernel", s.loc)

    def lane_cond(self, lane: int) -> str:
        key = ("lane", lane)
        if key not in self.lane_conds:
            raise InternalError(f"codegen: lane guard in {self.fn.name} without a lane parameter")
        return self.lane_conds[key]

    def assign(self, s: N.Assign, depth: int):
        v = s.value
        target = s.targets[0]
        if isinstance(target.type, ScalarType):
            name = self.scalar(v, target.type.dtype.mlir, depth)
            self.values[target.name] = (name, target.type)
            return
        if not isinstance(target.type, TileType) or not isinstance(v, N.OpCall):
            raise CompileError(f"unsupported assignment in a kernel: {target.name} = {v!r}", s.loc)
        op = OPS[v.op]
        if v.op == "load":
            tensor, offsets = v.args
            t: TileType = v.type
            rank = len(tensor.type.shape)
            valid = t.valid or (t.rows, t.cols)
            sizes = [1] * (rank - 2) + list(valid) if rank >= 2 else [valid[1]]
            pv, ptype = self.partition(tensor, offsets, sizes, depth, v.loc)
            dst = self.alloc(target, depth, s.loc)
            self.emit(depth, f"pto.tload ins({pv} : {ptype}) outs({dst} : {tile_type_str(t)})", v.loc)
            return
        if v.op == "create_tile":
            self.alloc(target, depth, s.loc)
            return
        if v.op in ("tpop_from_aic", "tpop_from_aiv"):
            rep = self.buffer_of.get(target.name, target.name)
            name = self.fresh(rep)
            self.emit(depth, f"{name} = pto.{v.op} {{split = {v.attrs.get('split', 0)}}} -> "
                             f"{tile_type_str(target.type)}", v.loc)
            self.values[rep] = (name, target.type)
            return
        ins = []
        types = []
        if op.form in ("binary", "unary", "reduce_tmp", "ternary"):
            for a in v.args:
                n, ty = self.tile_arg(a)
                ins.append(n)
                types.append(ty)
        elif op.form == "scalar":
            n, ty = self.tile_arg(v.args[0])
            want = _scalar_operand_type(v.args[0].type, v.args[1])
            ins += [n, self.scalar(v.args[1], want, depth)]
            types += [ty, want]
        elif op.form == "expand":
            n, ty = self.tile_arg(v.args[0])
            ins.append(n)
            types.append(ty)
        elif op.form == "slice":
            n, ty = self.tile_arg(v.args[0])
            r, c = (self.scalar(o, "index", depth) for o in v.args[1].items)
            ins += [n, r, c]
            types += [ty, "index", "index"]
        elif op.form == "insert":
            n, ty = self.tile_arg(v.args[1])
            r, c = (self.scalar(o, "index", depth) for o in v.args[2].items)
            ins += [n, r, c]
            types += [ty, "index", "index"]
        else:
            raise InternalError(f"codegen: no PTO form for op {v.op}")
        dst = self.alloc(target, depth, s.loc)
        attr = ""
        if v.op == "cast" and v.attrs.get("mode"):
            attr = f" {{rmode = #pto<round_mode {v.attrs['mode']}>}}"
        self.emit(depth, f"{op.pto} ins({', '.join(ins)} : {', '.join(types)}) "
                         f"outs({dst} : {tile_type_str(target.type)}){attr}", v.loc)

    def store(self, e: N.OpCall, depth: int, loc):
        tile, tensor, offsets = e.args
        src, ttype = self.tile_arg(tile)
        rank = len(tensor.type.shape)
        valid = tile.type.valid or (tile.type.rows, tile.type.cols)
        sizes = [1] * (rank - 2) + list(valid) if rank >= 2 else [valid[1]]
        pv, ptype = self.partition(tensor, offsets, sizes, depth, e.loc)
        self.emit(depth, f"pto.tstore ins({src} : {ttype}) outs({pv} : {ptype})", e.loc)

    def _carried_scalars(self, pairs):
        return [(i, p) for i, p in enumerate(pairs) if isinstance(p.type, ScalarType)]

    def for_loop(self, s: N.For, depth: int):
        lo = self.scalar(s.start, "index", depth)
        hi = self.scalar(s.stop, "index", depth)
        st = self.scalar(s.step, "index", depth)
        iv = self.fresh(s.var.name)
        self.values[s.var.name] = (iv, INDEX)
        # tiles carried by the loop share their buffer: make sure it exists before the loop
        for (p, init) in s.iter_args:
            if isinstance(p.type, TileType):
                rep = self.buffer_of.get(p.name, p.name)
                if rep not in self.values and isinstance(init, N.Var):
                    self.alloc(init, depth, s.loc)
        sc = [(p, init, y, r) for (p, init), y, r in zip(s.iter_args, s.yields, s.results)
              if isinstance(p.type, ScalarType)]
        header = f"scf.for {iv} = {lo} to {hi} step {st}"
        if sc:
            inits = []
            for p, init, _, _ in sc:
                inits.append(self.scalar(init, p.type.dtype.mlir, depth))
            params = []
            for (p, _, _, _), i in zip(sc, inits):
                pn = self.fresh(p.name)
                self.values[p.name] = (pn, p.type)
                params.append(f"{pn} = {i}")
            res_names = [self.fresh(r.name) for _, _, _, r in sc]
            types = ", ".join(p.type.dtype.mlir for p, _, _, _ in sc)
            res = res_names[0] if len(res_names) == 1 else f"{res_names[0].split('_')[0]}_res"
            if len(res_names) > 1:
                res = self.fresh("loop_res")
            header = f"{res}{':' + str(len(sc)) if len(sc) > 1 else ''} = {header} iter_args({', '.join(params)}) -> ({types})"
        self.emit(depth, header + " {")
        self.body(s.body, depth + 1)
        if sc:
            ys = [self.scalar(y, p.type.dtype.mlir, depth + 1) for p, _, y, _ in sc]
            types = ", ".join(p.type.dtype.mlir for p, _, _, _ in sc)
            self.emit(depth + 1, f"scf.yield {', '.join(ys)} : {types}")
        self.emit(depth, "}")
        if sc:
            if len(sc) == 1:
                self.values[sc[0][3].name] = (res, sc[0][3].type)
            else:
                for k, (_, _, _, r) in enumerate(sc):
                    self.values[r.name] = (f"{res}#{k}", r.type)

    def if_stmt(self, s: N.If, depth: int):
        cond = self.scalar(s.cond, "i1", depth)
        # merged tiles: allocate the shared buffer before the branch (static valid shape)
        for r, ty, ey in zip(s.results, s.then_yields, s.else_yields):
            if isinstance(r.type, TileType):
                self.alloc(r, depth, s.loc, static_valid=True)
        sc = [(r, ty, ey) for r, ty, ey in zip(s.results, s.then_yields, s.else_yields)
              if isinstance(r.type, ScalarType)]
        types = ", ".join(r.type.dtype.mlir for r, _, _ in sc)
        prefix = ""
        if sc:
            res = self.fresh(sc[0][0].name if len(sc) == 1 else "if_res")
            prefix = f"{res}{':' + str(len(sc)) if len(sc) > 1 else ''} = "
            self.emit(depth, f"{prefix}scf.if {cond} -> ({types}) {{")
        else:
            self.emit(depth, f"scf.if {cond} {{")
        self.body(s.then_body, depth + 1)
        if sc:
            ys = [self.scalar(ty, r.type.dtype.mlir, depth + 1) for r, ty, _ in sc]
            self.emit(depth + 1, f"scf.yield {', '.join(ys)} : {types}")
        if s.else_body or sc:
            self.emit(depth, "} else {")
            self.body(s.else_body, depth + 1)
            if sc:
                ys = [self.scalar(ey, r.type.dtype.mlir, depth + 1) for r, _, ey in sc]
                self.emit(depth + 1, f"scf.yield {', '.join(ys)} : {types}")
        self.emit(depth, "}")
        for k, (r, _, _) in enumerate(sc):
            self.values[r.name] = (res if len(sc) == 1 else f"{res}#{k}", r.type)

    # ------------------------------------------------------------ function
    def function(self, abi: KernelABI) -> List[str]:
        fn = self.fn
        params = []
        argn = 0
        tensors = [p for p in fn.params if isinstance(p.type, TensorType)]
        scalars = [p for p in fn.params if isinstance(p.type, ScalarType)]
        used = _used_names(fn)
        for p in tensors:
            name = f"%arg{argn}"
            argn += 1
            params.append(f"{name}: !pto.ptr<{p.type.dtype.mlir}>")
            self.values[p.name] = (name, p.type)
        fifo = fn.attrs.get("fifo")
        gm_pipe = None
        if fifo and fifo.get("gm_pipe"):
            gm_pipe = f"%arg{argn}"
            argn += 1
            params.append(f"{gm_pipe}: !pto.ptr<ui8>")
        for p in scalars:
            name = f"%arg{argn}"
            argn += 1
            params.append(f"{name}: {p.type.dtype.mlir}")
            self.values[p.name] = (name, p.type)
        for d in abi.dyn_dims:
            name = f"%arg{argn}"
            argn += 1
            params.append(f"{name}: index")
            self.values[d.name] = (name, INDEX)
        if abi.uses_block:
            params += ["%__pypto_spmd_block_idx: i32", "%__pypto_spmd_block_num: i32"]
        if abi.uses_subblock or abi.split_lane:
            params.append("%__pypto_spmd_subblock_idx: i32")
        self.names_used.update(v[0][1:] for v in self.values.values())
        kind = "cube" if abi.core_type == "aic" else "vector"
        # tensor views
        for p in tensors:
            if p.name not in used:
                continue
            shape = [self._dim_value(d, 1) for d in p.type.shape]
            strides = self._strides(p.type.shape)
            view = self.fresh(f"{p.name}_view")
            tv = _tv_type(len(shape), p.type.dtype)
            self.views[p.name] = (view, tv)
            self.emit(1, f"{view} = pto.make_tensor_view {self.values[p.name][0]}, shape = [{', '.join(shape)}], "
                         f"strides = [{', '.join(strides)}] {{layout = #pto.layout<nd>}} : {tv}", p.loc)
        if fifo:
            self.fifo_prologue(fifo, gm_pipe, fn.loc)
        self.body(fn.body, 1)
        self.emit(1, "return")
        head = [f"  func.func @{fn.name}({', '.join(params)}) attributes "
                f"{{pto.kernel_kind = #pto.kernel_kind<{kind}>}} {{"]
        # constants are emitted at the first level of the body
        return head + self.const_lines + self.lines + ["  }"]

    def fifo_prologue(self, fifo: dict, gm_pipe: Optional[str], loc):
        """Pipe plumbing of a split mixed kernel (docs/mixed-kernels.md)."""
        role = fifo["role"]
        size, num = fifo["slot_size"], fifo["slot_num"]
        mask = fifo["dir_mask"]
        bufs = {}
        # each direction's consumer reserves its slot buffer (C2V: the AIV side in Vec, V2C: the AIC side
        # in Mat); the producer imports it from its peer
        for bit, key, consumer, space, base in ((1, "buffer", "aiv", "vec", fifo["base"]),
                                                (2, "v2c_buffer", "aic", "mat", fifo.get("v2c_base", 0))):
            if not mask & bit:
                continue
            label = fifo[key]
            buf = bufs[bit] = self.fresh(label)
            if role == consumer:
                self.emit(1, f'{buf} = pto.reserve_buffer {{name = "{label}", size = {size * num}, '
                             f'location = #pto.address_space<{space}>, auto = false, base = {base}}} -> i32', loc)
            else:
                self.emit(1, f'{buf} = pto.import_reserved_buffer {{name = "{label}", '
                             f'peer_func = @{fifo[consumer]}}} -> i32', loc)
        zero = self.const(0, "i32")
        gm = f"gm_slot_buffer = {gm_pipe} : !pto.ptr<ui8>, " if gm_pipe else ""
        self.emit(1, f"pto.{role}_initialize_pipe {{dir_mask = {mask}, slot_size = {size}, "
                     f"slot_num = {num}}} ({gm}c2v_consumer_buf = {bufs.get(1, zero)} : i32, "
                     f"v2c_consumer_buf = {bufs.get(2, zero)} : i32)", loc)
        if role == "aiv":
            lane = self.temp()
            self.emit(1, f"{lane} = arith.index_cast %__pypto_spmd_subblock_idx : i32 to index")
            cond = self.fresh("is_lane0")
            self.emit(1, f"{cond} = arith.cmpi eq, {lane}, {self.const(0, 'index')} : index")
            self.lane_conds[("lane", 0)] = cond
            self.hoist_allocs()

    def hoist_allocs(self):
        """Lane-guarded bodies: every tile buffer is allocated up front, so a tile written under the
        guard can be read by later guarded code (scf.if regions do not export values)."""
        for s in N.walk_stmts(self.fn.body):
            if not isinstance(s, N.Assign) or not isinstance(s.targets[0].type, TileType):
                continue
            if isinstance(s.value, N.OpCall) and s.value.op == "tpop_from_aic":
                continue
            t = s.targets[0]
            if t.type.valid and not all(isinstance(d, int) for d in t.type.valid):
                raise CompileError(f"tile {t.name!r} of mixed kernel {self.fn.attrs.get('group')} has a dynamic "
                                   f"valid shape; the vector side of a mixed kernel needs static tile shapes", s.loc)
            self.alloc(t, 1, s.loc)

    def _dim_value(self, d, depth) -> str:
        if isinstance(d, int):
            return self.const(d, "index")
        if d in self.values:
            return self.values[d][0]
        import ast
        tree = ast.parse(str(d), mode="eval").body
        return self._dim_ast(tree, depth)

    def _dim_ast(self, node, depth) -> str:
        import ast
        if isinstance(node, ast.Constant):
            return self.const(node.value, "index")
        if isinstance(node, ast.Name):
            return self.values[node.id][0]
        if isinstance(node, ast.BinOp):
            ops = {ast.Add: "arith.addi", ast.Sub: "arith.subi", ast.Mult: "arith.muli",
                   ast.FloorDiv: "arith.floordivsi", ast.Mod: "arith.remsi"}
            a = self._dim_ast(node.left, depth)
            b = self._dim_ast(node.right, depth)
            out = self.temp()
            self.emit(depth, f"{out} = {ops[type(node.op)]} {a}, {b} : index")
            return out
        raise CompileError(f"unsupported dimension expression {ast.unparse(node)!r}", self.fn.loc)

    def _strides(self, shape) -> List[str]:
        """Row-major strides as SSA values (products of dynamic dims are computed once)."""
        strides: List[str] = []
        acc: object = 1                      # int while static, else an SSA name
        dims = list(reversed(shape))
        for k, d in enumerate(dims):
            strides.append(self.const(acc, "index") if isinstance(acc, int) else acc)
            if k == len(dims) - 1:
                break
            if isinstance(acc, int) and isinstance(d, int):
                acc = acc * d
            else:
                prev = self.const(acc, "index") if isinstance(acc, int) else acc
                cur = self._dim_value(d, 1)
                if acc == 1:
                    acc = cur
                else:
                    out = self.temp()
                    self.emit(1, f"{out} = arith.muli {prev}, {cur} : index")
                    acc = out
        return list(reversed(strides))


def _used_names(fn: N.Function) -> set:
    return {e.name for _, e in N.iter_exprs(fn.body) if isinstance(e, N.Var)}


def _bits(t: str) -> int:
    return {"i1": 1, "i8": 8, "i16": 16, "i32": 32, "i64": 64, "index": 64, "f16": 16, "bf16": 16, "f32": 32}.get(t, 64)


def _common(a: DType, b: DType) -> DType:
    if a.is_float or b.is_float:
        return a if a.is_float else b
    if DType.INDEX in (a, b):
        return DType.INDEX
    return a if a.size >= b.size else b


def _scalar_operand_type(tile_t: TileType, scalar: N.Expr) -> str:
    if tile_t.dtype.is_float:
        return "f32" if tile_t.dtype in (DType.FP32,) or (isinstance(scalar.type, ScalarType) and scalar.type.dtype is DType.FP32) else tile_t.dtype.mlir
    return tile_t.dtype.mlir


def emit_pto(fns: List[N.Function], arch: str, with_loc: bool = True) -> Tuple[str, List[KernelABI]]:
    """One ``.pto`` module holding the given kernel functions."""
    out = [f'module attributes {{pto.target_arch = "{arch}"}} {{']
    abis = []
    for fn in fns:
        abi = kernel_abi(fn)
        abis.append(abi)
        em = _Emitter(fn, arch, with_loc)
        out.extend(em.function(abi))
    out.append("}")
    return "\n".join(out) + "\n", abis


__all__ = ["emit_pto", "kernel_abi", "tile_type_str", "MemorySpace"]
