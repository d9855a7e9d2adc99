"""IR kernel functions -> PTO assembly (``.pto``, MLIR text in the PTO dialect).

The output follows artifacts.md: fixed parameter order (tensors, scalars,
dynamic dims, synthetic SPMD parameters), constants first and deduplicated
(``%c<N>_<type>``, ``%cst``), one ``pto.make_tensor_view`` per used tensor,
``pto.alloc_tile`` where a buffer is first defined, destination-passing tile
ops, ``scf.for`` / ``scf.if`` control flow and ``arith`` index arithmetic.
Ops are built with ``ptokit.pto.builder`` (checked against the dialect table as they
are made) and printed by ``ptokit.pto.printer``; no ``.pto`` text is formatted here.

Loop-carried and merged *tiles* need no SSA plumbing: they share one buffer
(memory planning grouped them), so ops simply write that buffer.  Loop-carried
*scalars* travel through ``iter_args`` / ``scf.yield``.  A ``[r, 1]`` column tile is
``col_major``; an op the real assembler wants row-major operands for sees it as a
``[1, r]`` row through ``pto.treshape`` views (same bytes, docs/decisions.md).
"""
from __future__ import annotations

import ast
import dataclasses
import os
from typing import Dict, List, Optional, Tuple

from ..errors import CompileError, InternalError, ToolRefusal
from ..ir import nodes as N
from ..ir.ops import BY_PYTHON, OPS, SCALAR_OPERATORS
from ..ir.ops.spmd import SPMD_PARAMS as SPMD_NAMES
from ..ir.types import INDEX, ArrayType, DType, MemorySpace, ScalarType, TensorType, TileType, dim_vars
from ..ir.comm import is_ctx_param
from ..pto import compat as pto_compat
from ..pto import rules as pto_rules
from ..pto import dialect
from ..pto import types as P
from ..pto.ast import Attr
from ..pto.builder import Builder, Value, add_function, new_module
from ..pto.printer import print_module
from . import pto_comm, pto_control, pto_element, pto_forms, pto_pipes, pto_prefetch
from .abi import DynDim, KernelABI, ScalarArg, TensorArg
from .pto_cube import CUBE_FORMS
from .pto_vector import SECTION_C_FORMS, emit_mscatter

GM_PIPE_BUFFER = "__gm_pipe_buffer"
_INTS = ("index", "i64", "i32", "i16", "i8", "i1")
_PIPE_INIT = {"aic": "pto.aic_initialize_pipe", "aiv": "pto.aiv_initialize_pipe"}


def tile_buf(t: TileType) -> P.TileBufType:
    """The ``!pto.tile_buf`` of an IR tile type (valid sizes are operands: ``v_row=?, v_col=?``)."""
    tb = P.TileBufType.of(t.memory.loc, t.dtype.mlir, t.rows, t.cols, pad=int(t.pad))
    if t.memory.loc == "scaling":   # the left or right operand's MX scales: told apart by the layout
        bl, sl, fr = P.SCALE_LAYOUTS[t.memory.value]
        tb = dataclasses.replace(tb, blayout=bl, slayout=sl, fractal=fr)
    if t.layout is not None:      # a transposed or flat layout (pl.tile.transpose_view, create_tile(transpose=))
        tb = dataclasses.replace(tb, blayout=t.layout[0], slayout=t.layout[1])
        if t.dtype is DType.FP8E8M0 and t.memory is MemorySpace.Mat:   # loaded MX scales: the scale fractal
            tb = dataclasses.replace(tb, fractal=32)
    return tb


def _tv_type(rank: int, dtype: DType) -> P.TensorViewType:
    return P.TensorViewType((None,) * rank, dtype.mlir)


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
        scalars=tuple(ScalarArg(p.name, p.type.dtype.name, pointer=is_ctx_param(p)) for p in scalars),
        dyn_dims=tuple(dyn),
        uses_block=uses_block,
        uses_subblock="get_subblock_idx" in used,
        declares_block=bool(fifo and fifo.get("gm_pipe") and not uses_block),
        uses_sdma=pto_prefetch.uses_sdma(fn),
        split_lane=bool(fifo and fifo.get("role") == "aiv"))


def _spmd_used(fn: N.Function) -> set:
    return {e.op for _, e in N.walk_ops(fn.body, *SPMD_NAMES)}


def partition_sizes(window, t: TileType, rank: int) -> list:
    """The partition view sizes of a load or store of tile ``t``: its valid region in the last two
    dimensions, and the window's leading extents when the tile holds several rows of them (an N-D
    window flattened to the tile's rows, pypto-parity A5)."""
    valid = t.valid or (t.rows, t.cols)
    if rank < 2:
        return [valid[1]]
    lead = list(window[:-2]) if window is not None and len(window) == rank else [1] * (rank - 2)
    if any(d != 1 for d in lead):
        return lead + [window[-2], valid[1]]
    return [1] * (rank - 2) + list(valid)


class _Emitter:
    def __init__(self, fn: N.Function, arch: str, with_loc: bool, compat: Optional[str] = None):
        self.fn = fn
        self.arch = arch
        self.with_loc = with_loc
        self.compat = compat        # the ptoas release the module is written for (None: pypto HEAD's forms)
        self.consts: Dict[Tuple, Value] = {}
        self.float_count = 0
        self.values: Dict[str, Tuple[Value, object]] = {}    # IR var -> (SSA value, IR type)
        self.names_used = set()
        self.tmp = 0
        self.buffer_of = fn.attrs.get("buffer_of", {})
        self.addr = fn.attrs.get("tile_addr", {})
        self.slot_of = fn.attrs.get("tile_slot", {})     # a pl.MemRef tile in a run-time slot
        self.hoisting = False                            # in hoist_allocs
        self.views: Dict[str, Value] = {}
        self.tile_views: Dict[str, Value] = {}    # tile var -> its own tile_buf over a shared buffer
        self.producer: Dict[str, str] = {}        # tile var -> the op that made it
        self.pview_count: Dict[str, int] = {}
        self.lane_conds: Dict[Tuple, Value] = {}
        # hoisted allocations (a lane-guarded mixed vector side): buffers that hold a tile of run-time valid
        # shape, whose valid region every writer sets first (hoist_allocs)
        self.reset_valid: set = set()
        self.origins: Dict[Tuple[str, int, int], object] = {}
        self.valid_values: Dict[str, Tuple[Value, Value]] = {}   # tile SSA name -> its valid rows, cols (run time)
        self.spmd: Dict[str, Value] = {}
        self.prologue: Optional[Builder] = None   # constants (printed first)
        self.top: Optional[Builder] = None        # the function body

    # ------------------------------------------------------------ naming
    def fresh(self, base: str) -> str:
        name = base
        k = 0
        while name in self.names_used:
            k += 1
            name = f"{base}_{k}"
        self.names_used.add(name)
        return name

    def temp(self) -> str:
        while True:
            name = f"s{self.tmp}"
            self.tmp += 1
            if name not in self.names_used:
                self.names_used.add(name)
                return name

    def const(self, value, mtype: str) -> Value:
        key = (mtype, value)
        if key in self.consts:
            return self.consts[key]
        if mtype in ("f32", "f16", "bf16"):
            name = "cst" if self.float_count == 0 else f"cst_{self.float_count}"
            self.float_count += 1
        else:
            v = int(value)
            name = f"c{v}_{mtype}" if v >= 0 else f"cn{-v}_{mtype}"
        val = self.consts[key] = self.prologue.constant(name, value, P.ScalarType(mtype))
        return val

    def const_value(self, val: Optional[Value]) -> Optional[int]:
        """The integer an index constant of this function holds (None: not one, a run-time value)."""
        for (mtype, value), c in self.consts.items():
            if c is val and mtype == "index":
                return int(value)
        return None

    def srcloc(self, loc):
        if loc is None:
            return None
        if isinstance(loc, tuple):      # already a source location (a form emitter passes its own on)
            return loc if self.with_loc else None
        key = (os.path.basename(loc.file), loc.line, loc.col)
        self.origins.setdefault(key, loc)     # the DSL location behind a loc(...), for errors about the op
        return key if self.with_loc else None

    # ------------------------------------------------------------ scalars
    def scalar(self, e: N.Expr, want: Optional[str], b: Builder) -> Value:
        """Emit a scalar expression; returns its value, converted to MLIR type ``want``."""
        if isinstance(e, N.Const) and isinstance(e.value, int) and not isinstance(e.value, bool):
            mtype = want if want in _INTS or (want or "").startswith("ui") else None
            pto_forms.check_int_literal(e, mtype or (e.type.dtype.mlir if isinstance(e.type, ScalarType) else "index"))
            if mtype is not None and mtype != "i1":
                return self.const(e.value, mtype)      # a literal is written in the type it is used as
        val, mtype = self._scalar(e, b)
        if want is None or want == mtype:
            return val
        return self.convert(val, mtype, want, b, e.loc)

    def convert(self, val: Value, src: str, dst: str, b: Builder, loc=None) -> Value:
        if src == dst:
            return val
        out = self.temp()
        if src in _INTS and dst in _INTS:
            if "index" in (src, dst):
                return b.cast("arith.index_cast", val, P.ScalarType(dst), out)
            if P.bit_width(src) < P.bit_width(dst):
                return b.cast("arith.extsi", val, P.ScalarType(dst), out)
            return b.cast("arith.trunci", val, P.ScalarType(dst), out)
        if src in _INTS:
            if src == "index":
                val = b.cast("arith.index_cast", val, P.ScalarType("i64"), self.temp())
            return b.cast("arith.sitofp", val, P.ScalarType(dst), out)
        if dst in _INTS:
            # a float scalar operand of an integer op is narrowed to the integer, toward zero (pypto's rule
            # for tile-scalar ops: the scalar takes the tile's dtype when the kernel runs)
            if dst == "index":
                val = b.cast("arith.fptosi", val, P.ScalarType("i64"), self.temp())
                return b.cast("arith.index_cast", val, P.ScalarType(dst), out)
            return b.cast("arith.fptosi", val, P.ScalarType(dst), out)
        op = "arith.extf" if P.bit_width(src) < P.bit_width(dst) else "arith.truncf"
        return b.cast(op, val, P.ScalarType(dst), out)

    def _scalar(self, e: N.Expr, b: Builder) -> Tuple[Value, str]:
        if isinstance(e, N.Const):
            t = e.type.dtype if isinstance(e.type, ScalarType) else DType.INDEX
            return self.const(e.value, t.mlir), t.mlir
        if isinstance(e, N.Var):
            if e.name not in self.values:
                raise InternalError(f"codegen: scalar {e.name!r} has no value in {self.fn.name}")
            val, t = self.values[e.name]
            return val, t.dtype.mlir
        if isinstance(e, N.OpCall) and OPS[e.op].form == "element":
            return pto_element.read(self, e, b)
        if isinstance(e, N.OpCall) and OPS[e.op].form == "comm":
            return pto_comm.scalar(self, e, b)
        if isinstance(e, N.OpCall) and OPS[e.op].form == "array":
            return pto_element.array_get(self, e, b)
        if isinstance(e, N.OpCall) and e.op in SPMD_NAMES:
            out = b.cast("arith.index_cast", self.spmd[SPMD_NAMES[e.op]], P.ScalarType("index"), self.temp(),
                         self.srcloc(e.loc))
            return out, "index"
        if isinstance(e, N.OpCall) and e.op.startswith("scalar."):
            op = e.op[len("scalar."):]
            rt = e.type.dtype.mlir
            loc = self.srcloc(e.loc)
            if op == "cast":
                x, src = self._scalar(e.args[0], b)
                if src not in _INTS and rt in _INTS:       # an explicit float -> int cast truncates
                    if rt == "index":
                        x = b.cast("arith.fptosi", x, P.ScalarType("i64"), self.temp())
                        return self.convert(x, "i64", rt, b, e.loc), rt
                    return b.cast("arith.fptosi", x, P.ScalarType(rt), self.temp()), rt
                return self.convert(x, src, rt, b, e.loc), rt
            if op == "neg":
                a = self.scalar(e.args[0], rt, b)
                if e.type.dtype.is_float:
                    return b.arith("arith.negf", [a], P.ScalarType(rt), self.temp(), loc), rt
                zero = self.const(0, rt)
                return b.arith("arith.subi", [zero, a], P.ScalarType(rt), self.temp(), loc), rt
            so = SCALAR_OPERATORS[e.op]
            if so.compare:
                ta = _common(e.args[0].type.dtype, e.args[1].type.dtype)
                x = self.scalar(e.args[0], ta.mlir, b)
                y = self.scalar(e.args[1], ta.mlir, b)
                if ta.is_float:
                    return b.cmp("arith.cmpf", so.arith_float, x, y, P.ScalarType(ta.mlir), self.temp(), loc), "i1"
                return b.cmp("arith.cmpi", so.arith_int, x, y, P.ScalarType(ta.mlir), self.temp(), loc), "i1"
            x = self.scalar(e.args[0], rt, b)
            y = self.scalar(e.args[1], rt, b)
            mnemonic = so.arith_float if e.type.dtype.is_float else so.arith_int
            if mnemonic is None:
                raise CompileError(f"scalar operator {op} is not supported for {e.type}", e.loc)
            if mnemonic == "arith.addf" and self.compat == "0.27":
                # ptoas 0.27 lowers no arith.addf ("failed to legalize"); x - (-y) is x + y, bit for bit
                y = b.arith("arith.negf", [y], P.ScalarType(rt), self.temp(), loc)
                mnemonic = "arith.subf"
            return b.arith(mnemonic, [x, y], P.ScalarType(rt), self.temp(), loc), rt
        raise InternalError(f"codegen: unexpected scalar expression {e!r}")

    # ------------------------------------------------------------ tiles
    def buffer(self, var: N.Var) -> str:
        if var.name in self.tile_views:
            return self.tile_views[var.name].name
        rep = self.buffer_of.get(var.name, var.name)
        if rep not in self.values:
            raise InternalError(f"codegen: tile {var.name!r} has no buffer yet in {self.fn.name}")
        return self.values[rep][0].name

    def tile_arg(self, e: N.Expr) -> Value:
        """The tile an operand names, typed as the operand's IR type says."""
        if not isinstance(e, N.Var) or not isinstance(e.type, TileType):
            raise InternalError(f"codegen: expected a tile variable, got {e!r}")
        if e.name in self.tile_views:
            return self.tile_views[e.name]      # a view: the type it was defined with
        return Value(self.buffer(e), self.tbuf(e.type))

    def tbuf(self, t: TileType) -> P.TileBufType:
        """``tile_buf`` of this module's release: ptoas 0.27 writes no compilable C++ for a dynamic-valid
        Bias tile at an address (``uint64_t v = bias.data();``), so there a Bias tile's valid region,
        whole or static, lives in its type."""
        tb = tile_buf(t)
        if self.compat == "0.27" and t.memory is MemorySpace.Bias:
            valid = t.valid or (t.rows, t.cols)
            if all(isinstance(d, int) for d in valid):
                tb = dataclasses.replace(tb, v_row=valid[0], v_col=valid[1])
        return tb

    def alloc(self, var: N.Var, b: Builder, loc, static_valid=False) -> Value:
        rep = self.buffer_of.get(var.name, var.name)
        if var.name in self.tile_views:
            return self.tile_views[var.name]
        view = False
        if rep in self.values:
            held = self.values[rep][1]
            if self.tbuf(held) == self.tbuf(var.type):
                val = Value(self.values[rep][0].name, self.tbuf(var.type))
                # the buffer's handle takes this writer's valid region first when it may hold another:
                # a run-time valid tile of a mixed kernel allocated whole before the lane guards (every
                # write inside them), or a buffer written again with another valid region (a tile
                # reassigned in a loop, a reused buffer)
                if (rep in self.reset_valid and b is not self.top) or _valid_of(held) != _valid_of(var.type):
                    dims = [self._valid_dim(d, b) for d in _valid_of(var.type)]
                    b.plain(OPS["set_validshape"].pto, [val] + dims, self.srcloc(loc))
                    self.values[rep] = (self.values[rep][0], var.type)
                    self.valid_values[val.name] = tuple(dims)
                return val
            view = True      # the same bytes seen with another shape (pl.reshape): its own tile_buf
        t: TileType = var.type
        name = self.fresh(var.name if view else rep)
        valid = t.valid if (t.valid and not static_valid) else (t.rows, t.cols)
        vr = self._valid_dim(valid[0], b)
        vc = self._valid_dim(valid[1], b)
        addr = self.const(self.addr[rep], "i64") if rep in self.addr else None
        if rep in self.slot_of:     # pl.MemRef(slots=N)[i]: the region's base + i * slot bytes, at run time
            slot, index = self.slot_of[rep]
            if self.hoisting:
                raise CompileError(f"tile {var.name!r} is in a run-time slot of a pl.MemRef, but this kernel's "
                                   f"vector side allocates its tiles before the lane guards, where the slot index "
                                   f"is not known; give it a constant slot", loc)
            i = self.scalar(index, "i64", b)
            off = b.arith("arith.muli", [i, self.const(slot, "i64")], P.ScalarType("i64"), self.temp(), None)
            addr = b.arith("arith.addi", [addr, off], P.ScalarType("i64"), self.temp(), None)
        ty = self.tbuf(t)
        if ty.v_row is not None:       # a valid region in the type takes no valid-size operands
            vr = vc = None
        elif self.compat == "0.27" and t.memory is MemorySpace.Bias:
            raise ToolRefusal(f"'pto.alloc_tile' of a Bias tile with a run-time valid region ({var.name!r}) is not "
                              f"written for ptoas 0.27: its C++ for it does not compile (uint64_t from a tile's "
                              f"data()); kernel {self.fn.name} (compile without ptoas_compat for pypto HEAD's "
                              f".pto)", loc)
        val = b.alloc_tile(name, ty, vr, vc, addr, self.srcloc(loc))
        if vr is not None:
            self.valid_values[val.name] = (vr, vc)
        if view:
            self.tile_views[var.name] = val
        else:
            # a whole allocation (static_valid) holds the full region until a writer sets its own
            self.values[rep] = (val, t.with_(valid=None) if static_valid and t.valid else t)
        return val

    def _valid_dim(self, d, b: Builder) -> Value:
        if isinstance(d, int):
            return self.const(d, "index")
        return self.scalar(d, "index", b)

    def row_views(self, spec: dialect.OpSpec, ins: List[Value], outs: List[Value], b: Builder,
                  loc, call: N.OpCall) -> Tuple[List[Value], List[Value]]:
        """Operands the op wants row-major, seen as ``[1, r]`` rows when they are ``[r, 1]`` columns.

        Only element-wise ops and fills (``pl.full``, ``expands``, ``ci``) may: a ``[r, 1]`` column and
        its ``[1, r]`` row view hold the same elements in the same order, so the result is the same; and any
        op's ``tmp`` (scratch: what it holds is not read).
        """
        elementwise = OPS[call.op].has("elementwise") or OPS[call.op].form == "fill"
        seen: Dict[str, Value] = {}

        def fix(operand: dialect.Operand, v: Value) -> Value:
            t = v.type
            if operand.role not in spec.row_major or not isinstance(t, P.TileBufType) or t.blayout == "row_major":
                return v
            if t.loc != "vec" or t.cols != 1:
                raise InternalError(f"codegen: {spec.name} needs a row-major {operand.role}, got {t}")
            if not elementwise and operand.role != "tmp":     # a scratch tile's order of elements does not matter
                raise CompileError(f"pl.{call.op} of a [{t.rows}, 1] column tile is not supported: the PTO assembler "
                                   f"takes only row-major tiles there ({spec.name} {operand.role}), and a column is "
                                   f"stored column-major", call.loc)
            if v.name not in seen:
                # a static valid region is written in the view's type: (1, r') (a dynamic view type would take
                # the column's (r', 1) in ptoas 0.27); a run-time one is set just after (below)
                row_t = t.reshaped(1, t.rows) if t.v_row is None else t.reshaped(1, t.rows, 1, t.v_row)
                known = self.const_value(self.valid_values.get(v.name, (None,))[0])
                if t.v_row is None and self.compat == "0.27" and known is not None:
                    # ptoas 0.27 starts a dynamic-valid view with the column's (r', 1): a valid region known
                    # here goes in the view's type instead (its C++ then builds the row whole)
                    row_t = t.reshaped(1, t.rows, 1, known)
                seen[v.name] = b.view("pto.treshape", self.fresh(f"{v.name}_row"), v, row_t, loc)
                if row_t.v_row is None and v.name in self.valid_values:
                    # a run-time valid region: ptoas 0.27 gives the [1, r] view the column's (r', 1) sizes, the
                    # CPU library the whole row; set it to (1, r') so that both read the same elements
                    b.plain(OPS["set_validshape"].pto, [seen[v.name], self.const(1, "index"),
                                                        self.valid_values[v.name][0]], loc)
            return seen[v.name]

        return ([fix(o, v) for o, v in zip(spec.ins, ins)], [fix(o, v) for o, v in zip(spec.outs, outs)])

    def partition(self, tensor: N.Var, offsets: N.ListExpr, sizes, b: Builder, loc) -> Value:
        view = self.views[tensor.name]
        t: TensorType = tensor.type
        offs = []
        for o in offsets.items:
            if isinstance(o, N.Const):
                offs.append(self.const(o.value, "index"))
            else:
                v = self.scalar(o, "index", b)
                offs.append(b.arith("arith.maxsi", [v, self.const(0, "index")], P.ScalarType("index"), self.temp()))
        size_vals, size_dims = [], []
        for sz in sizes:
            if isinstance(sz, int):
                size_vals.append(self.const(sz, "index"))
                size_dims.append(sz)
            else:
                size_vals.append(self.scalar(sz, "index", b))
                size_dims.append(None)
        k = self.pview_count.get(tensor.name, 0)
        self.pview_count[tensor.name] = k + 1
        ptype = P.PartitionViewType(tuple(size_dims), t.dtype.mlir)
        return b.partition_view(self.fresh(f"{tensor.name}_pview"), view, offs, size_vals, ptype, self.srcloc(loc))

    # ------------------------------------------------------------ statements
    def body(self, stmts: List[N.Stmt], b: Builder):
        for s in stmts:
            self.stmt(s, b)

    def stmt(self, s: N.Stmt, b: Builder):
        if isinstance(s, N.Assign):
            self.assign(s, b)
        elif isinstance(s, N.ExprStmt):
            e = s.expr
            if isinstance(e, N.OpCall) and e.op == "store":
                self.store(e, b, s.loc)
            elif isinstance(e, N.OpCall) and e.op in ("tpush_to_aiv", "tpush_to_aic"):
                b.push(OPS[e.op].pto, self.tile_arg(e.args[0]), e.attrs.get("split", 0), self.srcloc(e.loc),
                       pipe_id=pto_pipes.pipe_id(self, e))
            elif isinstance(e, N.OpCall) and e.op in ("tfree_from_aic", "tfree_from_aiv"):
                b.free(OPS[e.op].pto, e.attrs.get("split", 0), self.srcloc(e.loc), pipe_id=pto_pipes.pipe_id(self, e))
            elif isinstance(e, N.OpCall) and OPS[e.op].form == "pipe_setup":
                pto_pipes.init_pipe(self, e, b)
            elif isinstance(e, N.OpCall) and OPS[e.op].form == "event":
                pto_pipes.event(self, e, b)
            elif isinstance(e, N.OpCall) and OPS[e.op].form == "prefetch":
                pto_prefetch.stmt(self, e, b)
            elif isinstance(e, N.OpCall) and OPS[e.op].form == "gm_scatter":
                self.mscatter(e, b)
            elif isinstance(e, N.OpCall) and OPS[e.op].form == "element":
                pto_element.write(self, e, b)
            elif isinstance(e, N.OpCall) and OPS[e.op].form == "comm":
                pto_comm.stmt(self, e, b, partition_sizes)
            elif isinstance(e, N.OpCall) and not isinstance(e.type, TileType):
                pass   # a scalar expression with no effect
            else:
                raise CompileError(pto_forms.no_effect(e), s.loc)
        elif isinstance(s, N.Return):
            pass       # kernels return through their Out tensors
        elif isinstance(s, N.For):
            pto_control.for_loop(self, s, b)
        elif isinstance(s, N.While):
            pto_control.while_loop(self, s, b)
        elif isinstance(s, N.If):
            pto_control.if_stmt(self, s, b)
        elif isinstance(s, N.Scope) and s.kind == "lane_guard":
            then, _, _ = b.if_(self.lane_cond(s.attrs.get("lane", 0)))
            self.body(s.body, then)
        else:
            raise CompileError(f"{type(s).__name__} is not allowed inside a kernel", s.loc)

    def lane_cond(self, lane: int) -> Value:
        key = ("lane", lane)
        if key not in self.lane_conds:
            raise InternalError(f"codegen: lane guard in {self.fn.name} without a lane parameter")
        return self.lane_conds[key]

    def assign(self, s: N.Assign, b: Builder):
        v = s.value
        target = s.targets[0]
        if isinstance(target.type, ArrayType):
            pto_element.array_assign(self, target, v, b)
            return
        if isinstance(target.type, ScalarType) and isinstance(v, N.OpCall) and OPS[v.op].form == "pipe_setup":
            pto_pipes.setup_assign(self, target, v, b)
            return
        if isinstance(target.type, ScalarType) and isinstance(v, N.OpCall) and OPS[v.op].form == "prefetch":
            pto_prefetch.assign(self, target, v, b)
            return
        if isinstance(target.type, ScalarType):
            val = self.scalar(v, target.type.dtype.mlir, b)
            self.values[target.name] = (val, target.type)
            return
        if isinstance(target.type, TensorType) and isinstance(v, N.OpCall) and OPS[v.op].form == "gm_scatter":
            self.mscatter(v, b)               # `out = pl.mscatter(src, idx, out)`: the same tensor
            self.views[target.name] = self.views[v.args[2].name]
            return
        if not isinstance(target.type, TileType) or not isinstance(v, N.OpCall):
            raise CompileError(f"unsupported assignment in a kernel: {target.name} = {v!r}", s.loc)
        op = OPS[v.op]
        loc = self.srcloc(v.loc)
        self.producer[target.name] = v.op
        if v.op == "load":
            tensor, offsets = v.args
            t: TileType = v.type
            sizes = partition_sizes(v.attrs.get("shape"), t, len(tensor.type.shape))
            pv = self.partition(tensor, offsets, sizes, b, v.loc)
            dst = self.alloc(target, b, s.loc)
            b.dps(op.pto, [pv], [Value(dst.name, self.tbuf(t))], loc=loc)
            return
        if op.form == "comm_load":
            sizes = partition_sizes(v.attrs.get("shape"), v.type, len(v.args[0].type.shape))
            pto_comm.remote_load(self, target, v, b, loc, sizes, self.tbuf(v.type))
            return
        if v.op == "create_tile":
            self.alloc(target, b, s.loc)
            return
        if v.op in ("tpop_from_aic", "tpop_from_aiv"):
            rep = self.buffer_of.get(target.name, target.name)
            val = b.pop(op.pto, self.fresh(rep), self.tbuf(target.type), v.attrs.get("split", 0), loc,
                        pipe_id=pto_pipes.pipe_id(self, v), valid=pto_pipes.pop_valid(self, target.type, b))
            self.values[rep] = (val, target.type)
            return
        spec = dialect.spec(op.pto)
        if spec.form == "view":
            self.view(target, v, spec, b, loc)
            return
        special = SECTION_C_FORMS.get(op.form) or CUBE_FORMS.get(op.form)
        if special is not None:
            special(self, target, v, b, loc)
            return
        if op.form not in pto_forms.FORMS:
            raise InternalError(f"codegen: no PTO form for op {v.op}")
        ins = pto_forms.operands(self, v, op.form, target.type, b)
        dst = Value(self.alloc(target, b, s.loc).name, self.tbuf(target.type))
        attrs = pto_forms.pto_attrs(op, v)
        outs = [dst]
        if spec.row_major:
            ins, outs = self.row_views(spec, ins, outs, b, loc, v)
        b.dps(op.pto, ins, outs, attrs, loc)

    def view(self, target: N.Var, v: N.OpCall, spec: dialect.OpSpec, b: Builder, loc) -> None:
        """``%t = pto.treshape %src : T1 -> T2``: the result names the source's bytes with its own type."""
        if target.name in self.tile_views:
            return   # hoisted: it already has its own tile_buf over the shared buffer
        src = self.tile_arg(v.args[0])
        ty = self.tbuf(target.type)
        valid = target.type.valid
        reshaped = (ty.rows, ty.cols, ty.blayout) != (src.type.rows, src.type.cols, src.type.blayout)
        if self.compat == "0.27" and not valid and reshaped:
            # ptoas 0.27 builds a dynamic-valid treshape result from the SOURCE's valid sizes, where
            # ptokit's library starts a view whole: a whole view of another shape states its valid
            # region in its type, the one form both read alike
            valid = (ty.rows, ty.cols)
        if valid and all(isinstance(d, int) for d in valid):
            # the view has no valid-size operands: a static valid region lives in its type
            ty = dataclasses.replace(ty, v_row=valid[0], v_col=valid[1])
        if self.compat == "0.27" and ty.v_row is None and reshaped:
            # a run-time valid region: 0.27 would start the view with the source's valid sizes, which need
            # not fit the view's shape (ptokit's library stops there; a device reads them as they are)
            raise ToolRefusal(f"'pto.treshape' to another shape with a run-time valid region ({target.name!r}, "
                              f"pl.{v.op}) is not written for ptoas 0.27: its C++ starts the view with the "
                              f"source's valid sizes, not the view's; kernel {self.fn.name} (compile without "
                              f"ptoas_compat for pypto HEAD's .pto)", v.loc)
        view = self.tile_views[target.name] = b.view(spec.name, self.fresh(target.name), src, ty, loc)
        if ty.v_row is None and valid:
            # a run-time valid region is set on the view itself: a dynamic-valid view starts whole in ptokit's
            # library and with the source's valid sizes in ptoas 0.27's C++
            dims = [self._valid_dim(d, b) for d in valid]
            b.plain(OPS["set_validshape"].pto, [view] + dims, loc)
            self.valid_values[view.name] = tuple(dims)

    def mscatter(self, e: N.OpCall, b: Builder):
        emit_mscatter(self, e, b)

    def new_dst(self, target: N.Var, b: Builder, loc) -> Value:
        """The result tile of an op, typed as its IR type says."""
        return Value(self.alloc(target, b, loc).name, self.tbuf(target.type))

    def store(self, e: N.OpCall, b: Builder, loc):
        tile, tensor, offsets = e.args
        src = self.tile_arg(tile)
        sizes = partition_sizes(e.attrs.get("shape"), tile.type, len(tensor.type.shape))
        pv = self.partition(tensor, offsets, sizes, b, e.loc)
        b.dps(OPS["store"].pto, [src], [pv], pto_forms.pto_attrs(OPS["store"], e), loc=self.srcloc(e.loc))

    # ------------------------------------------------------------ function
    def function(self, mod, abi: KernelABI) -> None:
        fn = self.fn
        params = []
        tensors = [p for p in fn.params if isinstance(p.type, TensorType)]
        scalars = [p for p in fn.params if isinstance(p.type, ScalarType)]
        used = _used_names(fn)
        bound = []    # (IR name or None, param index)
        for p in tensors:
            params.append((f"arg{len(params)}", P.PtrType(p.type.dtype.mlir)))
            bound.append((p.name, p.type))
        fifo = fn.attrs.get("fifo")
        gm_index = None
        if fifo and fifo.get("gm_pipe"):
            gm_index = len(params)
            params.append((f"arg{len(params)}", P.PtrType("ui8")))
            bound.append((None, None))
        for p in scalars:
            # a window's CommContext is a !pto.ptr<i64> (pypto HEAD's; read with pto.load_scalar, pto_comm.py)
            ty = P.PtrType("i64") if is_ctx_param(p) else P.ScalarType(p.type.dtype.mlir)
            params.append((f"arg{len(params)}", ty))
            bound.append((p.name, p.type))
        for d in abi.dyn_dims:
            params.append((f"arg{len(params)}", P.ScalarType("index")))
            bound.append((d.name, INDEX))
        sdma_index = None
        if abi.uses_sdma:     # pl.prefetch: the runtime's SDMA workspace (pto_prefetch.py)
            sdma_index = len(params)
            params.append((f"arg{len(params)}", P.PtrType("i8")))
            bound.append((None, None))
        spmd = []
        if abi.uses_block:
            spmd += ["__pypto_spmd_block_idx", "__pypto_spmd_block_num"]
        if abi.uses_subblock or abi.split_lane:
            spmd.append("__pypto_spmd_subblock_idx")
        params += [(n, P.ScalarType("i32")) for n in spmd]
        kind = "cube" if abi.core_type == "aic" else "vector"
        fb = add_function(mod, fn.name, params,
                          {"pto.kernel_kind": Attr.dialect("pto.kernel_kind", kind)})
        self.prologue, self.top = fb.prologue, fb.body
        for (ir_name, ir_type), val in zip(bound, fb.params):
            if ir_name is not None:
                self.values[ir_name] = (val, ir_type)
        self.spmd = {v.name: v for v in fb.params[len(bound):]}
        self.sdma_workspace = fb.params[sdma_index] if sdma_index is not None else None
        self.names_used.update(v[0].name for v in self.values.values())
        # tensor views
        for p in tensors:
            if p.name not in used:
                continue
            shape = [self._dim_value(d) for d in p.type.shape]
            lay = p.type.layout
            if lay is not None and lay.is_mx:
                # MX scales: the row stride is the stride of one row of 16 x 2 (ZZ) or 2 x 16 (NN) boxes
                # (16 * G, G = the scale groups of K); the assembler lays the window out in boxes
                groups = p.type.shape[1] if lay.value == "mx_a_zz" else p.type.shape[0]
                strides = [self.const(16 * groups, "index"), self.const(1, "index")]
            else:
                strides = self._strides(p.type.shape)
            self.views[p.name] = self.top.make_tensor_view(
                self.fresh(f"{p.name}_view"), self.values[p.name][0], shape, strides,
                _tv_type(len(shape), p.type.dtype), layout=lay.value if lay is not None else "nd",
                loc=self.srcloc(p.loc))
        if fifo and fifo.get("hand"):     # hand-written pipes: the body holds their setup (pto_pipes.py)
            self.gm_pipe = fb.params[gm_index] if gm_index is not None else None
        elif fifo:
            self.fifo_prologue(fifo, fb.params[gm_index] if gm_index is not None else None, fn.loc)
        self.body(fn.body, self.top)
        self.top.return_()

    def fifo_prologue(self, fifo: dict, gm_pipe: Optional[Value], loc):
        """Pipe plumbing of a split mixed kernel (docs/mixed-kernels.md)."""
        role = fifo["role"]
        size, num = fifo["slot_size"], fifo.get("local_slot_num", fifo["slot_num"])
        mask = fifo["dir_mask"]
        loc = self.srcloc(loc)
        bufs = {}
        # each direction's consumer reserves its slot buffer (C2V: the AIV side in Vec, V2C: the AIC side
        # in Mat); the producer imports it from its peer
        for bit, key, consumer, space, base in ((1, "buffer", "aiv", "vec", fifo["base"]),
                                                (2, "v2c_buffer", "aic", "mat", fifo.get("v2c_base", 0))):
            if not mask & bit:
                continue
            label = fifo[key]
            name = self.fresh(label)
            if role == consumer:
                bufs[bit] = self.top.reserve("pto.reserve_buffer", name, {
                    "name": Attr.string(label), "size": Attr.int(size * num),
                    "location": Attr.dialect("pto.address_space", space), "auto": Attr.bool(False),
                    "base": Attr.int(base)}, loc)
            else:
                bufs[bit] = self.top.reserve("pto.import_reserved_buffer", name, {
                    "name": Attr.string(label), "peer_func": Attr.symbol(fifo[consumer])}, loc)
        zero = self.const(0, "i32")
        operands = [("gm_slot_buffer", gm_pipe)] if gm_pipe is not None else []
        operands += [("c2v_consumer_buf", bufs.get(1, zero)), ("v2c_consumer_buf", bufs.get(2, zero))]
        attrs = {"dir_mask": Attr.int(mask), "slot_size": Attr.int(size)}
        if fifo.get("ptoas_compat") != "0.27":      # 0.27 refuses slot_num: it picks the counts itself
            attrs["slot_num"] = Attr.int(fifo["slot_num"])
        self.top.initialize_pipe(_PIPE_INIT[role], attrs, operands, loc)
        if role == "aiv" and not fifo.get("split") and not fifo.get("dual_lanes"):     # lane guards (a split kernel has none: both lanes work)
            lane = self.top.cast("arith.index_cast", self.spmd["__pypto_spmd_subblock_idx"], P.ScalarType("index"),
                                 self.temp())
            cond = self.fresh("is_lane0")
            self.lane_conds[("lane", 0)] = self.top.cmp("arith.cmpi", "eq", lane, self.const(0, "index"),
                                                         P.ScalarType("index"), cond)
            self.hoist_allocs()

    def hoist_allocs(self):
        """Lane-guarded bodies: every tile buffer is allocated up front, so a tile written under the
        guard can be read by later guarded code (scf.if regions do not export values).  A tile whose
        valid shape is known only at run time is allocated whole, and every writer of its buffer sets
        its own valid region (``pto.set_validshape``) before it writes."""
        self.hoisting = True
        try:
            self._hoist_allocs()
        finally:
            self.hoisting = False

    def _hoist_allocs(self):
        for s in N.walk_stmts(self.fn.body):
            if not isinstance(s, N.Assign) or not isinstance(s.targets[0].type, TileType):
                continue
            if isinstance(s.value, N.OpCall) and s.value.op == "tpop_from_aic":
                continue
            t = s.targets[0]
            if t.type.valid and not all(isinstance(d, int) for d in t.type.valid):
                # a run-time valid shape: allocated whole up front (its scalars are not known there), and
                # every write into its buffer sets the writer's valid region first (alloc)
                self.alloc(t, self.top, s.loc, static_valid=True)
                self.reset_valid.add(self.buffer_of.get(t.name, t.name))
                continue
            self.alloc(t, self.top, s.loc)

    def _dim_value(self, d) -> Value:
        if isinstance(d, int):
            return self.const(d, "index")
        if d in self.values:
            return self.values[d][0]
        tree = ast.parse(str(d), mode="eval").body
        return self._dim_ast(tree)

    def _dim_ast(self, node) -> Value:
        if isinstance(node, ast.Constant):
            return self.const(node.value, "index")
        if isinstance(node, ast.Name):
            return self.values[node.id][0]
        so = BY_PYTHON.get(type(node.op)) if isinstance(node, ast.BinOp) else None
        if so is not None and not so.compare and so.arith_int is not None:
            a = self._dim_ast(node.left)
            b = self._dim_ast(node.right)
            return self.top.arith(so.arith_int, [a, b], P.ScalarType("index"), self.temp())
        raise CompileError(f"unsupported dimension expression {ast.unparse(node)!r}", self.fn.loc)

    def _strides(self, shape) -> List[Value]:
        """Row-major strides as SSA values (products of dynamic dims are computed once)."""
        strides: List[Value] = []
        acc: object = 1                      # int while static, else a Value
        dims = list(reversed(shape))
        for k, d in enumerate(dims):
            strides.append(self.const(acc, "index") if isinstance(acc, int) else acc)
            if k == len(dims) - 1:
                break
            if isinstance(acc, int) and isinstance(d, int):
                acc = acc * d
            else:
                prev = self.const(acc, "index") if isinstance(acc, int) else acc
                cur = self._dim_value(d)
                if acc == 1:
                    acc = cur
                else:
                    acc = self.top.arith("arith.muli", [prev, cur], P.ScalarType("index"), self.temp())
        return list(reversed(strides))


def _valid_of(t: TileType) -> tuple:
    """A tile type's valid region, (rows, cols) when it has none of its own."""
    return tuple(t.valid) if t.valid else (t.rows, t.cols)


def _used_names(fn: N.Function) -> set:
    return {e.name for _, e in N.iter_exprs(fn.body) if isinstance(e, N.Var)}


def _common(a: DType, b: DType) -> DType:
    if a.is_float or b.is_float:
        return a if a.is_float else b
    if DType.INDEX in (a, b):
        return DType.INDEX
    return a if a.size >= b.size else b


def emit_pto(fns: List[N.Function], arch: str, with_loc: bool = True,
             compat: Optional[str] = None) -> Tuple[str, List[KernelABI]]:
    """One ``.pto`` module holding the given kernel functions. ``compat`` ("0.27"): the module is for that
    ptoas release; an op or element type it does not know is a CompileError at the DSL line."""
    mod = new_module({"pto.target_arch": Attr.string(arch)})
    abis = []
    for fn in fns:
        abi = kernel_abi(fn)
        abis.append(abi)
        em = _Emitter(fn, arch, with_loc, compat)
        em.function(mod, abi)
        if compat is not None:          # what the release cannot read at all comes before its verifier's rules
            _refuse_unknown(em, mod.funcs[-1], compat)
            pto_compat.place_for(mod.funcs[-1], compat)
        _refuse_broken_rules(em, mod.funcs[-1], arch, compat)
    return print_module(mod), abis


def _refuse_broken_rules(em: _Emitter, func, arch: str, compat: Optional[str]) -> None:
    """A program whose .pto the real assembler's verifier would refuse is refused here, at its DSL line."""
    for op, _role, message in pto_rules.violations(func, arch, compat):
        loc = em.origins.get(op.srcloc) if op.srcloc else None
        raise ToolRefusal(f"{message} (the real ptoas refuses this .pto; kernel {em.fn.name})",
                           loc if loc is not None else em.fn.loc)


def _refuse_unknown(em: _Emitter, func, compat: str) -> None:
    for op, what in pto_compat.unknown_to(func, compat):
        loc = em.origins.get(op.srcloc) if op is not None and op.srcloc else None
        raise ToolRefusal(f"{what} is not known to ptoas {compat}: kernel {em.fn.name} cannot be written for "
                           f"ptoas_compat=\"{compat}\" (compile without ptoas_compat for pypto HEAD's .pto)",
                           loc if loc is not None else em.fn.loc)


__all__ = ["emit_pto", "kernel_abi", "tile_buf", "MemorySpace"]
